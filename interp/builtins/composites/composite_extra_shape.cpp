// Composite functions of PyTorch's tensor API for shapes, indexing and scatters, made
// of table ops (Note [Composites] in composites.hpp): tile, broadcast_to, moveaxis,
// swapdims, fliplr, flipud, rot90, tensor_split, take, diag_embed, index_add,
// index_copy, index_fill, scatter, scatter_reduce, split_with_sizes (the ordering and
// counting ones are composite_extra_ordering.cpp's). Each is a global function and a
// tensor method (op_conventions()), with an in-place x.op_() (index_add_, scatter_,
// ...). Where the result depends on the values of an index (scatter's targets), the
// positions are found on the CPU and the values are then read with index_select or
// gather, so the gradient flows to the elements chosen, as PyTorch's; indices have
// none, as PyTorch's.
// tests/stdlib/test_tensor_extra.dsl checks them against PyTorch in f64.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "autograd/ops.hpp"
#include "autograd/trace.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/composites/composites.hpp"
#include "interp/values/advanced_indexing.hpp"

namespace nabla::interp {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

using composite_args::ask_host_memory;
using composite_args::dim_arg;
using composite_args::dim_in;
using composite_args::fn_arg;
using composite_args::host_doubles;
using composite_args::host_ints;
using composite_args::index_tensor;
using composite_args::ints_str;
using composite_args::same_dtype;
using composite_args::shape_of;

// An int or a list of ints.
IntList ints_arg(const Value& v, const std::string& what) { return v.tag == Tag::Int ? IntList{v.i} : as_ints(v, what); }

Tensor integer_index(const Value& v, const std::string& fname, const char* name) {
  Tensor t = required_input(v, fname, name);
  if (!is_index_type(t.dtype()))
    fail(fn_arg(fname, name) + " must be an integer (i64 or i32) tensor, got " + dtype_name(t.dtype()));
  return t;
}

// Row-major strides of a shape.
IntList strides_of(const IntList& shape) {
  IntList s(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    s[static_cast<size_t>(d)] = s[static_cast<size_t>(d) + 1] * shape[static_cast<size_t>(d) + 1];
  return s;
}

// ---- shapes ----------------------------------------------------------------------------

// torch.tile: repeat with dims padded by leading 1s to the input's rank.
Value tile_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("tile", a, {"input", "dims"}, 2);
  Tensor x = arg(b, 0, "tile", "input");
  IntList dims = ints_arg(b[1], fn_arg("tile", "dims"));
  for (int64_t d : dims)
    if (d < 0) fail("tile(): argument 'dims' must be non-negative, got " + ints_str(dims));
  while (static_cast<int64_t>(dims.size()) < x.dim()) dims.insert(dims.begin(), 1);
  return Value::tensor(repeat(x, dims));
}

// torch.broadcast_to: expand under numpy's rule (-1 keeps a dim).
Value broadcast_to_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("broadcast_to", a, {"input", "size"}, 2);
  Tensor x = arg(b, 0, "broadcast_to", "input");
  IntList size = ints_arg(b[1], fn_arg("broadcast_to", "size"));
  const int64_t n = static_cast<int64_t>(size.size());
  bool ok = n >= x.dim();
  for (int64_t k = 0; ok && k < n; ++k) {
    const int64_t want = size[static_cast<size_t>(k)];
    const int64_t have = k < n - x.dim() ? -2 : x.sizes()[k - (n - x.dim())];
    if (want == -1) ok = have != -2;
    else if (want < 0) ok = false;
    else if (have != -2 && have != 1 && have != want) ok = false;
  }
  if (!ok) fail("broadcast_to(): input of shape " + x.shape_str() + " cannot be broadcast to argument 'size' " + ints_str(size));
  return Value::tensor(expand(x, size));
}

// Dims source moved to destination (ints or lists), the others in their order: moveaxis
// is numpy's name of movedim.
Value moveaxis_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("moveaxis", a, {"input", "source", "destination"}, 3);
  Tensor x = arg(b, 0, "moveaxis", "input");
  IntList src = ints_arg(b[1], fn_arg("moveaxis", "source")), dst = ints_arg(b[2], fn_arg("moveaxis", "destination"));
  if (src.size() != dst.size())
    fail("moveaxis(): argument 'source' " + ints_str(src) + " and argument 'destination' " + ints_str(dst) +
         " must have the same number of dims");
  for (int64_t& d : src) d = dim_in(d, x.dim(), "moveaxis", "source");
  for (int64_t& d : dst) d = dim_in(d, x.dim(), "moveaxis", "destination");
  for (size_t i = 0; i < src.size(); ++i)
    for (size_t j = i + 1; j < src.size(); ++j) {
      if (src[i] == src[j]) fail("moveaxis(): argument 'source' repeats dim " + std::to_string(src[i]));
      if (dst[i] == dst[j]) fail("moveaxis(): argument 'destination' repeats dim " + std::to_string(dst[i]));
    }
  const int64_t n = x.dim();
  IntList perm(static_cast<size_t>(n), -1);
  std::vector<bool> used(static_cast<size_t>(n), false);
  for (size_t i = 0; i < src.size(); ++i) {
    perm[static_cast<size_t>(dst[i])] = src[i];
    used[static_cast<size_t>(src[i])] = true;
  }
  int64_t next = 0;
  for (int64_t& p : perm) {
    if (p != -1) continue;
    while (used[static_cast<size_t>(next)]) ++next;
    p = next++;
  }
  return Value::tensor(permute(x, perm));
}

// torch.swapdims: transpose's alias.
Value swapdims_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("swapdims", a, {"input", "dim0", "dim1"}, 3);
  Tensor x = arg(b, 0, "swapdims", "input");
  return Value::tensor(transpose(x, dim_arg(b, 1, x.dim(), "swapdims", 0, "dim0"), dim_arg(b, 2, x.dim(), "swapdims", 0, "dim1")));
}

Value fliplr_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("fliplr", a, {"input"}, 1);
  Tensor x = arg(b, 0, "fliplr", "input");
  if (x.dim() < 2) fail("fliplr(): argument 'input' must be at least 2-D, got shape " + x.shape_str());
  return Value::tensor(flip(x, {1}));
}
Value flipud_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("flipud", a, {"input"}, 1);
  Tensor x = arg(b, 0, "flipud", "input");
  if (x.dim() < 1) fail("flipud(): argument 'input' must be at least 1-D, got shape " + x.shape_str());
  return Value::tensor(flip(x, {0}));
}

// torch.rot90: k quarter turns from dims[0] toward dims[1].
Value rot90_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("rot90", a, {"input", "k", "dims"}, 1);
  Tensor x = arg(b, 0, "rot90", "input");
  const int64_t k = b.has(1) ? as_int(b[1], fn_arg("rot90", "k")) : 1;
  IntList dims = b.has(2) ? as_ints(b[2], fn_arg("rot90", "dims")) : IntList{0, 1};
  if (dims.size() != 2) fail("rot90(): argument 'dims' must hold 2 dims, got " + ints_str(dims));
  if (x.dim() < 2) fail("rot90(): argument 'input' must be at least 2-D, got shape " + x.shape_str());
  const int64_t d0 = dim_in(dims[0], x.dim(), "rot90", "dims"), d1 = dim_in(dims[1], x.dim(), "rot90", "dims");
  if (d0 == d1) fail("rot90(): argument 'dims' must be two different dims, got " + ints_str(dims));
  switch (((k % 4) + 4) % 4) {
    case 1: return Value::tensor(transpose(flip(x, {d1}), d0, d1));
    case 2: return Value::tensor(flip(x, {d0, d1}));
    case 3: return Value::tensor(flip(transpose(x, d0, d1), {d1}));
    default: return Value::tensor(alias(x));
  }
}

// torch.tensor_split: n nearly equal pieces (the first size % n one longer), or the
// pieces between a list of indices (clamped to the dim), as views.
Value tensor_split_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("tensor_split", a, {"input", "indices_or_sections", "dim"}, 2);
  Tensor x = arg(b, 0, "tensor_split", "input");
  if (x.dim() == 0) fail("tensor_split(): argument 'input' must be at least 1-D, got a 0-dim tensor");
  const int64_t dim = dim_arg(b, 2, x.dim(), "tensor_split", 0);
  const int64_t n = x.sizes()[dim];
  const Value& spec = b[1];
  bool sections = spec.tag == Tag::Int;
  IntList values;
  if (spec.tag == Tag::Tensor) {
    if (!is_index_type(spec.t.dtype()) || spec.t.dim() > 1)
      fail("tensor_split(): argument 'indices_or_sections' must be an int, a list of ints or a 0-D or 1-D integer tensor, "
           "got a " + std::string(dtype_name(spec.t.dtype())) + " tensor of shape " + spec.t.shape_str());
    sections = spec.t.dim() == 0;
    values = host_ints(spec.t, "tensor_split(): indices_or_sections");
  } else if (sections) {
    values = {spec.i};
  } else {
    values = as_ints(spec, fn_arg("tensor_split", "indices_or_sections"));
  }
  TensorList out;
  if (sections) {
    const int64_t s = values[0];
    if (s <= 0) fail("tensor_split(): argument 'indices_or_sections' must be a positive number of sections, got " + std::to_string(s));
    // Each section is a tensor view in the result: 10^12 of them is asked for, not built for hours.
    ask_host_memory(s, sizeof(Value) + sizeof(Tensor) + 128, "tensor_split(): " + std::to_string(s) + " sections");
    int64_t start = 0;
    for (int64_t k = 0; k < s; ++k) {
      const int64_t len = n / s + (k < n % s ? 1 : 0);
      out.push_back(slice(x, dim, start, start + len));
      start += len;
    }
  } else {
    int64_t start = 0;
    for (size_t k = 0; k <= values.size(); ++k) {
      int64_t end = k < values.size() ? values[k] : n;
      if (end < 0) end += n;
      end = std::clamp<int64_t>(end, 0, n);
      const int64_t lo = std::min(start, end);
      out.push_back(slice(x, dim, lo, end));
      start = std::max(start, end);
    }
  }
  return tuple_of(out);
}

// torch.split_with_sizes: pieces of the given sizes, which must add up to the dim.
Value split_with_sizes_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("split_with_sizes", a, {"input", "split_sizes", "dim"}, 2);
  Tensor x = arg(b, 0, "split_with_sizes", "input");
  IntList sizes = as_ints(b[1], fn_arg("split_with_sizes", "split_sizes"));
  const int64_t dim = dim_arg(b, 2, x.dim(), "split_with_sizes", 0);
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0) fail("split_with_sizes(): argument 'split_sizes' must be non-negative, got " + ints_str(sizes));
    total += s;
  }
  if (total != x.sizes()[dim])
    fail("split_with_sizes(): argument 'split_sizes' " + ints_str(sizes) + " adds up to " + std::to_string(total) +
         ", but dim " + std::to_string(dim) + " of shape " + x.shape_str() + " has size " + std::to_string(x.sizes()[dim]));
  return tuple_of(split(x, sizes, dim));
}

// Whether an index is to be read by ops (Note [Scatters a graph replays]): inside a capture, or batched by vmap (each
// example's values differ, so the host cannot read them either).
bool index_by_ops(const Tensor& index) { return op_observer() != nullptr || index.impl()->batched; }

// torch.take: the elements at flat indices (negative from the end), shaped as index.
Value take_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("take", a, {"input", "index"}, 2);
  Tensor x = arg(b, 0, "take", "input");
  Tensor idx = integer_index(b[1], "take", "index");
  const int64_t n = x.numel();
  Tensor flat = reshape(x, {n});
  if (index_by_ops(idx) && n > 0) {  // the index as data, so that a graph replays it (Note [Scatters a graph replays])
    Tensor at = to_device(checked_positions(reshape(idx, {-1}), n, 0), x.device());
    return Value::tensor(reshape(index_select(flat, 0, at), shape_of(idx)));
  }
  std::vector<int64_t> v = host_ints(idx, "take(): index");
  for (int64_t& i : v) {
    if (i < -n || i >= n)
      fail("take(): argument 'index' holds " + std::to_string(i) + ", out of range for an input of " + std::to_string(n) +
           " elements (expected an index in [" + std::to_string(-n) + ", " + std::to_string(n - 1) + "])");
    if (i < 0) i += n;
  }
  return Value::tensor(reshape(index_select(flat, 0, index_tensor(v, {static_cast<int64_t>(v.size())}, x.device())), shape_of(idx)));
}

// torch.diag_embed: the last dim of input on the offset diagonal of new (dim1, dim2)
// matrices; zeros elsewhere.
Value diag_embed_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("diag_embed", a, {"input", "offset", "dim1", "dim2"}, 1);
  Tensor x = arg(b, 0, "diag_embed", "input");
  if (x.dim() == 0) fail("diag_embed(): argument 'input' must be at least 1-D, got a 0-dim tensor");
  const int64_t offset = b.has(1) ? as_int(b[1], fn_arg("diag_embed", "offset")) : 0;
  const int64_t n = x.dim() + 1;
  const int64_t d1 = dim_arg(b, 2, n, "diag_embed", -2, "dim1"), d2 = dim_arg(b, 3, n, "diag_embed", -1, "dim2");
  if (d1 == d2) fail("diag_embed(): argument 'dim1' and argument 'dim2' must differ, both are " + std::to_string(d1));
  const int64_t len = x.sizes()[x.dim() - 1];
  Tensor r = arange(len, DType::i64, x.device());
  Tensor eye = eq(unsqueeze(r, 1), unsqueeze(r, 0));
  Tensor square = where(eye, unsqueeze(x, -1), number_like(0.0, x));  // [..., len, len]: x[i] at (i, i)
  IntList pads = offset >= 0 ? IntList{offset, 0, 0, offset} : IntList{0, -offset, -offset, 0};
  if (offset != 0) square = pad(square, pads);
  // The batch dims keep their order in the places that are not dim1 and dim2.
  IntList perm(static_cast<size_t>(n));
  int64_t next = 0;
  for (int64_t p = 0; p < n; ++p) perm[static_cast<size_t>(p)] = p == d1 ? n - 2 : p == d2 ? n - 1 : next++;
  return Value::tensor(permute(square, perm));
}

// ---- scatters --------------------------------------------------------------------------

// scatter's shape rules (PyTorch's): index has the input's dims and is no larger than
// src anywhere, nor than the input outside dim.
void check_scatter_shapes(const Tensor& x, int64_t dim, const Tensor& index, const Tensor* src, const std::string& fname) {
  if (index.dim() != x.dim() && !(index.dim() <= 1 && x.dim() <= 1))
    fail(fname + "(): argument 'index' must have as many dims as the input (" + std::to_string(x.dim()) + "), got shape " +
         index.shape_str());
  const int64_t nd = std::max<int64_t>(x.dim(), 1);
  IntList xs = x.dim() == 0 ? IntList{1} : shape_of(x), is = index.dim() == 0 ? IntList{1} : shape_of(index);
  IntList ss = !src ? is : src->dim() == 0 ? IntList{1} : shape_of(*src);
  if (src && static_cast<int64_t>(ss.size()) != nd)
    fail(fname + "(): argument 'src' must have as many dims as the input (" + std::to_string(x.dim()) + "), got shape " +
         src->shape_str());
  for (int64_t d = 0; d < nd; ++d) {
    const size_t k = static_cast<size_t>(d);
    if (d != dim && is[k] > xs[k])
      fail(fname + "(): argument 'index' of shape " + index.shape_str() + " is larger than the input " + x.shape_str() +
           " in dim " + std::to_string(d));
    if (is[k] > ss[k])
      fail(fname + "(): argument 'index' of shape " + index.shape_str() + " is larger than argument 'src' " +
           src->shape_str() + " in dim " + std::to_string(d));
  }
}

// Where each element of index sends src's element to, along dim (Note: scatter's
// targets are found on the CPU): for each flat position of the output (x's shape), the
// flat positions in src that write to it, in index's row-major order.
std::vector<std::vector<int64_t>> scatter_targets(const Tensor& x, int64_t dim, const Tensor& index, const Tensor* src,
                                                  const std::string& fname) {
  check_scatter_shapes(x, dim, index, src, fname);
  const int64_t nd = std::max<int64_t>(x.dim(), 1);
  IntList xs = x.dim() == 0 ? IntList{1} : shape_of(x), is = index.dim() == 0 ? IntList{1} : shape_of(index);
  IntList ss = !src ? is : src->dim() == 0 ? IntList{1} : shape_of(*src);
  std::vector<int64_t> iv = host_ints(index, fname + "(): index");
  IntList xstr = strides_of(xs), sstr = strides_of(ss);
  std::vector<std::vector<int64_t>> out(static_cast<size_t>(shape_numel(Shape(xs))));
  IntList at(static_cast<size_t>(nd), 0);
  for (size_t e = 0; e < iv.size(); ++e) {
    const int64_t target = iv[e];
    const int64_t limit = xs[static_cast<size_t>(dim)];
    if (target < -limit || target >= limit)
      fail(fname + "(): argument 'index' holds " + std::to_string(target) + ", out of range for dim " + std::to_string(dim) +
           " of size " + std::to_string(limit));
    int64_t to = 0, from = 0;
    for (int64_t d = 0; d < nd; ++d) {
      const size_t k = static_cast<size_t>(d);
      to += (d == dim ? (target < 0 ? target + limit : target) : at[k]) * xstr[k];
      from += at[k] * sstr[k];
    }
    out[static_cast<size_t>(to)].push_back(from);
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++at[static_cast<size_t>(d)] < is[static_cast<size_t>(d)]) break;
      at[static_cast<size_t>(d)] = 0;
    }
  }
  return out;
}

enum class Reduce { none, sum, prod, mean, amax, amin };

Reduce reduce_of(const Value& v, const std::string& fname, bool scatter_names) {
  const std::string r = v.tag == Tag::Str ? v.as<StrObj>()->s : "";
  if (scatter_names) {
    if (r == "add") return Reduce::sum;
    if (r == "multiply") return Reduce::prod;
    fail(fname + "(): argument 'reduce' must be \"add\" or \"multiply\", got " + repr(v));
  }
  if (r == "sum") return Reduce::sum;
  if (r == "prod") return Reduce::prod;
  if (r == "mean") return Reduce::mean;
  if (r == "amax") return Reduce::amax;
  if (r == "amin") return Reduce::amin;
  fail(fname + "(): argument 'reduce' must be \"sum\", \"prod\", \"mean\", \"amax\" or \"amin\", got " + repr(v));
}

// The identity of a reduction in x's dtype (for the rows' padding).
double pad_value(Reduce r, DType dtype) {
  switch (r) {
    case Reduce::prod: return 1.0;
    case Reduce::amax: return is_floating(dtype) ? -kInf : dtype == DType::b8 ? 0.0 : -9.2233720368547758e18;
    case Reduce::amin: return is_floating(dtype) ? kInf : dtype == DType::b8 ? 1.0 : 9.2233720368547758e18;
    default: return 0.0;
  }
}

// The maximum (or minimum) along dim 1 of [N, K], its gradient shared evenly by ties, as
// PyTorch's amax (Note in composite_math.cpp's extremum).
Tensor row_extremum(const Tensor& m, bool is_max) {
  Tensor top = is_max ? max(detach(m), 1, true).first : min(detach(m), 1, true).first;
  if (!is_floating(m.dtype())) return squeeze(top, {1});
  Tensor hit = eq(m, top);
  Tensor count = sum(to_dtype(hit, m.dtype()), {1}, true);
  Tensor offset = sum(where(hit, m - top, number_like(0.0, m)), {1}, true) / count;
  Tensor inf = eq(abs(top), number_like(kInf, top));
  return squeeze(where(inf, top, top + offset), {1});
}

// out[p] = the reduction of the elements sent to p (and x[p] itself with include_self;
// x[p] alone where nothing is sent), as a table of positions into [x, src, identity]
// read with index_select: so each output's gradient goes to exactly the elements it
// was made of. Reduce::none keeps the last element sent (or x's own).
Tensor scatter_core(const Tensor& x, const std::vector<std::vector<int64_t>>& targets, const Tensor& src, Reduce r,
                    bool include_self) {
  const int64_t nx = x.numel(), ns = src.defined() ? src.numel() : 0;
  const int64_t pad_at = nx + ns;
  int64_t k = 1;
  for (const auto& t : targets)
    k = std::max<int64_t>(k, r == Reduce::none ? 1 : static_cast<int64_t>(t.size()) + (include_self ? 1 : 0));
  std::vector<int64_t> table(static_cast<size_t>(nx * k), pad_at);
  std::vector<double> counts(static_cast<size_t>(nx), 1.0);
  for (int64_t p = 0; p < nx; ++p) {
    const auto& t = targets[static_cast<size_t>(p)];
    int64_t* row = table.data() + p * k;
    if (t.empty()) {
      row[0] = p;
      continue;
    }
    if (r == Reduce::none) {
      row[0] = nx + t.back();
      continue;
    }
    int64_t c = 0;
    if (include_self) row[c++] = p;
    for (int64_t s : t) row[c++] = nx + s;
    counts[static_cast<size_t>(p)] = static_cast<double>(c);
  }
  TensorList parts{reshape(x, {nx})};
  if (ns) parts.push_back(reshape(to_dtype(src, x.dtype()), {ns}));
  parts.push_back(reshape(full(Shape{1}, pad_value(r, x.dtype()), x.dtype(), x.device()), {1}));
  Tensor all = cat(parts, 0);
  Tensor m = reshape(index_select(all, 0, index_tensor(table, {nx * k}, x.device())), {nx, k});
  Tensor out;
  switch (r) {
    case Reduce::none: out = select(m, 1, 0); break;
    case Reduce::sum: out = sum(m, {1}); break;
    case Reduce::prod: out = select(cumprod(m, 1), 1, k - 1); break;
    case Reduce::amax: out = row_extremum(m, true); break;
    case Reduce::amin: out = row_extremum(m, false); break;
    case Reduce::mean: {
      Tensor n = to_device(tensor_from(counts, Shape{nx}, x.dtype()), x.device());
      out = is_floating(x.dtype()) ? sum(m, {1}) / n : floor_division(sum(m, {1}), n);
      break;
    }
  }
  return reshape(to_dtype(out, x.dtype()), shape_of(x));
}

// Note [Scatters a graph replays]
// scatter, index_copy and index_fill find their targets on the host (scatter_core's
// table, index_fill's mask), which a graph cannot replay: the targets would be baked
// in. Inside a capture, a scatter that keeps the last value sent (no reduce, and
// index_copy) is put_flat over target positions computed by ops (Note [An index a
// graph replays]); reduce="add" is the scatter_add row; index_fill is a masked_fill
// over a mask made by scatter_add. Each replays for any index values, and checks
// their range as it runs. vmap takes the same path for an index it batches. Eager
// keeps the host path.

// Whether this scatter can be written by ops: an index read by ops, with the input's
// dims (PyTorch's rule), the input not 0-dim.
bool scatter_by_ops(const Tensor& x, const Tensor& index) {
  return index_by_ops(index) && x.dim() > 0 && index.dim() == x.dim();
}

// The flat position in x of each element of index: its own coordinates, but along dim
// the one its value names (wrapped and range-checked by checked_positions).
Tensor scatter_positions(const Tensor& x, int64_t dim, const Tensor& index) {
  const IntList xs = shape_of(x), is = shape_of(index), stride = strides_of(xs);
  Tensor pos = mul(checked_positions(index, xs[static_cast<size_t>(dim)], dim), int_scalar_tensor(stride[static_cast<size_t>(dim)]));
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (d == dim) continue;
    IntList along(static_cast<size_t>(x.dim()), 1);
    along[static_cast<size_t>(d)] = is[static_cast<size_t>(d)];
    pos = add(pos, reshape(mul(arange(is[static_cast<size_t>(d)]), int_scalar_tensor(stride[static_cast<size_t>(d)])), along));
  }
  return pos;
}

// src's first elements along each dim, as many as index has (scatter reads no more).
Tensor src_for_index(const Tensor& src, const Tensor& index) {
  Tensor part = src;
  for (int64_t d = 0; d < index.dim(); ++d)
    if (part.size(d) != index.size(d)) part = slice(part, d, 0, index.size(d));
  return part;
}

// The capture's scatter (Note [Scatters a graph replays]): Reduce::none or Reduce::sum.
Tensor scatter_traced(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src, Reduce r) {
  const Tensor part = src_for_index(src, index);
  if (r == Reduce::sum)
    return scatter_add(x, dim, to_device(checked_positions(index, x.size(dim), dim), x.device()), contiguous(part));
  return put_flat(x, part, scatter_positions(x, dim, index), /*each_once=*/false);
}

// torch.scatter: src's elements (or value) written at index along dim; reduce="add" or
// "multiply" combines them with the input's instead. Of several writes to one place the
// last (in index's order) wins, as PyTorch's CPU kernel.
Value scatter_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("scatter", a, {"input", "dim", "index", "src", "value", "reduce"}, 3);
  Tensor x = arg(b, 0, "scatter", "input");
  const int64_t dim = dim_arg(b, 1, x.dim(), "scatter", 0);
  Tensor index = integer_index(b[2], "scatter", "index");
  if (b.has(3) && b.has(4)) fail("scatter(): give argument 'src' or argument 'value', not both");
  if (!b.has(3) && !b.has(4)) fail("scatter(): expected argument 'src' (a tensor) or argument 'value' (a number)");
  Tensor src;
  const Value& given = b.has(3) ? b[3] : b[4];
  if (given.tag == Tag::Tensor && given.t.dim() > 0) {
    src = given.t;
    same_dtype(x, src, "scatter", "src");
  } else {
    // Note [A number into a dtype]: 200 into i8 wrapped, and 2**62 + 11 into i64 went
    // through a double (2^62)
    src = expand(fill_scalar(given, x.dtype(), fn_arg("scatter", b.has(3) ? "src" : "value")),
                 index.dim() == 0 ? IntList{} : shape_of(index));
  }
  const Reduce r = b.has(5) ? reduce_of(b[5], "scatter", true) : Reduce::none;
  if (scatter_by_ops(x, index) && r != Reduce::prod) {
    check_scatter_shapes(x, dim, index, &src, "scatter");
    return Value::tensor(scatter_traced(x, dim, index, src, r));
  }
  auto targets = scatter_targets(x, dim, index, &src, "scatter");
  return Value::tensor(scatter_core(x, targets, contiguous(src), r, true));
}

// torch.scatter_reduce: the elements of src sent to each place along dim reduced with
// "sum", "prod", "mean", "amax" or "amin" (with the input's element unless
// include_self=false); places nothing is sent to keep the input's.
Value scatter_reduce_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("scatter_reduce", a, {"input", "dim", "index", "src", "reduce", "include_self"}, 5);
  Tensor x = arg(b, 0, "scatter_reduce", "input");
  const int64_t dim = dim_arg(b, 1, x.dim(), "scatter_reduce", 0);
  Tensor index = integer_index(b[2], "scatter_reduce", "index");
  Tensor src = arg(b, 3, "scatter_reduce", "src");
  same_dtype(x, src, "scatter_reduce", "src");
  const Reduce r = reduce_of(b[4], "scatter_reduce", false);
  const bool include_self = !b.has(5) || as_bool(b[5], fn_arg("scatter_reduce", "include_self"));
  if (scatter_by_ops(x, index) && r == Reduce::sum && include_self) {
    check_scatter_shapes(x, dim, index, &src, "scatter_reduce");
    return Value::tensor(scatter_traced(x, dim, index, src, r));
  }
  auto targets = scatter_targets(x, dim, index, &src, "scatter_reduce");
  return Value::tensor(scatter_core(x, targets, contiguous(src), r, include_self));
}

// index_add's, index_copy's and index_fill's index: an integer tensor, 1-D (or 0-D).
Tensor one_dim_index(const Value& v, const std::string& fname) {
  Tensor index = integer_index(v, fname, "index");
  if (index.dim() > 1) fail(fn_arg(fname, "index") + " must be 1-D, got shape " + index.shape_str());
  return index;
}

// The entries of such an index along dim, each in range, read on the host; with a
// source, its length is source's size along dim.
std::vector<int64_t> slice_index(const Tensor& x, int64_t dim, const Tensor& index, const std::string& fname) {
  std::vector<int64_t> v = host_ints(index, fname + "(): index");
  const int64_t n = x.dim() == 0 ? 1 : x.sizes()[dim];
  for (int64_t& i : v) {
    if (i < -n || i >= n)
      fail(fn_arg(fname, "index") + " holds " + std::to_string(i) + ", out of range for dim " + std::to_string(dim) +
           " of size " + std::to_string(n));
    if (i < 0) i += n;
  }
  return v;
}

void check_source(const Tensor& x, int64_t dim, const Tensor& source, size_t count, const std::string& fname) {
  same_dtype(x, source, fname, "source");
  IntList want = shape_of(x);
  if (x.dim() > 0) want[static_cast<size_t>(dim)] = static_cast<int64_t>(count);
  const bool scalar_ok = x.dim() == 0 && source.numel() == 1 && count == 1;
  if (!scalar_ok && shape_of(source) != want)
    fail(fn_arg(fname, "source") + " must have shape " + ints_str(want) + " (the input's with " + std::to_string(count) +
         " along dim " + std::to_string(dim) + "), got " + source.shape_str());
}

// The index along dim expanded to source's shape, as scatter's index.
Tensor expanded_index(const std::vector<int64_t>& v, const Tensor& source, int64_t dim) {
  const int64_t nd = source.dim();
  IntList view_shape(static_cast<size_t>(std::max<int64_t>(nd, 1)), 1);
  view_shape[static_cast<size_t>(dim)] = static_cast<int64_t>(v.size());
  Tensor idx = index_tensor(v, view_shape, source.device());
  if (nd == 0) return reshape(idx, {});
  return contiguous(expand(idx, shape_of(source)));
}

// index (1-D, negative from the end) as scatter_add's index for source: ops only, no
// value read, so that a compiled graph replays it for any index (scatter_add's kernel
// checks the range when it runs).
Tensor traced_expanded_index(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source) {
  const int64_t n = x.sizes()[dim];
  Tensor idx = to_dtype(reshape(index, {index.numel()}), DType::i64);
  idx = where(lt(idx, number_like(0.0, idx)), idx + number_like(static_cast<double>(n), idx), idx);
  IntList view_shape(static_cast<size_t>(source.dim()), 1);
  view_shape[static_cast<size_t>(dim)] = index.numel();
  return contiguous(expand(reshape(idx, view_shape), shape_of(source)));
}

// torch.index_add: input plus alpha * source's slices added at index along dim. Eager
// checks the index on the host (a message naming index_add); while a graph captures,
// the index stays an op input (traced_expanded_index), so index_add compiles.
Value index_add_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("index_add", a, {"input", "dim", "index", "source", "alpha"}, 4);
  Tensor x = arg(b, 0, "index_add", "input");
  const int64_t dim = dim_arg(b, 1, x.dim(), "index_add", 0);
  Tensor index = one_dim_index(b[2], "index_add");
  Tensor source = arg(b, 3, "index_add", "source");
  const bool capturing = op_observer() != nullptr;
  if (!capturing) slice_index(x, dim, index, "index_add");
  check_source(x, dim, source, static_cast<size_t>(index.numel()), "index_add");
  if (b.has(4)) {
    check_alpha_kind(x, b[3], b[4], "index_add");  // a float alpha of integers; one past the dtype
    source = source * number_like(as_num(b[4], fn_arg("index_add", "alpha")), source);
  }
  if (x.dim() == 0) return Value::tensor(x + reshape(source, {}));
  return Value::tensor(scatter_add(x, dim, traced_expanded_index(x, dim, index, source), source));
}

// torch.index_copy: input with source's slices written at index along dim.
Value index_copy_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("index_copy", a, {"input", "dim", "index", "source"}, 4);
  Tensor x = arg(b, 0, "index_copy", "input");
  const int64_t dim = dim_arg(b, 1, x.dim(), "index_copy", 0);
  Tensor index = one_dim_index(b[2], "index_copy");
  Tensor source = arg(b, 3, "index_copy", "source");
  if (index_by_ops(index) && x.dim() > 0) {  // Note [Scatters a graph replays]
      check_source(x, dim, source, static_cast<size_t>(index.numel()), "index_copy");
    Tensor along = traced_expanded_index(x, dim, index, source);
    return Value::tensor(put_flat(x, source, scatter_positions(x, dim, along), /*each_once=*/false));
  }
  std::vector<int64_t> v = slice_index(x, dim, index, "index_copy");
  check_source(x, dim, source, v.size(), "index_copy");
  Tensor idx = expanded_index(v, source, dim);
  auto targets = scatter_targets(x, dim, idx, &source, "index_copy");
  return Value::tensor(scatter_core(x, targets, contiguous(source), Reduce::none, true));
}

// torch.index_fill: input with value (a number or a 0-dim tensor, differentiable) in the
// slices at index along dim.
Value index_fill_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("index_fill", a, {"input", "dim", "index", "value"}, 4);
  Tensor x = arg(b, 0, "index_fill", "input");
  const int64_t dim = dim_arg(b, 1, x.dim(), "index_fill", 0);
  Tensor index = one_dim_index(b[2], "index_fill");
  const int64_t n = x.dim() == 0 ? 1 : x.sizes()[dim];
  IntList mask_shape(static_cast<size_t>(x.dim()), 1);
  if (x.dim() > 0) mask_shape[static_cast<size_t>(dim)] = n;
  Tensor mask;
  if (index_by_ops(index) && x.dim() > 0) {  // Note [Scatters a graph replays]
      Tensor at = checked_positions(reshape(index, {-1}), n, dim);
    Tensor hits = scatter_add(zeros({n}, DType::i64), 0, at, ones_like(at));
    mask = to_device(reshape(gt(hits, int_scalar_tensor(0)), mask_shape), x.device());
  } else {
    std::vector<double> hit(static_cast<size_t>(n), 0.0);
    for (int64_t i : slice_index(x, dim, index, "index_fill")) hit[static_cast<size_t>(i)] = 1.0;
    mask = to_device(tensor_from(hit, Shape(mask_shape), DType::b8), x.device());
  }
  check_fits_dtype(b[3], x.dtype(), fn_arg("index_fill", "value"));  // Note [A number into a dtype]
  if (b[3].tag == Tag::Tensor) {
    if (b[3].t.dim() != 0) fail("index_fill(): argument 'value' must be a number or a 0-dim tensor, got shape " + b[3].t.shape_str());
    return Value::tensor(masked_fill(x, mask, to_dtype(b[3].t, x.dtype())));
  }
  return Value::tensor(masked_fill(x, mask, fill_scalar(b[3], x.dtype(), fn_arg("index_fill", "value"))));
}

}  // namespace

const BuiltinEntry kCompositeExtraShape[] = {
    {"tile", tile_builtin, "tile(input, dims)",
     "input repeated dims times along each dim (dims padded with leading 1s), as torch.tile. Example: tile(tensor([1, 2]), [2, 2])"},
    {"broadcast_to", broadcast_to_builtin, "broadcast_to(input, size)",
     "input expanded to size under broadcasting (-1 keeps a dim; a view), as torch.broadcast_to. "
     "Example: broadcast_to(tensor([1, 2, 3]), [2, 3])"},
    {"moveaxis", moveaxis_builtin, "moveaxis(input, source, destination)",
     "The dims source moved to destination (ints or lists), as torch.moveaxis (movedim). Example: moveaxis(randn(2, 3, 4), 0, -1)"},
    {"swapdims", swapdims_builtin, "swapdims(input, dim0, dim1)",
     "dim0 and dim1 exchanged (a view), as torch.swapdims (transpose). Example: swapdims(randn(2, 3), 0, 1)"},
    {"fliplr", fliplr_builtin, "fliplr(input)", "input reversed along dim 1 (at least 2-D). Example: fliplr(arange(4).reshape([2, 2]))"},
    {"flipud", flipud_builtin, "flipud(input)", "input reversed along dim 0. Example: flipud(arange(4).reshape([2, 2]))"},
    {"rot90", rot90_builtin, "rot90(input, k=1, dims=[0, 1])",
     "input turned k quarter turns in the plane of dims, from dims[0] toward dims[1], as torch.rot90. "
     "Example: rot90(arange(4).reshape([2, 2]))"},
    {"tensor_split", tensor_split_builtin, "tensor_split(input, indices_or_sections, dim=0)",
     "Views of input split into n nearly equal pieces, or at a list of indices, along dim, as torch.tensor_split. "
     "Example: tensor_split(arange(7), 3)"},
    {"split_with_sizes", split_with_sizes_builtin, "split_with_sizes(input, split_sizes, dim=0)",
     "Views of input in pieces of split_sizes (which add up to the dim) along dim. Example: split_with_sizes(arange(5), [2, 3])"},
    {"take", take_builtin, "take(input, index)",
     "The elements of input at flat indices (negative count from the end), shaped as index, as torch.take. "
     "Example: take(tensor([[1.0, 2.0], [3.0, 4.0]]), tensor([0, 3]))"},
    {"diag_embed", diag_embed_builtin, "diag_embed(input, offset=0, dim1=-2, dim2=-1)",
     "Matrices (in dims dim1 and dim2) with the last dim of input on their offset diagonal, as torch.diag_embed. "
     "Example: diag_embed(tensor([[1.0, 2.0], [3.0, 4.0]]))"},
    {"scatter", scatter_builtin, "scatter(input, dim, index, src=none, value=none, reduce=none)",
     "input with src's elements (or value) written where index says along dim (the last of repeated writes wins); "
     "reduce \"add\" or \"multiply\" combines them with input's, as torch.scatter. "
     "Example: scatter(zeros([2, 3]), 1, tensor([[2], [0]]), 1.0)"},
    {"scatter_reduce", scatter_reduce_builtin, "scatter_reduce(input, dim, index, src, reduce, include_self=true)",
     "The elements of src sent by index along dim reduced with \"sum\", \"prod\", \"mean\", \"amax\" or \"amin\" (with "
     "input's unless include_self=false), as torch.scatter_reduce. "
     "Example: scatter_reduce(zeros([3]), 0, tensor([0, 0, 2]), tensor([1.0, 2.0, 3.0]), \"amax\")"},
    {"index_add", index_add_builtin, "index_add(input, dim, index, source, alpha=1)",
     "input plus alpha * source's slices added at index along dim, as torch.index_add. "
     "Example: index_add(zeros([3, 2]), 0, tensor([0, 2]), ones([2, 2]))"},
    {"index_copy", index_copy_builtin, "index_copy(input, dim, index, source)",
     "input with source's slices written at index along dim, as torch.index_copy. "
     "Example: index_copy(zeros([3, 2]), 0, tensor([2, 0]), ones([2, 2]))"},
    {"index_fill", index_fill_builtin, "index_fill(input, dim, index, value)",
     "input with value in the slices at index along dim, as torch.index_fill. Example: index_fill(zeros([2, 3]), 1, tensor([0, 2]), -1.0)"},
};

std::span<const BuiltinEntry> composite_extra_shape() { return kCompositeExtraShape; }

}  // namespace nabla::interp
