// Indexing and index assignment: Python indexing of strings, lists, tuples and
// dicts, and tensor indexing (ints, slices, ..., none, index and mask tensors) as
// views or gathers, with the slice and ellipsis values the evaluator builds.
#include <algorithm>
#include <cmath>

#include "interp/values/advanced_indexing.hpp"
#include "lang/utf8_text.hpp"
#include "interp/values/object_regions.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "autograd/transforms/levels.hpp"
#include "autograd/trace.hpp"
#include "graph/capture.hpp"
#include "interp/builtins/builtins_internal.hpp"

namespace nabla::interp {

Value ellipsis_value() {
  static const Value v = [] {
    auto o = std::make_shared<ObjectObj>();
    o->type_name = "ellipsis";
    return Value::object(Tag::Object, o);
  }();
  return v;
}

Value make_slice_value(const Value& start, const Value& stop, const Value& step) {
  auto o = std::make_shared<ObjectObj>();
  o->type_name = "slice";
  o->attrs = {{"start", start}, {"stop", stop}, {"step", step}};
  return Value::object(Tag::Object, o);
}

static bool is_slice(const Value& v) { return v.tag == Tag::Object && v.as<ObjectObj>()->type_name == "slice"; }
static bool is_ellipsis(const Value& v) { return v.tag == Tag::Object && v.o == ellipsis_value().o; }

// ---- indexing -------------------------------------------------------------------------

int64_t index_int(const Value& v, const char* what) {
  if (v.tag == Tag::Int) return v.i;
  if (v.tag == Tag::Bool) return v.b;
  if (v.tag == Tag::Tensor && v.t.numel() == 1 && !is_floating(v.t.dtype()) && v.t.dim() == 0) {
    // a graph capture cannot replay a number read from a tensor (Note [A window a graph replays])
    notify_value_read(v.t, std::string(what) == "slice" ? "a slice whose length depends on a tensor bound's value (y[i:], "
                                                          "y[:i]; a window y[i:i+k] with a fixed k replays)"
                                                        : "an index");
    return v.t.item_int();
  }
  std::string found = type_name(v);
  if (v.tag == Tag::Tensor) {
    found = std::string("a ") + dtype_name(v.t.dtype()) + " tensor of shape " + v.t.shape_str() +
            " (only a 0-dim integer tensor is an index)";
    // PyTorch's opt.state[p] (a dict keyed by parameter): here a list by position
    if (v.t.requires_grad())
      found += "; an optimizer's state is a list by parameter position: opt.state[i] for the i-th parameter of "
               "opt.params, not opt.state[p]";
  }
  fail(std::string(what) + " indices must be integers or slices, not " + found);
}

int64_t wrap_index(int64_t i, int64_t n, const char* what) {
  int64_t j = i < 0 ? i + n : i;
  if (j < 0 || j >= n)
    fail("index " + std::to_string(i) + " is out of range for " + what + " of length " + std::to_string(n));
  return j;
}

// Python slice semantics: (start, stop, step) clamped for a sequence of length n.
static void slice_bounds(const Value& sl, int64_t n, int64_t* start, int64_t* stop, int64_t* step) {
  auto* o = sl.as<ObjectObj>();
  const Value& a = o->attrs[0].second;
  const Value& b = o->attrs[1].second;
  const Value& c = o->attrs[2].second;
  *step = c.is_none() ? 1 : index_int(c, "slice");
  if (*step == 0) fail("slice step cannot be zero");
  if (*step > 0) {
    *start = a.is_none() ? 0 : index_int(a, "slice");
    *stop = b.is_none() ? n : index_int(b, "slice");
    if (*start < 0) *start = std::max<int64_t>(0, *start + n);
    if (*stop < 0) *stop = std::max<int64_t>(0, *stop + n);
    *start = std::min(*start, n);
    *stop = std::min(*stop, n);
    if (*stop < *start) *stop = *start;
  } else {
    *start = a.is_none() ? n - 1 : index_int(a, "slice");
    *stop = b.is_none() ? -1 : index_int(b, "slice");
    if (!a.is_none() && *start < 0) *start += n;
    if (!b.is_none() && *stop < 0) *stop = std::max<int64_t>(-1, *stop + n);
    *start = std::min(*start, n - 1);
    if (*start < -1) *start = -1;
  }
}

// Note [A window a graph replays] (advanced_indexing.cpp): whether a bound of slice sl is
// an integer tensor a graph capture traces.
static bool traced_bound(const Value& sl) {
  auto* capture = dynamic_cast<graph::Capture*>(op_observer());
  if (!capture) return false;
  for (size_t k = 0; k < 2; ++k) {
    const Value& b = sl.as<ObjectObj>()->attrs[k].second;
    if (b.tag == Tag::Tensor && b.t.dim() == 0 && !is_floating(b.t.dtype()) && b.t.dtype() != DType::b8 &&
        capture->traced(b.t))
      return true;
  }
  return false;
}

// The positions along a dim of size n that slice sl takes, when a bound is traced and the
// slice's length is fixed (its stop - start the same at every call, and eager's window
// that long now); else undefined, and the caller reads the bounds as numbers.
static Tensor window_of(const Value& sl, int64_t n) {
  if (!traced_bound(sl)) return Tensor();
  auto* o = sl.as<ObjectObj>();
  const Value &a = o->attrs[0].second, &b = o->attrs[1].second, &c = o->attrs[2].second;
  if (!(c.is_none() || (c.tag == Tag::Int && c.i == 1)) || a.tag != Tag::Tensor || b.tag != Tag::Tensor) return Tensor();
  if (is_floating(a.t.dtype()) || is_floating(b.t.dtype()) ||
      !dynamic_cast<graph::Capture*>(op_observer())->fixed_distance(a.t, b.t))
    return Tensor();
  const int64_t start = a.t.item_int(), stop = b.t.item_int(), length = stop - start;
  auto python_bound = [n](int64_t i) { return std::min(std::max<int64_t>(i < 0 ? i + n : i, 0), n); };
  if (length <= 0 || python_bound(stop) - python_bound(start) != length) return Tensor();
  return window_positions(a.t, b.t, length, n);
}

static std::vector<int64_t> slice_positions(const Value& sl, int64_t n) {
  int64_t start, stop, step;
  slice_bounds(sl, n, &start, &stop, &step);
  std::vector<int64_t> out;
  if (step > 0)
    for (int64_t k = start; k < stop; k += step) out.push_back(k);
  else
    for (int64_t k = start; k > stop; k += step) out.push_back(k);
  return out;
}

namespace {

struct TensorIndexPlan {
  Tensor view;          // after basic indexing
  bool advanced = false;
};

bool is_index_tensor(const Value& v) {
  return v.tag == Tag::Tensor || (v.tag == Tag::List && !v.as<ListObj>()->items.empty());
}

Tensor index_tensor_of(const Value& v) {
  if (v.tag == Tag::Tensor) return v.t;
  return tensor_from_value(v, std::nullopt);
}

// Whether an index names each position at most once whatever its values: no bool mask,
// and no index tensor of more than one element (Note [An index a graph replays]).
bool names_each_once(const std::vector<Value>& idx) {
  for (const Value& i : idx) {
    if (!is_index_tensor(i)) continue;
    Tensor t = index_tensor_of(i);
    if (t.dtype() == DType::b8 || t.numel() > 1) return false;
  }
  return true;
}

// The flat positions where mask is nonzero, found on the host: a graph capture is told,
// since it cannot replay positions that come from values.
Tensor nonzero_flat(const Tensor& mask) {
  notify_value_read(mask, "indexing with a bool mask");
  std::vector<double> m = to_double_vector(mask);
  std::vector<double> idx;
  for (size_t k = 0; k < m.size(); ++k)
    if (m[k] != 0) idx.push_back(static_cast<double>(k));
  return tensor_from(idx, {static_cast<int64_t>(idx.size())}, DType::i64);
}

// A bool mask's dims must be the dims it indexes, from `dim` on.
void check_mask_shape(const Tensor& mask, const Tensor& x, int64_t dim) {
  for (int64_t k = 0; k < mask.dim(); ++k)
    if (dim + k >= x.dim() || mask.size(k) != x.size(dim + k))
      fail("mask of shape " + mask.shape_str() + " does not match the indexed dims of tensor of shape " +
           x.shape_str() + " (dim " + std::to_string(dim + k) + ": " + std::to_string(mask.size(k)) + " vs " +
           (dim + k < x.dim() ? std::to_string(x.size(dim + k)) : std::string("none")) + ")");
}

// One of several index tensors (Note [Advanced indexing]): recorded against dim (a
// mask's dims flattened into one, indexed by its nonzero positions), to be taken with
// the others at the end. Returns the next dim.
int64_t collect_advanced(Tensor& x, int64_t dim, const Tensor& t, std::vector<AdvancedIndex>& adv) {
  if (t.dtype() == DType::b8) {
    check_mask_shape(t, x, dim);
    const int64_t md = t.dim();
    x = md == 0 ? unsqueeze(x, dim) : md == 1 ? x : flatten(x, dim, dim + md - 1);
    adv.push_back({dim, nonzero_flat(t)});
    return dim + 1;
  }
  if (is_floating(t.dtype()))
    fail("tensors used as indices must be integer or bool tensors, got " + std::string(dtype_name(t.dtype())));
  adv.push_back({dim, t});
  return dim + 1;
}

Tensor index_tensor(const Tensor& x0, const std::vector<Value>& idx) {
  Tensor x = x0;
  int64_t consumed = 0;
  int advanced = 0;
  bool has_ellipsis = false;
  for (auto& v : idx) {
    if (v.is_none()) continue;
    if (is_ellipsis(v)) {
      if (has_ellipsis) fail("an index can only have a single ellipsis ('...')");
      has_ellipsis = true;
      continue;
    }
    if (is_slice(v)) {
      ++consumed;
    } else if (is_index_tensor(v)) {
      Tensor t = index_tensor_of(v);
      consumed += t.dtype() == DType::b8 ? std::max<int64_t>(t.dim(), 0) : 1;
      if (t.dim() > 0 || t.dtype() == DType::b8) ++advanced;
    } else {
      ++consumed;
    }
  }
  if (consumed > x.dim())
    fail("too many indices for tensor of dimension " + std::to_string(x.dim()) + " (got " + std::to_string(consumed) + ")");
  std::vector<AdvancedIndex> several;  // with more than one index tensor, taken together at the end
  int64_t dim = 0;
  for (auto& v : idx) {
    if (v.is_none()) {
      x = unsqueeze(x, dim++);
    } else if (is_ellipsis(v)) {
      // x's dims are [dims made so far | original dims not yet indexed]; the items
      // after the ellipsis consume `consumed` of the latter.
      dim += x.dim() - dim - consumed;
      continue;
    } else if (Tensor at = is_slice(v) && dim < x.dim() ? window_of(v, x.size(dim)) : Tensor(); at.defined()) {
      Tensor gathered = index_select(x, dim, to_device(at, x.device()));  // Note [A window a graph replays]
      if (auto* capture = dynamic_cast<graph::Capture*>(op_observer()))
        capture->dynamic_view(gathered, x, gathered, write_through(x, dim, at, false));
      x = gathered;
      ++dim;
      --consumed;
    } else if (is_slice(v)) {
      int64_t n = x.size(dim);
      int64_t start, stop, step;
      slice_bounds(v, n, &start, &stop, &step);
      if (step < 0) fail("tensor slices need a positive step (got " + std::to_string(step) + ")");
      if (!(start == 0 && stop == n && step == 1)) x = slice(x, dim, start, stop, step);
      ++dim;
      --consumed;
    } else if (is_index_tensor(v)) {
      Tensor t = index_tensor_of(v);
      if (advanced > 1 && (t.dim() > 0 || t.dtype() == DType::b8)) {
        consumed -= t.dtype() == DType::b8 ? t.dim() : 1;
        dim = collect_advanced(x, dim, t, several);
      } else if (t.dtype() == DType::b8) {
        int64_t md = t.dim();
        check_mask_shape(t, x, dim);
        Tensor flat = md == 0 ? unsqueeze(x, dim) : md == 1 ? x : flatten(x, dim, dim + md - 1);
        x = index_select(flat, dim, to_device(nonzero_flat(t), x.device()));
        ++dim;
        consumed -= md;
      } else if (is_floating(t.dtype())) {
        fail("tensors used as indices must be integer or bool tensors, got " + std::string(dtype_name(t.dtype())));
      } else if (t.dim() == 0) {
        // A vmap-batched index holds one value per example, which the host cannot read:
        // it takes the ops, as a graph capture does (index_select checks the range).
        const bool batched = t.impl()->batched != nullptr;
        int64_t i = batched ? 0 : t.item_int();
        const int64_t n = x.size(dim);
        if ((op_observer() || batched) && i >= -n && i < n) {
          // A graph capture records the index as data (x[i] in a loop lowered to a scan),
          // a negative one wrapped by ops, so that it replays for any value.
          Tensor at = to_dtype(reshape(t, {1}), DType::i64);
          at = where(lt(at, int_scalar_tensor(0)), add(at, int_scalar_tensor(n)), at);
          Tensor gathered = index_select(x, dim, to_device(at, x.device()));
          Tensor taken = select(gathered, dim, 0);
          if (auto* capture = dynamic_cast<graph::Capture*>(op_observer()))  // Note [A view taken with a tensor index]
            capture->dynamic_view(gathered, x, taken, write_through(x, dim, at, true));
          x = taken;
        } else {
          notify_value_read(t, "an index");
          x = select(x, dim, wrap_index(i, x.size(dim), "tensor dim"));
        }
        --consumed;
      } else {
        Tensor flat_idx = t.dim() == 1 ? t : reshape(t, {t.numel()});
        const int64_t n = x.size(dim);
        // A vmap-batched index, or one a graph records, is wrapped by ops, so that each
        // example's values (or each replay's) are read as they are; eager reads it on the
        // host, exact as i64 (read as doubles, 2^53 + 1 was 2^53).
        const bool by_ops = t.impl()->batched || op_observer();
        if (by_ops) flat_idx = checked_positions(flat_idx, n, dim);
        std::vector<int64_t> iv = by_ops ? std::vector<int64_t>() : to_int64_vector(flat_idx);
        bool neg = false;
        for (int64_t d : iv) {
          if (d < -n || d >= n)
            fail("index " + std::to_string(d) + " is out of range for dim " + std::to_string(dim) + " of size " +
                 std::to_string(n));
          neg |= d < 0;
        }
        if (neg) {
          std::vector<double> wrapped;
          for (int64_t d : iv) wrapped.push_back(static_cast<double>(d < 0 ? d + n : d));
          flat_idx = tensor_from(wrapped, {static_cast<int64_t>(iv.size())}, DType::i64);
        }
        Tensor r = index_select(x, dim, to_device(flat_idx, x.device()));  // indices checked on the host
        if (t.dim() != 1) {
          std::vector<int64_t> shape;
          for (int64_t k = 0; k < dim; ++k) shape.push_back(x.size(k));
          for (int64_t k = 0; k < t.dim(); ++k) shape.push_back(t.size(k));
          for (int64_t k = dim + 1; k < x.dim(); ++k) shape.push_back(x.size(k));
          r = reshape(r, shape);
        }
        x = r;
        dim += t.dim();
        --consumed;
      }
    } else {
      int64_t i = index_int(v, "tensor");
      if (dim >= x.dim()) fail("too many indices for tensor of dimension " + std::to_string(x0.dim()));
      x = select(x, dim, wrap_index(i, x.size(dim), ("dim " + std::to_string(dim) + " of a tensor").c_str()));
      --consumed;
    }
  }
  return several.empty() ? x : take_advanced(x, several);
}


}  // namespace

Value index_value(Evaluator& ev, const Value& obj, const std::vector<Value>& idx) {
  switch (obj.tag) {
    case Tag::Tensor: return Value::tensor(index_tensor(obj.t, idx));
    case Tag::Instance:  // a model with a __getitem__ method (nn.Sequential)
      if (obj.as<InstanceObj>()->cls->info->methods.count("__getitem__")) {
        CallArgs args;
        args.pos = idx;
        return ev.call_method(obj, "__getitem__", args);
      }
      fail(std::string("'") + type_name(obj) + "' object is not subscriptable");
    case Tag::List:
    case Tag::Tuple:
    case Tag::Str:
    case Tag::Range: {
      if (idx.size() != 1) fail(std::string(type_name(obj)) + " indices must be a single int or slice");
      const Value& i = idx[0];
      if (obj.tag == Tag::Range) {
        auto* r = obj.as<RangeObj>();
        int64_t k = wrap_index(index_int(i, "range"), r->size(), "range");
        return Value::integer(r->at(k));
      }
      if (obj.tag == Tag::Str) {  // by character (code point), as Python's
        const std::string& s = obj.as<StrObj>()->s;
        const std::vector<size_t> at = utf8_starts(s);
        const int64_t n = static_cast<int64_t>(at.size()) - 1;
        auto character = [&](int64_t k) { return s.substr(at[static_cast<size_t>(k)], at[static_cast<size_t>(k) + 1] - at[static_cast<size_t>(k)]); };
        if (is_slice(i)) {
          std::string out;
          for (int64_t k : slice_positions(i, n)) out += character(k);
          return make_str(std::move(out));
        }
        return make_str(character(wrap_index(index_int(i, "string"), n, "str")));
      }
      auto& items = obj.as<ListObj>()->items;
      if (is_slice(i)) {
        std::vector<Value> out;
        for (int64_t k : slice_positions(i, static_cast<int64_t>(items.size()))) out.push_back(items[static_cast<size_t>(k)]);
        return obj.tag == Tag::List ? make_list(std::move(out)) : make_tuple(std::move(out));
      }
      int64_t k = wrap_index(index_int(i, type_name(obj)), static_cast<int64_t>(items.size()), type_name(obj));
      return items[static_cast<size_t>(k)];
    }
    case Tag::Dict: {
      if (idx.size() != 1) fail("dict keys must be a single value (use a tuple key: d[(a, b)])");
      Value* v = obj.as<DictObj>()->find(idx[0]);
      if (!v) fail("key " + repr(idx[0]) + " not found in dict");
      return *v;
    }
    default: fail(std::string("'") + type_name(obj) + "' object is not subscriptable");
  }
}

namespace {

// Whether `value`'s shape broadcasts to `shape` (trailing dims equal or 1).
bool broadcasts_to(const Tensor& value, const std::vector<int64_t>& shape) {
  if (value.dim() > static_cast<int64_t>(shape.size())) return false;
  for (int64_t k = 1; k <= value.dim(); ++k) {
    int64_t have = value.size(value.dim() - k), want = shape[shape.size() - static_cast<size_t>(k)];
    if (have != 1 && have != want) return false;
  }
  return true;
}

// The dim of x that idx's one 0-dim integer tensor indexes, its other entries being
// whole slices and at most one ellipsis; -1 when idx is not of that form.
int64_t step_index_dim(const Tensor& x, const std::vector<Value>& idx) {
  int64_t dim = -1, d = 0;
  bool ellipsis = false;
  for (const Value& v : idx) {
    if (is_ellipsis(v)) {
      if (ellipsis) return -1;
      ellipsis = true;
      d += x.dim() - static_cast<int64_t>(idx.size() - 1);
      continue;
    }
    if (d >= x.dim()) return -1;
    if (is_slice(v) && traced_bound(v)) return -1;  // a window (Note [A window a graph replays])
    if (is_slice(v)) {
      int64_t start, stop, step;
      slice_bounds(v, x.size(d), &start, &stop, &step);
      if (start != 0 || stop != x.size(d) || step != 1) return -1;
    } else if (v.tag == Tag::Tensor && v.t.dim() == 0 && !is_floating(v.t.dtype()) && v.t.dtype() != DType::b8 &&
               dim < 0) {
      dim = d;
    } else {
      return -1;
    }
    ++d;
  }
  return dim;
}

// Note [An index a graph replays] (advanced_indexing.cpp): inside a capture,
// x[..., t, ...] = v with one 0-dim integer tensor t and whole slices elsewhere
// (out[t] = h, out[:, t] = h in a loop's body) is where(t's place along its dim, v, x):
// one elementwise pass, which fuses and can run in place, where the general path
// gathers and scatters over all of x. An index out of range when the graph replays
// is an error, as in eager: the position goes through an index_select, which checks it. False when idx is not of that
// form or v does not fit (the general path names the error).
bool put_at_step(const Tensor& x, const std::vector<Value>& idx, const Tensor& src) {
  if (!op_observer()) return false;
  const int64_t dim = step_index_dim(x, idx);
  if (dim < 0) return false;
  const Tensor& t = idx[static_cast<size_t>(std::find_if(idx.begin(), idx.end(), [](const Value& v) {
                      return v.tag == Tag::Tensor;
                    }) - idx.begin())].t;
  const int64_t n = x.size(dim), i = t.item_int();
  std::vector<int64_t> rest = x.sizes().vec();
  rest.erase(rest.begin() + dim);
  const Tensor value = drop_leading_ones(to_dtype(src, x.dtype()), static_cast<int64_t>(rest.size()));
  if (i < -n || i >= n || !broadcasts_to(value, rest)) return false;
  Tensor at = to_device(to_dtype(t, DType::i64), x.device());
  at = where(lt(at, int_scalar_tensor(0)), add(at, int_scalar_tensor(n)), at);
  at = reshape(index_select(arange(n, DType::i64, x.device()), 0, reshape(at, {1})), {});
  std::vector<int64_t> along(static_cast<size_t>(x.dim()), 1);
  along[static_cast<size_t>(dim)] = n;
  Tensor place = eq(reshape(arange(n, DType::i64, x.device()), along), at);
  Tensor spread = unsqueeze(expand(value, rest), dim);
  Tensor target = x;
  copy_(target, where(place, spread, x));
  return true;
}

// Note [A mask a graph replays]
// x[..., mask, ...] = v reads the mask's true places on the host, which a graph cannot
// replay. When v holds no value per true place (it broadcasts to the indexed result
// with size 1, or nothing, where the mask's count of true places stands), the write
// does not need the places: it is where(mask, v, x) over the view the index takes with
// the mask's dims kept whole, written back through those positions, which each
// appear once (Note [An index a graph replays]). Only inside a capture; eager keeps
// writing just the true places. False when idx has another index tensor, or v holds a
// value per true place (the general path refuses it as a value read).
bool put_through_mask(const Tensor& x, const std::vector<Value>& idx, const Tensor& src) {
  if (!op_observer()) return false;
  int64_t at = -1, consumed = 0;
  for (size_t k = 0; k < idx.size(); ++k) {
    const Value& v = idx[k];
    if (is_index_tensor(v)) {
      if (at >= 0 || v.tag != Tag::Tensor || v.t.dtype() != DType::b8) return false;
      at = static_cast<int64_t>(k);
      consumed += v.t.dim();
    } else if (!v.is_none() && !is_ellipsis(v)) {
      ++consumed;
    }
  }
  if (at < 0 || consumed > x.dim()) return false;
  const Tensor& mask = idx[static_cast<size_t>(at)].t;
  // The dim of x where the mask starts, and the dim of the indexed result where its
  // true places stand.
  int64_t x_dim = 0, out_dim = 0;
  for (int64_t k = 0; k < at; ++k) {
    const Value& v = idx[static_cast<size_t>(k)];
    const int64_t spans = is_ellipsis(v) ? x.dim() - consumed : 1;  // the dims it stands for
    if (!v.is_none()) x_dim += spans;
    if (v.is_none() || is_ellipsis(v) || is_slice(v)) out_dim += spans;  // an int drops its dim
  }
  check_mask_shape(mask, x, x_dim);
  std::vector<Value> whole = idx;  // the mask's dims kept whole
  whole.erase(whole.begin() + at);
  for (int64_t k = 0; k < mask.dim(); ++k)
    whole.insert(whole.begin() + at, make_slice_value(Value::none(), Value::none(), Value::none()));
  const Tensor view = index_tensor(x, whole);
  const int64_t m = mask.dim(), rank = view.dim() - m + 1;  // the result's rank, true places as one dim
  Tensor value = drop_leading_ones(to_dtype(src, x.dtype()), rank);
  if (value.dim() > rank) return false;
  std::vector<int64_t> padded(static_cast<size_t>(rank - value.dim()), 1);
  for (int64_t k = 0; k < value.dim(); ++k) padded.push_back(value.size(k));
  if (padded[static_cast<size_t>(out_dim)] != 1) return false;  // a value per true place
  padded.erase(padded.begin() + out_dim);
  padded.insert(padded.begin() + out_dim, static_cast<size_t>(m), 1);
  value = reshape(value, padded);
  if (!broadcasts_to(value, view.sizes().vec())) return false;
  std::vector<int64_t> mask_shape(static_cast<size_t>(out_dim), 1);
  for (int64_t k = 0; k < m; ++k) mask_shape.push_back(mask.size(k));
  mask_shape.resize(static_cast<size_t>(view.dim()), 1);
  const Tensor kept = where(reshape(to_device(mask, x.device()), mask_shape), value, view);
  put_indexed(x, kept, [&](const Tensor& positions) { return index_tensor(positions, whole); }, true);
  return true;
}

}  // namespace

void assign_index(Evaluator& ev, const Value& obj, const std::vector<Value>& idx, const Value& v) {
  switch (obj.tag) {
    case Tag::Instance:  // a model with a __setitem__ method, as Python's obj[k] = v
      if (obj.as<InstanceObj>()->cls->info->methods.count("__setitem__")) {
        CallArgs args;
        args.pos = idx;
        args.pos.push_back(v);
        ev.call_method(obj, "__setitem__", args);
        return;
      }
      fail(std::string("'") + type_name(obj) + "' object does not support item assignment");
    case Tag::List: {
      if (idx.size() != 1) fail("list indices must be a single int or slice");
      check_change_in_compiled(*obj.as<ListObj>(), "assign an item of a list");  // Note [Objects changed inside a lowered region]
      auto& items = obj.as<ListObj>()->items;
      if (is_slice(idx[0])) {
        int64_t start, stop, step;
        slice_bounds(idx[0], static_cast<int64_t>(items.size()), &start, &stop, &step);
        if (step != 1) fail("slice assignment to a list needs step 1");
        std::vector<Value> src;
        if (v.tag == Tag::List || v.tag == Tag::Tuple) src = v.as<ListObj>()->items;
        else fail(std::string("can only assign a list or tuple to a list slice, got ") + type_name(v));
        items.erase(items.begin() + start, items.begin() + stop);
        obj.as<ListObj>()->reserve_items(src.size());  // Note [Host memory budget]
        items.insert(items.begin() + start, src.begin(), src.end());
        return;
      }
      int64_t k = wrap_index(index_int(idx[0], "list"), static_cast<int64_t>(items.size()), "list");
      items[static_cast<size_t>(k)] = v;
      return;
    }
    case Tag::Dict: {
      if (idx.size() != 1) fail("dict keys must be a single value");
      const Value& key = idx[0];
      check_dict_key(key);
      check_change_in_compiled(*obj.as<DictObj>(), "set a key of a dict");
      obj.as<DictObj>()->set(key, v);
      return;
    }
    case Tag::Tensor: {
      Tensor x = obj.t;
      bool has_tensor_index = false, has_window = false;
      for (auto& i : idx) has_tensor_index |= is_index_tensor(i);
      for (auto& i : idx) has_window |= is_slice(i) && traced_bound(i);
      // A number must fit (Note [A number into a dtype]); a tensor is copied with a cast, as
      // PyTorch's index assignment does (and reading its value would stop a graph capture).
      if (v.tag != Tag::Tensor) check_fits_dtype(v, x.dtype(), "tensor assignment");
      Tensor src = to_tensor_arg(v, "tensor assignment");
      if (has_tensor_index && !op_observer() && !transforms::any_level_visible()) {
        // Eager, a 0-dim integer index tensor is an int, as PyTorch reads it: the write
        // then costs the part it writes, not a pass over x.
        std::vector<Value> ints = idx;
        bool all = true;
        for (Value& i : ints)
          if (is_index_tensor(i)) {
            all = all && i.tag == Tag::Tensor && i.t.dim() == 0 && !is_floating(i.t.dtype()) && i.t.dtype() != DType::b8;
            if (all) i = Value::integer(i.t.item_int());
          }
        if (all) return assign_index(ev, obj, ints, v);
      }
      if (has_tensor_index) {
        if (idx.size() == 1) {
          Tensor m = index_tensor_of(idx[0]);
          // A mask of x's whole shape and one value: where() (the value broadcasts to the
          // true places either way; a value per true place goes through put_indexed).
          if (m.dtype() == DType::b8 && m.dim() == x.dim() && src.dim() == 0) {
            bool same = true;
            for (int64_t k = 0; k < m.dim(); ++k) same &= m.size(k) == x.size(k);
            if (same) {
              Tensor filled = where(m, to_dtype(src, x.dtype()), x);
              copy_(x, filled);
              return;
            }
          }
        }
        if (put_at_step(x, idx, src) || put_through_mask(x, idx, src)) return;
        put_indexed(x, src, [&](const Tensor& positions) { return index_tensor(positions, idx); }, names_each_once(idx));
        return;
      }
      if (has_window) {  // Note [A window a graph replays]: the positions it takes, by ops
        put_indexed(x, src, [&](const Tensor& positions) { return index_tensor(positions, idx); }, true);
        return;
      }
      // With gradients, x's history must take the write: a copy_ into the view would
      // leave it out, so gradients reached neither src (out[:, :k] = h) nor x. Eager,
      // the part is written in place and x takes PyTorch's CopySlices (Note [A write
      // into part of a tensor with gradients]); a capture or a transform writes x whole.
      if (grad_enabled() && (x.requires_grad() || src.requires_grad())) {
        if (!op_observer() && !transforms::any_level_visible()) {
          const std::vector<Value> part = idx;
          int64_t dims;
          {
            NoGradGuard quiet;  // only its rank: no history for x
            dims = index_tensor(x, idx).dim();
          }
          write_into_part(x, to_dtype(drop_leading_ones(src, dims), x.dtype()),
                          [part](const Tensor& t) { return index_tensor(t, part); });
          return;
        }
        put_indexed(x, src, [&](const Tensor& positions) { return index_tensor(positions, idx); }, true);
        return;
      }
      Tensor view = index_tensor(x, idx);
      const Tensor fitted = drop_leading_ones(src, view.dim());
      copy_(view, fitted.dim() <= view.dim() ? fitted : src);  // a misfit named by its own shape
      return;
    }
    case Tag::Tuple: fail("'tuple' object does not support item assignment");
    case Tag::Str: fail("'str' object does not support item assignment");
    default: fail(std::string("'") + type_name(obj) + "' object does not support item assignment");
  }
}
}  // namespace nabla::interp
