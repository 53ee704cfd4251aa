// The geometry of convolution (N-d, and 2-D by name) and 2-D pooling (NCHW): attribute
// lists, output sizes and pooling windows, PyTorch's formulas, in one place for the
// shape rules (autograd/ops/conv.cpp and pool.cpp, which also validate and word the
// errors) and the kernels of both devices (tensor/cpu/conv.cpp, pool.cpp,
// int8_conv.cpp; tensor/cuda/conv.cu, pool.cu), which trust what the shape rule
// accepted. The window functions run per output element on both devices
// (NABLA_HOST_DEVICE), so this header stays C++17.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tensor/attrs.hpp"
#include "tensor/host_device.hpp"
#include "tensor/small_vec.hpp"
#include "tensor/tensor.hpp"

namespace nabla::cpu {

// A (height, width) pair from an int-list attribute: one value stands for both, as
// in PyTorch; an empty list gives `fallback` (pooling's stride defaults to the kernel).
struct Pair {
  int64_t h = 0, w = 0;
};
inline Pair attr_pair(const Attrs& attrs, const char* name, const char* op, Pair fallback = {}) {
  const std::vector<int64_t>& v = attrs.ints(name);
  if (v.empty()) return fallback;
  if (v.size() == 1) return {v[0], v[0]};
  if (v.size() == 2) return {v[0], v[1]};
  throw Error(std::string(op) + ": argument '" + name + "' must have 1 or 2 values, got " + std::to_string(v.size()));
}

// The sizes come from the program, and padding or dilation of 2**62 would wrap a
// 64-bit span into a small or negative output size (a conv "smaller than its kernel"
// after padding, or a tiny buffer). The window arithmetic is done in 128 bits, and an
// output size past int64 is an error naming the op (Note [Shape arithmetic] in
// autograd/ops/common.hpp).
inline int64_t window_out_size(const char* op, int64_t in, int64_t kernel, int64_t stride, int64_t pad,
                               int64_t dilation, bool ceil_mode) {
  using Wide = __int128;
  Wide span = Wide(in) + 2 * Wide(pad) - Wide(dilation) * (Wide(kernel) - 1) - 1 + (ceil_mode ? Wide(stride) - 1 : 0);
  if (span < 0 || stride <= 0) return 0;  // the shape rule rejects a stride <= 0
  Wide out = span / stride + 1;
  if (ceil_mode && (out - 1) * stride >= Wide(in) + pad) --out;
  if (out > INT64_MAX)
    throw Error(std::string(op) + ": an input of size " + std::to_string(in) + " with padding " + std::to_string(pad) +
                " and stride " + std::to_string(stride) + " gives an output size past 64 bits");
  return static_cast<int64_t>(out);
}

// floor((in + 2*pad - dilation*(kernel-1) - 1) / stride) + 1; may be <= 0, which the
// shape rule reports.
inline int64_t conv_out_size(const char* op, int64_t in, int64_t kernel, int64_t stride, int64_t pad,
                             int64_t dilation) {
  return window_out_size(op, in, kernel, stride, pad, dilation, false);
}

// PyTorch's pooling_output_shape: as conv, but ceil_mode rounds up, and a last
// window that would start in the right padding is dropped.
inline int64_t pool_out_size(const char* op, int64_t in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation,
                             bool ceil_mode) {
  return window_out_size(op, in, kernel, stride, pad, dilation, ceil_mode);
}

// The geometry of a convolution over any number of spatial dims, one value per dim:
// the shape rules, the oneDNN and cuDNN descriptors and conv3d's direct loops read it.
struct ConvNdGeometry {
  int64_t N = 0, C = 0, OC = 0, groups = 1;
  std::vector<int64_t> in, kernel, out, stride, pad, dilation;
  size_t spatial() const { return in.size(); }
  // Output elements per (n, c) plane.
  int64_t out_plane() const {
    int64_t n = 1;
    for (int64_t o : out) n *= o;
    return n;
  }
};

// A dim with one output position reads one window, at 0, for any stride past the
// span the window can move (padded input less the dilated kernel): such a stride is
// taken as span + 1, which gives the same one position and which oneDNN accepts, where
// one past 2^31 - 1 (PyTorch takes any) failed to create the primitive.
inline ConvNdGeometry with_one_window_strides(ConvNdGeometry g) {
  for (size_t d = 0; d < g.out.size(); ++d) {
    const int64_t span = g.in[d] + 2 * g.pad[d] - (g.dilation[d] * (g.kernel[d] - 1) + 1);
    if (g.out[d] == 1 && span >= 0 && g.stride[d] > span + 1) g.stride[d] = span + 1;
  }
  return g;
}

// An int-list attribute with one value per spatial dim: one value stands for all, as
// in PyTorch; an empty list gives zeros (as attr_pair's; the shape rule then rejects a
// zero stride or dilation and takes a zero padding).
inline std::vector<int64_t> attr_dims(const Attrs& attrs, const char* name, const char* op, size_t spatial) {
  const std::vector<int64_t>& v = attrs.ints(name);
  if (v.empty()) return std::vector<int64_t>(spatial, 0);
  if (v.size() == 1) return std::vector<int64_t>(spatial, v[0]);
  if (v.size() == spatial) return v;
  throw Error(std::string(op) + ": argument '" + name + "' must have 1 or " + std::to_string(spatial) +
              " values, got " + std::to_string(v.size()));
}

// x [N, C, spatial...], w [OC, C/groups, kernel...].
inline ConvNdGeometry conv_nd_geometry(const Shape& x, const Shape& w, const Attrs& a, const char* op) {
  ConvNdGeometry g;
  size_t spatial = x.size() - 2;
  g.N = x[0], g.C = x[1], g.OC = w[0], g.groups = a.i("groups");
  g.stride = attr_dims(a, "stride", op, spatial);
  g.pad = attr_dims(a, "padding", op, spatial);
  g.dilation = attr_dims(a, "dilation", op, spatial);
  for (size_t d = 0; d < spatial; ++d) {
    g.in.push_back(x[2 + d]);
    g.kernel.push_back(w[2 + d]);
    g.out.push_back(conv_out_size(op, x[2 + d], w[2 + d], g.stride[d], g.pad[d], g.dilation[d]));
  }
  return g;
}

// An empty batch, channel or spatial extent leaves the libraries (oneDNN, cuDNN)
// nothing to do, and cuDNN rejects zero sizes: the output is the bias broadcast, or
// zeros, and the gradients zeros.
inline bool degenerate(const ConvNdGeometry& g) {
  bool empty = g.N == 0 || g.C == 0 || g.OC == 0;
  for (size_t d = 0; d < g.spatial(); ++d) empty = empty || g.in[d] == 0 || g.kernel[d] == 0 || g.out[d] == 0;
  return empty;
}

// A 2-D convolution's geometry by name (NCHW): what the f64 im2col loops, the int8
// convolution and the transposed convolution read.
struct ConvGeometry {
  int64_t N, C, H, W;  // input
  int64_t OC, KH, KW;  // weight [OC, C/groups, KH, KW]
  int64_t OH, OW;      // output
  Pair stride, pad, dilation;
  int64_t groups;
};

inline bool degenerate(const ConvGeometry& g) {
  return g.N == 0 || g.C == 0 || g.OC == 0 || g.H == 0 || g.W == 0 || g.KH == 0 || g.KW == 0 || g.OH == 0 || g.OW == 0;
}

// The N-d geometry of a 2-D convolution, by name.
inline ConvGeometry planar(const ConvNdGeometry& n) {
  ConvGeometry g{};
  g.N = n.N, g.C = n.C, g.H = n.in[0], g.W = n.in[1];
  g.OC = n.OC, g.KH = n.kernel[0], g.KW = n.kernel[1];
  g.OH = n.out[0], g.OW = n.out[1];
  g.stride = {n.stride[0], n.stride[1]}, g.pad = {n.pad[0], n.pad[1]}, g.dilation = {n.dilation[0], n.dilation[1]};
  g.groups = n.groups;
  return g;
}

inline ConvGeometry conv_geometry(const Shape& x, const Shape& w, const Attrs& a, const char* op) {
  return planar(conv_nd_geometry(x, w, a, op));
}

// Everything a pooling kernel needs (dilation is 1 for avg_pool2d).
struct PoolGeometry {
  int64_t planes, H, W, OH, OW;  // planes = N*C
  Pair kernel, stride, pad, dilation;
  bool ceil_mode;
};

inline PoolGeometry pool_geometry(const Shape& x, const Attrs& a, const char* op) {
  PoolGeometry g{};
  g.planes = x[0] * x[1];
  g.H = x[2], g.W = x[3];
  g.kernel = attr_pair(a, "kernel_size", op);
  g.stride = attr_pair(a, "stride", op, g.kernel);
  g.pad = attr_pair(a, "padding", op);
  g.dilation = a.has("dilation") ? attr_pair(a, "dilation", op) : Pair{1, 1};
  g.ceil_mode = a.b("ceil_mode");
  g.OH = pool_out_size(op, g.H, g.kernel.h, g.stride.h, g.pad.h, g.dilation.h, g.ceil_mode);
  g.OW = pool_out_size(op, g.W, g.kernel.w, g.stride.w, g.pad.w, g.dilation.w, g.ceil_mode);
  return g;
}

// PyTorch's first cell of a max-pool window starting at `start`: the first in-range tap.
NABLA_HOST_DEVICE inline int64_t first_tap(int64_t start, int64_t dilation) {
  return start >= 0 ? start : start + (-start + dilation - 1) / dilation * dilation;
}

// One avg_pool2d window clipped to the input, and the count it divides by (0: the
// window lies entirely in the padding). Padded cells count only up to the padded
// border, not beyond it (a ceil_mode overhang).
struct AvgWindow {
  int64_t h0, h1, w0, w1, divisor;
};

NABLA_HOST_DEVICE inline AvgWindow avg_window(const PoolGeometry& g, int64_t oh, int64_t ow, bool count_include_pad) {
  int64_t h0 = oh * g.stride.h - g.pad.h, w0 = ow * g.stride.w - g.pad.w;
  int64_t h1 = h0 + g.kernel.h < g.H + g.pad.h ? h0 + g.kernel.h : g.H + g.pad.h;
  int64_t w1 = w0 + g.kernel.w < g.W + g.pad.w ? w0 + g.kernel.w : g.W + g.pad.w;
  int64_t padded = (h1 - h0) * (w1 - w0);
  h0 = h0 > 0 ? h0 : 0, w0 = w0 > 0 ? w0 : 0;
  h1 = h1 < g.H ? h1 : g.H, w1 = w1 < g.W ? w1 : g.W;
  if (h0 >= h1 || w0 >= w1) return {h0, h1, w0, w1, 0};
  return {h0, h1, w0, w1, count_include_pad ? padded : (h1 - h0) * (w1 - w0)};
}

// ---------------------------------------------------------------------------
// 1-D rows on a unit height
//
// conv1d, conv_transpose1d, max_pool1d, avg_pool1d and adaptive_avg_pool1d are their
// 2-D rows on an [N, C, 1, L] view: oneDNN and cuDNN run a 1 x k kernel at full speed,
// and the shape rules, window rules and kernels stay one set.

// [N, C, L] -> [N, C, 1, L]; other ranks as they are (a bias, a 4-D shape).
inline Shape unit_height(const Shape& s) {
  if (s.size() != 3) return s;
  return {s[0], s[1], 1, s[2]};
}

// The 2-D attributes of a 1-D row: every window list of one value v becomes
// [neutral, v] (padding 0, else 1); an empty list (a pool's default stride) stays
// empty. A list of more values is an error naming the op.
inline Attrs unit_height_attrs(const Attrs& a, const char* op) {
  Attrs lifted = a;
  for (const char* name : {"kernel_size", "stride", "padding", "dilation", "output_padding", "output_size"}) {
    if (!a.has(name)) continue;
    const std::vector<int64_t>& v = a.ints(name);
    if (v.empty()) continue;
    if (v.size() != 1)
      throw Error(std::string(op) + ": argument '" + name + "' must have 1 value, got " + std::to_string(v.size()));
    bool padding = std::string(name) == "padding" || std::string(name) == "output_padding";
    lifted.set(name, std::vector<int64_t>{padding ? 0 : 1, v[0]});
  }
  return lifted;
}

// A rank-3 tensor seen as [N, C, 1, L] (a view of the same storage); others as they are.
inline Tensor unit_height_view(const Tensor& t) {
  if (!t.defined() || t.dim() != 3) return t;
  const Shape &s = t.sizes(), &st = t.strides();
  return make_view(t, {s[0], s[1], 1, s[2]}, {st[0], st[1], s[2] * st[2], st[2]}, t.offset());
}

// Runs the 2-D kernel `kernel2d` of a device for a 1-D row.
template <void (*kernel2d)(const std::vector<Tensor>&, const Attrs&, std::vector<Tensor>&)>
void on_unit_height(const std::vector<Tensor>& in, const Attrs& attrs, std::vector<Tensor>& out, const char* op) {
  std::vector<Tensor> in2, out2;
  for (const Tensor& t : in) in2.push_back(unit_height_view(t));
  for (const Tensor& t : out) out2.push_back(unit_height_view(t));
  kernel2d(in2, unit_height_attrs(attrs, op), out2);
}

// ---------------------------------------------------------------------------
// Adaptive pooling: output cell i of a dim of size `in` pooled to `out` covers
// [floor(i * in / out), ceil((i + 1) * in / out)), as PyTorch's.

NABLA_HOST_DEVICE inline int64_t adaptive_start(int64_t i, int64_t in, int64_t out) { return i * in / out; }
NABLA_HOST_DEVICE inline int64_t adaptive_end(int64_t i, int64_t in, int64_t out) {
  return ((i + 1) * in + out - 1) / out;
}

struct AdaptiveGeometry {
  int64_t planes, H, W, OH, OW;  // planes = N*C
};

// output_size: one value (both dims) or two.
inline AdaptiveGeometry adaptive_geometry(const Shape& x, const Attrs& a, const char* op) {
  Pair o = attr_pair(a, "output_size", op);
  return {x[0] * x[1], x[2], x[3], o.h, o.w};
}

}  // namespace nabla::cpu
