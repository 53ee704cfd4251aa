// Rows of conv2d, its two adjoints (conv2d_backward_input, conv2d_backward_weight),
// max_pool2d, avg_pool2d and avg_pool2d_backward, and their functional API.
//
// conv2d(x, w) is bilinear, so its derivatives are the two adjoints, and each
// adjoint's derivatives are again conv2d or the other adjoint: grad of grad stays
// inside these three rows. avg_pool2d and avg_pool2d_backward are likewise an
// adjoint pair. max_pool2d routes its gradient with scatter_add on the indices.
#include "autograd/cost.hpp"
#include "autograd/ops/common.hpp"
#include "autograd/ops/conv_checks.hpp"

namespace nabla {

namespace {

using cpu::ConvGeometry;
using cpu::Pair;
using cpu::PoolGeometry;

std::string pair_str(Pair p) { return std::to_string(p.h) + "x" + std::to_string(p.w); }

void check_4d(const char* op, const char* arg, const Shape& s, const char* layout) {
  if (s.size() != 4)
    throw Error(std::string(op) + ": argument '" + arg + "' must be 4-D " + layout + ", got shape " + shape_str(s));
}

void check_positive(const char* op, const char* name, Pair p) {
  if (p.h <= 0 || p.w <= 0)
    throw Error(std::string(op) + ": argument '" + name + "' must be positive, got " + pair_str(p));
}
void check_non_negative(const char* op, const char* name, Pair p) {
  if (p.h < 0 || p.w < 0)
    throw Error(std::string(op) + ": argument '" + name + "' must be non-negative, got " + pair_str(p));
}

}  // namespace

// ---------------------------------------------------------------------------
// Convolution

ConvGeometry check_conv(const char* op, const Shape& x, const char* x_arg, const Shape& w, const char* w_arg,
                        const Attrs& a) {
  check_4d(op, x_arg, x, "[N, C, H, W]");
  check_4d(op, w_arg, w, "[C_out, C_in / groups, kH, kW]");
  ConvGeometry g = cpu::conv_geometry(x, w, a, op);
  check_positive(op, "stride", g.stride);
  check_positive(op, "dilation", g.dilation);
  check_non_negative(op, "padding", g.pad);
  std::string groups = "groups=" + std::to_string(g.groups);
  if (g.groups <= 0) throw Error(std::string(op) + ": argument 'groups' must be positive, got " + groups);
  if (g.OC % g.groups != 0)
    throw Error(std::string(op) + ": argument '" + w_arg + "' of shape " + shape_str(w) + " has " +
                std::to_string(g.OC) + " output channels, which " + groups + " does not divide");
  if (w[1] * g.groups != g.C)
    throw Error(std::string(op) + ": argument '" + w_arg + "' of shape " + shape_str(w) + " expects " +
                std::to_string(w[1] * g.groups) + " input channels (" + groups + ") but argument '" + x_arg +
                "' of shape " + shape_str(x) + " has " + std::to_string(g.C));
  if (g.OH <= 0 || g.OW <= 0) {
    // In 128 bits, as the output size was: a dilation of 2**62 must not print a wrapped reach.
    auto wide = [](__int128 v) { return v > INT64_MAX ? std::string("more than 2^63") : std::to_string(int64_t(v)); };
    auto padded = [&](int64_t in, int64_t pad) { return wide(__int128(in) + 2 * __int128(pad)); };
    auto reach = [&](int64_t d, int64_t k) { return wide(__int128(d) * (k - 1) + 1); };
    throw Error(std::string(op) + ": argument '" + x_arg + "' of shape " + shape_str(x) + " is " + padded(g.H, g.pad.h) +
                "x" + padded(g.W, g.pad.w) + " after padding, smaller than the " + reach(g.dilation.h, g.KH) + "x" +
                reach(g.dilation.w, g.KW) + " (dilated) kernel of argument '" + w_arg +
                "' of shape " + shape_str(w) + "; the computed output size is " + std::to_string(g.OH) + "x" +
                std::to_string(g.OW));
  }
  return g;
}

namespace {

Shape conv_out_shape(const ConvGeometry& g) { return {g.N, g.OC, g.OH, g.OW}; }

// The grad argument of an adjoint must be shaped like the convolution's output.
void check_grad_shape(const char* op, const Tensor& grad, const ConvGeometry& g, const std::string& of) {
  Shape want = conv_out_shape(g);
  if (!(grad.sizes() == want))
    throw Error(std::string(op) + ": argument 'grad' of shape " + grad.shape_str() +
                " does not match the convolution's output shape " + shape_str(want) + " (" + of + ")");
}

std::vector<TensorMeta> infer_conv2d(const TensorList& in, const Attrs& a) {
  const Tensor &x = in[0], &w = in[1], &b = in[2];
  check_same_float("conv2d", x, "input", w, "weight");
  ConvGeometry g = check_conv("conv2d", x.sizes(), "input", w.sizes(), "weight", a);
  if (b.defined()) {
    check_same_float("conv2d", x, "input", b, "bias");
    if (!(b.dim() == 1 && b.sizes()[0] == g.OC))
      throw Error("conv2d: argument 'bias' must have shape [" + std::to_string(g.OC) +
                  "] (the output channels of "
                  "argument 'weight' of shape " +
                  w.shape_str() + "), got " + b.shape_str());
  }
  return one(conv_out_shape(g), x.dtype());
}

std::vector<TensorMeta> infer_conv2d_backward_input(const TensorList& in, const Attrs& a) {
  const char* op = "conv2d_backward_input";
  const Tensor &grad = in[0], &w = in[1];
  check_same_float(op, grad, "grad", w, "weight");
  Shape x(a.ints("input_shape"));
  ConvGeometry g = check_conv(op, x, "input_shape", w.sizes(), "weight", a);
  check_grad_shape(op, grad, g, "input_shape " + shape_str(x) + ", weight of shape " + w.shape_str());
  return one(x, grad.dtype());
}

std::vector<TensorMeta> infer_conv2d_backward_weight(const TensorList& in, const Attrs& a) {
  const char* op = "conv2d_backward_weight";
  const Tensor &x = in[0], &grad = in[1];
  check_same_float(op, x, "input", grad, "grad");
  Shape w(a.ints("weight_shape"));
  ConvGeometry g = check_conv(op, x.sizes(), "input", w, "weight_shape", a);
  check_grad_shape(op, grad, g, "input of shape " + x.shape_str() + ", weight_shape " + shape_str(w));
  return one(w, x.dtype());
}

Conv2dOptions conv_options(const Attrs& a) {
  return {a.ints("stride"), a.ints("padding"), a.ints("dilation"), a.i("groups")};
}

TensorList backward_conv2d(BackwardContext& c) {
  Conv2dOptions opt = conv_options(c.attrs());
  Tensor g = c.grad(), gx, gw, gb;
  if (c.needs_grad(0)) gx = conv2d_backward_input(g, c.input(1), c.input_shape(0).vec(), opt);
  if (c.needs_grad(1)) gw = conv2d_backward_weight(c.input(0), g, c.input_shape(1).vec(), opt);
  if (c.needs_grad(2)) gb = sum(g, {0, 2, 3});
  return {gx, gw, gb};
}

// <G, backward_input(g, w)> = <conv2d(G, w), g>: differentiate that in g and in w.
TensorList backward_conv2d_backward_input(BackwardContext& c) {
  Conv2dOptions opt = conv_options(c.attrs());
  Tensor G = c.grad(), ggrad, gw;
  if (c.needs_grad(0)) ggrad = conv2d(G, c.input(1), Tensor(), opt);
  if (c.needs_grad(1)) gw = conv2d_backward_weight(G, c.input(0), c.input_shape(1).vec(), opt);
  return {ggrad, gw};
}

// <G, backward_weight(x, g)> = <conv2d(x, G), g>: differentiate that in x and in g.
TensorList backward_conv2d_backward_weight(BackwardContext& c) {
  Conv2dOptions opt = conv_options(c.attrs());
  Tensor G = c.grad(), gx, ggrad;
  if (c.needs_grad(0)) gx = conv2d_backward_input(c.input(1), G, c.input_shape(0).vec(), opt);
  if (c.needs_grad(1)) ggrad = conv2d(c.input(0), G, Tensor(), opt);
  return {gx, ggrad};
}

}  // namespace

std::vector<AttrSpec> conv_attrs(const char* shape_attr) {
  std::vector<AttrSpec> specs;
  if (shape_attr) specs.push_back(attr_required(shape_attr, AttrKind::ints));
  specs.push_back(attr_optional("stride", AttrKind::ints, std::vector<int64_t>{1, 1}));
  specs.push_back(attr_optional("padding", AttrKind::ints, std::vector<int64_t>{0, 0}));
  specs.push_back(attr_optional("dilation", AttrKind::ints, std::vector<int64_t>{1, 1}));
  specs.push_back(attr_optional("groups", AttrKind::integer, int64_t{1}));
  return specs;
}

namespace {

// ---------------------------------------------------------------------------
// Pooling

// Validates a pooling of input shape x (argument `x_arg`) and returns its geometry.
PoolGeometry check_pool(const char* op, const Shape& x, const char* x_arg, const Attrs& a) {
  check_4d(op, x_arg, x, "[N, C, H, W]");
  if (a.ints("kernel_size").empty()) throw Error(std::string(op) + ": argument 'kernel_size' must not be empty");
  PoolGeometry g = cpu::pool_geometry(x, a, op);
  check_positive(op, "kernel_size", g.kernel);
  check_positive(op, "stride", g.stride);
  check_positive(op, "dilation", g.dilation);
  check_non_negative(op, "padding", g.pad);
  if (g.pad.h > g.kernel.h / 2 || g.pad.w > g.kernel.w / 2)  // 2 * pad could overflow
    throw Error(std::string(op) + ": argument 'padding' (" + pair_str(g.pad) +
                ") must be at most half of 'kernel_size' (" + pair_str(g.kernel) + ")");
  if (g.OH <= 0 || g.OW <= 0)
    throw Error(std::string(op) + ": argument '" + x_arg + "' of shape " + shape_str(x) + " is too small for kernel " +
                pair_str(g.kernel) + " with padding " + pair_str(g.pad) + " and dilation " + pair_str(g.dilation) +
                "; the computed output size is " + std::to_string(g.OH) + "x" + std::to_string(g.OW));
  return g;
}

Shape pool_out_shape(const Shape& x, const PoolGeometry& g) { return {x[0], x[1], g.OH, g.OW}; }

std::vector<TensorMeta> infer_max_pool2d(const TensorList& in, const Attrs& a) {
  // u8 and i8 too: the max pool of quantized activations (no gradient: integers).
  DType dt = in[0].dtype();
  if (!is_floating(dt) && dt != DType::u8 && dt != DType::i8)
    throw Error(std::string("max_pool2d: argument 'input' must be a floating, u8 or i8 tensor, got ") + dtype_name(dt));
  Shape out = pool_out_shape(in[0].sizes(), check_pool("max_pool2d", in[0].sizes(), "input", a));
  return {TensorMeta{out, in[0].dtype()}, TensorMeta{out, DType::i64}};
}

// The indices are flat over each H*W plane, so the gradient is a scatter_add of
// the output's gradient into each plane at them.
TensorList backward_max_pool2d(BackwardContext& c) {
  const Shape& xs = c.input_shape(0);
  Tensor g = c.grad(0), idx = c.output(1);
  int64_t n = xs[0], ch = xs[1], out_plane = idx.sizes()[2] * idx.sizes()[3];
  Tensor planes = zeros({n, ch, xs[2] * xs[3]}, g.dtype(), g.device());
  Tensor gx = scatter_add(planes, 2, reshape(idx, {n, ch, out_plane}), reshape(g, {n, ch, out_plane}));
  return {reshape(gx, xs.vec())};
}

std::vector<TensorMeta> infer_avg_pool2d(const TensorList& in, const Attrs& a) {
  check_floating("avg_pool2d", "input", in[0]);
  return one(pool_out_shape(in[0].sizes(), check_pool("avg_pool2d", in[0].sizes(), "input", a)), in[0].dtype());
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

std::vector<AttrSpec> pool_attrs(bool is_max, const char* shape_attr = nullptr) {
  std::vector<AttrSpec> specs;
  if (shape_attr) specs.push_back(attr_required(shape_attr, AttrKind::ints));
  specs.push_back(attr_required("kernel_size", AttrKind::ints));
  specs.push_back(attr_optional("stride", AttrKind::ints, std::vector<int64_t>{}));
  specs.push_back(attr_optional("padding", AttrKind::ints, std::vector<int64_t>{0, 0}));
  if (is_max) specs.push_back(attr_optional("dilation", AttrKind::ints, std::vector<int64_t>{1, 1}));
  specs.push_back(attr_optional("ceil_mode", AttrKind::boolean, false));
  if (!is_max) specs.push_back(attr_optional("count_include_pad", AttrKind::boolean, true));
  return specs;
}

// ---------------------------------------------------------------------------
// Cost rules (docs/cost.md)

// Multiply-adds per output element of a convolution with weight shape w:
// C_in/groups * kH * kW.
double conv_macs_per_output(const Shape& w) {
  return static_cast<double>(w[1]) * static_cast<double>(w[2]) * static_cast<double>(w[3]);
}

// FLOPs: 2 * N * C_out * H_out * W_out * (C_in/groups) * kH * kW (a multiply-add is
// 2, as torch.utils.flop_counter and fvcore count), plus one add per output element
// for a bias; bytes: input, weight, bias, output.
OpCost cost_conv2d(const TensorList& in, const Attrs&, const TensorList& out) {
  double outputs = cost_numel(out[0]);
  return {2.0 * outputs * conv_macs_per_output(in[1].sizes()) + (in[2].defined() ? outputs : 0.0), io_bytes(in, out)};
}

// The adjoints do the forward's multiply-adds (PyTorch's counter says the same):
// grad has the forward's output shape, the weight (given or made) its weight shape.
OpCost cost_conv2d_backward_input(const TensorList& in, const Attrs&, const TensorList& out) {
  return {2.0 * cost_numel(in[0]) * conv_macs_per_output(in[1].sizes()), io_bytes(in, out)};
}
OpCost cost_conv2d_backward_weight(const TensorList& in, const Attrs&, const TensorList& out) {
  return {2.0 * cost_numel(in[1]) * conv_macs_per_output(out[0].sizes()), io_bytes(in, out)};
}

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

}  // namespace

void register_conv_ops(std::vector<OpDef>& t) {
  row(t, OpId::conv2d) = {.num_inputs = 3,
                          .attrs = conv_attrs(),
                          .infer = infer_conv2d,
                          .cpu = cpu::conv2d,
                          .backward = backward_conv2d,
                          .saves = {0b011, 0}};
  row(t, OpId::conv2d_backward_input) = {.num_inputs = 2,
                                         .attrs = conv_attrs("input_shape"),
                                         .infer = infer_conv2d_backward_input,
                                         .cpu = cpu::conv2d_backward_input,
                                         .backward = backward_conv2d_backward_input,
                                         .saves = {0b11, 0}};
  row(t, OpId::conv2d_backward_weight) = {.num_inputs = 2,
                                          .attrs = conv_attrs("weight_shape"),
                                          .infer = infer_conv2d_backward_weight,
                                          .cpu = cpu::conv2d_backward_weight,
                                          .backward = backward_conv2d_backward_weight,
                                          .saves = {0b11, 0}};
  row(t, OpId::max_pool2d) = {.num_inputs = 1,
                              .num_outputs = 2,
                              .attrs = pool_attrs(true),
                              .infer = infer_max_pool2d,
                              .cpu = cpu::max_pool2d,
                              .backward = backward_max_pool2d,
                              .saves = {0, 0b10},
                              .nondiff_outputs = 0b10};
  row(t, OpId::avg_pool2d) = {.num_inputs = 1,
                              .attrs = pool_attrs(false),
                              .infer = infer_avg_pool2d,
                              .cpu = cpu::avg_pool2d,
                              .backward = backward_avg_pool2d,
                              .saves = {0, 0}};
  row(t, OpId::avg_pool2d_backward) = {.num_inputs = 1,
                                       .attrs = pool_attrs(false, "input_shape"),
                                       .infer = infer_avg_pool2d_backward,
                                       .cpu = cpu::avg_pool2d_backward,
                                       .backward = backward_avg_pool2d_backward,
                                       .saves = {0, 0}};
  row(t, OpId::conv2d).cost = cost_conv2d;
  row(t, OpId::conv2d).optional_inputs = 0b100;  // bias
  row(t, OpId::conv2d_backward_input).cost = cost_conv2d_backward_input;
  row(t, OpId::conv2d_backward_weight).cost = cost_conv2d_backward_weight;
  row(t, OpId::max_pool2d).cost = cost_max_pool2d;
  row(t, OpId::avg_pool2d).cost = cost_avg_pool2d;
  row(t, OpId::avg_pool2d_backward).cost = cost_avg_pool2d_backward;
  name_inputs(t, {{OpId::conv2d, {"input", "weight", "bias"}},
                  {OpId::conv2d_backward_input, {"grad", "weight"}},
                  {OpId::conv2d_backward_weight, {"input", "grad"}},
                  {OpId::max_pool2d, {"input"}},
                  {OpId::avg_pool2d, {"input"}},
                  {OpId::avg_pool2d_backward, {"grad"}}});
}

namespace {

Attrs conv_call_attrs(const Conv2dOptions& o) {
  return {{"stride", o.stride}, {"padding", o.padding}, {"dilation", o.dilation}, {"groups", o.groups}};
}

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

// PyTorch takes an unbatched [C, H, W] input as a batch of one.
template <class F>
TensorList unbatched_as_batch(const Tensor& x, F&& f) {
  if (!x.defined() || x.dim() != 3) return f(x);
  TensorList outs = f(unsqueeze(x, 0));
  for (Tensor& o : outs) o = squeeze(o, {0});
  return outs;
}

}  // namespace

Tensor conv2d(const Tensor& x, const Tensor& weight, const Tensor& bias, const Conv2dOptions& opt) {
  return unbatched_as_batch(x, [&](const Tensor& xb) {
    return call(OpId::conv2d, {xb, weight, bias}, conv_call_attrs(opt));
  })[0];
}

Tensor conv2d_backward_input(const Tensor& grad, const Tensor& weight, const IntList& input_shape,
                             const Conv2dOptions& opt) {
  Attrs a = conv_call_attrs(opt);
  a.set("input_shape", input_shape);
  return call1(OpId::conv2d_backward_input, {grad, weight}, a);
}

Tensor conv2d_backward_weight(const Tensor& x, const Tensor& grad, const IntList& weight_shape,
                              const Conv2dOptions& opt) {
  Attrs a = conv_call_attrs(opt);
  a.set("weight_shape", weight_shape);
  return call1(OpId::conv2d_backward_weight, {x, grad}, a);
}

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

Tensor avg_pool2d_backward(const Tensor& grad, const IntList& input_shape, const Pool2dOptions& opt) {
  Attrs a = avg_call_attrs(opt);
  a.set("input_shape", input_shape);
  return call1(OpId::avg_pool2d_backward, {grad}, a);
}

}  // namespace nabla
