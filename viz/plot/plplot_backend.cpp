// The drawing backend of viz/plot on PLplot (libplplot): line plots and histograms as
// SVG (PLplot's svg driver, written into memory) or as RGB pixels (its mem driver).
// The only file of nabla that calls PLplot.
//
// Note [PLplot streams]
// PLplot keeps its settings (device, colours, viewport, fonts) in global "streams".
// Every drawing makes a stream of its own (plmkstrm) and ends it (plend1) in a
// destructor, so a figure starts from PLplot's defaults and leaves nothing behind,
// even when drawing throws. A mutex makes drawings take turns, as PLplot's globals
// require. PLplot stops the process on a fatal error (plexit calls exit); the exit
// handler turns that into a nabla::Error instead, and the abort handler collects
// PLplot's non-fatal complaints, which fail the drawing once its stream has ended.
// The model is checked before drawing (figure.cpp, builtins_plot.cpp), so neither
// handler should run; they are the last line of defence.
#include <plplot.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <mutex>

#include "tensor/error.hpp"
#include "viz/plot/plot_backend.hpp"

namespace nabla::viz::plot::backend {

namespace {

// matplotlib's default colour cycle ("tab10"), series i drawn in kPalette[i % 10].
constexpr std::array<std::array<int, 3>, 10> kPalette{{{31, 119, 180},
                                                       {255, 127, 14},
                                                       {44, 160, 44},
                                                       {214, 39, 40},
                                                       {148, 103, 189},
                                                       {140, 86, 75},
                                                       {227, 119, 194},
                                                       {127, 127, 127},
                                                       {188, 189, 34},
                                                       {23, 190, 207}}};
constexpr PLINT kBackground = 0, kInk = 1, kFirstSeries = 2;
constexpr double kHistogramAlpha = 0.6;

std::mutex plplot_mutex;
std::string pending_complaints;  // PLplot's aborts during the current drawing

int throw_on_exit(PLCHAR_VECTOR message) { throw Error(std::string("plot: PLplot failed: ") + message); }
void collect_abort(PLCHAR_VECTOR message) {
  if (!pending_complaints.empty()) pending_complaints += "; ";
  pending_complaints += message;
}

// One PLplot stream for one drawing (Note [PLplot streams]).
class Stream {
 public:
  Stream() : lock_(plplot_mutex) {
    pending_complaints.clear();
    plsexit(throw_on_exit);
    plsabort(collect_abort);
    PLINT id = -1;
    plmkstrm(&id);
    if (id < 0) throw Error("plot: PLplot has no free stream");
  }
  ~Stream() { plend1(); }
  // The complaints PLplot made, as an error; call after the stream has ended.
  static void check_complaints() {
    if (!pending_complaints.empty()) throw Error("plot: PLplot: " + pending_complaints);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

 private:
  std::lock_guard<std::mutex> lock_;
};

// PLplot reads '#' as the start of an escape ("#u" superscript); "##" is a '#'.
std::string plplot_text(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '#' ? std::string("##") : std::string(1, c);
  return out;
}

std::string shortest(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

double axis_value(double v, bool log) { return log ? std::log10(v) : v; }

struct Window {
  double xmin = std::numeric_limits<double>::infinity(), xmax = -xmin, ymin = xmin, ymax = -xmin;
  void add(double x, double y) {
    xmin = std::min(xmin, x), xmax = std::max(xmax, x), ymin = std::min(ymin, y), ymax = std::max(ymax, y);
  }
};

// [lo, hi] with matplotlib's 5% margins, made drawable (as matplotlib's nonsingular):
// a span too small for PLplot's tick labels to tell the ends apart (PLplot can loop
// for minutes on 1 to 1 + 2e-16) is widened to 5% of the values' size (+-0.5 about 0;
// a decade on a log axis); a span past the largest double is an error.
std::pair<double, double> axis_limits(double lo, double hi, const char* axis) {
  if (!(lo <= hi)) return {0, 1};  // nothing drawable: an empty frame
  double size = std::max(std::abs(lo), std::abs(hi));
  if (hi - lo <= 1e-9 * size || hi == lo) {
    double centre = lo / 2 + hi / 2, half = size == 0 ? 0.5 : 0.05 * size;
    lo = centre - half, hi = centre + half;
  }
  double margin = 0.05 * hi - 0.05 * lo;  // two products: no overflow before the check
  if (!std::isfinite(hi - lo) || !std::isfinite(lo - margin) || !std::isfinite(hi + margin))
    throw Error(std::string("plot: cannot draw ") + axis + " values that far apart: from " + shortest(lo) + " to " +
                shortest(hi));
  return {lo - margin, hi + margin};
}

// The data window in axis units (log10 on a log axis): every drawable point of every
// line, every bar of every histogram (from 0, or from half the smallest count on a log y).
Window data_window(const Figure& f) {
  Window w;
  double smallest_count = std::numeric_limits<double>::infinity();
  for (const Series& s : f.series)
    if (s.kind == Series::Kind::Histogram)
      for (double c : s.ys)
        if (c > 0) smallest_count = std::min(smallest_count, c);
  for (const Series& s : f.series) {
    if (s.kind == Series::Kind::Line) {
      for (size_t i = 0; i < s.ys.size(); ++i)
        if (drawable(s.xs[i], s.ys[i], f.logx, f.logy))
          w.add(axis_value(s.xs[i], f.logx), axis_value(s.ys[i], f.logy));
      continue;
    }
    double bottom = f.logy ? (std::isfinite(smallest_count) ? smallest_count / 2 : 0.5) : 0.0;
    for (size_t k = 0; k < s.ys.size(); ++k)
      for (double x : {s.xs[k], s.xs[k + 1]})
        if (!f.logx || x > 0)
          for (double y : {bottom, std::max(s.ys[k], bottom)}) w.add(axis_value(x, f.logx), axis_value(y, f.logy));
  }
  auto [x0, x1] = axis_limits(w.xmin, w.xmax, "x");
  auto [y0, y1] = axis_limits(w.ymin, w.ymax, "y");
  // Histogram bars stand on the axis: no margin below a linear y of 0.
  if (!f.logy && w.ymin == 0 && w.ymax > 0) y0 = 0;
  return {x0, x1, y0, y1};
}

void set_colours(const Figure& f) {
  plscmap0n(static_cast<PLINT>(kFirstSeries + std::max<size_t>(f.series.size(), 1)));
  plscol0(kBackground, 255, 255, 255);
  plscol0(kInk, 0, 0, 0);
  for (size_t i = 0; i < f.series.size(); ++i) {
    const auto& rgb = kPalette[i % kPalette.size()];
    double alpha = f.series[i].kind == Series::Kind::Histogram ? kHistogramAlpha : 1.0;
    plscol0a(static_cast<PLINT>(kFirstSeries + i), rgb[0], rgb[1], rgb[2], alpha);
  }
}

// One line: a polyline for each run of drawable points, a dot for a run of one.
void draw_line(const Figure& f, const Series& s) {
  for (auto [begin, end] : finite_runs(s.xs, s.ys, f.logx, f.logy)) {
    std::vector<PLFLT> x, y;
    for (size_t i = begin; i < end; ++i) x.push_back(axis_value(s.xs[i], f.logx)), y.push_back(axis_value(s.ys[i], f.logy));
    if (x.size() == 1) plpoin(1, x.data(), y.data(), 1);
    else plline(static_cast<PLINT>(x.size()), x.data(), y.data());
  }
}

// One histogram: a filled bar for each bin with a count, standing on the window's bottom.
void draw_histogram(const Figure& f, const Series& s, double bottom) {
  for (size_t k = 0; k < s.ys.size(); ++k) {
    if (s.ys[k] <= 0 || (f.logx && s.xs[k] <= 0)) continue;
    double x0 = axis_value(s.xs[k], f.logx), x1 = axis_value(s.xs[k + 1], f.logx), top = axis_value(s.ys[k], f.logy);
    std::array<PLFLT, 4> x{x0, x0, x1, x1}, y{bottom, top, top, bottom};
    plfill(4, x.data(), y.data());
  }
}

// The legend, top right inside the axes. Without hardware fill (Note in draw_figure)
// pllegend's fills would be hatched, so there a histogram's entry is a thick line and
// the legend has no background.
void draw_legend(const Figure& f, bool hardware_fill) {
  std::vector<PLINT> opts, colours, text_colours, patterns, styles;
  std::vector<PLFLT> scales, box_widths, line_widths;
  std::vector<const char*> texts;
  std::vector<std::string> labels;
  for (const Series& s : f.series) labels.push_back(plplot_text(s.label));
  for (size_t i = 0; i < f.series.size(); ++i) {
    if (labels[i].empty()) continue;
    bool line = f.series[i].kind == Series::Kind::Line;
    opts.push_back(line || !hardware_fill ? PL_LEGEND_LINE : PL_LEGEND_COLOR_BOX);
    colours.push_back(static_cast<PLINT>(kFirstSeries + i));
    text_colours.push_back(kInk);
    texts.push_back(labels[i].c_str());
    patterns.push_back(0), styles.push_back(1);
    scales.push_back(0.8), box_widths.push_back(1.0), line_widths.push_back(line ? 1.5 : 6.0);
  }
  if (texts.empty()) return;
  PLFLT width = 0, height = 0;
  PLINT opt = PL_LEGEND_BOUNDING_BOX | (hardware_fill ? PL_LEGEND_BACKGROUND : 0);
  pllegend(&width, &height, opt, PL_POSITION_TOP | PL_POSITION_RIGHT | PL_POSITION_INSIDE, 0.02, 0.02, 0.08,
           kBackground, kInk, 1, 0, 0, static_cast<PLINT>(texts.size()), opts.data(), 1.0, 0.9, 2.0, 0.0,
           text_colours.data(), texts.data(), colours.data(), patterns.data(), scales.data(), box_widths.data(),
           colours.data(), styles.data(), line_widths.data(), nullptr, nullptr, nullptr, nullptr);
}

// Everything after the device is set: axes, series, labels, legend. hardware_fill:
// whether the device fills polygons itself.
void draw_figure(const Figure& f, bool hardware_fill) {
  set_colours(f);
  plinit();
  // The mem driver cannot fill a polygon itself, and PLplot's software fill would
  // cross-hatch it (with a warning on stderr): there polygons (bars, the legend's
  // background) are filled with horizontal lines closer than a pixel, which is solid.
  if (!hardware_fill) {
    PLINT angle = 0, spacing_micrometres = 150;  // a pixel of the mem driver is about 280
    plpat(1, &angle, &spacing_micrometres);
  }
  pladv(0);
  plvsta();
  Window w = data_window(f);
  plwind(w.xmin, w.xmax, w.ymin, w.ymax);
  plcol0(kInk);
  plwidth(1.0);
  plbox(f.logx ? "bcnstl" : "bcnst", 0, 0, f.logy ? "bcnstvl" : "bcnstv", 0, 0);
  plwidth(1.5);
  for (size_t i = 0; i < f.series.size(); ++i) {
    plcol0(static_cast<PLINT>(kFirstSeries + i));
    if (f.series[i].kind == Series::Kind::Line) draw_line(f, f.series[i]);
    else draw_histogram(f, f.series[i], w.ymin);
  }
  plcol0(kInk);
  pllab(plplot_text(f.xlabel).c_str(), plplot_text(f.ylabel).c_str(), plplot_text(f.title).c_str());
  draw_legend(f, hardware_fill);
}

}  // namespace

bool available(std::string*) { return true; }

std::string draw_svg(const Figure& f) {
  char* buffer = nullptr;
  size_t size = 0;
  // Freed last, after the stream has ended and PLplot has closed the memory stream,
  // whether the drawing succeeded or threw.
  std::unique_ptr<char*, void (*)(char**)> free_buffer(&buffer, [](char** p) { std::free(*p); });
  FILE* memory = open_memstream(&buffer, &size);
  if (!memory) throw Error("plot: cannot open a memory stream for the SVG");
  {
    Stream stream;
    plsdev("svg");
    plsfile(memory);  // PLplot closes it when the stream ends
    plspage(0, 0, static_cast<PLINT>(f.width), static_cast<PLINT>(f.height), 0, 0);
    draw_figure(f, true);
  }
  Stream::check_complaints();
  return std::string(buffer ? buffer : "", size);
}

std::vector<uint8_t> draw_rgb(const Figure& f) {
  std::vector<uint8_t> pixels(static_cast<size_t>(f.width * f.height * 3), 255);  // mem draws over what is there
  {
    Stream stream;
    plsdev("mem");
    plsmem(static_cast<PLINT>(f.width), static_cast<PLINT>(f.height), pixels.data());
    draw_figure(f, false);
  }
  Stream::check_complaints();
  return pixels;
}

}  // namespace nabla::viz::plot::backend
