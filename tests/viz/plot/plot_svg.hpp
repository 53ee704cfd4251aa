// Reading back the SVG that PLplot's svg driver writes, for the plot tests: its
// polylines (stroke, fill, points) and its texts, with PLplot's character references
// decoded and a superscript written as "^" then its text ("10^-1").
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace plot_test {

// Whether this nabla draws line plots and histograms (it was built with PLplot). When
// it was not (NABLA_PLPLOT=OFF, as on the GPU machines), says so in a doctest MESSAGE,
// so that a test case that then returns shows that it skipped its drawing checks:
//   if (!plot_test::can_draw()) return;
bool can_draw();

struct Polyline {
  std::string stroke, fill;  // "#1F77B4", or "none"
  std::vector<std::pair<double, double>> points;
  double min_y() const;
  double max_y() const;
};

struct PlotSvg {
  std::vector<Polyline> polylines;
  std::vector<std::string> texts;
  std::vector<std::string> text_fills;  // each text's fill colour


  explicit PlotSvg(const std::string& svg);
  int count_stroked(const std::string& colour) const;
  std::vector<Polyline> filled(const std::string& colour) const;
  bool has_text(const std::string& text) const;
  // The texts drawn in `colour` (PLplot draws a point symbol as a text).
  int count_filled_texts(const std::string& colour) const;
};

}  // namespace plot_test
