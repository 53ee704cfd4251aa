// The figure model behind `import plot`: what a figure shows (line series, histograms,
// or one image grid), its titles and axes, and the checks and data preparation that
// do not depend on a drawing library. The drawing itself is plot_backend.hpp's; the
// language side (interp/builtins/builtins_plot.cpp) builds figures and never calls
// PLplot. This file must not know about the interpreter's values.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nabla::viz::plot {

// One drawn series. Lines keep their points as given (NaN and inf included: the
// drawing breaks the line there, see finite_runs); histograms keep their bins.
struct Series {
  enum class Kind { Line, Histogram };
  Kind kind = Kind::Line;
  std::string label;       // "" when not in the legend
  std::vector<double> xs;  // Line: x of each point; Histogram: the bin edges (bins + 1)
  std::vector<double> ys;  // Line: y of each point; Histogram: the count of each bin
};

// An image grid (make_grid): 8-bit pixels, row-major, channels interleaved.
struct ImageGrid {
  int64_t width = 0, height = 0;
  int channels = 1;  // 1 gray, 3 RGB
  std::vector<uint8_t> pixels;
};

struct Figure {
  std::string title, xlabel, ylabel;
  bool logx = false, logy = false;
  int64_t width = 640, height = 480;  // pixels of the PNG; points of the SVG
  std::vector<Series> series;
  std::optional<ImageGrid> image;  // set: the figure is this image grid alone
};

// What a series had to leave out to be drawn, for the caller's warning.
struct Dropped {
  int64_t not_finite = 0;    // NaN or inf in x or y
  int64_t non_positive = 0;  // finite, but <= 0 on a log axis
  int64_t total() const { return not_finite + non_positive; }
};

// The points a line's x/y pair can be drawn at: finite, and positive on a log axis.
bool drawable(double x, double y, bool logx, bool logy);

// The counts of points a line series loses to drawable().
Dropped count_dropped(const std::vector<double>& xs, const std::vector<double>& ys, bool logx, bool logy);

// The maximal runs [begin, end) of consecutive drawable points: the pieces a line with
// gaps is drawn as. A run of one point is kept (drawn as a dot).
std::vector<std::pair<size_t, size_t>> finite_runs(const std::vector<double>& xs, const std::vector<double>& ys,
                                                   bool logx, bool logy);

// numpy.histogram: `bins` equal bins over [lo, hi] (default: the finite values' min and
// max; a single value v gets [v - 0.5, v + 0.5]), the last bin closed on the right;
// values outside the range and non-finite values are not counted. Fails (nabla::Error)
// for bins < 1, lo >= hi, or no finite value when the range is not given.
Series histogram(const std::vector<double>& values, int64_t bins, std::optional<std::pair<double, double>> range,
                 std::string label);

// torchvision.utils.make_grid, with its defaults: `images` holds n images of
// `channels` (1 or 3) x height x width, planar; nrow images a row, `padding` pixels of
// `pad_value` between and around them; normalize maps [lo, hi] (value_range, else the
// min and max of all values) to [0, 1]; values are then clamped to [0, 1] and scaled to
// 0..255. NaN becomes 0.
struct GridOptions {
  int64_t nrow = 8, padding = 2;
  double pad_value = 0;
  bool normalize = false;
  std::optional<std::pair<double, double>> value_range;
};
ImageGrid make_grid(const std::vector<double>& images, int64_t n, int channels, int64_t height, int64_t width,
                    const GridOptions& options);

// "figure 'loss' 640x480: 2 lines (train, test), log y" (what print shows).
std::string describe(const Figure& figure);

// The format a path's extension names: "svg" or "png"; an error for any other.
std::string format_of_path(const std::string& path, const std::string& what);

}  // namespace nabla::viz::plot
