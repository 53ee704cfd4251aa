// The native module `plot`: figures of line series, histograms and image grids, saved
// as SVG or PNG, shown inline in Jupyter through _repr_svg_ / _repr_png_. This file
// turns the language's values into the figure model (viz/plot/figure.hpp) and warns
// about what a series cannot draw; the drawing is viz/plot's, and no PLplot call is
// made here.
#include <algorithm>
#include <cmath>
#include <memory>

#include "interp/builtins/builtins_internal.hpp"
#include "interp/eval/evaluator.hpp"
#include "tensor/allocator.hpp"
#include "viz/plot/plot_backend.hpp"

namespace nabla::interp {

namespace {

namespace vp = nabla::viz::plot;

// A figure value: the model, shared by the methods' closures.
struct FigureObj : ObjectObj {
  std::shared_ptr<vp::Figure> figure = std::make_shared<vp::Figure>();
};

// The numbers of a list/tuple of numbers or of a tensor (any dtype, any device: a CUDA
// tensor is copied to the CPU). A line's values must be one-dimensional; a
// histogram's may have any shape (flattened, as TensorBoard's histograms are).
std::vector<double> numbers_of(const Value& v, const std::string& what, bool flatten) {
  if (!flatten && v.tag == Tag::Tensor && v.t.dim() > 1)
    fail(what + ": expected a 1-D tensor or a list of numbers, got a tensor of shape " + v.t.shape_str());
  return as_numbers(v, what);
}

std::string text_of(const Value& v, const std::string& what) {
  if (v.tag != Tag::Str) fail(what + ": expected a str, got " + type_name(v));
  return v.as<StrObj>()->s;
}

// "series 'train'", or "series 2" (1-based) when it has no label.
std::string series_name(const std::string& label, size_t index) {
  return label.empty() ? "series " + std::to_string(index + 1) : "series '" + label + "'";
}

// A warning, at the call that caused it: "file:line:col: warning: ...". It goes where
// every warning goes (stderr; a notebook's stderr stream), not into print()'s output.
void warn(Evaluator& ev, const std::string& message) {
  std::string where = ev.current_span && ev.current_span->valid() ? ev.current_span->where() + ": " : "";
  ev.warning_output(where + "warning: " + message + "\n");
}

// ---- the figure's options -----------------------------------------------------------

constexpr const char* kFigureOptions[] = {"title", "xlabel", "ylabel", "logx", "logy", "width", "height"};

// Sets f's option `key` from `value`; false when `key` names no option.
bool set_figure_option(vp::Figure& f, const std::string& key, const Value& value, const std::string& fname) {
  std::string what = fname + "(): " + key;
  if (key == "title") f.title = text_of(value, what);
  else if (key == "xlabel") f.xlabel = text_of(value, what);
  else if (key == "ylabel") f.ylabel = text_of(value, what);
  else if (key == "logx") f.logx = as_bool(value, what);
  else if (key == "logy") f.logy = as_bool(value, what);
  else if (key == "width") f.width = as_int(value, what);
  else if (key == "height") f.height = as_int(value, what);
  else return false;
  return true;
}

// Binds a call that takes `names` and, as keywords, the figure's options (title,
// xlabel, ylabel, logx, logy, width, height), which go into *figure; an unknown
// keyword is an error listing both.
Bound bind_with_figure_options(const std::string& fname, CallArgs& a, std::initializer_list<const char*> names,
                               size_t required, vp::Figure& figure) {
  std::vector<std::pair<std::string, Value>> rest;
  for (auto& [key, value] : a.kw) {
    if (set_figure_option(figure, key, value, fname)) continue;
    if (std::find_if(names.begin(), names.end(), [&](const char* n) { return key == n; }) == names.end()) {
      std::vector<std::string> valid(names.begin(), names.end());
      valid.insert(valid.end(), std::begin(kFigureOptions), std::end(kFigureOptions));
      fail_unexpected_keyword(fname, key, valid);
    }
    rest.emplace_back(key, std::move(value));
  }
  a.kw = std::move(rest);
  for (auto [name, size] : {std::pair{"width", figure.width}, std::pair{"height", figure.height}})
    if (size < 64 || size > 8192)
      fail(fname + "(): " + name + " must be between 64 and 8192 pixels, got " + std::to_string(size));
  return bind(fname, a, names, required);
}

// ---- adding series --------------------------------------------------------------------

// Adds a line to `f`, warning once about the points it cannot draw; an error when it
// can draw none, when it is empty, or when xs and ys differ in length.
void add_line(Evaluator& ev, vp::Figure& f, std::vector<double> ys, std::optional<std::vector<double>> xs,
              std::string label, const std::string& fname) {
  if (f.image) fail(fname + "(): this figure is an image grid; make a new plot.Figure() for lines");
  std::string name = series_name(label, f.series.size());
  if (ys.empty()) fail(fname + "(): " + name + " is empty: nothing to draw");
  if (xs && xs->size() != ys.size())
    fail(fname + "(): xs and ys differ in length for " + name + ": " + std::to_string(xs->size()) + " xs, " +
         std::to_string(ys.size()) + " ys");
  if (!xs) {
    xs.emplace(ys.size());
    for (size_t i = 0; i < ys.size(); ++i) (*xs)[i] = static_cast<double>(i);
  }
  vp::Dropped d = vp::count_dropped(*xs, ys, f.logx, f.logy);
  std::string of = " of " + std::to_string(ys.size()) + " points ";
  if (d.total() == static_cast<int64_t>(ys.size()))
    fail(fname + "(): " + name + " has no point to draw: " + std::to_string(d.not_finite) +
         " NaN or inf, " + std::to_string(d.non_positive) + " not positive on a log axis");
  if (d.not_finite)
    warn(ev, fname + "(): " + name + ": " + std::to_string(d.not_finite) + of +
                 "are NaN or inf and are not drawn; the line has gaps there");
  if (d.non_positive)
    warn(ev, fname + "(): " + name + ": " + std::to_string(d.non_positive) + of +
                 "are not positive on a log axis and are not drawn");
  f.series.push_back({vp::Series::Kind::Line, std::move(label), std::move(*xs), std::move(ys)});
}

std::optional<std::pair<double, double>> range_of(const Value& v, const std::string& what) {
  if (v.is_none()) return std::nullopt;
  std::vector<double> r = numbers_of(v, what, false);
  if (r.size() != 2) fail(what + ": expected (low, high), got " + std::to_string(r.size()) + " numbers");
  return std::pair{r[0], r[1]};
}

// Adds a histogram of `values` to `f`, warning once about the values it cannot count.
void add_histogram(Evaluator& ev, vp::Figure& f, const Value& values, const Value& bins, const Value& range,
                   std::string label, const std::string& fname) {
  if (f.image) fail(fname + "(): this figure is an image grid; make a new plot.Figure() for histograms");
  std::string name = series_name(label, f.series.size());
  std::vector<double> v = numbers_of(values, fname + "(): values", true);
  if (v.empty()) fail(fname + "(): " + name + " is empty: nothing to count");
  int64_t bad = 0;
  for (double x : v) bad += !std::isfinite(x);
  auto r = range_of(range, fname + "(): range");
  if (f.logx && r && r->first <= 0) fail(fname + "(): a log x axis needs a positive range, got low " + float_repr(r->first));
  int64_t nbins = bins.is_none() ? 30 : as_int(bins, fname + "(): bins");
  // Note [Host memory budget] (tensor/allocator.cpp): a bin's edge and count, asked for
  // before they are built, so bins=2**40 names itself instead of a bare out of memory.
  CpuAllocator::instance().check_host_request(static_cast<size_t>(std::max<int64_t>(nbins, 0)), 2 * sizeof(double),
                                              fname + "(bins=" + std::to_string(nbins) + ")");
  vp::Series s = vp::histogram(v, nbins, r, std::move(label));
  if (f.logx && s.xs.front() <= 0) fail(fname + "(): a log x axis needs positive values; give range=(low, high) with low > 0");
  if (bad)
    warn(ev, fname + "(): " + name + ": " + std::to_string(bad) + " of " + std::to_string(v.size()) +
                 " values are NaN or inf and are not counted");
  f.series.push_back(std::move(s));
}

// ---- the figure value -------------------------------------------------------------------

vp::Figure& figure_of(const Value& self) { return *static_cast<FigureObj*>(self.as<Obj>())->figure; }

void save_to(Evaluator& ev, const vp::Figure& f, const Value& path, const std::string& fname) {
  ev.check_sandbox("plot: save()");
  vp::save_figure(f, text_of(path, fname + "(): path"), fname + "()");
}

Value figure_line(Evaluator& ev, CallArgs& a) {
  Bound b = bind("line", a, {"self", "ys", "xs", "label"}, 2);
  std::optional<std::vector<double>> xs;
  if (b.has(2)) xs = numbers_of(b[2], "line(): xs", false);
  add_line(ev, figure_of(b[0]), numbers_of(b[1], "line(): ys", false), std::move(xs),
           b.has(3) ? text_of(b[3], "line(): label") : "", "line");
  return Value::none();
}

Value figure_hist(Evaluator& ev, CallArgs& a) {
  Bound b = bind("hist", a, {"self", "values", "bins", "range", "label"}, 2);
  add_histogram(ev, figure_of(b[0]), b[1], b[2], b[3], b.has(4) ? text_of(b[4], "hist(): label") : "", "hist");
  return Value::none();
}

Value figure_save(Evaluator& ev, CallArgs& a) {
  Bound b = bind("save", a, {"self", "path"}, 2);
  save_to(ev, figure_of(b[0]), b[1], "save");
  return Value::none();
}

Value figure_repr_svg(Evaluator&, CallArgs& a) {
  Bound b = bind("_repr_svg_", a, {"self"}, 1);
  return make_str(vp::render_figure(figure_of(b[0]), "svg"));
}

Value figure_repr_png(Evaluator&, CallArgs& a) {
  Bound b = bind("_repr_png_", a, {"self"}, 1);
  return make_str(vp::render_figure(figure_of(b[0]), "png"));
}

}  // namespace

// The methods of a figure (self first, as every native method): one row each, as the
// builtin tables are (Note [Builtin tables]).
constexpr BuiltinEntry kFigureMethods[] = {
    {"line", figure_line, "line(ys, xs=none, label=\"\")",
     "Adds a line through (xs[i], ys[i]) (xs: 0, 1, ...); NaN or inf leave a gap and a warning. "
     "Example: plot.Figure().line([1.0, 0.5, 0.25], label=\"train\")"},
    {"hist", figure_hist, "hist(values, bins=30, range=none, label=\"\")",
     "Adds a histogram of `values` (any shape) in `bins` equal bins over range (default: min to max). "
     "Example: plot.Figure().hist(randn(1000), bins=20)"},
    {"save", figure_save, "save(path)",
     "Writes the figure to `path`, as SVG or PNG by its extension, whole or not at all. "
     "Example: plot.lines([1, 2, 3]).save(\"line.svg\")"},
    {"_repr_svg_", figure_repr_svg, "_repr_svg_()",
     "The figure as SVG text (Jupyter shows it inline). Example: plot.lines([1, 2, 3])._repr_svg_()"},
    {"_repr_png_", figure_repr_png, "_repr_png_()",
     "The figure as the bytes of a PNG file, in a str (Jupyter shows it inline). "
     "Example: len(plot.lines([1, 2, 3])._repr_png_())"},
};

namespace {

Value figure_value(vp::Figure f) {
  auto obj = std::make_shared<FigureObj>();
  *obj->figure = std::move(f);
  obj->type_name = "figure";
  obj->describe = [figure = obj->figure] { return vp::describe(*figure); };
  for (const BuiltinEntry& e : kFigureMethods) obj->methods[e.name] = e.function;
  return Value::object(Tag::Object, obj);
}

// ---- the module's functions -------------------------------------------------------------

Value figure_builtin(Evaluator&, CallArgs& a) {
  vp::Figure f;
  bind_with_figure_options("Figure", a, {}, 0, f);
  return figure_value(std::move(f));
}

// plot.lines({"train": ys, "test": ys2}) or plot.lines(ys): one series a dict entry.
Value lines_builtin(Evaluator& ev, CallArgs& a) {
  vp::Figure f;
  Bound b = bind_with_figure_options("lines", a, {"series", "xs", "path"}, 1, f);
  std::optional<std::vector<double>> xs;
  if (b.has(1)) xs = numbers_of(b[1], "lines(): xs", false);
  if (b[0].tag == Tag::Dict) {
    for (const auto& [key, values] : b[0].as<DictObj>()->entries) {
      std::string label = text_of(key, "lines(): a series' name");
      add_line(ev, f, numbers_of(values, "lines(): series '" + label + "'", false), xs, label, "lines");
    }
    if (f.series.empty()) fail("lines(): the dict of series is empty: nothing to draw");
  } else {
    add_line(ev, f, numbers_of(b[0], "lines(): series", false), xs, "", "lines");
  }
  if (b.has(2)) save_to(ev, f, b[2], "lines");
  return figure_value(std::move(f));
}

Value hist_builtin(Evaluator& ev, CallArgs& a) {
  vp::Figure f;
  Bound b = bind_with_figure_options("hist", a, {"values", "bins", "range", "label", "path"}, 1, f);
  add_histogram(ev, f, b[0], b[1], b[2], b.has(3) ? text_of(b[3], "hist(): label") : "", "hist");
  if (b.has(4)) save_to(ev, f, b[4], "hist");
  return figure_value(std::move(f));
}

// The grid's bytes (make_grid's layout), asked for first: a huge padding or image would
// overflow its int64 width * height (a wrong size, then writes past it) or be a bare
// out of memory. Counted in long double, where the sums cannot overflow.
void check_grid_size(int64_t n, int64_t channels, int64_t height, int64_t width, const vp::GridOptions& o) {
  if (n < 1 || height < 1 || width < 1 || o.nrow < 1 || o.padding < 0) return;  // make_grid names these
  int64_t cols = std::min(o.nrow, n), rows = (n + cols - 1) / cols;
  long double pad = static_cast<long double>(o.padding);
  long double w = cols * (width + pad) + pad, h = rows * (height + pad) + pad;
  if (w > static_cast<long double>(INT32_MAX) || h > static_cast<long double>(INT32_MAX))
    fail("image_grid(): the grid would be more than 2^31 pixels wide or high (" + std::to_string(n) + " images of " +
         std::to_string(height) + " x " + std::to_string(width) + ", " + std::to_string(cols) + " a row, padding " +
         std::to_string(o.padding) + ")");
  auto width_px = static_cast<int64_t>(w), height_px = static_cast<int64_t>(h);
  CpuAllocator::instance().check_host_request(static_cast<size_t>(width_px * height_px), static_cast<size_t>(channels),
                                              "image_grid(): a grid of " + std::to_string(width_px) + " x " +
                                                  std::to_string(height_px) + " pixels");
}

// images [N, H, W] or [N, C, H, W] (C 1 or 3) as a grid (viz::plot::make_grid).
Value image_grid_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("image_grid", a, {"images", "path", "nrow", "padding", "normalize", "value_range", "pad_value", "title"}, 1);
  const Tensor& t = as_tensor(b[0], "image_grid(): images");
  int64_t d = t.dim();
  int64_t channels = d == 4 ? t.sizes()[1] : 1;
  if ((d != 3 && d != 4) || (channels != 1 && channels != 3))
    fail("image_grid(): expected images [N, H, W] or [N, C, H, W] with C 1 or 3, got shape " + t.shape_str());
  vp::GridOptions o;
  if (b.has(2)) o.nrow = as_int(b[2], "image_grid(): nrow");
  if (b.has(3)) o.padding = as_int(b[3], "image_grid(): padding");
  if (b.has(4)) o.normalize = as_bool(b[4], "image_grid(): normalize");
  o.value_range = range_of(b[5], "image_grid(): value_range");
  if (b.has(6)) o.pad_value = as_num(b[6], "image_grid(): pad_value");
  check_grid_size(t.sizes()[0], channels, t.sizes()[d - 2], t.sizes()[d - 1], o);
  vp::Figure f;
  if (b.has(7)) f.title = text_of(b[7], "image_grid(): title");
  f.image = vp::make_grid(to_double_vector(t), t.sizes()[0], static_cast<int>(channels), t.sizes()[d - 2],
                          t.sizes()[d - 1], o);
  f.width = f.image->width, f.height = f.image->height;
  if (b.has(1)) save_to(ev, f, b[1], "image_grid");
  return figure_value(std::move(f));
}

const BuiltinEntry kPlotFunctions[] = {
    {"Figure", figure_builtin, "Figure(title=\"\", xlabel=\"\", ylabel=\"\", logx=false, logy=false, width=640, height=480)",
     "A new empty figure; add series with its line(ys, xs=none, label=) and hist(values, bins=30, range=none, label=) "
     "methods, write it with save(path) (.svg or .png); Jupyter shows it inline (_repr_svg_, _repr_png_). "
     "Example: let fig = plot.Figure(title=\"loss\", xlabel=\"step\", logy=true)"},
    {"lines", lines_builtin, "lines(series, xs=none, path=none, title=\"\", xlabel=\"\", ylabel=\"\", logx=false, logy=false, width=640, height=480)",
     "A figure of one line a dict entry (the key is its label in the legend), or of one list or 1-D tensor; "
     "written to path (.svg or .png) when given. "
     "Example: plot.lines({\"train\": [1.0, 0.6, 0.4], \"test\": [1.1, 0.8, 0.7]}, path=\"loss.svg\", logy=true)"},
    {"hist", hist_builtin, "hist(values, bins=30, range=none, label=\"\", path=none, title=\"\", xlabel=\"\", ylabel=\"\", logx=false, logy=false, width=640, height=480)",
     "A figure of a histogram of `values` (a list or a tensor of any shape), numpy's bins; written to path when given. "
     "Example: plot.hist(randn(1000), bins=30, path=\"weights.png\")"},
    {"image_grid", image_grid_builtin,
     "image_grid(images, path=none, nrow=8, padding=2, normalize=false, value_range=none, pad_value=0, title=\"\")",
     "A figure of images [N, H, W] or [N, C, H, W] (C 1 or 3) in a grid of nrow a row, as torchvision's make_grid; "
     "values in [0, 1] (normalize: value_range, else min to max, to [0, 1]); written to path (.png or .svg) when given. "
     "Example: plot.image_grid(rand(16, 1, 28, 28), path=\"grid.png\", nrow=4)"},
};

}  // namespace

const BuiltinLibrary kPlotLibrary = {"plot", "plot", kPlotFunctions, nullptr};

std::span<const BuiltinEntry> figure_methods() { return kFigureMethods; }

}  // namespace nabla::interp
