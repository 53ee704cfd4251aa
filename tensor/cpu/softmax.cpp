// CPU kernels of softmax and log_softmax over one dim. The input is seen as a
// contiguous [outer, reduced, inner] block (ReduceLayout); the output has the
// input's shape, so it is the same block. Each slice subtracts its max before exp,
// so large logits cannot overflow.
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "tensor/cpu/kernels.hpp"
#include "tensor/cpu/parallel.hpp"
#include "tensor/cpu/reduce.hpp"
#include "tensor/cpu/vec_math.hpp"

namespace nabla::cpu {

namespace {

// One slice with inner == 1: a contiguous row of n values. The exps go to y first
// (a loop that vectorises), then one summing pass.
template <class T, bool Log>
void softmax_row(const T* x, T* y, int64_t n) {
  if (n == 0) return;
  T m = max_run(x, n);
  for (int64_t r = 0; r < n; ++r) y[r] = vmath::exp(x[r] - m);
  double total = static_cast<double>(sum_run(y, n));
  if (Log) {
    T shift = m + static_cast<T>(std::log(total));
    for (int64_t r = 0; r < n; ++r) y[r] = x[r] - shift;
  } else {
    T scale = static_cast<T>(1.0 / total);
    for (int64_t r = 0; r < n; ++r) y[r] *= scale;
  }
}

// One slice with inner > 1: column j of a [reduced, inner] block. The loops run
// over j innermost, so they read and write contiguous memory and vectorise.
template <class T, bool Log>
void softmax_block(const T* x, T* y, int64_t reduced, int64_t inner, T* m, T* total) {
  std::fill(m, m + inner, static_cast<T>(-INFINITY));
  std::fill(total, total + inner, T(0));
  for (int64_t r = 0; r < reduced; ++r)
    for (int64_t j = 0; j < inner; ++j) m[j] = std::max(m[j], x[r * inner + j]);
  for (int64_t r = 0; r < reduced; ++r)
    for (int64_t j = 0; j < inner; ++j) {
      T e = vmath::exp(x[r * inner + j] - m[j]);
      if (!Log) y[r * inner + j] = e;
      total[j] += e;
    }
  if (Log) {
    for (int64_t j = 0; j < inner; ++j) m[j] += std::log(total[j]);  // m becomes the log normaliser
    for (int64_t r = 0; r < reduced; ++r)
      for (int64_t j = 0; j < inner; ++j) y[r * inner + j] = x[r * inner + j] - m[j];
  } else {
    for (int64_t j = 0; j < inner; ++j) total[j] = T(1) / total[j];
    for (int64_t r = 0; r < reduced; ++r)
      for (int64_t j = 0; j < inner; ++j) y[r * inner + j] *= total[j];
  }
}

template <class T, bool Log>
void softmax_kernel(const ReduceLayout& l, T* out) {
  const T* x = static_cast<const T*>(l.data.raw_data());
  int64_t slice = l.reduced * l.inner;
  int64_t work = l.outer * slice;
  parallel_for(0, l.outer, work, [&](int64_t lo, int64_t hi) {
    std::vector<T> m(l.inner), total(l.inner);  // per-thread scratch for the block case
    for (int64_t o = lo; o < hi; ++o) {
      if (l.inner == 1)
        softmax_row<T, Log>(x + o * slice, out + o * slice, l.reduced);
      else
        softmax_block<T, Log>(x + o * slice, out + o * slice, l.reduced, l.inner, m.data(), total.data());
    }
  });
}

template <bool Log>
void softmax_impl(const TensorList& in, const Attrs& attrs, TensorList& out) {
  const Tensor& x = in[0];
  // One dim is always a consecutive run, so reduce_layout never permutes here and
  // the output (contiguous, x's shape) has the same [outer, reduced, inner] order.
  ReduceLayout l = reduce_layout(x, reduction_dims(x, {attrs.i("dim")}));
  // No elements: nothing to do (a [2^62, 0] input looped over its 2^62 empty rows)
  if (x.numel() == 0) return;
  visit_float(out[0].dtype(), Log ? "log_softmax" : "softmax", [&](auto tag) {
    using T = typename decltype(tag)::type;
    softmax_kernel<T, Log>(l, static_cast<T*>(out[0].raw_data()));
  });
}

}  // namespace

void softmax(const TensorList& in, const Attrs& attrs, TensorList& out) { softmax_impl<false>(in, attrs, out); }
void log_softmax(const TensorList& in, const Attrs& attrs, TensorList& out) { softmax_impl<true>(in, attrs, out); }

}  // namespace nabla::cpu
