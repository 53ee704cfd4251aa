// CPU kernels of the reduction rows.
#include "tensor/cpu/reduce.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <type_traits>

#include "tensor/cpu/copy.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/cpu/parallel.hpp"

namespace nabla::cpu {

namespace {

// A total times scale (1, or 1/N for mean) in T. An integer sum is stored as it is, as
// the CUDA kernel's: total * 1.0 went through a double, so an i64 sum past 2^53 was
// rounded (the sum of [2^62 + 2] was 2^62).
template <class T, class A>
T scaled_total(A total, double scale) {
  if constexpr (std::is_integral_v<A>) {
    if (scale == 1.0) return static_cast<T>(total);
  }
  return static_cast<T>(static_cast<compute_t<T>>(total * scale));
}

// out[o, j] = scale * sum_r x[o, r, j]. Rows are split across threads; a single long
// row (a full reduction) is split along its length instead.
template <class T>
void sum_kernel(const ReduceLayout& l, T* out, double scale) {
  using A = acc_t<T>;
  const T* x = static_cast<const T*>(l.data.raw_data());
  auto store = [&](int64_t at, A total) { out[at] = scaled_total<T>(total, scale); };
  if (l.inner == 1 && l.outer == 1) {
    A total = parallel_reduce<A>(
        0, l.reduced, l.reduced, A(0), [&](int64_t lo, int64_t hi) { return sum_run(x + lo, hi - lo); },
        [](A a, A b) { return a + b; });
    store(0, total);
    return;
  }
  int64_t work = l.outer * l.reduced * l.inner;
  if (l.outer == 1) {  // down the columns of [reduced, inner] (a linear bias gradient): split the columns
    parallel_for(0, l.inner, work, [&](int64_t lo, int64_t hi) {
      std::vector<A> acc(static_cast<size_t>(hi - lo), A(0));
      for (int64_t r = 0; r < l.reduced; ++r) {
        const T* row = x + r * l.inner + lo;
        for (int64_t j = 0; j < hi - lo; ++j) acc[j] += static_cast<A>(static_cast<compute_t<T>>(row[j]));
      }
      for (int64_t j = lo; j < hi; ++j) store(j, acc[j - lo]);
    });
    return;
  }
  parallel_for(0, l.outer, work, [&](int64_t lo, int64_t hi) {
    std::vector<A> acc(l.inner == 1 ? 0 : l.inner);
    for (int64_t o = lo; o < hi; ++o) {
      const T* base = x + o * l.reduced * l.inner;
      if (l.inner == 1) {
        store(o, sum_run(base, l.reduced));
        continue;
      }
      std::fill(acc.begin(), acc.end(), A(0));
      for (int64_t r = 0; r < l.reduced; ++r)
        for (int64_t j = 0; j < l.inner; ++j) acc[j] += static_cast<A>(static_cast<compute_t<T>>(base[r * l.inner + j]));
      for (int64_t j = 0; j < l.inner; ++j) store(o * l.inner + j, acc[j]);
    }
  });
}

// A contiguous x reduced over its leading and trailing dims, keeping one block of
// dims between them: [N, C, S] summed over N and S, as a conv's bias gradient sums
// [N, C, H, W] over N, H, W.
struct KeptMiddle {
  int64_t N = 1, C = 1, S = 1;
};
std::optional<KeptMiddle> kept_middle(const Tensor& x, const std::vector<int64_t>& dims) {
  int64_t nd = x.dim();
  if (!x.is_contiguous() || dims.empty() || dims.front() != 0 || dims.back() != nd - 1) return std::nullopt;
  size_t gap = 0;  // the one place where consecutive reduced dims jump over the kept ones
  for (size_t i = 1; i < dims.size(); ++i)
    if (dims[i] != dims[i - 1] + 1) {
      if (gap) return std::nullopt;
      gap = i;
    }
  if (!gap) return std::nullopt;
  KeptMiddle k;
  for (int64_t d = 0; d < nd; ++d) {
    int64_t size = x.sizes()[d];
    if (d <= dims[gap - 1]) k.N *= size;
    else if (d < dims[gap]) k.C *= size;
    else k.S *= size;
  }
  return k;
}

// out[c] = scale * sum_n sum_s x[n, c, s], read in place (reduce_layout would copy x
// to move the reduced dims together, tripling the traffic): the channels split across
// threads, each (n, c) row of S a vectorised run added into the channel's RunSum.
template <class T>
void sum_kept_middle(const T* x, const KeptMiddle& k, T* out, double scale) {
  parallel_for(0, k.C, k.N * k.C * k.S, [&](int64_t lo, int64_t hi) {
    for (int64_t c = lo; c < hi; ++c) {
      RunSum<T> total;
      for (int64_t n = 0; n < k.N; ++n) total.add(x + (n * k.C + c) * k.S, k.S);
      out[c] = scaled_total<T>(total.finish(), scale);
    }
  });
}

void sum_or_mean(const TensorList& in, const Attrs& attrs, TensorList& out, bool mean) {
  if (out[0].numel() == 0) return;  // no totals: [2^40, 0, 4] summed its 2^40 empty rows (a hang)
  auto dims = reduction_dims(in[0], attrs.ints("dims"));
  Tensor x = as_dtype(in[0], out[0].dtype());
  std::optional<KeptMiddle> middle = kept_middle(x, dims);
  ReduceLayout l = middle ? ReduceLayout{} : reduce_layout(x, dims);
  int64_t reduced = middle ? middle->N * middle->S : l.reduced;
  double scale = mean ? 1.0 / static_cast<double>(reduced) : 1.0;
  visit_dtype(out[0].dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>)
      throw Error("sum: cannot sum into a bool tensor");
    else if (middle)
      sum_kept_middle<T>(static_cast<const T*>(x.raw_data()), *middle, static_cast<T*>(out[0].raw_data()), scale);
    else
      sum_kernel<T>(l, static_cast<T*>(out[0].raw_data()), scale);
  });
}

}  // namespace

void sum(const TensorList& in, const Attrs& attrs, TensorList& out) { sum_or_mean(in, attrs, out, false); }
void mean(const TensorList& in, const Attrs& attrs, TensorList& out) { sum_or_mean(in, attrs, out, true); }

namespace {

// Whether v beats the best value so far for max (IsMax) or min. NaN beats every
// number so that it propagates as in PyTorch; equal values do not beat, so ties
// keep the first index.
template <bool IsMax, class C>
inline bool beats(C v, C best) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(best)) return false;
    if (std::isnan(v)) return true;
  }
  return IsMax ? v > best : v < best;
}

// values[o, j] / indices[o, j] = the max (or min) of x[o, :, j] and its first
// position; either output may be null. The reduced extent must be non-empty (the
// rows' shape rules reject empty reductions).
template <bool IsMax, class T>
void extremum_kernel(const ReduceLayout& l, T* values, int64_t* indices) {
  using C = compute_t<T>;
  const T* x = static_cast<const T*>(l.data.raw_data());
  int64_t work = l.outer * l.reduced * l.inner;
  parallel_for(0, l.outer, work, [&](int64_t lo, int64_t hi) {
    for (int64_t o = lo; o < hi; ++o) {
      const T* base = x + o * l.reduced * l.inner;
      if (l.inner == 1) {
        C best = static_cast<C>(base[0]);
        int64_t arg = 0;
        for (int64_t r = 1; r < l.reduced; ++r) {
          C v = static_cast<C>(base[r]);
          if (beats<IsMax>(v, best)) best = v, arg = r;
        }
        if (values) values[o] = static_cast<T>(best);
        if (indices) indices[o] = arg;
        continue;
      }
      // Walk the reduced rows in order so the inner loop reads contiguous memory.
      std::vector<C> best(base, base + l.inner);
      std::vector<int64_t> arg(l.inner, 0);
      for (int64_t r = 1; r < l.reduced; ++r)
        for (int64_t j = 0; j < l.inner; ++j) {
          C v = static_cast<C>(base[r * l.inner + j]);
          if (beats<IsMax, C>(v, best[j])) best[j] = v, arg[j] = r;
        }
      for (int64_t j = 0; j < l.inner; ++j) {
        if (values) values[o * l.inner + j] = static_cast<T>(best[j]);
        if (indices) indices[o * l.inner + j] = arg[j];
      }
    }
  });
}

// Runs extremum_kernel over `dims` of in[0]; a null tensor skips that output.
template <bool IsMax>
void extremum(const Tensor& x, const std::vector<int64_t>& dims, const Tensor& values, const Tensor& indices) {
  ReduceLayout l = reduce_layout(x, dims);
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    extremum_kernel<IsMax, T>(l, values.defined() ? static_cast<T*>(values.raw_data()) : nullptr,
                              indices.defined() ? static_cast<int64_t*>(indices.raw_data()) : nullptr);
  });
}

std::vector<int64_t> all_dims(const Tensor& x) { return reduction_dims(x, {}); }
std::vector<int64_t> one_dim(const Tensor& x, int64_t dim) { return reduction_dims(x, {dim}); }

// out[o, j] = sum_r (x[o, r, j] - mean)^2 / divisor, or its square root. Two passes
// (mean, then squared deviations) in double: the one-pass formula loses digits to
// cancellation when the mean is large against the spread.
template <class T>
void variance_kernel(const ReduceLayout& l, T* out, double divisor, bool take_sqrt) {
  const T* x = static_cast<const T*>(l.data.raw_data());
  double n = static_cast<double>(l.reduced);
  auto finish = [&](double ss) {
    double v = ss / divisor;
    return static_cast<T>(take_sqrt ? std::sqrt(v) : v);
  };
  int64_t work = l.outer * l.reduced * l.inner;
  parallel_for(0, l.outer, work, [&](int64_t lo, int64_t hi) {
    std::vector<double> mean(l.inner), ss(l.inner);  // per thread, reused across rows
    for (int64_t o = lo; o < hi; ++o) {
      const T* base = x + o * l.reduced * l.inner;
      std::fill(mean.begin(), mean.end(), 0.0);
      std::fill(ss.begin(), ss.end(), 0.0);
      for (int64_t r = 0; r < l.reduced; ++r)
        for (int64_t j = 0; j < l.inner; ++j) mean[j] += static_cast<double>(base[r * l.inner + j]);
      for (int64_t j = 0; j < l.inner; ++j) mean[j] /= n;
      for (int64_t r = 0; r < l.reduced; ++r)
        for (int64_t j = 0; j < l.inner; ++j) {
          double d = static_cast<double>(base[r * l.inner + j]) - mean[j];
          ss[j] += d * d;
        }
      for (int64_t j = 0; j < l.inner; ++j) out[o * l.inner + j] = finish(ss[j]);
    }
  });
}

void variance(const TensorList& in, const Attrs& attrs, TensorList& out, bool take_sqrt) {
  ReduceLayout l = reduce_layout(in[0], reduction_dims(in[0], attrs.ints("dims")));
  // PyTorch divides by max(0, N - correction): too large a correction gives inf/nan.
  double divisor = static_cast<double>(std::max<int64_t>(0, l.reduced - attrs.i("correction")));
  visit_float(out[0].dtype(), take_sqrt ? "std" : "var", [&](auto tag) {
    using T = typename decltype(tag)::type;
    variance_kernel<T>(l, static_cast<T*>(out[0].raw_data()), divisor, take_sqrt);
  });
}

// out[o, j] = log sum_r exp(x[o, r, j]), shifted by the max so exp cannot overflow.
// An infinite max is not subtracted (inf - inf would be NaN): all -inf gives -inf,
// any +inf gives +inf, and an empty reduction gives log(0) = -inf, as in PyTorch.
template <class T>
void logsumexp_kernel(const ReduceLayout& l, T* out) {
  const T* x = static_cast<const T*>(l.data.raw_data());
  int64_t work = l.outer * l.reduced * l.inner;
  parallel_for(0, l.outer, work, [&](int64_t lo, int64_t hi) {
    std::vector<double> shift(l.inner), total(l.inner);  // per thread, reused across rows
    for (int64_t o = lo; o < hi; ++o) {
      const T* base = x + o * l.reduced * l.inner;
      std::fill(shift.begin(), shift.end(), -INFINITY);
      std::fill(total.begin(), total.end(), 0.0);
      for (int64_t r = 0; r < l.reduced; ++r)
        for (int64_t j = 0; j < l.inner; ++j) shift[j] = std::max(shift[j], static_cast<double>(base[r * l.inner + j]));
      for (int64_t j = 0; j < l.inner; ++j)
        if (std::isinf(shift[j])) shift[j] = 0.0;
      for (int64_t r = 0; r < l.reduced; ++r)
        for (int64_t j = 0; j < l.inner; ++j)
          total[j] += std::exp(static_cast<double>(base[r * l.inner + j]) - shift[j]);
      for (int64_t j = 0; j < l.inner; ++j) out[o * l.inner + j] = static_cast<T>(std::log(total[j]) + shift[j]);
    }
  });
}

}  // namespace

void max(const TensorList& in, const Attrs&, TensorList& out) {
  extremum<true>(in[0], all_dims(in[0]), out[0], Tensor());
}
void min(const TensorList& in, const Attrs&, TensorList& out) {
  extremum<false>(in[0], all_dims(in[0]), out[0], Tensor());
}
void max_dim(const TensorList& in, const Attrs& attrs, TensorList& out) {
  extremum<true>(in[0], one_dim(in[0], attrs.i("dim")), out[0], out[1]);
}
void min_dim(const TensorList& in, const Attrs& attrs, TensorList& out) {
  extremum<false>(in[0], one_dim(in[0], attrs.i("dim")), out[0], out[1]);
}
void argmax(const TensorList& in, const Attrs& attrs, TensorList& out) {
  extremum<true>(in[0], arg_dims(in[0], attrs), Tensor(), out[0]);
}
void argmin(const TensorList& in, const Attrs& attrs, TensorList& out) {
  extremum<false>(in[0], arg_dims(in[0], attrs), Tensor(), out[0]);
}

void var(const TensorList& in, const Attrs& attrs, TensorList& out) { variance(in, attrs, out, false); }
void std(const TensorList& in, const Attrs& attrs, TensorList& out) { variance(in, attrs, out, true); }

void logsumexp(const TensorList& in, const Attrs& attrs, TensorList& out) {
  // Integer inputs compute in the output's floating dtype (PyTorch promotes them too).
  Tensor x = as_dtype(in[0], out[0].dtype());
  ReduceLayout l = reduce_layout(x, reduction_dims(x, attrs.ints("dims")));
  visit_float(out[0].dtype(), "logsumexp", [&](auto tag) {
    using T = typename decltype(tag)::type;
    logsumexp_kernel<T>(l, static_cast<T*>(out[0].raw_data()));
  });
}

}  // namespace nabla::cpu
