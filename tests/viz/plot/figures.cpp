// Figures drawn by viz/plot with PLplot, read back: a line is one polyline per run of
// drawable points (a NaN splits it), legend, titles and log ticks are there as text,
// histogram bars match the counts, PNGs decode to the size asked and are not blank,
// and PLplot's state does not leak from one figure into the next.
#include <doctest/doctest.h>
#include <zlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "plot_svg.hpp"
#include "temp_dir.hpp"
#include "tensor/error.hpp"
#include "viz/plot/plot_backend.hpp"

namespace vp = nabla::viz::plot;
using plot_test::PlotSvg;

namespace {

constexpr const char* kFirstColour = "#1F77B4";  // tab10's first: series 0
constexpr const char* kSecondColour = "#FF7F0E";
const double kNaN = std::nan("");

vp::Series line(std::vector<double> ys, std::string label = "") {
  std::vector<double> xs(ys.size());
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<double>(i);
  return {vp::Series::Kind::Line, std::move(label), std::move(xs), std::move(ys)};
}

PlotSvg drawn(const vp::Figure& f) { return PlotSvg(vp::render_figure(f, "svg")); }

uint32_t big_endian(const std::string& s, size_t at) {
  return uint32_t(uint8_t(s[at])) << 24 | uint32_t(uint8_t(s[at + 1])) << 16 | uint32_t(uint8_t(s[at + 2])) << 8 |
         uint8_t(s[at + 3]);
}

// The RGB samples of a PNG that encode_png wrote (one IDAT, filter 0 on every row).
std::vector<uint8_t> png_pixels(const std::string& png, uint32_t width, uint32_t height) {
  size_t idat = png.find("IDAT");
  REQUIRE(idat != std::string::npos);
  uint32_t length = big_endian(png, idat - 4);
  std::vector<uint8_t> raw((width * 3 + 1) * height);
  uLongf size = raw.size();
  REQUIRE(uncompress(raw.data(), &size, reinterpret_cast<const Bytef*>(png.data() + idat + 4), length) == Z_OK);
  REQUIRE(size == raw.size());
  std::vector<uint8_t> rgb;
  for (uint32_t y = 0; y < height; ++y) rgb.insert(rgb.end(), raw.begin() + y * (width * 3 + 1) + 1, raw.begin() + (y + 1) * (width * 3 + 1));
  return rgb;
}

}  // namespace

TEST_CASE("plot: a line is one polyline, and a NaN splits it into two with no segment to the bad point") {
  if (!plot_test::can_draw()) return;
  vp::Figure f;
  f.series = {line({1, 2, 3, 4, 5})};
  CHECK(drawn(f).count_stroked(kFirstColour) == 1);
  f.series = {line({1, 2, kNaN, 4, 5}), line({5, 4, 3})};
  PlotSvg svg = drawn(f);
  CHECK(svg.count_stroked(kFirstColour) == 2);
  CHECK(svg.count_stroked(kSecondColour) == 1);
  for (const auto& p : svg.polylines)
    if (p.stroke == kFirstColour) CHECK(p.points.size() == 2);  // (0, 1)-(1, 2) and (3, 4)-(4, 5)
  f.series = {line({1, 2, std::numeric_limits<double>::infinity(), 3, kNaN, 5, 6})};
  PlotSvg dotted = drawn(f);
  CHECK(dotted.count_stroked(kFirstColour) == 2);  // the lone point 3 is a dot (a symbol), not a polyline
  CHECK(dotted.count_filled_texts(kFirstColour) == 1);
}

TEST_CASE("plot: title, axis labels and the legend's labels are in the SVG; an unlabelled series is not in the legend") {
  if (!plot_test::can_draw()) return;
  vp::Figure f{.title = "loss curve", .xlabel = "step", .ylabel = "loss"};
  f.series = {line({3, 2, 1}, "train"), line({3, 2.5, 2}, "test#1"), line({1, 1, 1})};
  PlotSvg svg = drawn(f);
  for (const char* text : {"loss curve", "step", "loss", "train", "test#1"}) CHECK_MESSAGE(svg.has_text(text), text);
  // Each labelled series has one more polyline, its legend sample; the third has none.
  CHECK(svg.count_stroked(kFirstColour) == 2);
  CHECK(svg.count_stroked(kSecondColour) == 2);
  CHECK(svg.count_stroked("#2CA02C") == 1);
}

TEST_CASE("plot: a log axis is labelled in powers of ten, and the next figure's axes are linear again") {
  if (!plot_test::can_draw()) return;
  vp::Figure f{.logy = true};
  f.series = {line({1, 0.1, 0.01, 0.001})};
  PlotSvg svg = drawn(f);
  for (const char* tick : {"10^0", "10^-1", "10^-2", "10^-3"}) CHECK_MESSAGE(svg.has_text(tick), tick);
  vp::Figure g;
  g.series = {line({1, 0.1, 0.01, 0.001})};
  PlotSvg linear = drawn(g);
  for (const std::string& t : linear.texts) CHECK_MESSAGE(t.find('^') == std::string::npos, t);
  CHECK(linear.has_text("0.2"));
}

TEST_CASE("plot: histogram bars are one filled polyline per non-empty bin, as tall as their counts") {
  if (!plot_test::can_draw()) return;
  std::vector<double> values = {0, 0.1, 0.2, 1.5, 2.5, 2.6, 2.7, 2.8, 3.0, kNaN};
  vp::Series h = vp::histogram(values, 3, std::nullopt, "");
  CHECK(h.ys == std::vector<double>{3, 1, 5});  // [0, 1), [1, 2), [2, 3]: numpy's bins
  h = vp::histogram({0, 0.1, 2.5, 2.6}, 3, std::nullopt, "");
  vp::Figure f;
  f.series = {h};
  std::vector<plot_test::Polyline> bars = drawn(f).filled(kFirstColour);
  REQUIRE(bars.size() == 2);  // the empty middle bin has no bar
  double bottom = bars[0].min_y();
  CHECK(bars[1].min_y() == doctest::Approx(bottom));
  CHECK((bars[0].max_y() - bottom) == doctest::Approx(bars[1].max_y() - bottom));  // 2 and 2
  f.series = {vp::histogram({0, 0, 0, 1}, 2, std::nullopt, "")};
  bars = drawn(f).filled(kFirstColour);
  REQUIRE(bars.size() == 2);
  CHECK((bars[0].max_y() - bars[0].min_y()) == doctest::Approx(3 * (bars[1].max_y() - bars[1].min_y())).epsilon(0.01));
}

TEST_CASE("plot: histogram bins follow numpy, range and errors") {
  CHECK(vp::histogram({0, 1, 2, 3}, 3, std::nullopt, "").ys == std::vector<double>{1, 1, 2});
  CHECK(vp::histogram({-5, 0, 0.5, 1, 7}, 2, std::pair{0.0, 1.0}, "").ys == std::vector<double>{1, 2});
  vp::Series one = vp::histogram({4, 4}, 1, std::nullopt, "");
  CHECK(one.xs == std::vector<double>{3.5, 4.5});
  CHECK_THROWS_WITH_AS(vp::histogram({kNaN}, 3, std::nullopt, ""), doctest::Contains("no finite value"), nabla::Error);
  CHECK_THROWS_WITH_AS(vp::histogram({1}, 0, std::nullopt, ""), doctest::Contains("bins must be at least 1"), nabla::Error);
  CHECK_THROWS_WITH_AS(vp::histogram({1}, 2, std::pair{1.0, 1.0}, ""), doctest::Contains("low < high"), nabla::Error);
}

TEST_CASE("plot: drawable points, dropped counts and runs") {
  std::vector<double> xs = {0, 1, 2, 3, 4, 5}, ys = {1, -1, kNaN, 2, 0, 3};
  vp::Dropped d = vp::count_dropped(xs, ys, false, true);
  CHECK(d.not_finite == 1);
  CHECK(d.non_positive == 2);
  using Runs = std::vector<std::pair<size_t, size_t>>;
  CHECK(vp::finite_runs(xs, ys, false, true) == Runs{{0, 1}, {3, 4}, {5, 6}});
  CHECK(vp::finite_runs(xs, ys, false, false) == Runs{{0, 2}, {3, 6}});
  CHECK(vp::count_dropped(xs, ys, true, false).non_positive == 1);  // x = 0 on a log x
}

TEST_CASE("plot: a PNG has the size asked, decodes, and is not blank") {
  if (!plot_test::can_draw()) return;
  vp::Figure f{.title = "t", .width = 300, .height = 200};
  f.series = {line({1, 3, 2}, "a"), vp::histogram({1, 2, 2}, 2, std::nullopt, "b")};
  std::string png = vp::render_figure(f, "png");
  REQUIRE(png.size() > 33);
  CHECK(png.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
  CHECK(png.compare(12, 4, "IHDR") == 0);
  CHECK(big_endian(png, 16) == 300);
  CHECK(big_endian(png, 20) == 200);
  std::vector<uint8_t> rgb = png_pixels(png, 300, 200);
  size_t ink = 0, blue = 0;
  for (size_t i = 0; i < rgb.size(); i += 3) {
    ink += rgb[i] != 255 || rgb[i + 1] != 255 || rgb[i + 2] != 255;
    blue += rgb[i] == 31 && rgb[i + 1] == 119 && rgb[i + 2] == 180;  // the first series' colour
  }
  CHECK(ink > 1000);
  CHECK(blue > 20);
  CHECK(ink < rgb.size() / 3 / 2);  // white background
}

TEST_CASE("plot: every drawing ends its PLplot stream (more figures than PLplot has streams)") {
  if (!plot_test::can_draw()) return;
  vp::Figure f;
  f.series = {line({1, 2})};
  for (int k = 0; k < 120; ++k) REQUIRE(vp::render_figure(f, k % 2 ? "svg" : "png").size() > 100);
}

TEST_CASE("plot: image grids lay images out as torchvision's make_grid") {
  // 3 gray 2x2 images, 2 a row, 1 pixel of padding: 7x7, padding 0.
  std::vector<double> images = {0, 0.25, 0.5, 1, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5};
  vp::ImageGrid g = vp::make_grid(images, 3, 1, 2, 2, {.nrow = 2, .padding = 1});
  CHECK(g.width == 7);
  CHECK(g.height == 7);
  auto at = [&](int x, int y) { return g.pixels[static_cast<size_t>(y * g.width + x)]; };
  CHECK(at(0, 0) == 0);
  CHECK(at(1, 1) == 0);
  CHECK(at(2, 1) == 64);  // 0.25 * 255, rounded
  CHECK(at(2, 2) == 255);
  CHECK(at(4, 1) == 255);  // the second image, right of the first
  CHECK(at(1, 4) == 128);  // the third, below the first
  CHECK(at(4, 4) == 0);    // no fourth image: padding
  vp::ImageGrid n = vp::make_grid({-2, 2}, 1, 1, 1, 2, {.padding = 0, .normalize = true});
  CHECK(n.pixels == std::vector<uint8_t>{0, 255});
  CHECK_THROWS_WITH_AS(vp::make_grid({}, 0, 1, 1, 1, {}), doctest::Contains("no image"), nabla::Error);
}

TEST_CASE("plot: saving picks the format by extension; a bad extension or folder writes nothing") {
  if (!plot_test::can_draw()) return;
  nabla::testing::TempDir dir("nabla_plot");
  vp::Figure f;
  f.series = {line({1, 2, 3})};
  std::string svg = (dir.path() / "a.svg").string(), png = (dir.path() / "a.PNG").string();
  vp::save_figure(f, svg, "save()");
  vp::save_figure(f, png, "save()");
  std::ifstream in(svg);
  std::string head(5, ' ');
  in.read(head.data(), 5);
  CHECK(head == "<?xml");
  CHECK(std::filesystem::file_size(png) > 100);
  std::string bad = (dir.path() / "a.jpg").string();
  CHECK_THROWS_WITH_AS(vp::save_figure(f, bad, "save()"), doctest::Contains("must be .svg or .png, got .jpg"), nabla::Error);
  CHECK(!std::filesystem::exists(bad));
  std::string missing = (dir.path() / "no_such_folder" / "a.svg").string();
  CHECK_THROWS_WITH_AS(vp::save_figure(f, missing, "save()"), doctest::Contains("cannot write"), nabla::Error);
  CHECK(std::filesystem::directory_iterator(dir.path()) != std::filesystem::directory_iterator());
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    CHECK_MESSAGE(entry.path().extension() != ".tmp", entry.path());
}

TEST_CASE("plot: spans PLplot cannot label are widened, and spans past the largest double are an error") {
  if (!plot_test::can_draw()) return;
  vp::Figure f;
  f.series = {line({1.0, 1.0000000000000002})};  // PLplot looped for minutes on this window
  CHECK(drawn(f).count_stroked(kFirstColour) == 1);
  f.series = {line({7, 7, 7})};
  CHECK(drawn(f).count_stroked(kFirstColour) == 1);
  f.series = {line({1e308, -1e308})};
  CHECK_THROWS_WITH_AS(vp::render_figure(f, "svg"), doctest::Contains("cannot draw y values that far apart"), nabla::Error);
  CHECK_THROWS_WITH_AS(vp::histogram({1e308, -1e308}, 3, std::nullopt, ""), doctest::Contains("high - low finite"),
                       nabla::Error);
  f.series = {line({1, 2})};
  CHECK(drawn(f).count_stroked(kFirstColour) == 1);  // PLplot still draws after the failed figure
}
