// The mapping of the op table's views, elementwise ops, reductions and indexing ops
// to ONNX (opset 17), and the table that gathers every file's rows.
//
// Note [Every op mapped or refused]
// Each OpId has exactly one row: a function that writes its ONNX nodes, or the reason
// ONNX cannot express it (a gradient op, a collective, a random draw). op_mapping()
// checks this when it builds the table, and tests/onnx/coverage.cpp checks it for every
// OpId, so a new op of tensor/op_list.hpp fails the build's tests until it gets a row.
// Shapes in the IR are static, so reshapes, expands and the like take their target
// shape from the output's type; computations in a dtype ONNX lacks for the op (ints
// through float ops) go through Cast as nabla's kernels compute them.
#include <algorithm>
#include <cmath>
#include <limits>

#include "graph/onnx/writer.hpp"

namespace nabla::graph::onnx_export {

namespace {

// The output's dtype applied to input 0 with `op_type` (integer inputs of a float op
// compute as the float output, as nabla's kernels do).
void unary(NodeEmit& e, const char* op_type) { e.w.node(op_type, {e.in_as(0, e.out_meta().dtype)}, {e.out()}); }

std::string x_as_out(NodeEmit& e) { return e.in_as(0, e.out_meta().dtype); }

void reshape_to_output(NodeEmit& e) { reshape_to_output_from(e, e.in(0)); }

void transpose(NodeEmit& e, const std::vector<int64_t>& perm) {
  set_ints(e.w.node("Transpose", {e.in(0)}, {e.out()}), "perm", perm);
}

void slice(NodeEmit& e) {
  const Attrs& a = e.n.attrs;
  int64_t dim = axis_of(a.i("dim"), e.rank()), size = e.in_meta(0).sizes[static_cast<size_t>(dim)];
  int64_t start = a.is_none("start") ? 0 : a.i("start"), end = a.is_none("end") ? size : a.i("end");
  e.w.node("Slice", {e.in(0), e.w.ints({start}), e.w.ints({end}), e.w.ints({dim}), e.w.ints({a.i("step")})},
           {e.out()});
}

// diagonal (a view in nabla, Note [Diagonal and unfold are views]): dim1 and dim2 moved
// last and merged, then a Gather of the diagonal's positions in the merged dim.
void diagonal(NodeEmit& e) {
  const Attrs& a = e.n.attrs;
  const std::vector<int64_t>& sizes = e.in_meta(0).sizes.vec();
  int64_t d1 = axis_of(a.i("dim1"), e.rank()), d2 = axis_of(a.i("dim2"), e.rank()), offset = a.i("offset");
  int64_t cols = sizes[static_cast<size_t>(d2)], n = e.out_meta().sizes.back();
  std::vector<int64_t> perm, merged;
  for (int64_t d = 0; d < e.rank(); ++d)
    if (d != d1 && d != d2) {
      perm.push_back(d);
      merged.push_back(sizes[static_cast<size_t>(d)]);
    }
  perm.push_back(d1);
  perm.push_back(d2);
  merged.push_back(sizes[static_cast<size_t>(d1)] * cols);
  std::vector<int64_t> positions;
  for (int64_t i = 0; i < n; ++i) positions.push_back((i + (offset < 0 ? -offset : 0)) * cols + i + std::max<int64_t>(offset, 0));
  std::string moved = e.w.op_with("Transpose", {e.in(0)}, [&](auto& t) { set_ints(t, "perm", perm); });
  std::string flat = e.w.op("Reshape", {moved, e.w.ints(merged)});
  set_int(e.w.node("Gather", {flat, e.w.ints(positions)}, {e.out()}), "axis", static_cast<int64_t>(merged.size()) - 1);
}

// unfold (Tensor.unfold, a view in nabla): a Gather of every window's positions along
// dim, split into [windows, size], the window's dim moved last.
void unfold_windows(NodeEmit& e) {
  const Attrs& a = e.n.attrs;
  int64_t dim = axis_of(a.i("dim"), e.rank()), size = a.i("size"), step = a.i("step");
  std::vector<int64_t> split = e.in_meta(0).sizes.vec();
  int64_t windows = e.out_meta().sizes[static_cast<size_t>(dim)];
  std::vector<int64_t> positions, perm;
  for (int64_t w = 0; w < windows; ++w)
    for (int64_t k = 0; k < size; ++k) positions.push_back(w * step + k);
  split[static_cast<size_t>(dim)] = windows;
  split.insert(split.begin() + dim + 1, size);
  for (int64_t d = 0; d <= e.rank(); ++d)
    if (d != dim + 1) perm.push_back(d);
  perm.push_back(dim + 1);
  std::string picked = e.w.op_with("Gather", {e.in(0), e.w.ints(positions)}, [&](auto& g) { set_int(g, "axis", dim); });
  std::string windowed = e.w.op("Reshape", {picked, e.w.ints(split)});
  set_ints(e.w.node("Transpose", {windowed}, {e.out()}), "perm", perm);
}

void select(NodeEmit& e) {
  int64_t dim = axis_of(e.n.attrs.i("dim"), e.rank());
  Tensor index = full({}, static_cast<double>(e.n.attrs.i("index")), DType::i64);
  set_int(e.w.node("Gather", {e.in(0), e.w.tensor(index)}, {e.out()}), "axis", dim);
}

void expand(NodeEmit& e) {
  std::vector<int64_t> shape(e.out_meta().sizes.begin(), e.out_meta().sizes.end());
  e.w.node("Expand", {e.in(0), e.w.ints(shape)}, {e.out()});
}

void cast(NodeEmit& e) { set_int(e.w.node("Cast", {e.in(0)}, {e.out()}), "to", onnx_elem_type(e.out_meta().dtype)); }
void identity(NodeEmit& e) { e.assign(0, e.in(0)); }

// ---- elementwise ----------------------------------------------------------------

void gelu(NodeEmit& e) {  // x * 0.5 * (1 + erf(x / sqrt(2))): Gelu itself is opset 20
  std::string x = x_as_out(e);
  std::string erf = e.w.op("Erf", {e.w.op("Mul", {x, e.constant(M_SQRT1_2)})});
  std::string half = e.w.op("Mul", {e.w.op("Add", {erf, e.constant(1.0)}), e.constant(0.5)});
  e.w.node("Mul", {x, half}, {e.out()});
}

void silu(NodeEmit& e) {
  std::string x = x_as_out(e);
  e.w.node("Mul", {x, e.w.op("Sigmoid", {x})}, {e.out()});
}

void mish(NodeEmit& e) {  // Mish is opset 18
  std::string x = x_as_out(e);
  e.w.node("Mul", {x, e.w.op("Tanh", {e.w.op("Softplus", {x})})}, {e.out()});
}

void rsqrt(NodeEmit& e) { e.w.node("Reciprocal", {e.w.op("Sqrt", {x_as_out(e)})}, {e.out()}); }
void log1p(NodeEmit& e) { e.w.node("Log", {e.w.op("Add", {x_as_out(e), e.constant(1.0)})}, {e.out()}); }
void expm1(NodeEmit& e) { e.w.node("Sub", {e.w.op("Exp", {x_as_out(e)}), e.constant(1.0)}, {e.out()}); }

void trunc(NodeEmit& e) {  // sign(x) * floor(|x|): ONNX has no Trunc
  std::string x = x_as_out(e);
  if (!is_floating(e.out_meta().dtype)) return e.assign(0, x);
  e.w.node("Mul", {e.w.op("Sign", {x}), e.w.op("Floor", {e.w.op("Abs", {x})})}, {e.out()});
}

void integer_identity_or(NodeEmit& e, const char* op_type) {  // floor/ceil/round of an integer is itself
  if (!is_floating(e.out_meta().dtype)) return e.assign(0, x_as_out(e));
  unary(e, op_type);
}

void softplus(NodeEmit& e) {  // x where beta * x > threshold, else softplus(beta * x) / beta
  std::string x = x_as_out(e);
  double beta = e.n.attrs.f("beta"), threshold = e.n.attrs.f("threshold");
  std::string bx = e.w.op("Mul", {x, e.constant(beta)});
  std::string soft = e.w.op("Div", {e.w.op("Softplus", {bx}), e.constant(beta)});
  e.w.node("Where", {e.w.op("Greater", {bx, e.constant(threshold)}), x, soft}, {e.out()});
}

void elu(NodeEmit& e) {
  set_float(e.w.node("Elu", {x_as_out(e)}, {e.out()}), "alpha", static_cast<float>(e.n.attrs.f("alpha")));
}

void leaky_relu(NodeEmit& e) {
  set_float(e.w.node("LeakyRelu", {x_as_out(e)}, {e.out()}), "alpha",
            static_cast<float>(e.n.attrs.f("negative_slope")));
}

void clip(NodeEmit& e, const std::string& lo, const std::string& hi) {
  e.w.node("Clip", {x_as_out(e), lo, hi}, {e.out()});
}

void hardtanh(NodeEmit& e) {
  clip(e, e.constant(e.n.attrs.f("min_val")), e.constant(e.n.attrs.f("max_val")));
}

void clamp(NodeEmit& e) {
  const Attrs& a = e.n.attrs;
  clip(e, a.is_none("min") ? "" : e.constant(a.f("min")), a.is_none("max") ? "" : e.constant(a.f("max")));
}

void logit(NodeEmit& e) {  // log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps is given
  std::string x = x_as_out(e);
  if (!e.n.attrs.is_none("eps")) {
    double eps = e.n.attrs.f("eps");
    x = e.w.op("Clip", {x, e.constant(eps), e.constant(1.0 - eps)});
  }
  std::string one_minus = e.w.op("Sub", {e.constant(1.0), x});
  e.w.node("Log", {e.w.op("Div", {x, one_minus})}, {e.out()});
}

void remainder(NodeEmit& e) {  // Python's: the sign of the divisor
  DType dt = e.out_meta().dtype;
  std::string a = e.in_as(0, dt), b = e.in_as(1, dt);
  if (!is_floating(dt)) return set_int(e.w.node("Mod", {a, b}, {e.out()}), "fmod", 0);
  std::string q = e.w.op("Floor", {e.w.op("Div", {a, b})});
  e.w.node("Sub", {a, e.w.op("Mul", {q, b})}, {e.out()});
}

void atan2(NodeEmit& e) {  // atan(y / x), moved by pi into the left half-plane
  DType dt = e.out_meta().dtype;
  std::string y = e.in_as(0, dt), x = e.in_as(1, dt), zero = e.constant(0.0);
  std::string base = e.w.op("Atan", {e.w.op("Div", {y, x})});
  std::string y_negative = e.w.op("Less", {y, zero});
  std::string pi = e.w.op("Where", {y_negative, e.constant(-M_PI), e.constant(M_PI)});
  std::string left = e.w.op("Add", {base, pi});
  std::string right_or_axis = e.w.op("Where", {e.w.op("Equal", {x, zero}),
                                               e.w.op("Mul", {e.w.op("Where", {y_negative, e.constant(-1.0),
                                                                               e.constant(1.0)}),
                                                              e.constant(M_PI / 2)}),
                                               base});
  e.w.node("Where", {e.w.op("Less", {x, zero}), left, right_or_axis}, {e.out()});
}

void logaddexp(NodeEmit& e) {  // m + log(exp(a - m) + exp(b - m)), m = max(a, b)
  DType dt = e.out_meta().dtype;
  std::string a = e.in_as(0, dt), b = e.in_as(1, dt), m = e.w.op("Max", {a, b});
  std::string sum = e.w.op("Add", {e.w.op("Exp", {e.w.op("Sub", {a, m})}), e.w.op("Exp", {e.w.op("Sub", {b, m})})});
  e.w.node("Add", {m, e.w.op("Log", {sum})}, {e.out()});
}

// Comparisons compute in the inputs' common dtype (PyTorch's result_type).
std::pair<std::string, std::string> compared(NodeEmit& e) {
  DType dt = result_type({meta_tensor(e.g.value(e.n.inputs[0])), meta_tensor(e.g.value(e.n.inputs[1]))});
  return {e.in_as(0, dt), e.in_as(1, dt)};
}

void compare(NodeEmit& e, const char* op_type) {
  auto [a, b] = compared(e);
  e.w.node(op_type, {a, b}, {e.out()});
}

void not_equal(NodeEmit& e) {
  auto [a, b] = compared(e);
  e.w.node("Not", {e.w.op("Equal", {a, b})}, {e.out()});
}

void where(NodeEmit& e) {
  DType dt = e.out_meta().dtype;
  e.w.node("Where", {e.in_as(0, DType::b8), e.in_as(1, dt), e.in_as(2, dt)}, {e.out()});
}

// ---- reductions -----------------------------------------------------------------

// The dims a reduction's "dims" attribute names (none or [] means all), as ONNX axes.
std::vector<int64_t> reduced_axes(NodeEmit& e, const char* attr = "dims") {
  std::vector<int64_t> axes;
  if (!e.n.attrs.is_none(attr))
    for (int64_t d : e.n.attrs.ints(attr)) axes.push_back(axis_of(d, e.rank()));
  if (axes.empty())
    for (int64_t d = 0; d < e.rank(); ++d) axes.push_back(d);
  return axes;
}

bool keepdim(NodeEmit& e) { return e.n.attrs.has("keepdim") && e.n.attrs.b("keepdim"); }

// ReduceSum takes its axes as an input at opset 13+, the others as an attribute until 18.
std::string reduce(NodeEmit& e, const char* op_type, const std::string& x, const std::vector<int64_t>& axes,
                   bool keep, const std::string& out = "") {
  std::string name = out.empty() ? e.w.fresh(op_type) : out;
  bool axes_input = std::string(op_type) == "ReduceSum";
  auto& n = e.w.node(op_type, axes_input ? std::vector<std::string>{x, e.w.ints(axes)} : std::vector<std::string>{x},
                     {name});
  if (!axes_input) set_ints(n, "axes", axes);
  set_int(n, "keepdims", keep);
  return name;
}

void reduction(NodeEmit& e, const char* op_type) { reduce(e, op_type, x_as_out(e), reduced_axes(e), keepdim(e), e.out()); }

void full_reduction(NodeEmit& e, const char* op_type) {  // max(), min(): every dim, 0-dim result
  reduce(e, op_type, e.in(0), reduced_axes(e), false, e.out());
}

void arg_reduction(NodeEmit& e, const char* op_type, const std::string& x, int64_t dim, bool keep,
                   const std::string& out) {
  auto& n = e.w.node(op_type, {x}, {out});
  set_int(n, "axis", dim);
  set_int(n, "keepdims", keep);
}

void value_and_index(NodeEmit& e, const char* reduce_op, const char* arg_op) {  // max_dim, min_dim
  int64_t dim = axis_of(e.n.attrs.i("dim"), e.rank());
  reduce(e, reduce_op, e.in(0), {dim}, keepdim(e), e.out(0));
  arg_reduction(e, arg_op, e.in(0), dim, keepdim(e), e.out(1));
}

void arg_max_min(NodeEmit& e, const char* op_type) {  // dim none: over the flattened input
  if (!e.n.attrs.is_none("dim"))
    return arg_reduction(e, op_type, e.in(0), axis_of(e.n.attrs.i("dim"), e.rank()), keepdim(e), e.out());
  std::string flat = e.w.op("Reshape", {e.in(0), e.w.ints({-1})});
  std::string index = e.w.fresh(op_type);
  arg_reduction(e, op_type, flat, 0, false, index);
  std::vector<int64_t> shape(e.out_meta().sizes.begin(), e.out_meta().sizes.end());
  e.w.node("Reshape", {index, e.w.ints(shape)}, {e.out()});
}

// var and std: the mean of squared deviations, divided by (count - correction).
std::string variance(NodeEmit& e) {
  std::string x = x_as_out(e);
  std::vector<int64_t> axes = reduced_axes(e);
  int64_t count = 1;
  for (int64_t a : axes) count *= e.in_meta(0).sizes[static_cast<size_t>(a)];
  std::string deviation = e.w.op("Sub", {x, reduce(e, "ReduceMean", x, axes, true)});
  std::string squares = reduce(e, "ReduceSum", e.w.op("Mul", {deviation, deviation}), axes, keepdim(e));
  double correction = e.n.attrs.f("correction");
  return e.w.op("Div", {squares, e.constant(static_cast<double>(count) - correction)});
}

void softmax(NodeEmit& e, const char* op_type) {
  set_int(e.w.node(op_type, {x_as_out(e)}, {e.out()}), "axis", axis_of(e.n.attrs.i("dim"), e.rank()));
}

// ---- indexing and joining -------------------------------------------------------

void gather_like(NodeEmit& e, const char* op_type, size_t data, size_t index, int64_t axis) {
  set_int(e.w.node(op_type, {e.in(data), e.in_as(index, DType::i64)}, {e.out()}), "axis", axis);
}

void concat(NodeEmit& e, const std::vector<std::string>& parts, int64_t axis) {
  set_int(e.w.node("Concat", parts, {e.out()}), "axis", axis);
}

void cat(NodeEmit& e) {
  std::vector<std::string> parts;
  DType dt = e.out_meta().dtype;
  for (size_t k = 0; k < e.n.inputs.size(); ++k) parts.push_back(e.in_as(k, dt));
  concat(e, parts, axis_of(e.n.attrs.i("dim"), static_cast<int64_t>(e.out_meta().sizes.size())));
}

void stack(NodeEmit& e) {
  int64_t axis = axis_of(e.n.attrs.i("dim"), static_cast<int64_t>(e.out_meta().sizes.size()));
  std::vector<std::string> parts;
  for (size_t k = 0; k < e.n.inputs.size(); ++k)
    parts.push_back(e.w.op("Unsqueeze", {e.in_as(k, e.out_meta().dtype), e.w.ints({axis})}));
  concat(e, parts, axis);
}

void split(NodeEmit& e) {
  int64_t dim = axis_of(e.n.attrs.i("dim"), e.rank());
  std::vector<int64_t> sizes;
  for (size_t k = 0; k < e.n.outputs.size(); ++k) sizes.push_back(e.out_meta(k).sizes[static_cast<size_t>(dim)]);
  std::vector<std::string> outs;
  for (size_t k = 0; k < e.n.outputs.size(); ++k) outs.push_back(e.out(k));
  set_int(e.w.node("Split", {e.in(0), e.w.ints(sizes)}, outs), "axis", dim);
}

// unbind: one Gather of a scalar index per slice (the dim goes, as select's).
void unbind(NodeEmit& e) {
  int64_t dim = axis_of(e.n.attrs.i("dim"), e.rank());
  for (size_t k = 0; k < e.n.outputs.size(); ++k) {
    Tensor index = full({}, static_cast<double>(k), DType::i64);
    set_int(e.w.node("Gather", {e.in(0), e.w.tensor(index)}, {e.out(k)}), "axis", dim);
  }
}

void cumsum(NodeEmit& e) {
  e.w.node("CumSum", {x_as_out(e), e.w.ints({axis_of(e.n.attrs.i("dim"), e.rank())})}, {e.out()});
}

// sort and topk: TopK, whose values and i64 indices are the op's two outputs.
void top_k(NodeEmit& e, int64_t k, int64_t dim, bool largest, bool sorted) {
  auto& n = e.w.node("TopK", {e.in(0), e.w.ints({k})}, {e.out(0), e.out(1)});
  set_int(n, "axis", dim);
  set_int(n, "largest", largest);
  set_int(n, "sorted", sorted);
}

void sort(NodeEmit& e) {
  int64_t dim = axis_of(e.n.attrs.i("dim"), e.rank());
  top_k(e, e.in_meta(0).sizes[static_cast<size_t>(dim)], dim, e.n.attrs.b("descending"), true);
}

void topk(NodeEmit& e) {
  const Attrs& a = e.n.attrs;
  top_k(e, a.i("k"), axis_of(a.i("dim"), e.rank()), a.b("largest"), a.b("sorted"));
}

void flip(NodeEmit& e) {
  std::vector<int64_t> axes, starts, ends, steps;
  for (int64_t d : e.n.attrs.ints("dims")) {
    axes.push_back(axis_of(d, e.rank()));
    starts.push_back(-1);
    ends.push_back(std::numeric_limits<int64_t>::min());
    steps.push_back(-1);
  }
  e.w.node("Slice", {e.in(0), e.w.ints(starts), e.w.ints(ends), e.w.ints(axes), e.w.ints(steps)}, {e.out()});
}

// x rolled by `shift` along `axis` (size n): its last shift entries, then the rest.
std::string roll_axis(NodeEmit& e, const std::string& x, int64_t shift, int64_t axis, int64_t n) {
  int64_t s = ((shift % n) + n) % n;
  if (s == 0) return x;
  std::string tail = e.w.op("Slice", {x, e.w.ints({n - s}), e.w.ints({n}), e.w.ints({axis})});
  std::string head = e.w.op("Slice", {x, e.w.ints({0}), e.w.ints({n - s}), e.w.ints({axis})});
  return e.w.op_with("Concat", {tail, head}, [&](auto& node) { set_int(node, "axis", axis); });
}

void roll(NodeEmit& e) {
  const std::vector<int64_t>& shifts = e.n.attrs.ints("shifts");
  std::vector<int64_t> dims = e.n.attrs.ints("dims");
  const Shape& sizes = e.in_meta(0).sizes;
  if (dims.empty()) {  // the flattened tensor, shape restored
    std::string flat = e.w.op("Reshape", {e.in(0), e.w.ints({-1})});
    std::string rolled = roll_axis(e, flat, shifts.at(0), 0, shape_numel(sizes));
    return reshape_to_output_from(e, rolled);
  }
  std::string x = e.in(0);
  for (size_t k = 0; k < dims.size(); ++k) {
    int64_t axis = axis_of(dims[k], e.rank());
    x = roll_axis(e, x, shifts.at(k), axis, sizes[static_cast<size_t>(axis)]);
  }
  e.assign(0, x);
}

void trilu(NodeEmit& e, bool upper) {
  auto& n = e.w.node("Trilu", {e.in(0), e.w.tensor(full({}, static_cast<double>(e.n.attrs.i("diagonal")), DType::i64))},
                     {e.out()});
  set_int(n, "upper", upper);
}

void masked_fill(NodeEmit& e) {
  DType dt = e.out_meta().dtype;
  e.w.node("Where", {e.in_as(1, DType::b8), e.in_as(2, dt), e.in_as(0, dt)}, {e.out()});
}

void repeat(NodeEmit& e) {
  const std::vector<int64_t>& sizes = e.n.attrs.ints("sizes");
  std::string x = e.in(0);
  if (static_cast<int64_t>(sizes.size()) > e.rank()) {  // leading dims of 1 first, as PyTorch's repeat
    std::vector<int64_t> shape(sizes.size() - static_cast<size_t>(e.rank()), 1);
    shape.insert(shape.end(), e.in_meta(0).sizes.begin(), e.in_meta(0).sizes.end());
    x = e.w.op("Reshape", {x, e.w.ints(shape)});
  }
  e.w.node("Tile", {x, e.w.ints(sizes)}, {e.out()});
}

void one_hot(NodeEmit& e) {
  int64_t depth = e.out_meta().sizes.back();
  Tensor values = arange(2, e.out_meta().dtype);  // [off, on]
  auto& n = e.w.node("OneHot", {e.in(0), e.w.ints({depth}), e.w.tensor(values)}, {e.out()});
  set_int(n, "axis", -1);
}

// The random draws as ONNX's own (Note [Random draws are ops]): the same
// distributions, drawn from ONNX Runtime's generator, so other numbers than nabla's.
void random_shape(NodeEmit& e, ::onnx::NodeProto& n) {
  set_ints(n, "shape", std::vector<int64_t>(e.out_meta().sizes.begin(), e.out_meta().sizes.end()));
}

void random_uniform(NodeEmit& e) {
  auto& n = e.w.node("RandomUniform", {}, {e.out()});
  set_int(n, "dtype", onnx_elem_type(e.out_meta().dtype));
  set_float(n, "low", static_cast<float>(e.n.attrs.f("low")));
  set_float(n, "high", static_cast<float>(e.n.attrs.f("high")));
  random_shape(e, n);
}

void random_normal(NodeEmit& e) {
  if (e.n.attrs.f("std") == 0.0) {  // ONNX Runtime refuses a scale of 0; the draw is the mean
    e.assign(0, e.w.tensor(full(e.out_meta().sizes, e.n.attrs.f("mean"), e.out_meta().dtype)));
    return;
  }
  auto& n = e.w.node("RandomNormal", {}, {e.out()});
  set_int(n, "dtype", onnx_elem_type(e.out_meta().dtype));
  set_float(n, "mean", static_cast<float>(e.n.attrs.f("mean")));
  set_float(n, "scale", static_cast<float>(e.n.attrs.f("std")));
  random_shape(e, n);
}

// Integers in [low, high): floor of a uniform draw in [low, high), cast.
void random_integers(NodeEmit& e) {
  std::string u = e.w.op_with("RandomUniform", {}, [&](auto& n) {
    set_int(n, "dtype", onnx_elem_type(DType::f64));
    set_float(n, "low", static_cast<float>(e.n.attrs.i("low")));
    set_float(n, "high", static_cast<float>(e.n.attrs.i("high")));
    random_shape(e, n);
  });
  std::string floored = e.w.op_with("Floor", {u}, [](auto&) {});
  set_int(e.w.node("Cast", {floored}, {e.out()}), "to", onnx_elem_type(e.out_meta().dtype));
}

}  // namespace

// Reshape of `value` to the node's output shape (roll of the flattened tensor, views).
void reshape_to_output_from(NodeEmit& e, const std::string& value) {
  std::vector<int64_t> shape(e.out_meta().sizes.begin(), e.out_meta().sizes.end());
  e.w.node("Reshape", {value, e.w.ints(shape)}, {e.out()});
}

std::vector<MappingRow> tensor_op_rows() {
  const char* gradient = "a gradient op, which only training graphs hold; export an inference graph (compile(train=false))";
  return {
      {OpId::view, reshape_to_output, nullptr},
      {OpId::reshape, reshape_to_output, nullptr},
      {OpId::squeeze, reshape_to_output, nullptr},
      {OpId::unsqueeze, reshape_to_output, nullptr},
      {OpId::transpose, [](NodeEmit& e) {
         std::vector<int64_t> perm;
         for (int64_t d = 0; d < e.rank(); ++d) perm.push_back(d);
         std::swap(perm[static_cast<size_t>(axis_of(e.n.attrs.i("dim0"), e.rank()))],
                   perm[static_cast<size_t>(axis_of(e.n.attrs.i("dim1"), e.rank()))]);
         transpose(e, perm);
       }, nullptr},
      {OpId::permute, [](NodeEmit& e) {
         std::vector<int64_t> perm;
         for (int64_t d : e.n.attrs.ints("dims")) perm.push_back(axis_of(d, e.rank()));
         transpose(e, perm);
       }, nullptr},
      {OpId::slice, slice, nullptr},
      {OpId::select, select, nullptr},
      {OpId::diagonal, diagonal, nullptr},
      {OpId::unfold_windows, unfold_windows, nullptr},
      {OpId::expand, expand, nullptr},
      {OpId::contiguous, identity, nullptr},
      {OpId::alias, identity, nullptr},
      {OpId::detach, identity, nullptr},
      {OpId::to_device, identity, nullptr},
      {OpId::to_dtype, cast, nullptr},
      {OpId::slice_backward, nullptr, gradient},
      // unary
      {OpId::neg, [](NodeEmit& e) { unary(e, "Neg"); }, nullptr},
      {OpId::exp, [](NodeEmit& e) { unary(e, "Exp"); }, nullptr},
      {OpId::log, [](NodeEmit& e) { unary(e, "Log"); }, nullptr},
      {OpId::sqrt, [](NodeEmit& e) { unary(e, "Sqrt"); }, nullptr},
      {OpId::rsqrt, rsqrt, nullptr},
      {OpId::abs, [](NodeEmit& e) { unary(e, "Abs"); }, nullptr},
      {OpId::sign, [](NodeEmit& e) { unary(e, "Sign"); }, nullptr},
      {OpId::sin, [](NodeEmit& e) { unary(e, "Sin"); }, nullptr},
      {OpId::cos, [](NodeEmit& e) { unary(e, "Cos"); }, nullptr},
      {OpId::tanh, [](NodeEmit& e) { unary(e, "Tanh"); }, nullptr},
      {OpId::sigmoid, [](NodeEmit& e) { unary(e, "Sigmoid"); }, nullptr},
      {OpId::relu, [](NodeEmit& e) { unary(e, "Relu"); }, nullptr},
      {OpId::gelu, gelu, nullptr},
      {OpId::silu, silu, nullptr},
      {OpId::erf, [](NodeEmit& e) { unary(e, "Erf"); }, nullptr},
      {OpId::log1p, log1p, nullptr},
      {OpId::expm1, expm1, nullptr},
      {OpId::floor, [](NodeEmit& e) { integer_identity_or(e, "Floor"); }, nullptr},
      {OpId::ceil, [](NodeEmit& e) { integer_identity_or(e, "Ceil"); }, nullptr},
      {OpId::round, [](NodeEmit& e) { integer_identity_or(e, "Round"); }, nullptr},
      {OpId::trunc, trunc, nullptr},
      {OpId::hardswish, [](NodeEmit& e) { unary(e, "HardSwish"); }, nullptr},
      {OpId::mish, mish, nullptr},
      {OpId::softplus, softplus, nullptr},
      {OpId::elu, elu, nullptr},
      {OpId::leaky_relu, leaky_relu, nullptr},
      {OpId::hardtanh, hardtanh, nullptr},
      {OpId::logit, logit, nullptr},
      {OpId::lgamma, nullptr, "ONNX has no gamma function (no Lgamma or Digamma operator at opset 17)"},
      {OpId::digamma, nullptr, "ONNX has no gamma function (no Lgamma or Digamma operator at opset 17)"},
      {OpId::polygamma, nullptr, "ONNX has no gamma function or Hurwitz zeta (no Lgamma, Digamma or Polygamma operator)"},
      // binary
      {OpId::add, [](NodeEmit& e) { emit_broadcast_binary(e, "Add"); }, nullptr},
      {OpId::sub, [](NodeEmit& e) { emit_broadcast_binary(e, "Sub"); }, nullptr},
      {OpId::mul, [](NodeEmit& e) { emit_broadcast_binary(e, "Mul"); }, nullptr},
      {OpId::div, [](NodeEmit& e) { emit_broadcast_binary(e, "Div"); }, nullptr},
      {OpId::pow, [](NodeEmit& e) { emit_broadcast_binary(e, "Pow"); }, nullptr},
      {OpId::maximum, [](NodeEmit& e) { emit_broadcast_binary(e, "Max"); }, nullptr},
      {OpId::minimum, [](NodeEmit& e) { emit_broadcast_binary(e, "Min"); }, nullptr},
      {OpId::remainder, remainder, nullptr},
      {OpId::atan2, atan2, nullptr},
      {OpId::logaddexp, logaddexp, nullptr},
      {OpId::eq, [](NodeEmit& e) { compare(e, "Equal"); }, nullptr},
      {OpId::ne, not_equal, nullptr},
      {OpId::lt, [](NodeEmit& e) { compare(e, "Less"); }, nullptr},
      {OpId::le, [](NodeEmit& e) { compare(e, "LessOrEqual"); }, nullptr},
      {OpId::gt, [](NodeEmit& e) { compare(e, "Greater"); }, nullptr},
      {OpId::ge, [](NodeEmit& e) { compare(e, "GreaterOrEqual"); }, nullptr},
      {OpId::where, where, nullptr},
      {OpId::clamp, clamp, nullptr},
      // reductions
      {OpId::sum, [](NodeEmit& e) { reduction(e, "ReduceSum"); }, nullptr},
      {OpId::mean, [](NodeEmit& e) { reduction(e, "ReduceMean"); }, nullptr},
      {OpId::logsumexp, [](NodeEmit& e) { reduction(e, "ReduceLogSumExp"); }, nullptr},
      {OpId::max, [](NodeEmit& e) { full_reduction(e, "ReduceMax"); }, nullptr},
      {OpId::min, [](NodeEmit& e) { full_reduction(e, "ReduceMin"); }, nullptr},
      {OpId::max_dim, [](NodeEmit& e) { value_and_index(e, "ReduceMax", "ArgMax"); }, nullptr},
      {OpId::min_dim, [](NodeEmit& e) { value_and_index(e, "ReduceMin", "ArgMin"); }, nullptr},
      {OpId::argmax, [](NodeEmit& e) { arg_max_min(e, "ArgMax"); }, nullptr},
      {OpId::argmin, [](NodeEmit& e) { arg_max_min(e, "ArgMin"); }, nullptr},
      {OpId::var, [](NodeEmit& e) { e.assign(0, variance(e)); }, nullptr},
      {OpId::std, [](NodeEmit& e) { e.w.node("Sqrt", {variance(e)}, {e.out()}); }, nullptr},
      {OpId::softmax, [](NodeEmit& e) { softmax(e, "Softmax"); }, nullptr},
      {OpId::log_softmax, [](NodeEmit& e) { softmax(e, "LogSoftmax"); }, nullptr},
      // indexing, joining, ordering
      {OpId::embedding, [](NodeEmit& e) { gather_like(e, "Gather", 0, 1, 0); }, nullptr},
      {OpId::gather, [](NodeEmit& e) { gather_like(e, "GatherElements", 0, 1, axis_of(e.n.attrs.i("dim"), e.rank())); },
       nullptr},
      {OpId::index_select, [](NodeEmit& e) { gather_like(e, "Gather", 0, 1, axis_of(e.n.attrs.i("dim"), e.rank())); },
       nullptr},
      {OpId::scatter_add, [](NodeEmit& e) {
         DType dt = e.out_meta().dtype;
         auto& n = e.w.node("ScatterElements", {e.in_as(0, dt), e.in_as(1, DType::i64), e.in_as(2, dt)}, {e.out()});
         set_int(n, "axis", axis_of(e.n.attrs.i("dim"), e.rank()));
         set_string(n, "reduction", "add");
       }, nullptr},
      {OpId::cat, cat, nullptr},
      {OpId::stack, stack, nullptr},
      {OpId::split, split, nullptr},
      {OpId::unbind, unbind, nullptr},
      {OpId::cumsum, cumsum, nullptr},
      {OpId::cumprod, nullptr, "ONNX has no cumulative product, and exp(cumsum(log x)) is wrong for zeros and negatives"},
      {OpId::sort, sort, nullptr},
      {OpId::topk, topk, nullptr},
      {OpId::flip, flip, nullptr},
      {OpId::roll, roll, nullptr},
      {OpId::tril, [](NodeEmit& e) { trilu(e, false); }, nullptr},
      {OpId::triu, [](NodeEmit& e) { trilu(e, true); }, nullptr},
      {OpId::masked_fill, masked_fill, nullptr},
      {OpId::repeat, repeat, nullptr},
      {OpId::one_hot, one_hot, nullptr},
      {OpId::multinomial, nullptr,
       "a random draw from nabla's generator; ONNX's Multinomial draws from another stream and cannot sample without "
       "replacement"},
      {OpId::random_uniform, random_uniform, nullptr},
      {OpId::random_normal, random_normal, nullptr},
      {OpId::random_integers, random_integers, nullptr},
      {OpId::adam_step_, nullptr,
       "an optimizer step writes its parameter and state in place; an ONNX graph is an inference graph"},
      {OpId::sgd_step_, nullptr,
       "an optimizer step writes its parameter and state in place; an ONNX graph is an inference graph"},
  };
}

const OpMapping& op_mapping(OpId op) {
  static const std::vector<OpMapping> table = [] {
    std::vector<OpMapping> t(static_cast<size_t>(kNumOps));
    std::vector<bool> seen(static_cast<size_t>(kNumOps), false);
    for (auto rows : {tensor_op_rows(), nn_op_rows(), quant_op_rows()})
      for (const MappingRow& r : rows) {
        size_t k = static_cast<size_t>(r.op);
        if (seen[k]) throw Error(std::string("onnx export: two mapping rows for op ") + op_name(r.op));
        seen[k] = true;
        t[k] = {r.emit, r.refused};
      }
    return t;
  }();
  return table.at(static_cast<size_t>(op));
}

}  // namespace nabla::graph::onnx_export
