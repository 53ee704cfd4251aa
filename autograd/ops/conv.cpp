// Rows of conv2d, its two adjoints (conv2d_backward_input, conv2d_backward_weight),
// conv3d and its two adjoints (the same rules on [N, C, D, H, W]), max_pool2d, avg_pool2d and avg_pool2d_backward, the
// rows built on them (conv1d, conv_transpose1d/2d, max_pool1d, avg_pool1d), the adaptive pools, and their functional
// API.
//
// conv2d(x, w) is bilinear, so its derivatives are the two adjoints, and each
// adjoint's derivatives are again conv2d or the other adjoint: grad of grad stays
// inside these three rows. avg_pool2d and avg_pool2d_backward are likewise an
// adjoint pair. max_pool2d routes its gradient with scatter_add on the indices.
//
// The 1-D rows are the 2-D ones on a unit height ([N, C, L] seen as [N, C, 1, L];
// cpu::unit_height in tensor/cpu/conv_geometry.hpp): their kernels run the 2-D
// kernels on views, and their backward rules are the 2-D rows' on unsqueezed tensors.
// conv_transpose2d(x, w) is conv2d_backward_input with x as the gradient, so its
// derivatives are conv2d and conv2d_backward_weight. adaptive_avg_pool is linear and
// separable, y = A_H x A_W^T with A the averaging matrices, so its gradient is
// A_H^T g A_W: two matmuls. adaptive_max_pool2d routes its gradient as max_pool2d.
#include <array>

#include "autograd/cost.hpp"
#include "autograd/ops/common.hpp"
#include "autograd/ops/conv_checks.hpp"

namespace nabla {

namespace {

using cpu::ConvGeometry;
using cpu::Pair;
using cpu::PoolGeometry;

// "3x2", or "2" for a 1-D row (whose h is the unit height's).
std::string pair_str(Pair p, int spatial = 2) {
  return spatial == 1 ? std::to_string(p.w) : std::to_string(p.h) + "x" + std::to_string(p.w);
}

void check_rank(const char* op, const char* arg, const Shape& s, int spatial, const char* layout) {
  if (s.size() != size_t(2 + spatial))
    throw Error(std::string(op) + ": argument '" + arg + "' must be " + std::to_string(2 + spatial) + "-D " + layout +
                ", got shape " + shape_str(s));
}

void check_positive(const char* op, const char* name, Pair p, int spatial = 2) {
  if (p.h <= 0 || p.w <= 0)
    throw Error(std::string(op) + ": argument '" + name + "' must be positive, got " + pair_str(p, spatial));
}
void check_non_negative(const char* op, const char* name, Pair p, int spatial = 2) {
  if (p.h < 0 || p.w < 0)
    throw Error(std::string(op) + ": argument '" + name + "' must be non-negative, got " + pair_str(p, spatial));
}

// A window attribute's default: `value` once per spatial dim.
std::vector<int64_t> per_dim(int64_t value, int spatial) { return std::vector<int64_t>(size_t(spatial), value); }

// The 2-D attributes of a row with `spatial` dims (1: on a unit height).
Attrs as_2d(const Attrs& a, int spatial, const char* op) { return spatial == 1 ? cpu::unit_height_attrs(a, op) : a; }

// A tensor of a 1-D row as the 2-D row's, and back (autograd ops: the backward rules).
Tensor lift(const Tensor& t, int spatial) { return spatial == 1 && t.defined() ? unsqueeze(t, 2) : t; }
Tensor drop(const Tensor& t, int spatial) { return spatial == 1 && t.defined() ? squeeze(t, {2}) : t; }

}  // namespace

// ---------------------------------------------------------------------------
// Convolution

ConvGeometry check_conv(const char* op, const Shape& x, const char* x_arg, const Shape& w, const char* w_arg,
                        const Attrs& a, int spatial) {
  bool one = spatial == 1;
  check_rank(op, x_arg, x, spatial, one ? "[N, C, L]" : "[N, C, H, W]");
  check_rank(op, w_arg, w, spatial, one ? "[C_out, C_in / groups, kL]" : "[C_out, C_in / groups, kH, kW]");
  ConvGeometry g = cpu::conv_geometry(cpu::unit_height(x), cpu::unit_height(w), as_2d(a, spatial, op), op);
  check_positive(op, "stride", g.stride, spatial);
  check_positive(op, "dilation", g.dilation, spatial);
  check_non_negative(op, "padding", g.pad, spatial);
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
    auto two = [&](const std::string& h, const std::string& w) { return one ? w : h + "x" + w; };
    throw Error(std::string(op) + ": argument '" + x_arg + "' of shape " + shape_str(x) + " is " +
                two(padded(g.H, g.pad.h), padded(g.W, g.pad.w)) + " after padding, smaller than the " +
                two(reach(g.dilation.h, g.KH), reach(g.dilation.w, g.KW)) + " (dilated) kernel of argument '" + w_arg +
                "' of shape " + shape_str(w) + "; the computed output size is " +
                two(std::to_string(g.OH), std::to_string(g.OW)));
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

// ---------------------------------------------------------------------------
// 3-D convolution: conv2d's rules on [N, C, D, H, W]

using cpu::ConvNdGeometry;

void check_bias(const char* op, const Tensor& x, const Tensor& b, int64_t channels, const Tensor& w);  // below

std::string dims_str(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "x" : "") + std::to_string(v[i]);
  return s;
}

// check_conv's checks, in any number of spatial dims (conv3d's rows).
ConvNdGeometry check_conv_nd(const char* op, const Shape& x, const char* x_arg, const Shape& w, const char* w_arg,
                             const Attrs& a) {
  check_rank(op, x_arg, x, 3, "[N, C, D, H, W]");
  check_rank(op, w_arg, w, 3, "[C_out, C_in / groups, kD, kH, kW]");
  ConvNdGeometry g = cpu::conv_nd_geometry(x, w, a, op);
  auto check_all = [&](const char* name, const std::vector<int64_t>& v, int64_t least, const char* what) {
    for (int64_t e : v)
      if (e < least)
        throw Error(std::string(op) + ": argument '" + name + "' must be " + what + ", got " + dims_str(v));
  };
  check_all("stride", g.stride, 1, "positive");
  check_all("dilation", g.dilation, 1, "positive");
  check_all("padding", g.pad, 0, "non-negative");
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
    if (o <= 0)
      throw Error(std::string(op) + ": argument '" + x_arg + "' of shape " + shape_str(x) + " with padding " +
                  dims_str(g.pad) + " is smaller than the (dilated) kernel of argument '" + w_arg + "' of shape " +
                  shape_str(w) + "; the computed output size is " + dims_str(g.out));
  return g;
}

Shape conv_nd_out_shape(const ConvNdGeometry& g) {
  Shape s{g.N, g.OC};
  for (int64_t o : g.out) s.push_back(o);
  return s;
}

void check_grad_shape_nd(const char* op, const Tensor& grad, const ConvNdGeometry& g, const std::string& of) {
  Shape want = conv_nd_out_shape(g);
  if (!(grad.sizes() == want))
    throw Error(std::string(op) + ": argument 'grad' of shape " + grad.shape_str() +
                " does not match the convolution's output shape " + shape_str(want) + " (" + of + ")");
}

std::vector<TensorMeta> infer_conv3d(const TensorList& in, const Attrs& a) {
  const Tensor &x = in[0], &w = in[1];
  check_same_float("conv3d", x, "input", w, "weight");
  ConvNdGeometry g = check_conv_nd("conv3d", x.sizes(), "input", w.sizes(), "weight", a);
  check_bias("conv3d", x, in[2], g.OC, w);
  return one(conv_nd_out_shape(g), x.dtype());
}

std::vector<TensorMeta> infer_conv3d_backward_input(const TensorList& in, const Attrs& a) {
  const char* op = "conv3d_backward_input";
  const Tensor &grad = in[0], &w = in[1];
  check_same_float(op, grad, "grad", w, "weight");
  Shape x(a.ints("input_shape"));
  ConvNdGeometry g = check_conv_nd(op, x, "input_shape", w.sizes(), "weight", a);
  check_grad_shape_nd(op, grad, g, "input_shape " + shape_str(x) + ", weight of shape " + w.shape_str());
  return one(x, grad.dtype());
}

std::vector<TensorMeta> infer_conv3d_backward_weight(const TensorList& in, const Attrs& a) {
  const char* op = "conv3d_backward_weight";
  const Tensor &x = in[0], &grad = in[1];
  check_same_float(op, x, "input", grad, "grad");
  Shape w(a.ints("weight_shape"));
  ConvNdGeometry g = check_conv_nd(op, x.sizes(), "input", w, "weight_shape", a);
  check_grad_shape_nd(op, grad, g, "input of shape " + x.shape_str() + ", weight_shape " + shape_str(w));
  return one(w, x.dtype());
}

Conv3dOptions conv3d_options(const Attrs& a) {
  return {a.ints("stride"), a.ints("padding"), a.ints("dilation"), a.i("groups")};
}

// As conv2d's three rules: each adjoint's derivatives are conv3d or the other adjoint.
TensorList backward_conv3d(BackwardContext& c) {
  Conv3dOptions opt = conv3d_options(c.attrs());
  Tensor g = c.grad(), gx, gw, gb;
  if (c.needs_grad(0)) gx = conv3d_backward_input(g, c.input(1), c.input_shape(0).vec(), opt);
  if (c.needs_grad(1)) gw = conv3d_backward_weight(c.input(0), g, c.input_shape(1).vec(), opt);
  if (c.needs_grad(2)) gb = sum(g, {0, 2, 3, 4});
  return {gx, gw, gb};
}

TensorList backward_conv3d_backward_input(BackwardContext& c) {
  Conv3dOptions opt = conv3d_options(c.attrs());
  Tensor G = c.grad(), ggrad, gw;
  if (c.needs_grad(0)) ggrad = conv3d(G, c.input(1), Tensor(), opt);
  if (c.needs_grad(1)) gw = conv3d_backward_weight(G, c.input(0), c.input_shape(1).vec(), opt);
  return {ggrad, gw};
}

TensorList backward_conv3d_backward_weight(BackwardContext& c) {
  Conv3dOptions opt = conv3d_options(c.attrs());
  Tensor G = c.grad(), gx, ggrad;
  if (c.needs_grad(0)) gx = conv3d_backward_input(c.input(1), G, c.input_shape(0).vec(), opt);
  if (c.needs_grad(1)) ggrad = conv3d(c.input(0), G, Tensor(), opt);
  return {gx, ggrad};
}

}  // namespace

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

// ---------------------------------------------------------------------------
// Pooling

// Validates a pooling of input shape x (argument `x_arg`) and returns its geometry.
// spatial = 1: a 1-D pool ([N, C, L], one value per list), on a unit height.
PoolGeometry check_pool(const char* op, const Shape& x, const char* x_arg, const Attrs& a, int spatial = 2) {
  check_rank(op, x_arg, x, spatial, spatial == 1 ? "[N, C, L]" : "[N, C, H, W]");
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
// (n, c) plane, so the gradient is a scatter_add of the output's gradient into each
// plane at them.
TensorList backward_max_pool(BackwardContext& c) {
  const Shape& xs = c.input_shape(0);
  Tensor g = c.grad(0), idx = c.output(1);
  int64_t n = xs[0], ch = xs[1], out_plane = plane_numel(idx.sizes());
  Tensor planes = zeros({n, ch, plane_numel(xs)}, g.dtype(), g.device());
  Tensor gx = scatter_add(planes, 2, reshape(idx, {n, ch, out_plane}), reshape(g, {n, ch, out_plane}));
  return {reshape(gx, xs.vec())};
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

// ---------------------------------------------------------------------------
// 1-D rows on a unit height, transposed convolution

Shape drop_height(Shape s) {
  s.erase(2);
  return s;
}

void check_bias(const char* op, const Tensor& x, const Tensor& b, int64_t channels, const Tensor& w) {
  if (!b.defined()) return;
  check_same_float(op, x, "input", b, "bias");
  if (!(b.dim() == 1 && b.sizes()[0] == channels))
    throw Error(std::string(op) + ": argument 'bias' must have shape [" + std::to_string(channels) +
                "] (the output channels of argument 'weight' of shape " + w.shape_str() + "), got " + b.shape_str());
}

std::vector<TensorMeta> infer_conv1d(const TensorList& in, const Attrs& a) {
  const Tensor &x = in[0], &w = in[1];
  check_same_float("conv1d", x, "input", w, "weight");
  ConvGeometry g = check_conv("conv1d", x.sizes(), "input", w.sizes(), "weight", a, 1);
  check_bias("conv1d", x, in[2], g.OC, w);
  return one({g.N, g.OC, g.OW}, x.dtype());
}

// The 2-D options of a (lifted) row's attributes.
Conv2dOptions conv_options_2d(const Attrs& a, int spatial, const char* op) {
  return conv_options(as_2d(a, spatial, op));
}

TensorList backward_conv1d(BackwardContext& c) {
  Conv2dOptions opt = conv_options_2d(c.attrs(), 1, "conv1d");
  Tensor g = lift(c.grad(), 1), gx, gw, gb;
  if (c.needs_grad(0))
    gx = drop(conv2d_backward_input(g, lift(c.input(1), 1), cpu::unit_height(c.input_shape(0)).vec(), opt), 1);
  if (c.needs_grad(1))
    gw = drop(conv2d_backward_weight(lift(c.input(0), 1), g, cpu::unit_height(c.input_shape(1)).vec(), opt), 1);
  if (c.needs_grad(2)) gb = sum(c.grad(), {0, 2});
  return {gx, gw, gb};
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
  bool one_d = spatial == 1;
  check_rank(op, "input", x.sizes(), spatial, one_d ? "[N, C_in, L]" : "[N, C_in, H, W]");
  check_rank(op, "weight", w.sizes(), spatial, one_d ? "[C_in, C_out / groups, kL]" : "[C_in, C_out / groups, kH, kW]");
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
                w.shape_str() + " gives an output size of " + (one_d ? str(ow) : str(oh) + "x" + str(ow)) +
                ", which is not positive");
  }
  Shape out{xs[0], ws[1] * groups, int64_t(oh), int64_t(ow)};
  // The convolution it is the adjoint of maps the output back onto the input (and,
  // with an output_padding not smaller than the stride, onto a zero border past it).
  check_conv(op, out, "output", ws, "weight", a2);
  check_bias(op, x, in[2], out[1], w);
  return one(one_d ? drop_height(out) : out, x.dtype());
}

// y = conv2d_backward_input(x, w): its derivatives are conv2d and conv2d_backward_weight
// (as backward_conv2d_backward_input's), plus the bias's. Where the convolution's
// output is larger than x (output_padding >= stride), the kernel extended x by zeros:
// the input's gradient is cut back to x, and x extended again for the weight's.
template <int spatial>
TensorList backward_conv_transpose(BackwardContext& c) {
  const char* op = spatial == 1 ? "conv_transpose1d" : "conv_transpose2d";
  Attrs a2 = as_2d(c.attrs(), spatial, op);
  Conv2dOptions opt = conv_options(a2);
  Tensor G = lift(c.grad(), spatial), gx, gw, gb;
  Shape xs = cpu::unit_height(c.input_shape(0)), ws = cpu::unit_height(c.input_shape(1));
  ConvGeometry g = cpu::conv_geometry(G.sizes(), ws, a2, op);
  if (c.needs_grad(0)) {
    gx = conv2d(G, lift(c.input(1), spatial), Tensor(), opt);
    if (g.OH != xs[2]) gx = slice(gx, 2, 0, xs[2]);
    if (g.OW != xs[3]) gx = slice(gx, 3, 0, xs[3]);
    gx = drop(gx, spatial);
  }
  if (c.needs_grad(1)) {
    Tensor x = lift(c.input(0), spatial);
    if (g.OH != xs[2]) x = slice_backward(x, {xs[0], xs[1], g.OH, xs[3]}, 2, 0, xs[2], 1);
    if (g.OW != xs[3]) x = slice_backward(x, {xs[0], xs[1], g.OH, g.OW}, 3, 0, xs[3], 1);
    gw = drop(conv2d_backward_weight(G, x, ws.vec(), opt), spatial);
  }
  if (c.needs_grad(2)) gb = sum(c.grad(), spatial == 1 ? IntList{0, 2} : IntList{0, 2, 3});
  return {gx, gw, gb};
}

std::vector<AttrSpec> conv_transpose_attrs(int spatial) {
  return {attr_optional("stride", AttrKind::ints, per_dim(1, spatial)),
          attr_optional("padding", AttrKind::ints, per_dim(0, spatial)),
          attr_optional("output_padding", AttrKind::ints, per_dim(0, spatial)),
          attr_optional("groups", AttrKind::integer, int64_t{1}),
          attr_optional("dilation", AttrKind::ints, per_dim(1, spatial))};
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
  check_rank(op, "input", x.sizes(), spatial, spatial == 1 ? "[N, C, L]" : "[N, C, H, W]");
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

// Multiply-adds per output element of a convolution with weight shape w:
// C_in/groups * kH * kW (* kL in 1-D).
double conv_macs_per_output(const Shape& w) {
  double macs = 1.0;
  for (size_t d = 1; d < w.size(); ++d) macs *= static_cast<double>(w[d]);
  return macs;
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

// conv_transpose: each input element meets C_out/groups * k... weights (the adjoint's
// multiply-adds), plus the bias.
OpCost cost_conv_transpose(const TensorList& in, const Attrs&, const TensorList& out) {
  double bias = in[2].defined() ? cost_numel(out[0]) : 0.0;
  return {2.0 * cost_numel(in[0]) * conv_macs_per_output(in[1].sizes()) + bias, io_bytes(in, out)};
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

// Adaptive pools read every input element about once (windows overlap by at most a
// cell), plus a divide per output for the average.
OpCost cost_adaptive_pool(const TensorList& in, const Attrs&, const TensorList& out) {
  return {cost_numel(in[0]) + cost_numel(out[0]), io_bytes(in, out)};
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
                              .infer = infer_max_pool<2>,
                              .cpu = cpu::max_pool2d,
                              .backward = backward_max_pool,
                              .saves = {0, 0b10},
                              .nondiff_outputs = 0b10};
  row(t, OpId::avg_pool2d) = {.num_inputs = 1,
                              .attrs = pool_attrs(false),
                              .infer = infer_avg_pool<2>,
                              .cpu = cpu::avg_pool2d,
                              .backward = backward_avg_pool2d,
                              .saves = {0, 0}};
  row(t, OpId::avg_pool2d_backward) = {.num_inputs = 1,
                                       .attrs = pool_attrs(false, "input_shape"),
                                       .infer = infer_avg_pool2d_backward,
                                       .cpu = cpu::avg_pool2d_backward,
                                       .backward = backward_avg_pool2d_backward,
                                       .saves = {0, 0}};
  row(t, OpId::conv1d) = {.num_inputs = 3,
                          .attrs = conv_attrs(nullptr, 1),
                          .infer = infer_conv1d,
                          .cpu = cpu::conv1d,
                          .backward = backward_conv1d,
                          .saves = {0b011, 0},
                          .optional_inputs = 0b100,
                          .cost = cost_conv2d};
  row(t, OpId::conv_transpose1d) = {.num_inputs = 3,
                                    .attrs = conv_transpose_attrs(1),
                                    .infer = infer_conv_transpose<1>,
                                    .cpu = cpu::conv_transpose1d,
                                    .backward = backward_conv_transpose<1>,
                                    .saves = {0b011, 0},
                                    .optional_inputs = 0b100,
                                    .cost = cost_conv_transpose};
  row(t, OpId::conv_transpose2d) = {.num_inputs = 3,
                                    .attrs = conv_transpose_attrs(2),
                                    .infer = infer_conv_transpose<2>,
                                    .cpu = cpu::conv_transpose2d,
                                    .backward = backward_conv_transpose<2>,
                                    .saves = {0b011, 0},
                                    .optional_inputs = 0b100,
                                    .cost = cost_conv_transpose};
  row(t, OpId::max_pool1d) = {.num_inputs = 1,
                              .num_outputs = 2,
                              .attrs = pool_attrs(true, nullptr, 1),
                              .infer = infer_max_pool<1>,
                              .cpu = cpu::max_pool1d,
                              .backward = backward_max_pool,
                              .saves = {0, 0b10},
                              .nondiff_outputs = 0b10,
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
  row(t, OpId::conv3d) = {.num_inputs = 3,
                          .attrs = conv_attrs(nullptr, 3),
                          .infer = infer_conv3d,
                          .cpu = cpu::conv3d,
                          .backward = backward_conv3d,
                          .saves = {0b011, 0},
                          .optional_inputs = 0b100,  // bias
                          .cost = cost_conv2d};
  row(t, OpId::conv3d_backward_input) = {.num_inputs = 2,
                                         .attrs = conv_attrs("input_shape", 3),
                                         .infer = infer_conv3d_backward_input,
                                         .cpu = cpu::conv3d_backward_input,
                                         .backward = backward_conv3d_backward_input,
                                         .saves = {0b11, 0},
                                         .cost = cost_conv2d_backward_input};
  row(t, OpId::conv3d_backward_weight) = {.num_inputs = 2,
                                          .attrs = conv_attrs("weight_shape", 3),
                                          .infer = infer_conv3d_backward_weight,
                                          .cpu = cpu::conv3d_backward_weight,
                                          .backward = backward_conv3d_backward_weight,
                                          .saves = {0b11, 0},
                                          .cost = cost_conv2d_backward_weight};
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
                  {OpId::avg_pool2d_backward, {"grad"}},
                  {OpId::conv1d, {"input", "weight", "bias"}},
                  {OpId::conv_transpose1d, {"input", "weight", "bias"}},
                  {OpId::conv_transpose2d, {"input", "weight", "bias"}},
                  {OpId::max_pool1d, {"input"}},
                  {OpId::avg_pool1d, {"input"}},
                  {OpId::adaptive_avg_pool1d, {"input"}},
                  {OpId::adaptive_avg_pool2d, {"input"}},
                  {OpId::adaptive_max_pool2d, {"input"}},
                  {OpId::conv3d, {"input", "weight", "bias"}},
                  {OpId::conv3d_backward_input, {"grad", "weight"}},
                  {OpId::conv3d_backward_weight, {"input", "grad"}}});
}

namespace {

template <class Options>  // Conv2dOptions, Conv3dOptions
Attrs conv_call_attrs(const Options& o) {
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

// PyTorch takes an unbatched [C, H, W] (1-D: [C, L]) input as a batch of one.
template <class F>
TensorList unbatched_as_batch(const Tensor& x, F&& f, int64_t spatial = 2) {
  if (!x.defined() || x.dim() != spatial + 1) return f(x);
  TensorList outs = f(unsqueeze(x, 0));
  for (Tensor& o : outs) o = squeeze(o, {0});
  return outs;
}

// The same for the 1-D ops' unbatched [C, L].
template <class F>
TensorList unbatched_1d_as_batch(const Tensor& x, F&& f) {
  return unbatched_as_batch(x, std::forward<F>(f), 1);
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

namespace {

std::vector<int64_t> once(int64_t v) { return {v}; }

Attrs transpose_call_attrs(const ConvTransposeOptions& o) {
  return {{"stride", o.stride},
          {"padding", o.padding},
          {"output_padding", o.output_padding},
          {"groups", o.groups},
          {"dilation", o.dilation}};
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

Tensor conv1d(const Tensor& x, const Tensor& weight, const Tensor& bias, const Conv1dOptions& o) {
  Attrs a{
      {"stride", once(o.stride)}, {"padding", once(o.padding)}, {"dilation", once(o.dilation)}, {"groups", o.groups}};
  return unbatched_1d_as_batch(x, [&](const Tensor& xb) { return call(OpId::conv1d, {xb, weight, bias}, a); })[0];
}

Tensor conv_transpose1d(const Tensor& x, const Tensor& weight, const Tensor& bias, const ConvTransposeOptions& opt) {
  return unbatched_1d_as_batch(x, [&](const Tensor& xb) {
    return call(OpId::conv_transpose1d, {xb, weight, bias}, transpose_call_attrs(opt));
  })[0];
}

Tensor conv_transpose2d(const Tensor& x, const Tensor& weight, const Tensor& bias, const ConvTransposeOptions& opt) {
  return unbatched_as_batch(x, [&](const Tensor& xb) {
    return call(OpId::conv_transpose2d, {xb, weight, bias}, transpose_call_attrs(opt));
  })[0];
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

Tensor conv3d(const Tensor& x, const Tensor& weight, const Tensor& bias, const Conv3dOptions& opt) {
  return unbatched_as_batch(
      x,
      [&](const Tensor& xb) {
        return call(OpId::conv3d, {xb, weight, bias}, conv_call_attrs(opt));
      },
      3)[0];
}

Tensor conv3d_backward_input(const Tensor& grad, const Tensor& weight, const IntList& input_shape,
                             const Conv3dOptions& opt) {
  Attrs a = conv_call_attrs(opt);
  a.set("input_shape", input_shape);
  return call1(OpId::conv3d_backward_input, {grad, weight}, a);
}

Tensor conv3d_backward_weight(const Tensor& x, const Tensor& grad, const IntList& weight_shape,
                              const Conv3dOptions& opt) {
  Attrs a = conv_call_attrs(opt);
  a.set("weight_shape", weight_shape);
  return call1(OpId::conv3d_backward_weight, {x, grad}, a);
}

}  // namespace nabla
