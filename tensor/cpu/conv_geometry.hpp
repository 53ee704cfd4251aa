// The geometry of 2-D convolution and pooling (NCHW): attribute pairs and output
// sizes, PyTorch's formulas, in one place for the shape rules (autograd/ops/conv.cpp,
// which also validates and words the errors) and the kernels (tensor/cpu/conv.cpp,
// pool.cpp), which trust what the shape rule accepted.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tensor/attrs.hpp"
#include "tensor/small_vec.hpp"

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
  throw Error(std::string(op) + ": argument '" + name + "' must have 1 or 2 values, got " +
              std::to_string(v.size()));
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
inline int64_t pool_out_size(const char* op, int64_t in, int64_t kernel, int64_t stride, int64_t pad,
                             int64_t dilation, bool ceil_mode) {
  return window_out_size(op, in, kernel, stride, pad, dilation, ceil_mode);
}

// Everything a conv kernel needs; the batch and channel counts come from tensors.
struct ConvGeometry {
  int64_t N, C, H, W;     // input
  int64_t OC, KH, KW;     // weight [OC, C/groups, KH, KW]
  int64_t OH, OW;         // output
  Pair stride, pad, dilation;
  int64_t groups;
};

inline ConvGeometry conv_geometry(const Shape& x, const Shape& w, const Attrs& a,
                                  const char* op) {
  ConvGeometry g{};
  g.N = x[0], g.C = x[1], g.H = x[2], g.W = x[3];
  g.OC = w[0], g.KH = w[2], g.KW = w[3];
  g.stride = attr_pair(a, "stride", op);
  g.pad = attr_pair(a, "padding", op);
  g.dilation = attr_pair(a, "dilation", op);
  g.groups = a.i("groups");
  g.OH = conv_out_size(op, g.H, g.KH, g.stride.h, g.pad.h, g.dilation.h);
  g.OW = conv_out_size(op, g.W, g.KW, g.stride.w, g.pad.w, g.dilation.w);
  return g;
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

}  // namespace nabla::cpu
