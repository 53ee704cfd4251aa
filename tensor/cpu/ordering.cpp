// CPU kernels of the scans, ordering and indexing ops (rows: autograd/ops/ordering.cpp):
// cumsum, cumprod, sort, topk, flip, roll, tril, triu, masked_fill, repeat, one_hot,
// multinomial. A kernel sees its input as a contiguous [outer, n, inner] block along
// the op's dim; rows run in parallel. Values are checked before any parallel loop (an
// exception must not leave an OpenMP region). sort and topk order NaN above every
// number, as PyTorch does, and break ties by position, so both are stable.
#include "tensor/ordering.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "tensor/cpu/copy.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/cpu/loops.hpp"
#include "tensor/cpu/parallel.hpp"
#include "tensor/layout.hpp"
#include "tensor/random.hpp"

namespace nabla::cpu {

namespace {

std::string str(int64_t v) { return std::to_string(v); }

// x (at least 1-D, contiguous) as [outer, n, inner] along dim.
struct Lines {
  int64_t outer = 1, n = 1, inner = 1;
};
Lines lines_along(const Shape& sizes, int64_t dim) {
  if (sizes.empty()) return {};
  return {size_product(sizes, 0, dim), sizes[dim], size_product(sizes, dim + 1, sizes.size())};
}

// ---- cumsum, cumprod ----

// Each line's running sum or product, accumulated in double (floats) or i64 (the
// integers, which the shape rule made i64), as PyTorch's CPU scans do.
template <class T, class Op>
void scan(const Tensor& x, const Tensor& out, int64_t dim, double identity, Op op) {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
  Lines l = lines_along(x.sizes(), dim);
  const T* xp = x.data<T>();
  T* op_out = out.data<T>();
  parallel_for(0, l.outer, x.numel(), [&](int64_t lo, int64_t hi) {
    std::vector<Acc> acc(static_cast<size_t>(l.inner));
    for (int64_t o = lo; o < hi; ++o) {
      std::fill(acc.begin(), acc.end(), static_cast<Acc>(identity));
      for (int64_t j = 0; j < l.n; ++j) {
        int64_t base = (o * l.n + j) * l.inner;
        for (int64_t i = 0; i < l.inner; ++i) {
          acc[i] = op(acc[i], static_cast<Acc>(xp[base + i]));
          op_out[base + i] = static_cast<T>(acc[i]);
        }
      }
    }
  });
}

template <class Op>
void scan_kernel(const TensorList& in, const Attrs& attrs, TensorList& out, double identity, Op op) {
  Tensor x = contiguous_raw(to_dtype_raw(in[0], out[0].dtype()));
  int64_t dim = wrap_dim(attrs.i("dim"), x.dim(), "scan");
  if (x.dim() == 0) return copy_into(out[0], x);
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int64_t>) {
      scan<T>(x, out[0], dim, identity, op);
    } else {
      throw Error(std::string("scan: unexpected dtype ") + dtype_name(x.dtype()));
    }
  });
}

// ---- sort, topk ----

// a < b with NaN above every number (and equal to itself).
template <class T>
bool less_value(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return a < b || (!std::isnan(a) && std::isnan(b));
  return a < b;
}

template <class T>
using Entry = std::pair<T, int64_t>;  // a value and its position in the line

// Whether a comes first: by value (ascending or descending), then by position.
template <class T>
struct Before {
  bool descending;
  bool operator()(const Entry<T>& a, const Entry<T>& b) const {
    if (descending ? less_value(b.first, a.first) : less_value(a.first, b.first)) return true;
    if (descending ? less_value(a.first, b.first) : less_value(b.first, a.first)) return false;
    return a.second < b.second;
  }
};

// Calls order(line) on each line of x along dim (parallel over lines) and writes the
// first `keep` entries of the ordered line to values and indices.
template <class T, class Order>
void order_lines(const Tensor& x, int64_t dim, int64_t keep, const Tensor& values, const Tensor& indices, Order order) {
  Lines l = lines_along(x.sizes(), dim);
  const T* xp = x.data<T>();
  T* vp = values.data<T>();
  int64_t* ip = indices.data<int64_t>();
  int64_t lines = l.outer * l.inner;
  int64_t work = x.numel() * std::max<int64_t>(1, static_cast<int64_t>(std::log2(l.n + 1)));
  parallel_for(0, lines, work, [&](int64_t lo, int64_t hi) {
    std::vector<Entry<T>> line(static_cast<size_t>(l.n));
    for (int64_t r = lo; r < hi; ++r) {
      int64_t o = r / l.inner, i = r % l.inner;
      const T* src = xp + o * l.n * l.inner + i;
      for (int64_t j = 0; j < l.n; ++j) line[j] = {src[j * l.inner], j};
      order(line);
      T* dv = vp + o * keep * l.inner + i;
      int64_t* di = ip + o * keep * l.inner + i;
      for (int64_t j = 0; j < keep; ++j) {
        dv[j * l.inner] = line[j].first;
        di[j * l.inner] = line[j].second;
      }
    }
  });
}

// sort and topk take every dtype but the 16-bit floats (which reach them as f32).
template <class F>
void visit_orderable(DType dt, const char* op, F&& f) {
  visit_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
      throw Error(std::string(op) + ": unexpected dtype " + dtype_name(dt));
    else
      f(tag);
  });
}

// ---- flip ----

// out = x with the dims in `flipped` reversed, one innermost line at a time: each
// output line reads the source line its flipped coordinates name, forwards or
// backwards.
template <class E>
void flip_lines(const Tensor& x, const std::vector<bool>& flipped, const Tensor& out) {
  const Shape& s = x.sizes();
  int64_t nd = x.dim(), last = s[nd - 1], lines = x.numel() / last;
  bool reverse_last = flipped[nd - 1];
  const E* xp = static_cast<const E*>(x.raw_data());
  E* op = static_cast<E*>(out.raw_data());
  parallel_for(0, lines, x.numel(), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      int64_t rest = r, src = 0, stride = last;
      for (int64_t d = nd - 2; d >= 0; --d) {
        int64_t c = rest % s[d];
        rest /= s[d];
        src += (flipped[d] ? s[d] - 1 - c : c) * stride;
        stride *= s[d];
      }
      const E* from = xp + src;
      E* to = op + r * last;
      if (reverse_last)
        std::reverse_copy(from, from + last, to);
      else
        std::memcpy(to, from, last * sizeof(E));
    }
  });
}

// ---- tril, triu ----

// Each row of each matrix: the kept columns copied, the others zero (all-zero bits
// are zero in every dtype).
void triangle(const TensorList& in, const Attrs& attrs, TensorList& out, bool upper) {
  Tensor x = contiguous_raw(in[0]);
  int64_t nd = x.dim(), R = x.sizes()[nd - 2], C = x.sizes()[nd - 1], diagonal = attrs.i("diagonal");
  int64_t rows = x.numel() / std::max<int64_t>(C, 1);
  if (C == 0 || rows == 0) return;
  size_t esize = dtype_size(x.dtype());
  const char* xp = static_cast<const char*>(x.raw_data());
  char* op = static_cast<char*>(out[0].raw_data());
  parallel_for(0, rows, x.numel(), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      int64_t i = r % R;
      // Kept columns [begin, end): tril keeps j <= i + diagonal, triu j >= i + diagonal.
      int64_t begin = upper ? std::clamp<int64_t>(i + diagonal, 0, C) : 0;
      int64_t end = upper ? C : std::clamp<int64_t>(i + diagonal + 1, 0, C);
      char* to = op + r * C * esize;
      const char* from = xp + r * C * esize;
      std::memset(to, 0, C * esize);
      if (end > begin) std::memcpy(to + begin * esize, from + begin * esize, (end - begin) * esize);
    }
  });
}

// ---- multinomial ----

// Checks every row of probs [rows, categories]: finite, non-negative, a positive sum,
// and enough positive categories to draw `samples` without replacement.
template <class T>
void check_distributions(const T* p, int64_t rows, int64_t categories, int64_t samples, bool replacement) {
  for (int64_t r = 0; r < rows; ++r) {
    double total = 0;
    int64_t positive = 0;
    for (int64_t j = 0; j < categories; ++j) {
      double v = static_cast<double>(p[r * categories + j]);
      if (!std::isfinite(v) || v < 0)
        throw Error("multinomial: probabilities must be finite and non-negative, got " + number_str(v) + " in row " +
                    str(r) + " at category " + str(j));
      total += v;
      positive += v > 0;
    }
    if (total <= 0) throw Error("multinomial: the probabilities of row " + str(r) + " sum to zero");
    if (!replacement && positive < samples)
      throw Error("multinomial: row " + str(r) + " has " + str(positive) +
                  " categories of positive probability, fewer than num_samples (" + str(samples) +
                  ") without replacement");
  }
}

// With replacement: each draw is the first category whose running total passes
// u * total.
template <class T>
void draw_with_replacement(const T* p, int64_t categories, int64_t samples, uint64_t seed, uint64_t first_draw,
                           int64_t* out) {
  std::vector<double> cdf(static_cast<size_t>(categories));
  double total = 0;
  for (int64_t j = 0; j < categories; ++j) cdf[j] = total += static_cast<double>(p[j]);
  for (int64_t s = 0; s < samples; ++s) {
    double u = uniform_at(seed, first_draw + s) * total;
    int64_t j = std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
    out[s] = std::min(j, categories - 1);
  }
}

// Without replacement: each category gets the key log(1 - u) / p (the exponential
// race), and the `samples` largest keys, largest first, are a draw without
// replacement in the order sequential draws would give, from one pass.
template <class T>
void draw_without_replacement(const T* p, int64_t categories, int64_t samples, uint64_t seed, uint64_t first_draw,
                              int64_t* out) {
  std::vector<Entry<double>> keys(static_cast<size_t>(categories));
  for (int64_t j = 0; j < categories; ++j) {
    double w = static_cast<double>(p[j]);
    double key = w > 0 ? std::log1p(-uniform_at(seed, first_draw + j)) / w : -INFINITY;
    keys[j] = {key, j};
  }
  std::partial_sort(keys.begin(), keys.begin() + samples, keys.end(), Before<double>{true});
  for (int64_t s = 0; s < samples; ++s) out[s] = keys[s].second;
}

}  // namespace

// An input of no elements has nothing to scan or sort: the kernels looped over its
// lines, 2^62 empty ones for a [2^62, 0] input along dim 1 (a hang).
void cumsum(const TensorList& in, const Attrs& attrs, TensorList& out) {
  if (in[0].numel() == 0) return;
  scan_kernel(in, attrs, out, 0.0, [](auto a, auto b) { return a + b; });
}

void cumprod(const TensorList& in, const Attrs& attrs, TensorList& out) {
  if (in[0].numel() == 0) return;
  scan_kernel(in, attrs, out, 1.0, [](auto a, auto b) { return a * b; });
}

void sort(const TensorList& in, const Attrs& attrs, TensorList& out) {
  if (in[0].numel() == 0) return;
  Tensor x = contiguous_raw(at_least_1d(in[0]));
  int64_t dim = wrap_dim(attrs.i("dim"), x.dim(), "sort");
  bool descending = attrs.b("descending");
  visit_orderable(x.dtype(), "sort", [&](auto tag) {
    using T = typename decltype(tag)::type;
    Before<T> before{descending};
    order_lines<T>(x, dim, x.sizes()[dim], out[0], out[1],
                   [&](std::vector<Entry<T>>& line) { std::sort(line.begin(), line.end(), before); });
  });
}

// The k best of a line of n (every `stride`-th element from src), best first, kept in
// a heap whose top is the worst kept: most elements cost one comparison with it, and
// the line is read in place, never copied.
template <class T>
void best_of_line(const T* src, int64_t stride, int64_t n, int64_t k, const Before<T>& before,
                  std::vector<Entry<T>>& heap) {
  heap.clear();
  for (int64_t j = 0; j < k; ++j) heap.push_back({src[j * stride], j});
  std::make_heap(heap.begin(), heap.end(), before);
  T worst = heap.front().first;
  for (int64_t j = k; j < n; ++j) {
    T v = src[j * stride];
    // Strictly behind the worst kept: out, at one comparison (NaN takes the full one).
    if (before.descending ? v < worst : worst < v) continue;
    Entry<T> e{v, j};
    if (!before(e, heap.front())) continue;
    std::pop_heap(heap.begin(), heap.end(), before);
    heap.back() = e;
    std::push_heap(heap.begin(), heap.end(), before);
    worst = heap.front().first;
  }
  std::sort_heap(heap.begin(), heap.end(), before);
}

// The k first of the ordered line: the heap above when k is small next to the line,
// else a selection over the whole line and a sort of the k. Unsorted results come
// sorted too (any order is allowed).
void topk(const TensorList& in, const Attrs& attrs, TensorList& out) {
  Tensor x = contiguous_raw(at_least_1d(in[0]));
  int64_t dim = wrap_dim(attrs.i("dim"), x.dim(), "topk"), k = attrs.i("k");
  if (k == 0) return;
  bool largest = attrs.b("largest");
  Lines l = lines_along(x.sizes(), dim);
  visit_orderable(x.dtype(), "topk", [&](auto tag) {
    using T = typename decltype(tag)::type;
    Before<T> before{largest};
    if (k * 8 > l.n) {
      order_lines<T>(x, dim, k, out[0], out[1], [&](std::vector<Entry<T>>& line) {
        auto kth = line.begin() + k;
        std::nth_element(line.begin(), kth - 1, line.end(), before);
        std::sort(line.begin(), kth - 1, before);
      });
      return;
    }
    const T* xp = x.data<T>();
    T* vp = out[0].data<T>();
    int64_t* ip = out[1].data<int64_t>();
    parallel_for(0, l.outer * l.inner, x.numel(), [&](int64_t lo, int64_t hi) {
      std::vector<Entry<T>> heap;
      heap.reserve(static_cast<size_t>(k));
      for (int64_t r = lo; r < hi; ++r) {
        int64_t o = r / l.inner, i = r % l.inner;
        best_of_line(xp + o * l.n * l.inner + i, l.inner, l.n, k, before, heap);
        for (int64_t j = 0; j < k; ++j) {
          vp[(o * k + j) * l.inner + i] = heap[j].first;
          ip[(o * k + j) * l.inner + i] = heap[j].second;
        }
      }
    });
  });
}

void flip(const TensorList& in, const Attrs& attrs, TensorList& out) {
  Tensor x = contiguous_raw(in[0]);
  if (x.dim() == 0 || x.numel() == 0) return copy_into(out[0], x);
  std::vector<bool> flipped(static_cast<size_t>(x.dim()), false);
  for (int64_t d : attrs.ints("dims")) flipped[wrap_dim(d, x.dim(), "flip")] = true;
  visit_bytes(dtype_size(x.dtype()), [&](auto tag) {
    using E = typename decltype(tag)::type;
    flip_lines<E>(x, flipped, out[0]);
  });
}

void roll(const TensorList& in, const Attrs& attrs, TensorList& out) {
  roll_into(in[0], attrs.ints("shifts"), attrs.ints("dims"), out[0]);
}

void tril(const TensorList& in, const Attrs& attrs, TensorList& out) { triangle(in, attrs, out, false); }
void triu(const TensorList& in, const Attrs& attrs, TensorList& out) { triangle(in, attrs, out, true); }

// out = value (0-dim, cast to out's dtype) where the mask (broadcast to x) is true, else x.
void masked_fill(const TensorList& in, const Attrs&, TensorList& out) {
  const Tensor& o = out[0];
  Tensor value = to_dtype_raw(in[2], o.dtype());
  visit_dtype(o.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T fill = *static_cast<const T*>(value.raw_data());
    StridedLoop<3> loop({&o, &in[0], &in[1]});
    parallel_for(0, loop.numel(), loop.numel(), [&](int64_t b, int64_t e) {
      loop.run_range(b, e, [&](char** p, int64_t n, const int64_t* s) {
        for (int64_t i = 0; i < n; ++i)
          at<T>(p[0], s[0], i) = at<const bool>(p[2], s[2], i) ? fill : at<const T>(p[1], s[1], i);
      });
    });
  });
}

void repeat(const TensorList& in, const Attrs& attrs, TensorList& out) {
  repeat_into(in[0], attrs.ints("sizes"), out[0]);
}

void one_hot(const TensorList& in, const Attrs& attrs, TensorList& out) {
  Tensor x = contiguous_raw(to_dtype_raw(in[0], DType::i64));
  int64_t classes = attrs.i("num_classes"), n = x.numel();
  const int64_t* xp = x.data<int64_t>();
  for (int64_t i = 0; i < n; ++i)
    if (xp[i] < 0 || xp[i] >= classes)
      throw Error("one_hot: class " + str(xp[i]) + " is out of range for num_classes " + str(classes) +
                  " (expected a value in [0, " + str(classes) + "))");
  int64_t* op = out[0].data<int64_t>();
  std::fill(op, op + out[0].numel(), int64_t{0});
  for (int64_t i = 0; i < n; ++i) op[i * classes + xp[i]] = 1;
}

// Row r's draws are uniform_at(seed, r * draws_per_row + j) of one seed per call, so
// the result does not depend on the thread count.
void multinomial(const TensorList& in, const Attrs& attrs, TensorList& out) {
  Tensor p = contiguous_raw(in[0]);
  int64_t categories = p.sizes()[p.dim() - 1], rows = p.numel() / categories;
  int64_t samples = attrs.i("num_samples");
  bool replacement = attrs.b("replacement");
  int64_t* op = out[0].data<int64_t>();
  visit_float(p.dtype(), "multinomial", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* pp = p.data<T>();
    check_distributions(pp, rows, categories, samples, replacement);
    uint64_t seed = random_bits();
    int64_t per_row = replacement ? samples : categories;
    parallel_for(0, rows, rows * categories, [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        uint64_t first = static_cast<uint64_t>(r * per_row);
        if (replacement)
          draw_with_replacement(pp + r * categories, categories, samples, seed, first, op + r * samples);
        else
          draw_without_replacement(pp + r * categories, categories, samples, seed, first, op + r * samples);
      }
    });
  });
}

}  // namespace nabla::cpu
