// What the first layer's kernel tests share (conv_few_channels.cpp, blocked and pooled;
// conv_few_channels_planar.cpp, eager's NCHW): the skip where there is no AVX-512, a
// case's shape, how a failing case names itself, and the comparison with f64.
#pragma once
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>

#include "autograd/ops.hpp"
#include "tensor/cpu/fused.hpp"
#include "tensor/tensor.hpp"

// The kernels run only where oneDNN runs its AVX-512 kernels; elsewhere they decline
// and the oneDNN path runs, so a case has nothing to check.
#define SKIP_WITHOUT_AVX512()                                                               \
  if (!nabla::cpu::blocked_activations()) {                                                 \
    MESSAGE("skipped: this CPU has no AVX-512 (the kernels decline; the oneDNN path runs)"); \
    return;                                                                                 \
  }

namespace few_channels_test {

struct Case {
  int64_t N, C, H, W, OC, KH, KW, pad_h, pad_w;
  bool bias, relu;
};

inline std::string describe(const Case& c) {
  std::ostringstream s;
  s << "x [" << c.N << ", " << c.C << ", " << c.H << ", " << c.W << "], w [" << c.OC << ", " << c.C << ", " << c.KH
    << ", " << c.KW << "], padding [" << c.pad_h << ", " << c.pad_w << "]" << (c.bias ? ", bias" : "")
    << (c.relu ? ", relu" : "");
  return s.str();
}

// The fused kernels' relu: oneDNN's post-op rule, a NaN becomes 0 (Note [A NaN through
// relu]; the relu op keeps it).
inline nabla::Tensor fused_relu(const nabla::Tensor& t) {
  nabla::Tensor r = nabla::relu(t);
  return nabla::where(nabla::ne(t, t), nabla::zeros_like(t), r);  // t != t: a NaN
}

// How many f32 values of `got` are off f64's `expected` by more than 1e-6 of `scale`
// (the sum of the terms' magnitudes); a NaN expected must be a NaN, and where a term
// was not finite (relu's 0 of a NaN, an infinity) the value must be exactly equal.
inline int64_t count_off(const nabla::Tensor& got, const nabla::Tensor& expected, const nabla::Tensor& scale) {
  int64_t off = 0;
  for (int64_t i = 0; i < got.numel(); ++i) {
    double g = static_cast<const float*>(got.raw_data())[i], e = static_cast<const double*>(expected.raw_data())[i];
    double tolerance = 1e-6 * static_cast<const double*>(scale.raw_data())[i];
    if (std::isnan(e))
      off += !std::isnan(g);
    else
      off += std::isfinite(tolerance) ? !(std::abs(g - e) <= tolerance) : !(g == e);
  }
  return off;
}

}  // namespace few_channels_test
