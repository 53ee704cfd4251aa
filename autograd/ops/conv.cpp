// Rows of the convolutions: conv2d and conv3d with their two adjoints
// (conv{2,3}d_backward_input, conv{2,3}d_backward_weight), the rows built on conv2d's
// (conv1d, conv_transpose1d/2d), and their functional API. The pools are pool.cpp's.
//
// conv(x, w) is bilinear, so its derivatives are the two adjoints, and each adjoint's
// derivatives are again the convolution or the other adjoint: grad of grad stays inside
// these three rows. conv2d's and conv3d's rows are one set of rules on the N-d geometry,
// instantiated per rank (the `spatial` template parameter).
//
// conv1d is conv2d on a unit height ([N, C, L] seen as [N, C, 1, L]; cpu::unit_height
// in tensor/cpu/conv_geometry.hpp): its kernel runs conv2d's on views, and its backward
// rule is conv2d's on unsqueezed tensors. conv_transpose2d(x, w) is
// conv2d_backward_input with x as the gradient, so its derivatives are conv2d and
// conv2d_backward_weight.
#include "autograd/cost.hpp"
#include "autograd/ops/common.hpp"
#include "autograd/ops/conv_checks.hpp"

namespace nabla {

using namespace windowed;

namespace {

using cpu::ConvGeometry;
using cpu::ConvNdGeometry;
using cpu::Pair;

// The rows of a convolution in `spatial` dims. conv1d has no adjoint rows of its own:
// its adjoints are conv2d's on a unit height.
OpId conv_row(int spatial) { return spatial == 1 ? OpId::conv1d : spatial == 2 ? OpId::conv2d : OpId::conv3d; }
OpId backward_input_row(int spatial) {
  return spatial == 3 ? OpId::conv3d_backward_input : OpId::conv2d_backward_input;
}
OpId backward_weight_row(int spatial) {
  return spatial == 3 ? OpId::conv3d_backward_weight : OpId::conv2d_backward_weight;
}

// The check_conv error for an empty output: the padded input and the dilated kernel
// per dim, in 128 bits as the output size was (a dilation of 2**62 must not print a
// wrapped reach).
[[noreturn]] void throw_empty_output(const char* op, const Shape& x, const char* x_arg, const Shape& w,
                                     const char* w_arg, const ConvNdGeometry& g, int spatial) {
  auto wide = [](__int128 v) { return v > INT64_MAX ? std::string("more than 2^63") : std::to_string(int64_t(v)); };
  std::vector<std::string> padded, reach;
  for (size_t d = 0; d < g.spatial(); ++d) {
    padded.push_back(wide(__int128(g.in[d]) + 2 * __int128(g.pad[d])));
    reach.push_back(wide(__int128(g.dilation[d]) * (g.kernel[d] - 1) + 1));
  }
  throw Error(std::string(op) + ": argument '" + x_arg + "' of shape " + shape_str(x) + " is " +
              dims_str(padded, spatial) + " after padding, smaller than the " + dims_str(reach, spatial) +
              " (dilated) kernel of argument '" + w_arg + "' of shape " + shape_str(w) +
              "; the computed output size is " + dims_str(g.out, spatial));
}

}  // namespace

// ---------------------------------------------------------------------------
// Convolution shape rules

ConvNdGeometry check_conv(const char* op, const Shape& x, const char* x_arg, const Shape& w, const char* w_arg,
                          const Attrs& a, int spatial) {
  check_rank(op, x_arg, x, spatial, layout("N, C", spatial));
  check_rank(op, w_arg, w, spatial, layout("C_out, C_in / groups", spatial, "k"));
  ConvNdGeometry g = cpu::conv_nd_geometry(cpu::unit_height(x), cpu::unit_height(w), as_2d(a, spatial, op), op);
  check_at_least(op, "stride", g.stride, 1, spatial);
  check_at_least(op, "dilation", g.dilation, 1, spatial);
  check_at_least(op, "padding", g.pad, 0, spatial);
  std::string groups = "groups=" + std::to_string(g.groups);
  if (g.groups <= 0) throw Error(std::string(op) + ": argument 'groups' must be positive, got " + groups);
  if (g.OC % g.groups != 0)
    throw Error(std::string(op) + ": argument '" + w_arg + "' of shape " + shape_str(w) + " has " +
                std::to_string(g.OC) + " output channels, which " + groups + " does not divide");
  if (w[1] * g.groups != g.C)
    throw Error(std::string(op) + ": argument '" + w_arg + "' of shape " + shape_str(w) + " expects " +
                std::to_string(w[1] * g.groups) + " input channels (" + groups + ") but argument '" + x_arg +
                "' of shape " + shape_str(x) + " has " + std::to_string(g.C));
  for (int64_t o : g.out)
    if (o <= 0) throw_empty_output(op, x, x_arg, w, w_arg, g, spatial);
  return g;
}

Shape conv_out_shape(const ConvNdGeometry& g, int spatial) {
  Shape s{g.N, g.OC};
  for (size_t d = g.spatial() - size_t(spatial); d < g.spatial(); ++d) s.push_back(g.out[d]);
  return s;
}

std::vector<AttrSpec> conv_attrs(const char* shape_attr, int spatial) {
  std::vector<AttrSpec> specs;
  if (shape_attr) specs.push_back(attr_required(shape_attr, AttrKind::ints));
  specs.push_back(attr_optional("stride", AttrKind::ints, per_dim(1, spatial)));
  specs.push_back(attr_optional("padding", AttrKind::ints, per_dim(0, spatial)));
  specs.push_back(attr_optional("dilation", AttrKind::ints, per_dim(1, spatial)));
  specs.push_back(attr_optional("groups", AttrKind::integer, int64_t{1}));
  return specs;
}

namespace {

void check_bias(const char* op, const Tensor& x, const Tensor& b, int64_t channels, const Tensor& w) {
  if (!b.defined()) return;
  check_same_float(op, x, "input", b, "bias");
  if (!(b.dim() == 1 && b.sizes()[0] == channels))
    throw Error(std::string(op) + ": argument 'bias' must have shape [" + std::to_string(channels) +
                "] (the output channels of argument 'weight' of shape " + w.shape_str() + "), got " + b.shape_str());
}

// The grad argument of an adjoint must be shaped like the convolution's output.
void check_grad_shape(const char* op, const Tensor& grad, const ConvNdGeometry& g, int spatial, const std::string& of) {
  Shape want = conv_out_shape(g, spatial);
  if (!(grad.sizes() == want))
    throw Error(std::string(op) + ": argument 'grad' of shape " + grad.shape_str() +
                " does not match the convolution's output shape " + shape_str(want) + " (" + of + ")");
}

// conv1d, conv2d, conv3d: input [N, C, in...], weight [C_out, C / groups, k...], bias.
template <int spatial>
std::vector<TensorMeta> infer_conv(const TensorList& in, const Attrs& a) {
  const char* op = op_name(conv_row(spatial));
  const Tensor &x = in[0], &w = in[1];
  check_same_float(op, x, "input", w, "weight");
  ConvNdGeometry g = check_conv(op, x.sizes(), "input", w.sizes(), "weight", a, spatial);
  check_bias(op, x, in[2], g.OC, w);
  return one(conv_out_shape(g, spatial), x.dtype());
}

template <int spatial>
std::vector<TensorMeta> infer_conv_backward_input(const TensorList& in, const Attrs& a) {
  const char* op = op_name(backward_input_row(spatial));
  const Tensor &grad = in[0], &w = in[1];
  check_same_float(op, grad, "grad", w, "weight");
  Shape x(a.ints("input_shape"));
  ConvNdGeometry g = check_conv(op, x, "input_shape", w.sizes(), "weight", a, spatial);
  check_grad_shape(op, grad, g, spatial, "input_shape " + shape_str(x) + ", weight of shape " + w.shape_str());
  return one(x, grad.dtype());
}

template <int spatial>
std::vector<TensorMeta> infer_conv_backward_weight(const TensorList& in, const Attrs& a) {
  const char* op = op_name(backward_weight_row(spatial));
  const Tensor &x = in[0], &grad = in[1];
  check_same_float(op, x, "input", grad, "grad");
  Shape w(a.ints("weight_shape"));
  ConvNdGeometry g = check_conv(op, x.sizes(), "input", w, "weight_shape", a, spatial);
  check_grad_shape(op, grad, g, spatial, "input of shape " + x.shape_str() + ", weight_shape " + shape_str(w));
  return one(w, x.dtype());
}

// ---------------------------------------------------------------------------
// Convolution backward rules, as calls of the rows

// A convolution row's stride, padding, dilation and groups (an adjoint's without its
// shape attribute).
Attrs window_attrs(const Attrs& a) {
  return {{"stride", a.ints("stride")},
          {"padding", a.ints("padding")},
          {"dilation", a.ints("dilation")},
          {"groups", a.i("groups")}};
}

// The rows in 2 or 3 dims, called with window attributes.
Tensor call_conv(int spatial, const Tensor& x, const Tensor& w, const Tensor& b, const Attrs& window) {
  return call1(conv_row(spatial), {x, w, b}, window);
}
Tensor call_backward_input(int spatial, const Tensor& grad, const Tensor& w, const IntList& input_shape, Attrs window) {
  window.set("input_shape", input_shape);
  return call1(backward_input_row(spatial), {grad, w}, window);
}
Tensor call_backward_weight(int spatial, const Tensor& x, const Tensor& grad, const IntList& weight_shape,
                            Attrs window) {
  window.set("weight_shape", weight_shape);
  return call1(backward_weight_row(spatial), {x, grad}, window);
}

// The two adjoints, and the bias's sum. conv1d's adjoints are conv2d's on lifted tensors.
template <int spatial>
TensorList backward_conv(BackwardContext& c) {
  Attrs window = window_attrs(as_2d(c.attrs(), spatial, op_name(conv_row(spatial))));
  Tensor g = lift(c.grad(), spatial), gx, gw, gb;
  IntList x_shape = cpu::unit_height(c.input_shape(0)).vec(), w_shape = cpu::unit_height(c.input_shape(1)).vec();
  if (c.needs_grad(0)) gx = drop(call_backward_input(spatial, g, lift(c.input(1), spatial), x_shape, window), spatial);
  if (c.needs_grad(1)) gw = drop(call_backward_weight(spatial, lift(c.input(0), spatial), g, w_shape, window), spatial);
  if (c.needs_grad(2)) gb = sum(c.grad(), all_but_channels(spatial));
  return {gx, gw, gb};
}

// <G, backward_input(g, w)> = <conv(G, w), g>: differentiate that in g and in w.
template <int spatial>
TensorList backward_conv_backward_input(BackwardContext& c) {
  Attrs window = window_attrs(c.attrs());
  Tensor G = c.grad(), ggrad, gw;
  if (c.needs_grad(0)) ggrad = call_conv(spatial, G, c.input(1), Tensor(), window);
  if (c.needs_grad(1)) gw = call_backward_weight(spatial, G, c.input(0), c.input_shape(1).vec(), window);
  return {ggrad, gw};
}

// <G, backward_weight(x, g)> = <conv(x, G), g>: differentiate that in x and in g.
template <int spatial>
TensorList backward_conv_backward_weight(BackwardContext& c) {
  Attrs window = window_attrs(c.attrs());
  Tensor G = c.grad(), gx, ggrad;
  if (c.needs_grad(0)) gx = call_backward_input(spatial, c.input(1), G, c.input_shape(0).vec(), window);
  if (c.needs_grad(1)) ggrad = call_conv(spatial, c.input(0), G, Tensor(), window);
  return {gx, ggrad};
}

// ---------------------------------------------------------------------------
// Transposed convolution

Shape drop_height(Shape s) {
  s.erase(2);
  return s;
}

// (in - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1, in
// 128 bits (the sizes come from the program).
__int128 transposed_size(int64_t in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation, int64_t out_pad) {
  return (__int128(in) - 1) * stride - 2 * __int128(pad) + __int128(dilation) * (kernel - 1) + out_pad + 1;
}

// conv_transpose: input [N, C_in, ...], weight [C_in, C_out / groups, k...] (the
// weight of the convolution it is the adjoint of, whose output has C_in channels).
template <int spatial>
std::vector<TensorMeta> infer_conv_transpose(const TensorList& in, const Attrs& a) {
  const char* op = spatial == 1 ? "conv_transpose1d" : "conv_transpose2d";
  const Tensor &x = in[0], &w = in[1];
  check_same_float(op, x, "input", w, "weight");
  check_rank(op, "input", x.sizes(), spatial, layout("N, C_in", spatial));
  check_rank(op, "weight", w.sizes(), spatial, layout("C_in, C_out / groups", spatial, "k"));
  Attrs a2 = as_2d(a, spatial, op);
  Shape xs = cpu::unit_height(x.sizes()), ws = cpu::unit_height(w.sizes());
  int64_t groups = a.i("groups");
  std::string groups_str = "groups=" + std::to_string(groups);
  if (groups <= 0) throw Error(std::string(op) + ": argument 'groups' must be positive, got " + groups_str);
  if (ws[0] != xs[1])
    throw Error(std::string(op) + ": argument 'weight' of shape " + w.shape_str() + " expects " +
                std::to_string(ws[0]) + " input channels but argument 'input' of shape " + x.shape_str() + " has " +
                std::to_string(xs[1]));
  if (xs[1] % groups != 0)
    throw Error(std::string(op) + ": argument 'input' of shape " + x.shape_str() + " has " + std::to_string(xs[1]) +
                " channels, which " + groups_str + " does not divide");
  // As PyTorch's; the check below saw the output of an empty input, and named it.
  if (xs[2] == 0 || xs[3] == 0)
    throw Error(std::string(op) + ": argument 'input' of shape " + x.shape_str() +
                " has an empty spatial dim (only the batch or channel dim may be empty)");
  Pair stride = cpu::attr_pair(a2, "stride", op), pad = cpu::attr_pair(a2, "padding", op);
  Pair out_pad = cpu::attr_pair(a2, "output_padding", op), dilation = cpu::attr_pair(a2, "dilation", op);
  check_positive(op, "stride", stride, spatial);
  check_positive(op, "dilation", dilation, spatial);
  check_non_negative(op, "padding", pad, spatial);
  check_non_negative(op, "output_padding", out_pad, spatial);
  // As PyTorch: smaller than the stride or the dilation, in every dim.
  if (!(out_pad.h < stride.h || out_pad.h < dilation.h) || !(out_pad.w < stride.w || out_pad.w < dilation.w))
    throw Error(std::string(op) + ": argument 'output_padding' (" + pair_str(out_pad, spatial) +
                ") must be smaller than either 'stride' (" + pair_str(stride, spatial) + ") or 'dilation' (" +
                pair_str(dilation, spatial) + ")");
  __int128 oh = transposed_size(xs[2], ws[2], stride.h, pad.h, dilation.h, out_pad.h);
  __int128 ow = transposed_size(xs[3], ws[3], stride.w, pad.w, dilation.w, out_pad.w);
  if (oh <= 0 || ow <= 0 || oh > INT64_MAX || ow > INT64_MAX) {
    auto str = [](__int128 v) { return v > INT64_MAX ? std::string("past 2^63") : std::to_string(int64_t(v)); };
    throw Error(std::string(op) + ": argument 'input' of shape " + x.shape_str() + " with weight of shape " +
                w.shape_str() + " gives an output size of " + dims_str({str(oh), str(ow)}, spatial) +
                ", which is not positive");
  }
  Shape out{xs[0], ws[1] * groups, int64_t(oh), int64_t(ow)};
  // The convolution it is the adjoint of maps the output back onto the input (and,
  // with an output_padding not smaller than the stride, onto a zero border past it).
  check_conv(op, out, "output", ws, "weight", a2);
  check_bias(op, x, in[2], out[1], w);
  return one(spatial == 1 ? drop_height(out) : out, x.dtype());
}

// y = conv2d_backward_input(x, w): its derivatives are conv2d and conv2d_backward_weight
// (as backward_conv_backward_input's), plus the bias's. Where the convolution's
// output is larger than x (output_padding >= stride), the kernel extended x by zeros:
// the input's gradient is cut back to x, and x extended again for the weight's.
template <int spatial>
TensorList backward_conv_transpose(BackwardContext& c) {
  const char* op = spatial == 1 ? "conv_transpose1d" : "conv_transpose2d";
  Attrs a2 = as_2d(c.attrs(), spatial, op), window = window_attrs(a2);
  Tensor G = lift(c.grad(), spatial), gx, gw, gb;
  Shape xs = cpu::unit_height(c.input_shape(0)), ws = cpu::unit_height(c.input_shape(1));
  ConvGeometry g = cpu::conv_geometry(G.sizes(), ws, a2, op);
  if (c.needs_grad(0)) {
    gx = call_conv(2, G, lift(c.input(1), spatial), Tensor(), window);
    if (g.OH != xs[2]) gx = slice(gx, 2, 0, xs[2]);
    if (g.OW != xs[3]) gx = slice(gx, 3, 0, xs[3]);
    gx = drop(gx, spatial);
  }
  if (c.needs_grad(1)) {
    Tensor x = lift(c.input(0), spatial);
    if (g.OH != xs[2]) x = slice_backward(x, {xs[0], xs[1], g.OH, xs[3]}, 2, 0, xs[2], 1);
    if (g.OW != xs[3]) x = slice_backward(x, {xs[0], xs[1], g.OH, g.OW}, 3, 0, xs[3], 1);
    gw = drop(call_backward_weight(2, G, x, ws.vec(), window), spatial);
  }
  if (c.needs_grad(2)) gb = sum(c.grad(), all_but_channels(spatial));
  return {gx, gw, gb};
}

std::vector<AttrSpec> conv_transpose_attrs(int spatial) {
  return {attr_optional("stride", AttrKind::ints, per_dim(1, spatial)),
          attr_optional("padding", AttrKind::ints, per_dim(0, spatial)),
          attr_optional("output_padding", AttrKind::ints, per_dim(0, spatial)),
          attr_optional("groups", AttrKind::integer, int64_t{1}),
          attr_optional("dilation", AttrKind::ints, per_dim(1, spatial))};
}

// ---------------------------------------------------------------------------
// Cost rules (docs/cost.md)

// Multiply-adds per output element of a convolution with weight shape w:
// C_in/groups * k... (kH * kW in 2-D).
double conv_macs_per_output(const Shape& w) {
  double macs = 1.0;
  for (size_t d = 1; d < w.size(); ++d) macs *= static_cast<double>(w[d]);
  return macs;
}

// FLOPs: 2 * N * C_out * out... * (C_in/groups) * k... (a multiply-add is 2, as
// torch.utils.flop_counter and fvcore count), plus one add per output element for a
// bias; bytes: input, weight, bias, output.
OpCost cost_conv(const TensorList& in, const Attrs&, const TensorList& out) {
  double outputs = cost_numel(out[0]);
  return {2.0 * outputs * conv_macs_per_output(in[1].sizes()) + (in[2].defined() ? outputs : 0.0), io_bytes(in, out)};
}

// The adjoints do the forward's multiply-adds (PyTorch's counter says the same):
// grad has the forward's output shape, the weight (given or made) its weight shape.
OpCost cost_conv_backward_input(const TensorList& in, const Attrs&, const TensorList& out) {
  return {2.0 * cost_numel(in[0]) * conv_macs_per_output(in[1].sizes()), io_bytes(in, out)};
}
OpCost cost_conv_backward_weight(const TensorList& in, const Attrs&, const TensorList& out) {
  return {2.0 * cost_numel(in[1]) * conv_macs_per_output(out[0].sizes()), io_bytes(in, out)};
}

// conv_transpose: each input element meets C_out/groups * k... weights (the adjoint's
// multiply-adds), plus the bias.
OpCost cost_conv_transpose(const TensorList& in, const Attrs&, const TensorList& out) {
  double bias = in[2].defined() ? cost_numel(out[0]) : 0.0;
  return {2.0 * cost_numel(in[0]) * conv_macs_per_output(in[1].sizes()) + bias, io_bytes(in, out)};
}

// ---------------------------------------------------------------------------
// Rows

// A convolution row (conv1d, conv2d, conv3d).
template <int spatial>
void register_conv_row(std::vector<OpDef>& t, KernelFn kernel) {
  row(t, conv_row(spatial)) = {.num_inputs = 3,
                               .attrs = conv_attrs(nullptr, spatial),
                               .infer = infer_conv<spatial>,
                               .cpu = kernel,
                               .backward = backward_conv<spatial>,
                               .saves = {0b011, 0},
                               .optional_inputs = 0b100,  // bias
                               .cost = cost_conv};
}

// The two adjoint rows of a convolution in 2 or 3 dims.
template <int spatial>
void register_adjoint_rows(std::vector<OpDef>& t, KernelFn backward_input, KernelFn backward_weight) {
  row(t, backward_input_row(spatial)) = {.num_inputs = 2,
                                         .attrs = conv_attrs("input_shape", spatial),
                                         .infer = infer_conv_backward_input<spatial>,
                                         .cpu = backward_input,
                                         .backward = backward_conv_backward_input<spatial>,
                                         .saves = {0b11, 0},
                                         .cost = cost_conv_backward_input};
  row(t, backward_weight_row(spatial)) = {.num_inputs = 2,
                                          .attrs = conv_attrs("weight_shape", spatial),
                                          .infer = infer_conv_backward_weight<spatial>,
                                          .cpu = backward_weight,
                                          .backward = backward_conv_backward_weight<spatial>,
                                          .saves = {0b11, 0},
                                          .cost = cost_conv_backward_weight};
}

template <int spatial>
void register_conv_transpose_row(std::vector<OpDef>& t, OpId id, KernelFn kernel) {
  row(t, id) = {.num_inputs = 3,
                .attrs = conv_transpose_attrs(spatial),
                .infer = infer_conv_transpose<spatial>,
                .cpu = kernel,
                .backward = backward_conv_transpose<spatial>,
                .saves = {0b011, 0},
                .optional_inputs = 0b100,  // bias
                .cost = cost_conv_transpose};
}

}  // namespace

void register_conv_ops(std::vector<OpDef>& t) {
  register_conv_row<1>(t, cpu::conv1d);
  register_conv_row<2>(t, cpu::conv2d);
  register_conv_row<3>(t, cpu::conv3d);
  register_adjoint_rows<2>(t, cpu::conv2d_backward_input, cpu::conv2d_backward_weight);
  register_adjoint_rows<3>(t, cpu::conv3d_backward_input, cpu::conv3d_backward_weight);
  register_conv_transpose_row<1>(t, OpId::conv_transpose1d, cpu::conv_transpose1d);
  register_conv_transpose_row<2>(t, OpId::conv_transpose2d, cpu::conv_transpose2d);
  name_inputs(t, {{OpId::conv2d, {"input", "weight", "bias"}},
                  {OpId::conv2d_backward_input, {"grad", "weight"}},
                  {OpId::conv2d_backward_weight, {"input", "grad"}},
                  {OpId::conv1d, {"input", "weight", "bias"}},
                  {OpId::conv_transpose1d, {"input", "weight", "bias"}},
                  {OpId::conv_transpose2d, {"input", "weight", "bias"}},
                  {OpId::conv3d, {"input", "weight", "bias"}},
                  {OpId::conv3d_backward_input, {"grad", "weight"}},
                  {OpId::conv3d_backward_weight, {"input", "grad"}}});
  // What :help prints for each op of this family; tests/interp/op_docs.cpp runs every example.
  document_ops(
      t,
      {{OpId::conv2d,
        "2-D convolution (cross-correlation) of input [N, C_in, H, W] with weight [C_out, C_in / groups, "
        "kH, kW], plus bias, as torch.nn.functional.conv2d (padding also \"same\" or \"valid\"; an input [C_in, H, W] is a batch of one). "
        "Example: conv2d(randn(1, 3, 8, 8), randn(4, 3, 3, 3), padding=1)"},
       {OpId::conv2d_backward_input,
        "The gradient of conv2d with respect to its input, of shape input_shape, from the output gradient "
        "grad and weight (a transposed convolution). "
        "Example: conv2d_backward_input(randn(1, 4, 6, 6), randn(4, 3, 3, 3), input_shape=[1, 3, 8, 8])"},
       {OpId::conv2d_backward_weight,
        "The gradient of conv2d with respect to its weight, of shape weight_shape, from input and the "
        "output gradient grad. "
        "Example: conv2d_backward_weight(randn(1, 3, 8, 8), randn(1, 4, 6, 6), weight_shape=[4, 3, 3, 3])"},
       {OpId::conv1d,
        "1-D convolution (cross-correlation) of input [N, C_in, L] with weight [C_out, C_in / groups, k], "
        "plus bias, as torch.nn.functional.conv1d (padding also \"same\" or \"valid\"; an input [C_in, L] is a batch of one). "
        "Example: conv1d(randn(1, 3, 16), randn(4, 3, 5), padding=2)"},
       {OpId::conv_transpose1d,
        "1-D transposed convolution (the gradient of conv1d) of input [N, C_in, L] with weight [C_in, C_out "
        "/ groups, k], plus bias, as torch.nn.functional.conv_transpose1d. "
        "Example: conv_transpose1d(randn(1, 4, 8), randn(4, 2, 3), stride=2)"},
       {OpId::conv_transpose2d,
        "2-D transposed convolution (the gradient of conv2d) of input [N, C_in, H, W] with weight [C_in, "
        "C_out / groups, kH, kW], plus bias, as torch.nn.functional.conv_transpose2d. "
        "Example: conv_transpose2d(randn(1, 4, 4, 4), randn(4, 2, 3, 3), stride=2, padding=1, output_padding=1)"},
       {OpId::conv3d,
        "3-D convolution (cross-correlation) of input [N, C_in, D, H, W] with weight [C_out, C_in / groups, "
        "kD, kH, kW], plus bias, as torch.nn.functional.conv3d (padding also \"same\" or \"valid\"; an input [C_in, D, H, W] is a batch of one). "
        "Example: conv3d(randn(1, 2, 6, 6, 6), randn(4, 2, 3, 3, 3), padding=1)"},
       {OpId::conv3d_backward_input,
        "The gradient of conv3d with respect to its input, of shape input_shape, from the output gradient "
        "grad and weight. "
        "Example: conv3d_backward_input(randn(1, 4, 4, 4, 4), randn(4, 2, 3, 3, 3), input_shape=[1, 2, 6, 6, 6])"},
       {OpId::conv3d_backward_weight,
        "The gradient of conv3d with respect to its weight, of shape weight_shape, from input and the "
        "output gradient grad. "
        "Example: conv3d_backward_weight(randn(1, 2, 6, 6, 6), randn(1, 4, 4, 4, 4), weight_shape=[4, 2, 3, 3, 3])"}});
}

// ---------------------------------------------------------------------------
// Functional API

namespace {

template <class Options>  // Conv2dOptions, Conv3dOptions
Attrs conv_call_attrs(const Options& o) {
  return {{"stride", o.stride}, {"padding", o.padding}, {"dilation", o.dilation}, {"groups", o.groups}};
}

Attrs transpose_call_attrs(const ConvTransposeOptions& o) {
  return {{"stride", o.stride},
          {"padding", o.padding},
          {"output_padding", o.output_padding},
          {"groups", o.groups},
          {"dilation", o.dilation}};
}

// A convolution row on an input that may be unbatched.
Tensor conv_maybe_unbatched(OpId id, int spatial, const Tensor& x, const Tensor& weight, const Tensor& bias,
                            const Attrs& a) {
  auto run = [&](const Tensor& xb) { return call(id, {xb, weight, bias}, a); };
  return unbatched_as_batch(x, run, spatial)[0];
}

}  // namespace

Tensor conv1d(const Tensor& x, const Tensor& weight, const Tensor& bias, const Conv1dOptions& o) {
  Attrs a{
      {"stride", once(o.stride)}, {"padding", once(o.padding)}, {"dilation", once(o.dilation)}, {"groups", o.groups}};
  return conv_maybe_unbatched(OpId::conv1d, 1, x, weight, bias, a);
}

Tensor conv2d(const Tensor& x, const Tensor& weight, const Tensor& bias, const Conv2dOptions& opt) {
  return conv_maybe_unbatched(OpId::conv2d, 2, x, weight, bias, conv_call_attrs(opt));
}

Tensor conv2d_backward_input(const Tensor& grad, const Tensor& weight, const IntList& input_shape,
                             const Conv2dOptions& opt) {
  return call_backward_input(2, grad, weight, input_shape, conv_call_attrs(opt));
}

Tensor conv2d_backward_weight(const Tensor& x, const Tensor& grad, const IntList& weight_shape,
                              const Conv2dOptions& opt) {
  return call_backward_weight(2, x, grad, weight_shape, conv_call_attrs(opt));
}

Tensor conv3d(const Tensor& x, const Tensor& weight, const Tensor& bias, const Conv3dOptions& opt) {
  return conv_maybe_unbatched(OpId::conv3d, 3, x, weight, bias, conv_call_attrs(opt));
}

Tensor conv3d_backward_input(const Tensor& grad, const Tensor& weight, const IntList& input_shape,
                             const Conv3dOptions& opt) {
  return call_backward_input(3, grad, weight, input_shape, conv_call_attrs(opt));
}

Tensor conv3d_backward_weight(const Tensor& x, const Tensor& grad, const IntList& weight_shape,
                              const Conv3dOptions& opt) {
  return call_backward_weight(3, x, grad, weight_shape, conv_call_attrs(opt));
}

Tensor conv_transpose1d(const Tensor& x, const Tensor& weight, const Tensor& bias, const ConvTransposeOptions& opt) {
  return conv_maybe_unbatched(OpId::conv_transpose1d, 1, x, weight, bias, transpose_call_attrs(opt));
}

Tensor conv_transpose2d(const Tensor& x, const Tensor& weight, const Tensor& bias, const ConvTransposeOptions& opt) {
  return conv_maybe_unbatched(OpId::conv_transpose2d, 2, x, weight, bias, transpose_call_attrs(opt));
}

}  // namespace nabla
