// Rows of the pools: max_pool2d, avg_pool2d and its adjoint avg_pool2d_backward, the
// 1-D pools built on them (max_pool1d, avg_pool1d), the adaptive pools, and their
// functional API.
//
// avg_pool2d and avg_pool2d_backward are an adjoint pair, so grad of grad stays inside
// them. The max pools route their gradient with max_pool2d_backward, one scatter of
// the gradient over their argmax indices, whose own gradient is a gather at them. The 1-D rows
// are the 2-D ones on a unit height ([N, C, L] seen as [N, C, 1, L]; cpu::unit_height
// in tensor/cpu/conv_geometry.hpp): their kernels run the 2-D kernels on views, and
// their backward rules are the 2-D rows' on unsqueezed tensors. adaptive_avg_pool is
// linear and separable, y = A_H x A_W^T with A the averaging matrices, so its gradient
// is A_H^T g A_W: two matmuls. adaptive_max_pool2d routes its gradient as max_pool2d.
#include "autograd/cost.hpp"
#include "autograd/ops/common.hpp"
#include "autograd/ops/conv_checks.hpp"

namespace nabla {

using namespace windowed;

namespace {

using cpu::Pair;
using cpu::PoolGeometry;

// Validates a pooling of input shape x (argument `x_arg`) and returns its geometry.
// spatial = 1: a 1-D pool ([N, C, L], one value per list), on a unit height.
PoolGeometry check_pool(const char* op, const Shape& x, const char* x_arg, const Attrs& a, int spatial = 2) {
  check_rank(op, x_arg, x, spatial, layout("N, C", spatial));
  if (a.ints("kernel_size").empty()) throw Error(std::string(op) + ": argument 'kernel_size' must not be empty");
  PoolGeometry g = cpu::pool_geometry(cpu::unit_height(x), as_2d(a, spatial, op), op);
  auto str = [&](Pair p) { return pair_str(p, spatial); };
  check_positive(op, "kernel_size", g.kernel, spatial);
  check_positive(op, "stride", g.stride, spatial);
  check_positive(op, "dilation", g.dilation, spatial);
  check_non_negative(op, "padding", g.pad, spatial);
  if (g.pad.h > g.kernel.h / 2 || g.pad.w > g.kernel.w / 2)  // 2 * pad could overflow
    throw Error(std::string(op) + ": argument 'padding' (" + str(g.pad) + ") must be at most half of 'kernel_size' (" +
                str(g.kernel) + ")");
  if (g.OH <= 0 || g.OW <= 0)
    throw Error(std::string(op) + ": argument '" + x_arg + "' of shape " + shape_str(x) + " is too small for kernel " +
                str(g.kernel) + " with padding " + str(g.pad) + " and dilation " + str(g.dilation) +
                "; the computed output size is " + str({g.OH, g.OW}));
  return g;
}

Shape pool_out_shape(const Shape& x, const PoolGeometry& g) {
  if (x.size() == 3) return {x[0], x[1], g.OW};
  return {x[0], x[1], g.OH, g.OW};
}

template <int spatial>
std::vector<TensorMeta> infer_max_pool(const TensorList& in, const Attrs& a) {
  const char* op = spatial == 1 ? "max_pool1d" : "max_pool2d";
  // u8 and i8 too: the max pool of quantized activations (no gradient: integers).
  DType dt = in[0].dtype();
  if (!is_floating(dt) && dt != DType::u8 && dt != DType::i8)
    throw Error(std::string(op) + ": argument 'input' must be a floating, u8 or i8 tensor, got " + dtype_name(dt));
  Shape out = pool_out_shape(in[0].sizes(), check_pool(op, in[0].sizes(), "input", a, spatial));
  return {TensorMeta{out, in[0].dtype()}, TensorMeta{out, DType::i64}};
}

// The number of elements per (n, c) plane of a shape [N, C, ...].
int64_t plane_numel(const Shape& s) {
  int64_t n = 1;
  for (size_t d = 2; d < s.size(); ++d) n *= s[d];
  return n;
}

// Max pools (max_pool1d/2d, adaptive_max_pool2d): the indices are flat over each
// (n, c) plane, so the gradient is one max_pool2d_backward: the output's gradient
// scattered into each plane at them.
TensorList backward_max_pool(BackwardContext& c) {
  return {max_pool2d_backward(c.grad(0), c.output(1), c.input_shape(0).vec())};
}

// max_pool2d_backward(grad, indices; input_shape): grad and indices [N, C, *out],
// the result [N, C, *in] = input_shape (any number of spatial dims: the 1-D and
// adaptive pools route their gradient through it too).
std::vector<TensorMeta> infer_max_pool2d_backward(const TensorList& in, const Attrs& a) {
  const char* op = "max_pool2d_backward";
  const Tensor &grad = in[0], &indices = in[1];
  check_floating(op, "grad", grad);
  if (indices.dtype() != DType::i64)
    throw Error(std::string(op) + ": argument 'indices' must be an i64 tensor (a max pool's indices), got " +
                dtype_name(indices.dtype()));
  if (!(indices.sizes() == grad.sizes()))
    throw Error(std::string(op) + ": argument 'indices' of shape " + indices.shape_str() +
                " must have the shape of argument 'grad' " + grad.shape_str());
  Shape x(a.ints("input_shape"));
  if (grad.dim() < 3 || x.size() != grad.sizes().size())
    throw Error(std::string(op) + ": argument 'grad' of shape " + grad.shape_str() + " and input_shape " +
                shape_str(x) + " must be [N, C, ...] of one rank, at least 3");
  int64_t in_plane = 1;
  for (int64_t d : x.vec()) {
    if (d < 0) throw Error(std::string(op) + ": input_shape " + shape_str(x) + " has a negative size");
    in_plane = size_mul(op, in_plane, d);
  }
  if (x[0] != grad.sizes()[0] || x[1] != grad.sizes()[1])
    throw Error(std::string(op) + ": argument 'grad' of shape " + grad.shape_str() + " does not match input_shape " +
                shape_str(x) + " in N and C");
  return one(x, grad.dtype());
}

// Linear in grad, its adjoint a gather: each output gradient element reads the
// incoming gradient at the input cell its window's maximum came from.
TensorList backward_max_pool2d_backward(BackwardContext& c) {
  Tensor gg = c.grad(), idx = c.input(1);
  const Shape& gs = c.input_shape(0);
  int64_t n = gs[0], ch = gs[1];
  Tensor planes = reshape(gg, {n, ch, plane_numel(gg.sizes())});
  return {reshape(gather(planes, 2, reshape(idx, {n, ch, plane_numel(gs)})), gs.vec()), Tensor()};
}

template <int spatial>
std::vector<TensorMeta> infer_avg_pool(const TensorList& in, const Attrs& a) {
  const char* op = spatial == 1 ? "avg_pool1d" : "avg_pool2d";
  check_floating(op, "input", in[0]);
  return one(pool_out_shape(in[0].sizes(), check_pool(op, in[0].sizes(), "input", a, spatial)), in[0].dtype());
}

std::vector<TensorMeta> infer_avg_pool2d_backward(const TensorList& in, const Attrs& a) {
  const char* op = "avg_pool2d_backward";
  const Tensor& grad = in[0];
  check_floating(op, "grad", grad);
  Shape x(a.ints("input_shape"));
  Shape want = pool_out_shape(x, check_pool(op, x, "input_shape", a));
  if (!(grad.sizes() == want))
    throw Error(std::string(op) + ": argument 'grad' of shape " + grad.shape_str() +
                " does not match the pooling's output shape " + shape_str(want) + " (input_shape " + shape_str(x) +
                ")");
  return one(x, grad.dtype());
}

Pool2dOptions avg_options(const Attrs& a) {
  Pool2dOptions opt;
  opt.kernel_size = a.ints("kernel_size");
  opt.stride = a.ints("stride");
  opt.padding = a.ints("padding");
  opt.ceil_mode = a.b("ceil_mode");
  opt.count_include_pad = a.b("count_include_pad");
  return opt;
}

TensorList backward_avg_pool2d(BackwardContext& c) {
  return {avg_pool2d_backward(c.grad(), c.input_shape(0).vec(), avg_options(c.attrs()))};
}
// avg_pool2d_backward is linear in grad with adjoint avg_pool2d.
TensorList backward_avg_pool2d_backward(BackwardContext& c) { return {avg_pool2d(c.grad(), avg_options(c.attrs()))}; }

std::vector<AttrSpec> pool_attrs(bool is_max, const char* shape_attr = nullptr, int spatial = 2) {
  std::vector<AttrSpec> specs;
  if (shape_attr) specs.push_back(attr_required(shape_attr, AttrKind::ints));
  specs.push_back(attr_required("kernel_size", AttrKind::ints));
  specs.push_back(attr_optional("stride", AttrKind::ints, std::vector<int64_t>{}));
  specs.push_back(attr_optional("padding", AttrKind::ints, per_dim(0, spatial)));
  if (is_max) specs.push_back(attr_optional("dilation", AttrKind::ints, per_dim(1, spatial)));
  specs.push_back(attr_optional("ceil_mode", AttrKind::boolean, false));
  if (!is_max) specs.push_back(attr_optional("count_include_pad", AttrKind::boolean, true));
  return specs;
}

TensorList backward_avg_pool1d(BackwardContext& c) {
  Pool2dOptions opt = avg_options(cpu::unit_height_attrs(c.attrs(), "avg_pool1d"));
  return {drop(avg_pool2d_backward(lift(c.grad(), 1), cpu::unit_height(c.input_shape(0)).vec(), opt), 1)};
}

// ---------------------------------------------------------------------------
// Adaptive pooling

template <int spatial, bool is_max>
std::vector<TensorMeta> infer_adaptive(const TensorList& in, const Attrs& a) {
  const char* op = is_max ? "adaptive_max_pool2d" : spatial == 1 ? "adaptive_avg_pool1d" : "adaptive_avg_pool2d";
  const Tensor& x = in[0];
  check_floating(op, "input", x);
  check_rank(op, "input", x.sizes(), spatial, layout("N, C", spatial));
  const std::vector<int64_t>& size = a.ints("output_size");
  if (size.empty() || size.size() > size_t(spatial))
    throw Error(std::string(op) + ": argument 'output_size' must have " + (spatial == 1 ? "1 value" : "1 or 2 values") +
                ", got " + shape_str(Shape(size)));
  cpu::AdaptiveGeometry g = cpu::adaptive_geometry(cpu::unit_height(x.sizes()), as_2d(a, spatial, op), op);
  if (g.OH <= 0 || g.OW <= 0)
    throw Error(std::string(op) + ": argument 'output_size' must be positive, got " + shape_str(Shape(size)));
  if (g.H == 0 || g.W == 0)
    throw Error(std::string(op) + ": argument 'input' of shape " + x.shape_str() + " has an empty spatial dim");
  Shape out = spatial == 1 ? Shape{x.sizes()[0], x.sizes()[1], g.OW} : Shape{x.sizes()[0], x.sizes()[1], g.OH, g.OW};
  if (is_max) return {TensorMeta{out, x.dtype()}, TensorMeta{out, DType::i64}};
  return one(out, x.dtype());
}

// A[o, i] = 1 / |window o| for i in window o of a dim of size `in` pooled to `out`.
Tensor averaging_matrix(int64_t out, int64_t in, const Tensor& like) {
  std::vector<double> a(size_t(out * in), 0.0);
  for (int64_t o = 0; o < out; ++o) {
    int64_t lo = cpu::adaptive_start(o, in, out), hi = cpu::adaptive_end(o, in, out);
    for (int64_t i = lo; i < hi; ++i) a[size_t(o * in + i)] = 1.0 / double(hi - lo);
  }
  Tensor m = tensor_from(a, {out, in}, like.dtype());
  return like.device().kind == DeviceKind::cpu ? m : to_device(m, like.device());
}

// y = A_H x A_W^T per plane (A_H absent in 1-D), so dx = A_H^T g A_W.
template <int spatial>
TensorList backward_adaptive_avg(BackwardContext& c) {
  const Shape& xs = c.input_shape(0);
  Tensor g = c.grad();
  const Shape& gs = g.sizes();
  Tensor gx = matmul(g, averaging_matrix(gs[gs.size() - 1], xs[xs.size() - 1], g));
  if (spatial == 2) gx = matmul(transpose(averaging_matrix(gs[2], xs[2], g), 0, 1), gx);
  return {gx};
}

// ---------------------------------------------------------------------------
// Cost rules (docs/cost.md)

// kH * kW of a pooling's attributes (one number means a square window).
double pool_window(const Attrs& a) {
  const auto& k = a.ints("kernel_size");
  if (k.empty()) return 0.0;
  return static_cast<double>(k[0]) * static_cast<double>(k.size() > 1 ? k[1] : k[0]);
}

// max_pool2d: kH*kW comparisons per output element; bytes include the i64 indices.
OpCost cost_max_pool2d(const TensorList& in, const Attrs& a, const TensorList& out) {
  return {cost_numel(out[0]) * pool_window(a), io_bytes(in, out)};
}
// avg_pool2d: kH*kW adds and one divide per output element; its backward spreads
// each gradient element over the window: one divide and kH*kW adds per grad element.
OpCost cost_avg_pool2d(const TensorList& in, const Attrs& a, const TensorList& out) {
  return {cost_numel(out[0]) * (pool_window(a) + 1.0), io_bytes(in, out)};
}
OpCost cost_avg_pool2d_backward(const TensorList& in, const Attrs& a, const TensorList& out) {
  return {cost_numel(in[0]) * (pool_window(a) + 1.0), io_bytes(in, out)};
}

// 1-D pools: k comparisons (max) or k adds and a divide (avg) per output element.
double pool1d_window(const Attrs& a) {
  const auto& k = a.ints("kernel_size");
  return k.empty() ? 0.0 : static_cast<double>(k[0]);
}
OpCost cost_max_pool1d(const TensorList& in, const Attrs& a, const TensorList& out) {
  return {cost_numel(out[0]) * pool1d_window(a), io_bytes(in, out)};
}
OpCost cost_avg_pool1d(const TensorList& in, const Attrs& a, const TensorList& out) {
  return {cost_numel(out[0]) * (pool1d_window(a) + 1.0), io_bytes(in, out)};
}

// max_pool2d_backward: one add per grad element; bytes: grad and indices read, the
// whole result written (zeros where no window's maximum was).
OpCost cost_max_pool2d_backward(const TensorList& in, const Attrs&, const TensorList& out) {
  return {cost_numel(in[0]), io_bytes(in, out)};
}

// Adaptive pools read every input element about once (windows overlap by at most a
// cell), plus a divide per output for the average.
OpCost cost_adaptive_pool(const TensorList& in, const Attrs&, const TensorList& out) {
  return {cost_numel(in[0]) + cost_numel(out[0]), io_bytes(in, out)};
}

}  // namespace

void register_pool_ops(std::vector<OpDef>& t) {
  row(t, OpId::max_pool2d) = {.num_inputs = 1,
                              .num_outputs = 2,
                              .attrs = pool_attrs(true),
                              .infer = infer_max_pool<2>,
                              .cpu = cpu::max_pool2d,
                              .backward = backward_max_pool,
                              .saves = {0, 0b10},
                              .nondiff_outputs = 0b10,
                              .optional_outputs = 0b10,
                              .cost = cost_max_pool2d};
  row(t, OpId::avg_pool2d) = {.num_inputs = 1,
                              .attrs = pool_attrs(false),
                              .infer = infer_avg_pool<2>,
                              .cpu = cpu::avg_pool2d,
                              .backward = backward_avg_pool2d,
                              .saves = {0, 0},
                              .cost = cost_avg_pool2d};
  row(t, OpId::avg_pool2d_backward) = {.num_inputs = 1,
                                       .attrs = pool_attrs(false, "input_shape"),
                                       .infer = infer_avg_pool2d_backward,
                                       .cpu = cpu::avg_pool2d_backward,
                                       .backward = backward_avg_pool2d_backward,
                                       .saves = {0, 0},
                                       .cost = cost_avg_pool2d_backward};
  row(t, OpId::max_pool1d) = {.num_inputs = 1,
                              .num_outputs = 2,
                              .attrs = pool_attrs(true, nullptr, 1),
                              .infer = infer_max_pool<1>,
                              .cpu = cpu::max_pool1d,
                              .backward = backward_max_pool,
                              .saves = {0, 0b10},
                              .nondiff_outputs = 0b10,
                              .optional_outputs = 0b10,
                              .cost = cost_max_pool1d};
  row(t, OpId::avg_pool1d) = {.num_inputs = 1,
                              .attrs = pool_attrs(false, nullptr, 1),
                              .infer = infer_avg_pool<1>,
                              .cpu = cpu::avg_pool1d,
                              .backward = backward_avg_pool1d,
                              .saves = {0, 0},
                              .cost = cost_avg_pool1d};
  std::vector<AttrSpec> output_size{attr_required("output_size", AttrKind::ints)};
  row(t, OpId::adaptive_avg_pool1d) = {.num_inputs = 1,
                                       .attrs = output_size,
                                       .infer = infer_adaptive<1, false>,
                                       .cpu = cpu::adaptive_avg_pool1d,
                                       .backward = backward_adaptive_avg<1>,
                                       .saves = {0, 0},
                                       .cost = cost_adaptive_pool};
  row(t, OpId::adaptive_avg_pool2d) = {.num_inputs = 1,
                                       .attrs = output_size,
                                       .infer = infer_adaptive<2, false>,
                                       .cpu = cpu::adaptive_avg_pool2d,
                                       .backward = backward_adaptive_avg<2>,
                                       .saves = {0, 0},
                                       .cost = cost_adaptive_pool};
  row(t, OpId::adaptive_max_pool2d) = {.num_inputs = 1,
                                       .num_outputs = 2,
                                       .attrs = output_size,
                                       .infer = infer_adaptive<2, true>,
                                       .cpu = cpu::adaptive_max_pool2d,
                                       .backward = backward_max_pool,
                                       .saves = {0, 0b10},
                                       .nondiff_outputs = 0b10,
                                       .cost = cost_adaptive_pool};
  row(t, OpId::max_pool2d_backward) = {.num_inputs = 2,
                                       .attrs = {attr_required("input_shape", AttrKind::ints)},
                                       .infer = infer_max_pool2d_backward,
                                       .cpu = cpu::max_pool2d_backward,
                                       .backward = backward_max_pool2d_backward,
                                       .saves = {0b10, 0},
                                       .cost = cost_max_pool2d_backward};
  name_inputs(t, {{OpId::max_pool2d, {"input"}},
                  {OpId::max_pool2d_backward, {"grad", "indices"}},
                  {OpId::avg_pool2d, {"input"}},
                  {OpId::avg_pool2d_backward, {"grad"}},
                  {OpId::max_pool1d, {"input"}},
                  {OpId::avg_pool1d, {"input"}},
                  {OpId::adaptive_avg_pool1d, {"input"}},
                  {OpId::adaptive_avg_pool2d, {"input"}},
                  {OpId::adaptive_max_pool2d, {"input"}}});
  // What :help prints for each op of this family; tests/interp/op_docs.cpp runs every example.
  document_ops(t,
               {{OpId::max_pool2d,
                 "The largest value in each kernel_size window of the last two dims (stride defaults to "
                 "kernel_size), with return_indices also where it was, as torch.nn.functional.max_pool2d. "
                 "Example: max_pool2d(randn(1, 1, 4, 4), 2)"},
                {OpId::avg_pool2d,
                 "The mean of each kernel_size window of the last two dims (stride defaults to kernel_size; "
                 "count_include_pad counts the padding in the divisor), as torch.nn.functional.avg_pool2d. "
                 "Example: avg_pool2d(randn(1, 1, 4, 4), 2)"},
                {OpId::max_pool2d_backward,
                 "The gradient of a max pool (max_pool1d, max_pool2d, adaptive_max_pool2d) with respect to its "
                 "input, of shape input_shape: each element of grad added at the flat index, within its (n, c) "
                 "plane, where its window's maximum was, as torch.ops.aten.max_pool2d_with_indices_backward. "
                 "Example: max_pool2d_backward(ones(1, 1, 2, 2), max_pool2d(randn(1, 1, 4, 4), 2, "
                 "return_indices=true)[1], input_shape=[1, 1, 4, 4])"},
                {OpId::avg_pool2d_backward,
                 "The gradient of avg_pool2d with respect to its input, of shape input_shape: each window's gradient "
                 "spread evenly over the window. "
                 "Example: avg_pool2d_backward(ones(1, 1, 2, 2), input_shape=[1, 1, 4, 4], kernel_size=[2, 2])"},
                {OpId::max_pool1d,
                 "The largest value in each kernel_size window of the last dim (stride defaults to kernel_size), "
                 "with return_indices also where it was, as torch.nn.functional.max_pool1d. "
                 "Example: max_pool1d(randn(1, 2, 8), 2)"},
                {OpId::avg_pool1d,
                 "The mean of each kernel_size window of the last dim (stride defaults to kernel_size), as "
                 "torch.nn.functional.avg_pool1d. "
                 "Example: avg_pool1d(randn(1, 2, 8), 2)"},
                {OpId::adaptive_avg_pool1d,
                 "The mean of each of output_size windows that tile the last dim, as "
                 "torch.nn.functional.adaptive_avg_pool1d. "
                 "Example: adaptive_avg_pool1d(randn(1, 2, 10), 5)"},
                {OpId::adaptive_avg_pool2d,
                 "The mean of each of output_size windows that tile the last two dims ([1, 1]: global average "
                 "pooling), as torch.nn.functional.adaptive_avg_pool2d. "
                 "Example: adaptive_avg_pool2d(randn(1, 3, 8, 8), [1, 1])"},
                {OpId::adaptive_max_pool2d,
                 "The largest value in each of output_size windows that tile the last two dims, with return_indices "
                 "also where it was, as torch.nn.functional.adaptive_max_pool2d. "
                 "Example: adaptive_max_pool2d(randn(1, 3, 8, 8), [2, 2])"}});
}

// ---------------------------------------------------------------------------
// Functional API

namespace {

Attrs max_call_attrs(const Pool2dOptions& o) {
  return {{"kernel_size", o.kernel_size},
          {"stride", o.stride},
          {"padding", o.padding},
          {"dilation", o.dilation},
          {"ceil_mode", o.ceil_mode}};
}

Attrs avg_call_attrs(const Pool2dOptions& o) {
  return {{"kernel_size", o.kernel_size},
          {"stride", o.stride},
          {"padding", o.padding},
          {"ceil_mode", o.ceil_mode},
          {"count_include_pad", o.count_include_pad}};
}

Attrs pool1d_call_attrs(const Pool1dOptions& o, bool is_max) {
  Attrs a{{"kernel_size", once(o.kernel_size)},
          {"stride", o.stride ? once(*o.stride) : std::vector<int64_t>{}},
          {"padding", once(o.padding)},
          {"ceil_mode", o.ceil_mode}};
  if (is_max)
    a.set("dilation", once(o.dilation));
  else
    a.set("count_include_pad", o.count_include_pad);
  return a;
}

}  // namespace

std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& x, const Pool2dOptions& opt) {
  TensorList outs =
      unbatched_as_batch(x, [&](const Tensor& xb) { return call(OpId::max_pool2d, {xb}, max_call_attrs(opt)); });
  return {outs[0], outs[1]};
}

Tensor max_pool2d(const Tensor& x, const Pool2dOptions& opt) { return max_pool2d_with_indices(x, opt).first; }

Tensor avg_pool2d(const Tensor& x, const Pool2dOptions& opt) {
  bool undilated = opt.dilation.empty() || opt.dilation == IntList{1, 1} || opt.dilation == IntList{1};
  check(undilated, "avg_pool2d: has no dilation; got dilation " + shape_str(Shape(opt.dilation)));
  return unbatched_as_batch(x, [&](const Tensor& xb) { return call(OpId::avg_pool2d, {xb}, avg_call_attrs(opt)); })[0];
}

Tensor max_pool2d_backward(const Tensor& grad, const Tensor& indices, const IntList& input_shape) {
  return call1(OpId::max_pool2d_backward, {grad, indices}, {{"input_shape", input_shape}});
}

Tensor avg_pool2d_backward(const Tensor& grad, const IntList& input_shape, const Pool2dOptions& opt) {
  Attrs a = avg_call_attrs(opt);
  a.set("input_shape", input_shape);
  return call1(OpId::avg_pool2d_backward, {grad}, a);
}

std::pair<Tensor, Tensor> max_pool1d_with_indices(const Tensor& x, const Pool1dOptions& opt) {
  TensorList outs = unbatched_1d_as_batch(
      x, [&](const Tensor& xb) { return call(OpId::max_pool1d, {xb}, pool1d_call_attrs(opt, true)); });
  return {outs[0], outs[1]};
}

Tensor max_pool1d(const Tensor& x, const Pool1dOptions& opt) { return max_pool1d_with_indices(x, opt).first; }

Tensor avg_pool1d(const Tensor& x, const Pool1dOptions& opt) {
  return unbatched_1d_as_batch(
      x, [&](const Tensor& xb) { return call(OpId::avg_pool1d, {xb}, pool1d_call_attrs(opt, false)); })[0];
}

Tensor adaptive_avg_pool1d(const Tensor& x, int64_t output_size) {
  Attrs a{{"output_size", once(output_size)}};
  return unbatched_1d_as_batch(x, [&](const Tensor& xb) { return call(OpId::adaptive_avg_pool1d, {xb}, a); })[0];
}

Tensor adaptive_avg_pool2d(const Tensor& x, const IntList& output_size) {
  Attrs a{{"output_size", output_size}};
  return unbatched_as_batch(x, [&](const Tensor& xb) { return call(OpId::adaptive_avg_pool2d, {xb}, a); })[0];
}

std::pair<Tensor, Tensor> adaptive_max_pool2d(const Tensor& x, const IntList& output_size) {
  Attrs a{{"output_size", output_size}};
  TensorList outs = unbatched_as_batch(x, [&](const Tensor& xb) { return call(OpId::adaptive_max_pool2d, {xb}, a); });
  return {outs[0], outs[1]};
}

}  // namespace nabla
