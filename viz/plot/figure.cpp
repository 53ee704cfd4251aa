// The figure model's checks and data preparation (figure.hpp): no drawing here.
#include "viz/plot/figure.hpp"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <limits>

#include "tensor/error.hpp"

namespace nabla::viz::plot {

bool drawable(double x, double y, bool logx, bool logy) {
  if (!std::isfinite(x) || !std::isfinite(y)) return false;
  return (!logx || x > 0) && (!logy || y > 0);
}

Dropped count_dropped(const std::vector<double>& xs, const std::vector<double>& ys, bool logx, bool logy) {
  Dropped d;
  for (size_t i = 0; i < ys.size(); ++i) {
    if (!std::isfinite(xs[i]) || !std::isfinite(ys[i])) ++d.not_finite;
    else if (!drawable(xs[i], ys[i], logx, logy)) ++d.non_positive;
  }
  return d;
}

std::vector<std::pair<size_t, size_t>> finite_runs(const std::vector<double>& xs, const std::vector<double>& ys,
                                                   bool logx, bool logy) {
  std::vector<std::pair<size_t, size_t>> runs;
  size_t i = 0, n = ys.size();
  while (i < n) {
    while (i < n && !drawable(xs[i], ys[i], logx, logy)) ++i;
    size_t begin = i;
    while (i < n && drawable(xs[i], ys[i], logx, logy)) ++i;
    if (i > begin) runs.emplace_back(begin, i);
  }
  return runs;
}

namespace {

std::string shortest(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

// The finite values' [min, max], widened to [v - 0.5, v + 0.5] when they are one value
// (numpy's rule); nullopt when there is none.
std::optional<std::pair<double, double>> finite_range(const std::vector<double>& values) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (double v : values)
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  if (lo > hi) return std::nullopt;
  if (lo == hi) return std::pair{lo - 0.5, hi + 0.5};
  return std::pair{lo, hi};
}

}  // namespace

Series histogram(const std::vector<double>& values, int64_t bins, std::optional<std::pair<double, double>> range,
                 std::string label) {
  if (bins < 1) throw Error("hist(): bins must be at least 1, got " + std::to_string(bins));
  if (!range) range = finite_range(values);
  if (!range) throw Error("hist(): no finite value to count (" + std::to_string(values.size()) + " values)");
  auto [lo, hi] = *range;
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi) || !std::isfinite(hi - lo))
    throw Error("hist(): range must be finite with low < high, and high - low finite, got (" + shortest(lo) + ", " +
                shortest(hi) + ")");
  Series s{Series::Kind::Histogram, std::move(label), {}, std::vector<double>(static_cast<size_t>(bins), 0.0)};
  for (int64_t k = 0; k <= bins; ++k) s.xs.push_back(lo + (hi - lo) * static_cast<double>(k) / bins);
  for (double v : values) {
    if (!std::isfinite(v) || v < lo || v > hi) continue;
    auto k = static_cast<int64_t>((v - lo) / (hi - lo) * static_cast<double>(bins));
    s.ys[static_cast<size_t>(std::min(k, bins - 1))] += 1;  // v == hi goes in the last bin
  }
  return s;
}

namespace {

// The [lo, hi] that normalize maps to [0, 1]: value_range, else the finite values'.
std::pair<double, double> normalize_range(const std::vector<double>& images, const GridOptions& options) {
  if (options.value_range) return *options.value_range;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (double v : images)
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  return lo > hi ? std::pair{0.0, 1.0} : std::pair{lo, hi};
}

uint8_t to_byte(double v) {
  if (std::isnan(v)) return 0;
  return static_cast<uint8_t>(std::lround(std::clamp(v, 0.0, 1.0) * 255.0));
}

}  // namespace

ImageGrid make_grid(const std::vector<double>& images, int64_t n, int channels, int64_t height, int64_t width,
                    const GridOptions& options) {
  if (n < 1 || height < 1 || width < 1) throw Error("image_grid(): no image to draw (an empty tensor)");
  if (options.nrow < 1) throw Error("image_grid(): nrow must be at least 1, got " + std::to_string(options.nrow));
  if (options.padding < 0) throw Error("image_grid(): padding must not be negative");
  double lo = 0, scale = 1;
  if (options.normalize) {
    auto [a, b] = normalize_range(images, options);
    lo = a, scale = 1.0 / std::max(b - a, 1e-5);  // torchvision's clamp of the divisor
  }
  int64_t cols = std::min(options.nrow, n), rows = (n + cols - 1) / cols, pad = options.padding;
  ImageGrid g{cols * (width + pad) + pad, rows * (height + pad) + pad, channels, {}};
  g.pixels.assign(static_cast<size_t>(g.width * g.height * channels), to_byte(options.pad_value));
  for (int64_t k = 0; k < n; ++k) {
    int64_t top = (k / cols) * (height + pad) + pad, left = (k % cols) * (width + pad) + pad;
    for (int c = 0; c < channels; ++c)
      for (int64_t y = 0; y < height; ++y)
        for (int64_t x = 0; x < width; ++x) {
          double v = images[static_cast<size_t>(((k * channels + c) * height + y) * width + x)];
          g.pixels[static_cast<size_t>(((top + y) * g.width + left + x) * channels + c)] = to_byte((v - lo) * scale);
        }
  }
  return g;
}

std::string describe(const Figure& figure) {
  auto size = [](int64_t w, int64_t h) { return std::to_string(w) + "x" + std::to_string(h); };
  std::string out = "<figure";
  if (!figure.title.empty()) out += " '" + figure.title + "'";
  out += ' ';
  out += size(figure.width, figure.height);
  if (figure.image) return out + ": image grid " + size(figure.image->width, figure.image->height) + ">";
  int64_t lines = 0, hists = 0;
  std::string labels;
  for (const Series& s : figure.series) {
    (s.kind == Series::Kind::Line ? lines : hists) += 1;
    if (s.label.empty()) continue;
    if (!labels.empty()) labels += ", ";
    labels += s.label;
  }
  out += ": " + std::to_string(lines) + (lines == 1 ? " line" : " lines");
  if (hists) out += ", " + std::to_string(hists) + (hists == 1 ? " histogram" : " histograms");
  if (!labels.empty()) out += " (" + labels + ")";
  if (figure.logx) out += ", log x";
  if (figure.logy) out += ", log y";
  return out + ">";
}

std::string format_of_path(const std::string& path, const std::string& what) {
  size_t dot = path.rfind('.'), slash = path.rfind('/');
  std::string ext = dot == std::string::npos || (slash != std::string::npos && dot < slash) ? "" : path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext == "svg" || ext == "png") return ext;
  throw Error(what + ": cannot tell the format of '" + path + "': the extension must be .svg or .png" +
              (ext.empty() ? "" : ", got ." + ext));
}

}  // namespace nabla::viz::plot
