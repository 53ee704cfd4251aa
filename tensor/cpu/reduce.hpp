// The CPU side of the reductions: accumulator types and the vectorised runs (sum,
// max) that the kernels of reduce.cpp and softmax.cpp loop over. Every reduction
// works on the contiguous [outer, reduced, inner] view of its input (ReduceLayout,
// tensor/layout.hpp, shared with the CUDA kernels), so a kernel is two plain loops.
#pragma once
#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "tensor/layout.hpp"
#include "tensor/tensor.hpp"

namespace nabla::cpu {

// The accumulator type of a reduction over T: integers in int64, whose sum wraps into
// T as PyTorch's (through a double, a sum past T's range was an undefined conversion).
template <class T> struct acc_type { using type = double; };
template <> struct acc_type<int64_t> { using type = int64_t; };
template <> struct acc_type<int32_t> { using type = int64_t; };
template <> struct acc_type<int16_t> { using type = int64_t; };
template <> struct acc_type<int8_t> { using type = int64_t; };
template <> struct acc_type<uint8_t> { using type = int64_t; };
template <> struct acc_type<bool> { using type = int64_t; };
template <class T> using acc_t = typename acc_type<T>::type;

// Sum of p[0..n) in the accumulator type, over 8 independent lanes so the loop
// vectorises (one running sum would be a serial dependency chain).
template <class T>
acc_t<T> sum_run(const T* p, int64_t n) {
  using A = acc_t<T>;
  A lane[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; ++k) lane[k] += static_cast<A>(static_cast<compute_t<T>>(p[i + k]));
  A total = 0;
  for (int k = 0; k < 8; ++k) total += lane[k];
  for (; i < n; ++i) total += static_cast<A>(static_cast<compute_t<T>>(p[i]));
  return total;
}

// f32: blocks of 1024 summed in 64 float lanes (eight independent SIMD chains),
// block sums in double. The error stays that of a 16-term float sum per lane, like
// PyTorch's cascade sum, at over twice the speed of widening every element to double.
template <>
inline double sum_run<float>(const float* p, int64_t n) {
  constexpr int64_t kBlock = 1024;
  double total = 0;
  // The last, partial block goes through the lanes too: the rows of a bias gradient
  // (H * W = 784 or 196 floats) are shorter than a block.
  for (int64_t i = 0; i < n; i += kBlock) {
    const int64_t len = std::min(kBlock, n - i);
    float lane[64] = {};
    int64_t b = 0;
    for (; b + 64 <= len; b += 64)
      for (int k = 0; k < 64; ++k) lane[k] += p[i + b + k];
    double block = 0;
    for (int k = 0; k < 64; ++k) block += lane[k];
    for (; b < len; ++b) block += p[i + b];
    total += block;
  }
  return total;
}

// The sum of many short runs of one reduction (a bias gradient's [N, C, H, W] summed
// over N, H, W: per channel, N runs of H * W), added as sum_run<float> adds one long
// run: the 64 float lanes carry over from run to run and go to the double total every
// 1024 elements, so a run of 196 no longer pays the lanes' reduction on its own. Other
// types add each run's sum_run.
template <class T>
struct RunSum {
  acc_t<T> total = 0;
  void add(const T* p, int64_t n) { total += sum_run(p, n); }
  acc_t<T> finish() { return total; }
};

template <>
struct RunSum<float> {
  static constexpr int64_t kBlock = 1024;
  float lane[64] = {};
  int64_t in_lanes = 0;  // elements in the lanes since their last flush
  double total = 0;
  void add(const float* p, int64_t n) {
    int64_t b = 0;
    for (; b + 64 <= n; b += 64) {
      for (int k = 0; k < 64; ++k) lane[k] += p[b + k];
      if ((in_lanes += 64) >= kBlock) flush();
    }
    for (; b < n; ++b) total += p[b];
  }
  void flush() {
    double block = 0;
    for (int k = 0; k < 64; ++k) block += lane[k], lane[k] = 0;
    total += block;
    in_lanes = 0;
  }
  double finish() {
    flush();
    return total;
  }
};

// Largest of p[0..n) (n > 0) for f32/f64, NaN winning as in PyTorch. Written with
// GCC vector extensions: the compiler does not vectorise a NaN-aware max by itself.
template <class T>
T max_run(const T* p, int64_t n) {
  constexpr int W = 32 / sizeof(T);
  typedef T V __attribute__((vector_size(32)));
  T best = p[0];
  bool nan = false;
  int64_t i = 0;
  if (n >= W) {
    V vbest;
    auto vnan = V{} != V{};  // an integer mask vector, all false
    std::memcpy(&vbest, p, sizeof(V));
    for (i = 0; i + W <= n; i += W) {
      V v;
      std::memcpy(&v, p + i, sizeof(V));
      vbest = v > vbest ? v : vbest;
      vnan |= v != v;
    }
    for (int k = 0; k < W; ++k) {
      best = vbest[k] > best ? vbest[k] : best;
      nan |= vnan[k] != 0;
    }
  }
  for (; i < n; ++i) {
    best = p[i] > best ? p[i] : best;
    nan |= p[i] != p[i];
  }
  return nan ? std::numeric_limits<T>::quiet_NaN() : best;
}

}  // namespace nabla::cpu
