// Composite functions of PyTorch's tensor API that order and count, made of table ops
// (Note [Composites] in composites.hpp): unique, unique_consecutive, bincount, histc,
// kthvalue, mode, cummax and cummin. Each is a global function and a tensor method
// (op_conventions()). The order or the counts are found on the CPU (host_doubles,
// host_ints: a graph capture is told, so compile() refuses them), and the values are
// then read with gather or index_select, so the gradient flows to the elements chosen,
// as PyTorch's; counts, unique values and indices have none, as PyTorch's.
// tests/stdlib/test_tensor_extra.dsl checks them against PyTorch in f64.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "autograd/ops.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/composites/composites.hpp"

namespace nabla::interp {

namespace {

using composite_args::ask_host_memory;
using composite_args::dim_arg;
using composite_args::fn_arg;
using composite_args::host_doubles;
using composite_args::host_ints;
using composite_args::index_tensor;
using composite_args::shape_of;

// ---- -------------------------------------------------------------

// x's slices along dim as rows: [outer, n, inner] with (o, j, i) at (o * n + j) *
// inner + i; of doubles, or of int64 for an integer x (through doubles, values past
// 2^53 compared equal: cummax of [2^62 + 1, 2^62] took the second as the maximum).
template <class T>
struct Lanes {
  std::vector<T> v;
  int64_t outer = 1, n = 1, inner = 1;
  T at(int64_t o, int64_t j, int64_t i) const { return v[static_cast<size_t>((o * n + j) * inner + i)]; }
};
template <class T>
Lanes<T> lanes_of(std::vector<T> v, const Tensor& x, int64_t dim) {
  Lanes<T> l;
  l.v = std::move(v);
  if (x.dim() == 0) return l;
  for (int64_t d = 0; d < dim; ++d) l.outer *= x.sizes()[d];
  l.n = x.sizes()[dim];
  for (int64_t d = dim + 1; d < x.dim(); ++d) l.inner *= x.sizes()[d];
  return l;
}
// f(lanes) with x's lanes of its kind.
template <class F>
auto with_lanes(const Tensor& x, int64_t dim, const std::string& what, F f) {
  if (is_floating(x.dtype())) return f(lanes_of(host_doubles(x, what), x, dim));
  return f(lanes_of(host_ints(x, what), x, dim));
}

// cummax / cummin: the running extremum along dim and where it was reached (the last
// of equal values; a NaN holds from where it appears), the values read with gather so
// that the gradient goes there.
Value cumulative_extremum(CallArgs& a, const char* fname, bool is_max) {
  Bound b = bind(fname, a, {"input", "dim"}, 2);
  Tensor x = arg(b, 0, fname, "input");
  const int64_t dim = dim_arg(b, 1, x.dim(), fname, 0);
  if (x.numel() == 0)  // no lanes to walk (a [2^62, 0] input along dim 1 walked 2^62 empty ones)
    return values_indices(Value::tensor(alias(x)), Value::tensor(empty(x.sizes(), DType::i64, x.device())));
  std::vector<int64_t> idx = with_lanes(x, dim, std::string(fname) + "(): input", [is_max](const auto& l) {
    std::vector<int64_t> idx(l.v.size());
    for (int64_t o = 0; o < l.outer; ++o)
      for (int64_t i = 0; i < l.inner; ++i) {
        int64_t best = 0;
        for (int64_t j = 0; j < l.n; ++j) {
          const auto v = l.at(o, j, i), cur = l.at(o, best, i);
          const bool take = j == 0 || std::isnan(v) || (!std::isnan(cur) && (is_max ? v >= cur : v <= cur));
          if (take) best = j;
          idx[static_cast<size_t>((o * l.n + j) * l.inner + i)] = best;
        }
      }
    return idx;
  });
  Tensor indices = index_tensor(idx, shape_of(x), x.device());
  Tensor values = x.dim() == 0 ? alias(x) : gather(x, dim, indices);
  return values_indices(Value::tensor(values), Value::tensor(indices));
}
Value cummax_builtin(Evaluator&, CallArgs& a) { return cumulative_extremum(a, "cummax", true); }
Value cummin_builtin(Evaluator&, CallArgs& a) { return cumulative_extremum(a, "cummin", false); }

// torch.kthvalue: the k-th smallest along dim (1-based) and its index.
Value kthvalue_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("kthvalue", a, {"input", "k", "dim", "keepdim"}, 2);
  Tensor x = arg(b, 0, "kthvalue", "input");
  const int64_t k = as_int(b[1], fn_arg("kthvalue", "k"));
  const int64_t dim = dim_arg(b, 2, x.dim(), "kthvalue", -1);
  const bool keep = b.has(3) && as_bool(b[3], fn_arg("kthvalue", "keepdim"));
  const int64_t n = x.dim() == 0 ? 1 : x.sizes()[dim];
  if (k < 1 || k > n)
    fail("kthvalue(): argument 'k' must be in [1, " + std::to_string(n) + "] (the size of dim " + std::to_string(dim) +
         "), got " + std::to_string(k));
  if (x.dim() == 0) return values_indices(Value::tensor(alias(x)), Value::tensor(scalar_tensor(0.0, DType::i64)));
  Tensor order = argsort(detach(x), dim, false, true);
  Tensor idx = slice(order, dim, k - 1, k);
  Tensor values = gather(x, dim, idx);
  return values_indices(Value::tensor(keep ? values : squeeze(values, {dim})), Value::tensor(keep ? idx : squeeze(idx, {dim})));
}

// torch.mode: the most frequent value along dim (the smallest of equally frequent ones)
// and the index of its last occurrence.
Value mode_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("mode", a, {"input", "dim", "keepdim"}, 1);
  Tensor x = arg(b, 0, "mode", "input");
  const int64_t dim = dim_arg(b, 1, x.dim(), "mode", -1);
  const bool keep = b.has(2) && as_bool(b[2], fn_arg("mode", "keepdim"));
  if (x.numel() == 0) fail("mode(): argument 'input' has no elements");
  if (x.dim() == 0) return values_indices(Value::tensor(alias(x)), Value::tensor(scalar_tensor(0.0, DType::i64)));
  std::vector<int64_t> idx = with_lanes(x, dim, "mode(): input", [](const auto& l) {
    using T = typename std::decay_t<decltype(l.v)>::value_type;
    std::vector<int64_t> idx(static_cast<size_t>(l.outer * l.inner));
    for (int64_t o = 0; o < l.outer; ++o)
      for (int64_t i = 0; i < l.inner; ++i) {
        // value -> (count, last index); NaN one value, after every number (a NaN key
        // broke the map's order).
        auto nan_last = [](T p, T q) { return !std::isnan(p) && (std::isnan(q) || p < q); };
        std::map<T, std::pair<int64_t, int64_t>, decltype(nan_last)> seen(nan_last);
        for (int64_t j = 0; j < l.n; ++j) {
          auto& e = seen[l.at(o, j, i)];
          ++e.first;
          e.second = j;
        }
        int64_t best_count = -1, best = 0;
        for (const auto& [value, e] : seen)
          if (e.first > best_count) best_count = e.first, best = e.second;
        idx[static_cast<size_t>(o * l.inner + i)] = best;
      }
    return idx;
  });
  IntList kept = shape_of(x);
  kept[static_cast<size_t>(dim)] = 1;
  Tensor indices = index_tensor(idx, kept, x.device());
  Tensor values = gather(x, dim, indices);
  return values_indices(Value::tensor(keep ? values : squeeze(values, {dim})),
                        Value::tensor(keep ? indices : squeeze(indices, {dim})));
}

// x with dim moved to the front (unique's rows).
Tensor movedim_of(const Tensor& x, int64_t dim) {
  IntList perm{dim};
  for (int64_t d = 0; d < x.dim(); ++d)
    if (d != dim) perm.push_back(d);
  return permute(x, perm);
}

// The distinct rows of v ([n, w], row-major) in order (or runs of equal neighbours,
// consecutive): each group's first row, its size, and each row's group.
struct UniqueGroups {
  std::vector<int64_t> firsts, count_of, inv;
};
template <class T>
UniqueGroups unique_groups(const std::vector<T>& v, int64_t n, int64_t w, bool consecutive) {
  // NaN sorts after every number and is never the same as another value, NaN
  // included (PyTorch's: each NaN is its own unique value). `u != z` on a NaN made the
  // comparison no strict weak order (undefined for stable_sort), dropped the NaN and
  // counted it with a number.
  auto less = [&](int64_t p, int64_t q) {
    for (int64_t c = 0; c < w; ++c) {
      const T u = v[static_cast<size_t>(p * w + c)], z = v[static_cast<size_t>(q * w + c)];
      if (std::isnan(u) || std::isnan(z)) {
        if (std::isnan(u) != std::isnan(z)) return std::isnan(z);
        continue;
      }
      if (u != z) return u < z;
    }
    return false;
  };
  auto same = [&](int64_t p, int64_t q) {
    for (int64_t c = 0; c < w; ++c)
      if (!(v[static_cast<size_t>(p * w + c)] == v[static_cast<size_t>(q * w + c)])) return false;
    return true;
  };
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  if (!consecutive) std::stable_sort(order.begin(), order.end(), less);
  UniqueGroups g;
  std::vector<int64_t>&firsts = g.firsts, &count_of = g.count_of, &inv = g.inv;
  inv.resize(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    const int64_t p = order[static_cast<size_t>(k)];
    if (firsts.empty() || !same(firsts.back(), p)) {
      firsts.push_back(p);
      count_of.push_back(0);
    }
    ++count_of.back();
    inv[static_cast<size_t>(p)] = static_cast<int64_t>(firsts.size()) - 1;
  }
  return g;
}

// The distinct values (or slices along dim) of x, sorted, with inverse and counts;
// consecutive: only runs of equal neighbours merge (unique_consecutive).
Value unique_common(CallArgs& a, const char* fname, bool consecutive) {
  Bound b = consecutive ? bind(fname, a, {"input", "return_inverse", "return_counts", "dim"}, 1)
                        : bind(fname, a, {"input", "sorted", "return_inverse", "return_counts", "dim"}, 1);
  const size_t o = consecutive ? 0 : 1;
  Tensor x = detach(arg(b, 0, fname, "input"));
  if (!consecutive && b.has(1)) (void)as_bool(b[1], fn_arg(fname, "sorted"));
  const bool inverse = b.has(1 + o) && as_bool(b[1 + o], fn_arg(fname, "return_inverse"));
  const bool counts = b.has(2 + o) && as_bool(b[2 + o], fn_arg(fname, "return_counts"));
  const bool by_dim = b.has(3 + o);
  Tensor rows;  // [n, rest]: the items compared
  int64_t dim = 0;
  if (by_dim) {
    if (x.dim() == 0) fail(std::string(fname) + "(): argument 'dim' needs an input of at least 1 dim, got a 0-dim tensor");
    dim = dim_arg(b, 3 + o, x.dim(), fname, 0);
    rows = reshape(movedim_of(x, dim), {x.sizes()[dim], -1});
  } else {
    rows = reshape(x, {x.numel(), 1});
  }
  const int64_t n = rows.sizes()[0], w = rows.sizes()[1];
  // Integers compared as integers: through doubles, values past 2^53 merged (unique of
  // [2^62, 2^62 + 1] was one value).
  const std::string what = std::string(fname) + "(): input";
  UniqueGroups g = is_floating(rows.dtype()) ? unique_groups(host_doubles(rows, what), n, w, consecutive)
                                             : unique_groups(host_ints(rows, what), n, w, consecutive);
  const std::vector<int64_t>&firsts = g.firsts, &count_of = g.count_of, &inv = g.inv;
  const int64_t u = static_cast<int64_t>(firsts.size());
  Tensor picked = index_tensor(firsts, {u}, x.device());
  Tensor values;
  if (by_dim) {
    values = index_select(x, dim, picked);
  } else {
    values = index_select(reshape(x, {x.numel()}), 0, picked);
  }
  std::vector<Value> out{Value::tensor(values)};
  if (inverse) out.push_back(Value::tensor(index_tensor(inv, by_dim ? IntList{n} : shape_of(x), x.device())));
  if (counts) out.push_back(Value::tensor(index_tensor(count_of, {u}, x.device())));
  return out.size() == 1 ? out[0] : make_tuple(std::move(out));
}

Value unique_builtin(Evaluator&, CallArgs& a) { return unique_common(a, "unique", false); }
Value unique_consecutive_builtin(Evaluator&, CallArgs& a) { return unique_common(a, "unique_consecutive", true); }

// torch.bincount: how often each value of a 1-D non-negative integer tensor occurs (or
// the sum of its weights), at least minlength long. Not differentiable, as PyTorch's.
Value bincount_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("bincount", a, {"input", "weights", "minlength"}, 1);
  Tensor x = arg(b, 0, "bincount", "input");
  if (!is_integral(x.dtype()) || x.dtype() == DType::b8)
    fail("bincount(): argument 'input' must be an integer tensor, got " + std::string(dtype_name(x.dtype())));
  if (x.dim() != 1) fail("bincount(): argument 'input' must be 1-D, got shape " + x.shape_str());
  const int64_t minlength = b.has(2) ? as_int(b[2], fn_arg("bincount", "minlength")) : 0;
  if (minlength < 0) fail("bincount(): argument 'minlength' must be non-negative, got " + std::to_string(minlength));
  std::vector<int64_t> v = host_ints(x, "bincount(): input");
  int64_t len = minlength;
  for (int64_t i : v) {
    if (i < 0) fail("bincount(): argument 'input' must be non-negative, got " + std::to_string(i));
    len = std::max(len, i == INT64_MAX ? i : i + 1);  // INT64_MAX + 1 wrapped to a negative size
  }
  // The result has max(input) + 1 bins: ask before making them (a value of 10^12 is 8 TB).
  ask_host_memory(len, 2 * sizeof(double), "bincount(): " + std::to_string(len) +
                                               " bins (the larger of max(input) + 1 and minlength=" +
                                               std::to_string(minlength) + ")");
  std::vector<double> out(static_cast<size_t>(len), 0.0);
  DType dt = DType::i64;
  if (b.has(1)) {
    Tensor w = arg(b, 1, "bincount", "weights");
    if (w.dim() != 1 || w.numel() != x.numel())
      fail("bincount(): argument 'weights' must be 1-D with the input's " + std::to_string(x.numel()) +
           " elements, got shape " + w.shape_str());
    dt = is_floating(w.dtype()) ? w.dtype() : DType::f64;
    std::vector<double> wv = host_doubles(w, "bincount(): weights");
    for (size_t k = 0; k < v.size(); ++k) out[static_cast<size_t>(v[k])] += wv[k];
  } else {
    for (int64_t i : v) out[static_cast<size_t>(i)] += 1.0;
  }
  return Value::tensor(to_device(tensor_from(out, Shape{len}, dt), x.device()));
}

// Orders that put a NaN first (for min_element) or last (for max_element), so that a
// NaN in the data becomes the range and is refused, as PyTorch's range check does.
bool nan_first(double a, double b) { return std::isnan(a) ? !std::isnan(b) : (!std::isnan(b) && a < b); }
bool nan_last(double a, double b) { return std::isnan(b) ? !std::isnan(a) : (!std::isnan(a) && a < b); }

// torch.histc: a histogram of bins equal bins over [min, max] (the data's range when
// both are 0), elements outside ignored, max in the last bin; input's dtype.
Value histc_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("histc", a, {"input", "bins", "min", "max"}, 1);
  Tensor x = arg(b, 0, "histc", "input");
  if (!is_floating(x.dtype())) fail("histc(): argument 'input' must be a floating tensor, got " + std::string(dtype_name(x.dtype())));
  const int64_t bins = b.has(1) ? as_int(b[1], fn_arg("histc", "bins")) : 100;
  if (bins <= 0) fail("histc(): argument 'bins' must be positive, got " + std::to_string(bins));
  double lo = b.has(2) ? as_num(b[2], fn_arg("histc", "min")) : 0.0, hi = b.has(3) ? as_num(b[3], fn_arg("histc", "max")) : 0.0;
  if (lo > hi) fail("histc(): argument 'max' (" + float_repr(hi) + ") must be at least argument 'min' (" + float_repr(lo) + ")");
  ask_host_memory(bins, 2 * sizeof(double), "histc(): bins=" + std::to_string(bins));
  std::vector<double> v = host_doubles(x, "histc(): input");
  if (lo == hi && !v.empty()) {
    lo = *std::min_element(v.begin(), v.end(), nan_first);
    hi = *std::max_element(v.begin(), v.end(), nan_last);
  }
  if (lo == hi) lo -= 1, hi += 1;
  // As PyTorch's: a range with an infinity or a NaN (given, or the data's) has no bins.
  if (!std::isfinite(lo) || !std::isfinite(hi))
    fail("histc(): the range [" + float_repr(lo) + ", " + float_repr(hi) + "] is not finite" +
         (b.has(2) || b.has(3) ? "" : " (it is the input's min and max: give min= and max=)"));
  std::vector<double> out(static_cast<size_t>(bins), 0.0);
  for (double e : v) {
    if (!(e >= lo && e <= hi)) continue;
    // (e - lo) / (hi - lo) in [0, 1] even when hi - lo overflows to inf; the bin is
    // clamped so that no rounding reaches past the last one.
    double at = (e - lo) * static_cast<double>(bins) / (hi - lo);  // PyTorch's arithmetic
    if (!std::isfinite(at)) at = (e / 2 - lo / 2) / (hi / 2 - lo / 2) * static_cast<double>(bins);
    auto k = static_cast<int64_t>(std::clamp(at, 0.0, static_cast<double>(bins - 1)));
    out[static_cast<size_t>(k)] += 1.0;
  }
  return Value::tensor(to_device(tensor_from(out, Shape{bins}, x.dtype()), x.device()));
}

}  // namespace

const BuiltinEntry kCompositeExtraOrdering[] = {
    {"cummax", cummax_builtin, "cummax(input, dim)",
     "(values, indices): the running maximum along dim and where it was reached, as torch.cummax. "
     "Example: cummax(tensor([1.0, 3.0, 2.0]), 0)"},
    {"cummin", cummin_builtin, "cummin(input, dim)",
     "(values, indices): the running minimum along dim and where it was reached, as torch.cummin. "
     "Example: cummin(tensor([3.0, 1.0, 2.0]), 0)"},
    {"kthvalue", kthvalue_builtin, "kthvalue(input, k, dim=-1, keepdim=false)",
     "(values, indices): the k-th smallest element along dim (k from 1), as torch.kthvalue. "
     "Example: kthvalue(tensor([3.0, 1.0, 2.0]), 2)"},
    {"mode", mode_builtin, "mode(input, dim=-1, keepdim=false)",
     "(values, indices): the most frequent value along dim (the smallest of ties) and its last index, as torch.mode. "
     "Example: mode(tensor([1, 2, 2, 3]))"},
    {"unique", unique_builtin, "unique(input, sorted=true, return_inverse=false, return_counts=false, dim=none)",
     "The distinct elements (or slices along dim), sorted, with the inverse indices and counts when asked, as "
     "torch.unique. Example: unique(tensor([3, 1, 3, 2]), return_counts=true)"},
    {"unique_consecutive", unique_consecutive_builtin,
     "unique_consecutive(input, return_inverse=false, return_counts=false, dim=none)",
     "input with runs of equal consecutive elements (or slices along dim) merged, as torch.unique_consecutive. "
     "Example: unique_consecutive(tensor([1, 1, 2, 1]))"},
    {"bincount", bincount_builtin, "bincount(input, weights=none, minlength=0)",
     "How often each value of a 1-D non-negative integer tensor occurs (or the sum of its weights), as torch.bincount. "
     "Example: bincount(tensor([0, 2, 2]))"},
    {"histc", histc_builtin, "histc(input, bins=100, min=0, max=0)",
     "A histogram of bins equal bins over [min, max] (the data's range when both are 0), as torch.histc. "
     "Example: histc(tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3)"},
};

std::span<const BuiltinEntry> composite_extra_ordering() { return kCompositeExtraOrdering; }

}  // namespace nabla::interp
