// What the first layer's kernel tests share (conv_few_channels.cpp, blocked and pooled;
// conv_few_channels_planar.cpp, eager's NCHW): the skip where there is no AVX-512, a
// case's shape, and how a failing case names itself.
#pragma once
#include <doctest/doctest.h>

#include <cstdint>
#include <sstream>
#include <string>

#include "tensor/cpu/fused.hpp"

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

}  // namespace few_channels_test
