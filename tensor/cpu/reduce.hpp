// The layout every CPU reduction works on: the input seen as a contiguous
// [outer, reduced, inner] block, so that a kernel is two plain loops. Reducing a
// consecutive run of dims of a contiguous tensor needs no copy; other cases copy
// once with the reduced dims moved to the end.
#pragma once
#include <vector>

#include "tensor/tensor.hpp"

namespace nabla::cpu {

struct ReduceLayout {
  Tensor data;  // contiguous
  int64_t outer = 1, reduced = 1, inner = 1;
};

// `dims` sorted, unique, non-negative; empty reduces nothing (reduced = 1).
ReduceLayout reduce_layout(const Tensor& x, const std::vector<int64_t>& dims);

// Normalised dims from the "dims" attribute (empty: all dims).
std::vector<int64_t> attr_dims(const Tensor& x, const std::vector<int64_t>& dims);

// The accumulator type of a reduction over T.
template <class T> struct acc_type { using type = double; };
template <> struct acc_type<int64_t> { using type = int64_t; };
template <> struct acc_type<int32_t> { using type = int64_t; };
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

// Largest of p[0..n) (n > 0), NaN winning as in PyTorch; 8 lanes as in sum_run.
template <class T>
T max_run(const T* p, int64_t n) {
  T lane[8];
  for (int k = 0; k < 8; ++k) lane[k] = p[0];
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; ++k) lane[k] = (p[i + k] > lane[k] || p[i + k] != p[i + k]) ? p[i + k] : lane[k];
  T best = lane[0];
  for (int k = 1; k < 8; ++k) best = (lane[k] > best || lane[k] != lane[k]) ? lane[k] : best;
  for (; i < n; ++i) best = (p[i] > best || p[i] != p[i]) ? p[i] : best;
  return best;
}

}  // namespace nabla::cpu
