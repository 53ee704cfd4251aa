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

}  // namespace nabla::cpu
