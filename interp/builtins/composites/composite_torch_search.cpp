// PyTorch's reductions that skip NaNs or return two extrema (aminmax, nanmedian,
// quantile and nanquantile with their interpolations), msort, and the searches of sorted values (isin, bucketize,
// searchsorted), made of table ops (Note [Composites] in composites.hpp). The values of
// nanmedian and nanquantile are read with gather from sort's result, so their gradient
// flows to the elements chosen, as PyTorch's; the searches' positions are found on the
// host (host_doubles / host_ints tell a graph capture, so compile() refuses them) and
// have no gradient, as in PyTorch. tests/stdlib/test_torch_surface.dsl checks them.
#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_set>
#include <vector>

#include "autograd/ops.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/composites/composites.hpp"

namespace nabla::interp {

namespace {

using composite_args::fn_arg;
using composite_args::host_doubles;
using composite_args::host_ints;
using composite_args::index_tensor;
using composite_args::shape_of;

Tensor nan_mask(const Tensor& x) { return ne(x, x); }
Tensor i64_number(double v) { return scalar_tensor(v, DType::i64); }

// torch.aminmax: (min, max) of every element or along dim, as a tuple whose items are
// also .min and .max. The gradient is amin's and amax's (ties share it).
Value aminmax_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("aminmax", a, {"input", "dim", "keepdim"}, 1);
  Tensor x = arg(b, 0, "aminmax", "input");
  if (x.numel() == 0) fail("aminmax(): the input has no elements; give dim to reduce over a non-empty dim");
  CallArgs reduce;
  reduce.pos = {Value::tensor(x)};
  if (b.has(1)) reduce.kw.emplace_back("dim", b[1]);
  if (b.has(2)) reduce.kw.emplace_back("keepdim", b[2]);
  CallArgs again = reduce;
  static const std::vector<std::string> names = {"min", "max"};
  Value t = make_tuple({op_functions().at("amin")(ev, reduce), op_functions().at("amax")(ev, again)});
  t.as<ListObj>()->field_names = &names;
  return t;
}

// torch.msort: sorted along dim 0.
Value msort_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("msort", a, {"input"}, 1);
  Tensor x = arg(b, 0, "msort", "input");
  return Value::tensor(x.dim() == 0 ? alias(x) : sort(x, 0, false, true).first);
}

// ---- NaN-skipping order statistics ---------------------------------------------------------

// x along dim sorted (NaNs last) with how many elements of each slice are not NaN.
struct SortedSlices {
  Tensor values, indices, count;  // count: i64, keepdim
};
SortedSlices sorted_slices(const Tensor& x, int64_t dim) {
  auto [values, indices] = sort(x, dim, false, true);
  Tensor nans = sum(to_dtype(nan_mask(detach(x)), DType::i64), {dim}, true);
  Tensor count = i64_number(static_cast<double>(x.sizes()[dim])) - nans;
  return {values, indices, count};
}

// torch.nanmedian: the lower median of the elements that are not NaN (element
// (k - 1) / 2 of k); NaN where a slice has none.
Value nanmedian_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("nanmedian", a, {"input", "dim", "keepdim"}, 1);
  Tensor x = arg(b, 0, "nanmedian", "input");
  const bool whole = !b.has(1);
  if (whole && x.numel() == 0) fail("nanmedian(): the input has no elements");
  Tensor y = whole ? reshape(x, {x.numel()}) : x;
  const int64_t dim = whole ? 0 : wrap_dim(as_int(b[1], fn_arg("nanmedian", "dim")), x.dim(), "nanmedian");
  if (y.dim() > 0 && y.sizes()[dim] == 0)
    fail("nanmedian(): dim " + std::to_string(dim) + " of shape " + x.shape_str() + " is empty");
  if (y.dim() == 0) y = reshape(y, {1});
  SortedSlices s = sorted_slices(y, dim);
  Tensor middle = floor_division(maximum(s.count - i64_number(1.0), i64_number(0.0)), i64_number(2.0));
  Tensor v = gather(s.values, dim, middle), i = gather(s.indices, dim, middle);
  if (whole) return Value::tensor(evenly_shared(y, reshape(v, IntList{})));
  const bool keep = b.has(2) && as_bool(b[2], fn_arg("nanmedian", "keepdim"));
  if (x.dim() == 0) return values_indices(Value::tensor(reshape(v, {})), Value::tensor(reshape(i, {})));
  return values_indices(Value::tensor(keep ? v : squeeze(v, {dim})), Value::tensor(keep ? i : squeeze(i, {dim})));
}

// The q's of quantile's argument: a number, a list, or a 0-D or 1-D tensor, each in [0, 1].
std::vector<double> quantile_qs(const Value& v, const std::string& fname, bool* many) {
  std::vector<double> qs;
  *many = !v.is_num() && !(v.tag == Tag::Tensor && v.t.dim() == 0);
  if (v.tag == Tag::List || v.tag == Tag::Tuple) qs = as_numbers(v, fn_arg(fname, "q"));
  else if (!v.is_num()) {
    required_input(v, fname, "q");  // none: "must be a tensor, got none"
    if (v.t.dim() > 1) fail(fname + "(): argument 'q' must be a number or 1-D, got shape " + v.t.shape_str());
    qs = host_doubles(v.t, fname + "(): q");
  } else qs.push_back(as_num(v, fn_arg(fname, "q")));
  for (double q : qs)
    if (!(q >= 0 && q <= 1)) fail(fname + "(): q must be in [0, 1], got " + float_repr(q));
  return qs;
}

// One quantile along dim of sorted values whose first `count` (per slice) are not NaN,
// at rank q (count - 1), interpolated as PyTorch's `interpolation` says. Unless NaNs
// are skipped, a slice holding one takes the last rank, where sort put it (NaN).
Tensor quantile_at(const SortedSlices& s, int64_t dim, double q, const std::string& how, bool skip_nan) {
  const DType dt = s.values.dtype();
  const int64_t n = s.values.sizes()[dim];
  Tensor rank;
  if (skip_nan) {
    rank = clamp(to_dtype(s.count - i64_number(1.0), dt) * q, 0.0, std::nullopt);  // all NaN: rank 0, a NaN
  } else {
    Tensor full_rank = to_dtype(s.count * 0.0, dt) + static_cast<double>(n - 1) * q;  // q (n - 1) in input's dtype
    rank = where(lt(s.count, i64_number(static_cast<double>(n))), number_like(static_cast<double>(n - 1), full_rank),
                 full_rank);
  }
  Tensor below = to_dtype(floor(rank), DType::i64), above = to_dtype(ceil(rank), DType::i64);
  if (how == "lower") return gather(s.values, dim, below);
  if (how == "higher") return gather(s.values, dim, above);
  if (how == "nearest") return gather(s.values, dim, to_dtype(round(rank), DType::i64));  // half to even
  Tensor lo = gather(s.values, dim, below), hi = gather(s.values, dim, above);
  if (how == "midpoint") return lo + (hi - lo) * 0.5;
  // lerp as PyTorch's: from the nearer end, so that weight 1 gives hi exactly.
  Tensor w = rank - floor(rank);
  return where(lt(w, number_like(0.5, w)), lo + w * (hi - lo), hi - (hi - lo) * (1.0 - w));
}

// torch.quantile and torch.nanquantile (which skips NaNs): along dim, or of every
// element; a list or 1-D tensor of q prepends a dim.
Value quantile_like(CallArgs& a, const std::string& fname, bool skip_nan) {
  Bound b = bind(fname, a, {"input", "q", "dim", "keepdim", "interpolation"}, 2);
  Tensor x = arg(b, 0, fname.c_str(), "input");
  if (!is_floating(x.dtype())) fail(fname + "(): input must be a float tensor, got " + dtype_name(x.dtype()));
  bool many = false;
  const std::vector<double> qs = quantile_qs(b[1], fname, &many);
  const std::string how = b.has(4) ? b[4].tag == Tag::Str ? b[4].as<StrObj>()->s : "" : "linear";
  if (how != "linear" && how != "lower" && how != "higher" && how != "nearest" && how != "midpoint")
    fail(fname + "(): argument 'interpolation' must be one of \"linear\", \"lower\", \"higher\", \"midpoint\", "
         "\"nearest\"");
  const bool whole = !b.has(2);
  Tensor y = whole ? reshape(x, {x.numel()}) : x;
  if (y.dim() == 0) y = reshape(y, {1});
  const int64_t dim = whole ? 0 : wrap_dim(as_int(b[2], fn_arg(fname, "dim")), y.dim(), fname.c_str());
  if (y.sizes()[dim] == 0) fail(fname + "(): the input has no elements along the dim");
  const bool keep = b.has(3) && as_bool(b[3], fn_arg(fname, "keepdim"));
  SortedSlices s = sorted_slices(y, dim);
  TensorList out;
  for (double q : qs) {
    Tensor v = quantile_at(s, dim, q, how, skip_nan);
    if (whole) v = keep ? reshape(v, IntList(static_cast<size_t>(x.dim()), 1)) : reshape(v, IntList{});
    else if (!keep) v = x.dim() == 0 ? reshape(v, IntList{}) : squeeze(v, {dim});
    out.push_back(v);
  }
  return Value::tensor(many ? stack(out, 0) : out[0]);
}
Value quantile_builtin(Evaluator&, CallArgs& a) { return quantile_like(a, "quantile", false); }
Value nanquantile_builtin(Evaluator&, CallArgs& a) { return quantile_like(a, "nanquantile", true); }

// ---- searches --------------------------------------------------------------------------

// A tensor argument or a number as a 0-dim tensor (isin(2, t), bucketize(3, b)).
Tensor tensor_or_number(const Value& v, const std::string& fname, const char* name) {
  if (v.is_num()) return to_tensor_arg(v, fn_arg(fname, name).c_str());
  return required_input(v, fname, name);
}

// The values of t for comparing on the host: exact i64 unless a float is involved.
struct HostValues {
  std::vector<double> d;
  std::vector<int64_t> i;
  bool floating = false;
};
HostValues host_values(const Tensor& t, bool floating, const std::string& what) {
  HostValues h;
  h.floating = floating;
  if (floating) h.d = host_doubles(t, what);
  else h.i = host_ints(t, what);
  return h;
}

// torch.isin: whether each element of elements is among test_elements.
Value isin_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("isin", a, {"elements", "test_elements", "assume_unique", "invert"}, 2);
  Tensor x = tensor_or_number(b[0], "isin", "elements"), t = tensor_or_number(b[1], "isin", "test_elements");
  const bool invert = b.has(3) && as_bool(b[3], fn_arg("isin", "invert"));
  const bool floating = is_floating(x.dtype()) || is_floating(t.dtype());
  HostValues xs = host_values(x, floating, "isin(): elements"), ts = host_values(t, floating, "isin(): test_elements");
  std::vector<int64_t> found(static_cast<size_t>(x.numel()));
  if (floating) {
    // NaN is never found (NaN != NaN): left out before sorting, as std::sort needs an
    // order NaN breaks (binary_search then reported NaN found, and sort may misbehave).
    std::vector<double> sorted;
    for (double v : ts.d)
      if (!std::isnan(v)) sorted.push_back(v);
    std::sort(sorted.begin(), sorted.end());
    for (size_t k = 0; k < found.size(); ++k)
      found[k] = (!std::isnan(xs.d[k]) && std::binary_search(sorted.begin(), sorted.end(), xs.d[k])) != invert;
  } else {
    std::unordered_set<int64_t> set(ts.i.begin(), ts.i.end());
    for (size_t k = 0; k < found.size(); ++k) found[k] = (set.count(xs.i[k]) != 0) != invert;
  }
  return Value::tensor(to_dtype(index_tensor(found, shape_of(x), x.device()), DType::b8));
}

// How many of row's values lie before v: lower_bound (right=false) or upper_bound.
template <class T>
int64_t position_in(const std::vector<T>& row, const std::vector<int64_t>* order, size_t start, size_t n, T v,
                    bool right) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    const T m = row[start + (order ? static_cast<size_t>((*order)[start + mid]) : mid)];
    // PyTorch's test, NaN included: a value goes after m unless m >= v (m > v for
    // right), so a NaN value goes last and every value goes after a NaN in the row.
    const bool before = right ? !(m > v) : !(m >= v);
    if (before) lo = mid + 1;
    else hi = mid;
  }
  return static_cast<int64_t>(lo);
}

// searchsorted's work: for each value, its position in the matching row of seq (the
// same leading index, or the one row of a 1-D seq).
Tensor search_rows(const std::string& fname, const Tensor& seq, const Tensor& values, bool right, bool out_int32,
                   const Tensor* sorter) {
  const int64_t n = seq.dim() == 0 ? 1 : seq.sizes().back();
  const bool one_row = seq.dim() <= 1;
  if (!one_row) {
    if (values.dim() != seq.dim() || !std::equal(seq.sizes().begin(), seq.sizes().end() - 1, values.sizes().begin()))
      fail(fname + "(): the leading dims of sorted_sequence " + seq.shape_str() + " and of input " +
           values.shape_str() + " must match");
  }
  const int64_t per_row = one_row ? values.numel() : (values.dim() == 0 ? 1 : values.sizes().back());
  const bool floating = is_floating(seq.dtype()) || is_floating(values.dtype());
  HostValues s = host_values(seq, floating, fname + "(): sorted_sequence");
  HostValues v = host_values(values, floating, fname + "(): input");
  std::vector<int64_t> order;
  if (sorter) order = host_ints(*sorter, fname + "(): sorter");
  // The binary search reads row[order[k]]: an index outside the row read past the
  // sequence's memory (a segfault for 2**40), as PyTorch 2's check refuses it.
  for (int64_t o : order)
    if (o < 0 || o >= n)
      fail(fname + "(): argument 'sorter' holds the index " + std::to_string(o) + ", out of range for rows of " +
           std::to_string(n) + " elements");
  std::vector<int64_t> out(static_cast<size_t>(values.numel()));
  for (size_t k = 0; k < out.size(); ++k) {
    const size_t start = one_row ? 0 : static_cast<size_t>(static_cast<int64_t>(k) / std::max<int64_t>(per_row, 1) * n);
    const std::vector<int64_t>* ord = sorter ? &order : nullptr;
    out[k] = floating ? position_in(s.d, ord, start, static_cast<size_t>(n), v.d[k], right)
                      : position_in(s.i, ord, start, static_cast<size_t>(n), v.i[k], right);
  }
  Tensor r = index_tensor(out, shape_of(values), values.device());
  return out_int32 ? to_dtype(r, DType::i32) : r;
}

// right=true, or side="right" (the two must agree when both are given).
bool right_side(const Bound& b, size_t right_k, size_t side_k, const std::string& fname) {
  const bool right = b.has(right_k) && as_bool(b[right_k], fn_arg(fname, "right"));
  if (!b.has(side_k)) return right;
  const std::string side = b[side_k].tag == Tag::Str ? b[side_k].as<StrObj>()->s : "";
  if (side != "left" && side != "right") fail(fname + "(): argument 'side' must be \"left\" or \"right\"");
  if (right && side == "left") fail(fname + "(): side=\"left\" and right=true disagree");
  return side == "right";
}

Value searchsorted_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("searchsorted", a, {"sorted_sequence", "input", "out_int32", "right", "side", "sorter"}, 2);
  Tensor seq = arg(b, 0, "searchsorted", "sorted_sequence");
  Tensor values = tensor_or_number(b[1], "searchsorted", "input");
  const bool out_int32 = b.has(2) && as_bool(b[2], fn_arg("searchsorted", "out_int32"));
  Tensor sorter;
  if (b.has(5)) {
    sorter = arg(b, 5, "searchsorted", "sorter");
    if (sorter.sizes() != seq.sizes())
      fail("searchsorted(): argument 'sorter' " + sorter.shape_str() + " must have sorted_sequence's shape " +
           seq.shape_str());
  }
  return Value::tensor(search_rows("searchsorted", seq, values, right_side(b, 3, 4, "searchsorted"), out_int32,
                                   b.has(5) ? &sorter : nullptr));
}

Value bucketize_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("bucketize", a, {"input", "boundaries", "out_int32", "right"}, 2);
  Tensor values = tensor_or_number(b[0], "bucketize", "input");
  Tensor bounds = arg(b, 1, "bucketize", "boundaries");
  if (bounds.dim() != 1) fail("bucketize(): argument 'boundaries' must be 1-D, got shape " + bounds.shape_str());
  const bool out_int32 = b.has(2) && as_bool(b[2], fn_arg("bucketize", "out_int32"));
  const bool right = b.has(3) && as_bool(b[3], fn_arg("bucketize", "right"));
  return Value::tensor(search_rows("bucketize", bounds, values, right, out_int32, nullptr));
}

const BuiltinEntry kCompositeTorchSearch[] = {
    {"aminmax", aminmax_builtin, "aminmax(input, dim=none, keepdim=false)",
     "(min, max) of every element or along dim, a tuple whose items are also .min and .max, as torch.aminmax. "
     "Example: aminmax(tensor([[1.0, 5.0], [3.0, 2.0]]), dim=0)"},
    {"msort", msort_builtin, "msort(input)",
     "input sorted along dim 0, as torch.msort. Example: msort(tensor([[3.0, 1.0], [2.0, 4.0]]))"},
    {"nanmedian", nanmedian_builtin, "nanmedian(input, dim=none, keepdim=false)",
     "The lower median of the elements that are not NaN (NaN when none is), along dim (values, indices), as "
     "torch.nanmedian. Example: nanmedian(tensor([1.0, float(\"nan\"), 3.0, 2.0]))"},
    {"quantile", quantile_builtin, "quantile(input, q, dim=none, keepdim=false, interpolation=\"linear\")",
     "The q-quantile(s) along dim (of every element when dim is none; NaN where a slice holds one), as "
     "torch.quantile; interpolation \"linear\" (between the two sorted values around q (n - 1)), \"lower\", "
     "\"higher\", \"midpoint\" or \"nearest\"; a list of q prepends a dim. Example: quantile(tensor([1.0, 2.0, 3.0, 4.0]), 0.4)"},
    {"nanquantile", nanquantile_builtin, "nanquantile(input, q, dim=none, keepdim=false, interpolation=\"linear\")",
     "The q-quantile(s) of the elements that are not NaN, as torch.nanquantile; interpolation \"linear\", \"lower\", "
     "\"higher\", \"midpoint\" or \"nearest\". Example: nanquantile(tensor([1.0, float(\"nan\"), 3.0]), 0.5)"},
    {"isin", isin_builtin, "isin(elements, test_elements, assume_unique=false, invert=false)",
     "Whether each element is among test_elements (bool, elements' shape), as torch.isin. "
     "Example: isin(tensor([1, 2, 3]), tensor([2, 4]))"},
    {"bucketize", bucketize_builtin, "bucketize(input, boundaries, out_int32=false, right=false)",
     "The bucket of each element among sorted 1-D boundaries (how many boundaries lie below it; right=true: at or "
     "below), as torch.bucketize. Example: bucketize(tensor([0, 3, 6]), tensor([1, 3, 5]))"},
    {"searchsorted", searchsorted_builtin,
     "searchsorted(sorted_sequence, input, out_int32=false, right=false, side=none, sorter=none)",
     "Where each value would be inserted to keep the last dim of sorted_sequence sorted (the first such place; "
     "right=true or side=\"right\": the last), as torch.searchsorted. "
     "Example: searchsorted(tensor([1.0, 3.0, 5.0]), tensor([3.0, 6.0]))"},
};

}  // namespace

std::span<const BuiltinEntry> composite_torch_search() { return kCompositeTorchSearch; }

}  // namespace nabla::interp
