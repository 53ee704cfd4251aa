// The f64 convolution loops behind tensor/cpu/conv.cpp (oneDNN has no f64
// convolution; f64 is gradcheck's dtype): im2col + GEMM for 2-D, direct loops for
// 3-D, one kernel per pass. Included by conv.cpp alone.
#pragma once
#include <cstdint>
#include <vector>

#include "tensor/cpu/blas.hpp"
#include "tensor/cpu/conv_geometry.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/tensor.hpp"

namespace nabla::cpu::conv_loops {

// A convolution's three computations: the result, the input's gradient (backward
// data) and the weight's (backward weights).
enum class Pass : int64_t { forward, backward_data, backward_weights };

// ---------------------------------------------------------------------------
// im2col + GEMM (f64)

// col[(c*KH + kh)*KW + kw][oh*OW + ow] = x[c][ih][iw], zero in the padding.
template <class T>
void im2col(const T* x, int64_t channels, const ConvGeometry& g, T* col) {
  int64_t rows = channels * g.KH * g.KW, OHW = g.OH * g.OW;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t kw = r % g.KW, kh = (r / g.KW) % g.KH, c = r / (g.KW * g.KH);
    T* dst = col + r * OHW;
    for (int64_t oh = 0; oh < g.OH; ++oh) {
      int64_t ih = oh * g.stride.h - g.pad.h + kh * g.dilation.h;
      for (int64_t ow = 0; ow < g.OW; ++ow) {
        int64_t iw = ow * g.stride.w - g.pad.w + kw * g.dilation.w;
        bool inside = ih >= 0 && ih < g.H && iw >= 0 && iw < g.W;
        dst[oh * g.OW + ow] = inside ? x[(c * g.H + ih) * g.W + iw] : T(0);
      }
    }
  }
}

// The adjoint of im2col: adds every column entry back onto its input element.
template <class T>
void col2im(const T* col, int64_t channels, const ConvGeometry& g, T* dx) {
  int64_t rows = channels * g.KH * g.KW, OHW = g.OH * g.OW;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t kw = r % g.KW, kh = (r / g.KW) % g.KH, c = r / (g.KW * g.KH);
    const T* src = col + r * OHW;
    for (int64_t oh = 0; oh < g.OH; ++oh) {
      int64_t ih = oh * g.stride.h - g.pad.h + kh * g.dilation.h;
      if (ih < 0 || ih >= g.H) continue;
      for (int64_t ow = 0; ow < g.OW; ++ow) {
        int64_t iw = ow * g.stride.w - g.pad.w + kw * g.dilation.w;
        if (iw >= 0 && iw < g.W) dx[(c * g.H + ih) * g.W + iw] += src[oh * g.OW + ow];
      }
    }
  }
}

// Per-group sizes of the GEMMs: out[OCg, OHW] = w[OCg, K] * col[K, OHW].
struct GroupDims {
  int64_t Cg, OCg, K, OHW;
};
inline GroupDims group_dims(const ConvGeometry& g) {
  int64_t Cg = g.C / g.groups;
  return {Cg, g.OC / g.groups, Cg * g.KH * g.KW, g.OH * g.OW};
}

template <class T>
void forward_gemm(const T* x, const T* w, const T* bias, T* y, const ConvGeometry& g) {
  GroupDims d = group_dims(g);
  std::vector<T> col(static_cast<size_t>(d.K * d.OHW));
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      im2col(x + (n * g.C + grp * d.Cg) * g.H * g.W, d.Cg, g, col.data());
      T* out = y + (n * g.OC + grp * d.OCg) * d.OHW;
      gemm(false, false, d.OCg, d.OHW, d.K, T(1), w + grp * d.OCg * d.K, d.K, col.data(), d.OHW, T(0), out, d.OHW);
      if (bias)
        for (int64_t o = 0; o < d.OCg; ++o)
          for (int64_t p = 0; p < d.OHW; ++p) out[o * d.OHW + p] += bias[grp * d.OCg + o];
    }
}

template <class T>
void backward_input_gemm(const T* grad, const T* w, T* dx, const ConvGeometry& g) {
  GroupDims d = group_dims(g);
  std::vector<T> col(static_cast<size_t>(d.K * d.OHW));
  std::fill(dx, dx + g.N * g.C * g.H * g.W, T(0));
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const T* gy = grad + (n * g.OC + grp * d.OCg) * d.OHW;
      gemm(true, false, d.K, d.OHW, d.OCg, T(1), w + grp * d.OCg * d.K, d.K, gy, d.OHW, T(0), col.data(), d.OHW);
      col2im(col.data(), d.Cg, g, dx + (n * g.C + grp * d.Cg) * g.H * g.W);
    }
}

template <class T>
void backward_weight_gemm(const T* x, const T* grad, T* dw, const ConvGeometry& g) {
  GroupDims d = group_dims(g);
  std::vector<T> col(static_cast<size_t>(d.K * d.OHW));
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      im2col(x + (n * g.C + grp * d.Cg) * g.H * g.W, d.Cg, g, col.data());
      const T* gy = grad + (n * g.OC + grp * d.OCg) * d.OHW;
      gemm(false, true, d.OCg, d.K, d.OHW, T(1), gy, d.OHW, col.data(), d.OHW, n == 0 ? T(0) : T(1),
           dw + grp * d.OCg * d.K, d.K);
    }
}

// ---------------------------------------------------------------------------
// Shared plumbing

template <class T>
const T* ptr(const Tensor& t) {
  return static_cast<const T*>(t.raw_data());
}
template <class T>
T* mut(const Tensor& t) {
  return static_cast<T*>(t.raw_data());
}

inline void fill_bias_or_zero(const Tensor& y, const Tensor& bias) {
  if (!bias.defined()) {
    fill_raw(y, 0.0);
    return;
  }
  // bias[c] broadcast over every other dim of y [N, C, spatial...].
  std::vector<int64_t> strides(y.sizes().size(), 0);
  strides[1] = bias.strides()[0];
  copy_into(y, make_view(bias, y.sizes().vec(), strides, bias.offset()));
}

// ---------------------------------------------------------------------------
// conv3d in f64: direct loops

// Calls tap(out_index, in_index, weight_index) for every product of the 3-D
// convolution y[n, oc, o...] += x[n, c, i...] * w[oc, c % Cg, k...]; forward and both
// adjoints are this one loop with a different accumulation.
template <class Tap>
void for_each_tap_3d(const ConvNdGeometry& g, Tap&& tap) {
  int64_t Cg = g.C / g.groups, OCg = g.OC / g.groups;
  const auto &in = g.in, &k = g.kernel, &out = g.out;
  int64_t in_plane = in[0] * in[1] * in[2], out_plane = out[0] * out[1] * out[2], k_plane = k[0] * k[1] * k[2];
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t oc = 0; oc < g.OC; ++oc)
      for (int64_t cg = 0; cg < Cg; ++cg) {
        int64_t c = oc / OCg * Cg + cg;
        int64_t x0 = (n * g.C + c) * in_plane, y0 = (n * g.OC + oc) * out_plane, w0 = (oc * Cg + cg) * k_plane;
        for (int64_t od = 0; od < out[0]; ++od)
          for (int64_t oh = 0; oh < out[1]; ++oh)
            for (int64_t ow = 0; ow < out[2]; ++ow)
              for (int64_t kd = 0; kd < k[0]; ++kd) {
                int64_t id = od * g.stride[0] - g.pad[0] + kd * g.dilation[0];
                if (id < 0 || id >= in[0]) continue;
                for (int64_t kh = 0; kh < k[1]; ++kh) {
                  int64_t ih = oh * g.stride[1] - g.pad[1] + kh * g.dilation[1];
                  if (ih < 0 || ih >= in[1]) continue;
                  for (int64_t kw = 0; kw < k[2]; ++kw) {
                    int64_t iw = ow * g.stride[2] - g.pad[2] + kw * g.dilation[2];
                    if (iw < 0 || iw >= in[2]) continue;
                    tap(y0 + (od * out[1] + oh) * out[2] + ow, x0 + (id * in[1] + ih) * in[2] + iw,
                        w0 + (kd * k[1] + kh) * k[2] + kw);
                  }
                }
              }
      }
}

// conv3d in f64: accumulates each product of the convolution into `out` as `pass`
// says; the caller zeroes `out` (or sets it to the bias) first.
template <class T>
void direct_3d(Pass pass, const Tensor& a, const Tensor& b, const Tensor& out, const ConvNdGeometry& g) {
  const T *pa = ptr<T>(a), *pb = ptr<T>(b);
  T* po = mut<T>(out);
  switch (pass) {
    case Pass::forward:  // a = x, b = w, out = y
      return for_each_tap_3d(g, [&](int64_t o, int64_t i, int64_t k) { po[o] += pa[i] * pb[k]; });
    case Pass::backward_data:  // a = grad, b = w, out = dx
      return for_each_tap_3d(g, [&](int64_t o, int64_t i, int64_t k) { po[i] += pa[o] * pb[k]; });
    case Pass::backward_weights:  // a = x, b = grad, out = dw
      return for_each_tap_3d(g, [&](int64_t o, int64_t i, int64_t k) { po[k] += pa[i] * pb[o]; });
  }
}

}  // namespace nabla::cpu::conv_loops
