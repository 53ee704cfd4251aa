// CPU kernels of the loss rows. Each computes one loss per element (or per target
// position for the class losses) in double, then writes them all (reduction none,
// attribute 0) or their mean (1) or sum (2). Value checks (class indices, probability
// ranges) run serially before the parallel loops, which must not throw.
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "tensor/cpu/copy.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/cpu/loops.hpp"
#include "tensor/cpu/parallel.hpp"
#include "tensor/layout.hpp"

namespace nabla::cpu {

namespace {

constexpr int64_t kNone = 0, kMean = 1;

// Writes loss_at(i) for i in [0, n), or their sum divided by `divisor`. The static
// schedule keeps the summation order fixed for a given thread count.
template <class T, class F>
void write_losses(const Tensor& out, int64_t n, int64_t reduction, double divisor, F loss_at) {
  T* o = static_cast<T*>(out.raw_data());
  if (reduction == kNone) {
    parallel_for(0, n, n, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) o[i] = static_cast<T>(loss_at(i));
    });
    return;
  }
  double acc = parallel_reduce<double>(
      0, n, n, 0.0,
      [&](int64_t lo, int64_t hi) {
        double part = 0;
        for (int64_t i = lo; i < hi; ++i) part += loss_at(i);
        return part;
      },
      [](double a, double b) { return a + b; });
  o[0] = static_cast<T>(acc / divisor);
}

// ---- losses of two same-shape tensors -----------------------------------------------

// f(input, target) per element; mean divides by the element count.
template <class F>
void pointwise_loss(const char* op, const TensorList& in, const Attrs& attrs, TensorList& out, F f) {
  DType dt = out[0].dtype();
  Tensor a = contiguous_raw(as_dtype(in[0], dt)), b = contiguous_raw(as_dtype(in[1], dt));
  int64_t n = a.numel(), reduction = attrs.i("reduction");
  visit_float(dt, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = static_cast<const T*>(a.raw_data());
    const T* t = static_cast<const T*>(b.raw_data());
    write_losses<T>(out[0], n, reduction, reduction == kMean ? static_cast<double>(n) : 1.0,
                    [&](int64_t i) { return f(static_cast<double>(x[i]), static_cast<double>(t[i])); });
  });
}

// PyTorch's check: probabilities in [0, 1] (NaN fails it too).
void check_probabilities(const Tensor& probs) {
  for (double v : to_double_vector(probs))
    if (!(v >= 0.0 && v <= 1.0))
      throw Error("binary_cross_entropy: every element of argument 'input' must be a probability in [0, 1], found " +
                  number_str(v));
}

// ---- class losses --------------------------------------------------------------------
// The input is seen as a contiguous [outer, C, inner] block (ClassLayout,
// tensor/layout.hpp); target position p = o * inner + s picks input[o, :, s].

// Errors for a target that is neither a class index nor ignore_index; returns how many
// targets count (those that are not ignore_index), the divisor of the mean.
int64_t check_targets(const char* op, const int64_t* t, int64_t n, int64_t classes, int64_t ignore_index) {
  int64_t counted = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (t[i] == ignore_index) continue;
    if (t[i] < 0 || t[i] >= classes)
      throw Error(std::string(op) + ": target " + std::to_string(t[i]) + " is out of bounds for " +
                  std::to_string(classes) + " classes (expected 0.." + std::to_string(classes - 1) +
                  " or ignore_index " + std::to_string(ignore_index) + ")");
    ++counted;
  }
  return counted;
}

// loss_at(x, layout, p, target) per target position; ignored positions give 0.
template <class F>
void class_loss(const char* op, const TensorList& in, const Attrs& attrs, TensorList& out, F loss_at) {
  DType dt = out[0].dtype();
  Tensor x = contiguous_raw(as_dtype(in[0], dt)), target = contiguous_raw(as_dtype(in[1], DType::i64));
  ClassLayout l = class_layout(x);
  const int64_t* t = static_cast<const int64_t*>(target.raw_data());
  int64_t ignore_index = attrs.i("ignore_index"), reduction = attrs.i("reduction");
  // With every target ignored the mean is 0 / 0 = NaN, as in PyTorch.
  double counted = static_cast<double>(check_targets(op, t, l.positions(), l.classes, ignore_index));
  visit_float(dt, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = static_cast<const T*>(x.raw_data());
    write_losses<T>(out[0], l.positions(), reduction, reduction == kMean ? counted : 1.0,
                    [&](int64_t p) { return t[p] == ignore_index ? 0.0 : loss_at(xp, l, p, t[p]); });
  });
}

}  // namespace

// -log_softmax(x)[target], mixed with the mean of -log_softmax(x) over classes by
// label_smoothing; one pass for the max, one for the log-sum-exp (stable).
void cross_entropy(const TensorList& in, const Attrs& attrs, TensorList& out) {
  double smoothing = attrs.f("label_smoothing");
  class_loss("cross_entropy", in, attrs, out, [&](const auto* x, const ClassLayout& l, int64_t p, int64_t target) {
    double max = -INFINITY, sum_x = 0;
    for (int64_t c = 0; c < l.classes; ++c) {
      double v = static_cast<double>(x[l.at(p, c)]);
      max = std::max(max, v);
      sum_x += v;
    }
    double sum_exp = 0;
    for (int64_t c = 0; c < l.classes; ++c) sum_exp += std::exp(static_cast<double>(x[l.at(p, c)]) - max);
    double lse = max + std::log(sum_exp);
    double nll = lse - static_cast<double>(x[l.at(p, target)]);
    if (smoothing == 0.0) return nll;
    double mean_nll = lse - sum_x / static_cast<double>(l.classes);  // -mean_c log_softmax(x)_c
    return (1.0 - smoothing) * nll + smoothing * mean_nll;
  });
}

void nll_loss(const TensorList& in, const Attrs& attrs, TensorList& out) {
  class_loss("nll_loss", in, attrs, out, [](const auto* x, const ClassLayout& l, int64_t p, int64_t target) {
    return -static_cast<double>(x[l.at(p, target)]);
  });
}

void mse_loss(const TensorList& in, const Attrs& attrs, TensorList& out) {
  pointwise_loss("mse_loss", in, attrs, out, [](double x, double t) { return (x - t) * (x - t); });
}

// -(t log p + (1 - t) log(1 - p)) with each log clamped at -100, as PyTorch does, so
// that p of exactly 0 or 1 gives a finite loss.
void binary_cross_entropy(const TensorList& in, const Attrs& attrs, TensorList& out) {
  check_probabilities(in[0]);
  pointwise_loss("binary_cross_entropy", in, attrs, out, [](double p, double t) {
    double log_p = std::max(std::log(p), -100.0), log_q = std::max(std::log1p(-p), -100.0);
    return -(t * log_p + (1.0 - t) * log_q);
  });
}

// max(x, 0) - x t + log(1 + exp(-|x|)): never overflows, and loses no precision for
// large |x| (unlike composing sigmoid and log).
void binary_cross_entropy_with_logits(const TensorList& in, const Attrs& attrs, TensorList& out) {
  pointwise_loss("binary_cross_entropy_with_logits", in, attrs, out,
                 [](double x, double t) { return std::max(x, 0.0) - x * t + std::log1p(std::exp(-std::abs(x))); });
}

}  // namespace nabla::cpu
