// Tensor indexing with several index tensors (x[rows, cols], x[:, i, j], x[mask, k]) and
// assignment through any tensor index (x[idx] = v, x[rows, cols] = v, x[:, mask] = 0).
//
// Note [Advanced indexing]
// PyTorch's (and NumPy's) rule, read as PyTorch runs it: ints, slices, none and ...
// index first, as views; every index tensor is then an "advanced" index into one dim
// of that view (a bool mask of k dims into those k dims flattened, by its nonzero
// positions). The advanced indices broadcast together to one shape B, and the result
// is the view's other dims with B in place of the indexed ones: where the indexed dims
// are next to each other, B stands where they stood; otherwise B comes first.
// Reading: the indexed dims are permuted to the front and flattened into one, each
// element's position in that flat dim is computed from its indices (tensor ops, so a
// graph records them), and one index_select gathers along it: gradients (and grad of
// grad) come from index_select's rule.
// Assignment: the flat position in x of every element the index reaches is found by
// indexing a tensor of positions (0 .. numel - 1, x's shape) the same way, so every
// kind of index is read by the one code path above. The value broadcasts to the
// indexed shape. Eager with no gradient, the values are stored at their positions;
// otherwise x becomes where(written, value at the last write of each position, x),
// written back with copy_ (autograd's in-place rules, views included). A position the
// index names twice takes the last value, as PyTorch's CPU index_put_ does. Eager
// reads the positions on the host; a graph capture finds the last write by ops (Note
// [An index a graph replays]). Finding the positions indexes an i64 tensor of x's
// size: a loop that assigns one element at a time should index with ints instead.
#include <algorithm>
#include <string>
#include <vector>

#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "autograd/trace.hpp"
#include "autograd/transforms/levels.hpp"
#include "graph/capture.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/values/advanced_indexing.hpp"

namespace nabla::interp {

namespace {

std::string shape_text(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t k = 0; k < s.size(); ++k) out += (k ? ", " : "") + std::to_string(s[k]);
  return out + "]";
}

// The shape the index tensors broadcast to, or PyTorch's error naming theirs.
std::vector<int64_t> broadcast_indices(const std::vector<AdvancedIndex>& adv) {
  std::vector<int64_t> shape;
  for (const AdvancedIndex& a : adv) {
    std::vector<int64_t> s = a.index.sizes().vec();
    if (s.size() > shape.size()) shape.insert(shape.begin(), s.size() - shape.size(), 1);
    for (size_t k = 0; k < s.size(); ++k) {
      int64_t& have = shape[shape.size() - s.size() + k];
      if (have == 1) have = s[k];
      else if (s[k] != 1 && s[k] != have) {
        std::string shapes;
        for (const AdvancedIndex& b : adv) shapes += (shapes.empty() ? "" : ", ") + b.index.shape_str();
        fail("shape mismatch: indexing tensors could not be broadcast together with shapes " + shapes);
      }
    }
  }
  return shape;
}

}  // namespace

Tensor checked_positions(const Tensor& index, int64_t n, int64_t dim) {
  // A vmap-batched index holds each example's values, which the host cannot read:
  // index_select checks them as it gathers.
  if (!index.impl()->batched)
    for (int64_t v : to_int64_vector(index))
      if (v < -n || v >= n)
        fail("index " + std::to_string(v) + " is out of range for dim " + std::to_string(dim) + " of size " +
             std::to_string(n));
  // Wrapped by ops, whatever the values now, so that a graph replays it for other ones.
  Tensor i64 = to_dtype(to_device(index, cpu_device()), DType::i64);
  Tensor wrapped = where(lt(i64, int_scalar_tensor(0)), add(i64, int_scalar_tensor(n)), i64);
  // A graph checks the range when it replays: several indices' positions are summed
  // into one flat position, which could land in range when one of them is not.
  if (op_observer()) wrapped = reshape(index_select(arange(n), 0, reshape(wrapped, {-1})), wrapped.sizes().vec());
  return wrapped;
}

namespace {

// x[pos[k]] = values[k] in order, into x's memory, where nothing else must see the write
// as an op: eager (no graph capture, no function transform), no gradient through x or
// the values, a contiguous CPU tensor. A write of k values then costs k stores, not a
// pass over x (an embedding row zeroed in a 38M-element weight).
bool write_directly(const Tensor& x, const Tensor& values, const std::vector<int64_t>& pos) {
  const bool autograd = grad_enabled() && (x.requires_grad() || values.requires_grad());
  if (autograd || op_observer() || transforms::any_level_visible() || x.device() != cpu_device() ||
      !x.is_contiguous() || x.impl()->batched || x.impl()->lifted)
    return false;
  Tensor from = contiguous(to_device(values, cpu_device()));
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* to = static_cast<T*>(x.raw_data());
    const T* v = static_cast<const T*>(from.raw_data());
    for (size_t k = 0; k < pos.size(); ++k) to[pos[k]] = v[k];
  });
  x.bump_version();  // as an in-place op does: autograd's saved copies of x see the change
  return true;
}

// Whether positions pos write each of x's n elements once, in order.
bool every_position_in_order(const std::vector<int64_t>& pos, int64_t n) {
  if (static_cast<int64_t>(pos.size()) != n) return false;
  for (size_t k = 0; k < pos.size(); ++k)
    if (pos[k] != static_cast<int64_t>(k)) return false;
  return true;
}

bool next_to_each_other(const std::vector<AdvancedIndex>& adv) {
  for (size_t k = 1; k < adv.size(); ++k)
    if (adv[k].dim != adv[k - 1].dim + 1) return false;
  return true;
}

}  // namespace

Tensor take_advanced(const Tensor& x, const std::vector<AdvancedIndex>& adv) {
  const std::vector<int64_t> B = broadcast_indices(adv);
  // The indexed dims first, then the others, in order.
  std::vector<int64_t> order, rest_shape;
  for (const AdvancedIndex& a : adv) order.push_back(a.dim);
  for (int64_t d = 0; d < x.dim(); ++d)
    if (std::none_of(adv.begin(), adv.end(), [&](const AdvancedIndex& a) { return a.dim == d; })) {
      order.push_back(d);
      rest_shape.push_back(x.size(d));
    }
  // An element's position in the indexed dims flattened: sum of index * stride.
  Tensor flat;
  int64_t stride = 1;
  for (size_t k = adv.size(); k-- > 0;) {
    const int64_t n = x.size(adv[k].dim);
    Tensor term = checked_positions(adv[k].index, n, adv[k].dim);
    term = stride == 1 ? term : mul(term, int_scalar_tensor(stride));
    flat = flat.defined() ? add(flat, term) : term;
    stride *= n;
  }
  flat = reshape(expand(flat, IntList(B.begin(), B.end())), {-1});
  std::vector<int64_t> front{stride};
  front.insert(front.end(), rest_shape.begin(), rest_shape.end());
  Tensor gathered = index_select(reshape(permute(x, IntList(order.begin(), order.end())), IntList(front.begin(), front.end())),
                                 0, to_device(flat, x.device()));
  std::vector<int64_t> shape = B;
  shape.insert(shape.end(), rest_shape.begin(), rest_shape.end());
  Tensor r = reshape(gathered, IntList(shape.begin(), shape.end()));
  const int64_t first = adv.front().dim;
  if (!next_to_each_other(adv) || first == 0) return r;
  // B back where the indexed dims stood: [rest before | B | rest after].
  std::vector<int64_t> back;
  const int64_t nb = static_cast<int64_t>(B.size());
  for (int64_t k = 0; k < first; ++k) back.push_back(nb + k);
  for (int64_t k = 0; k < nb; ++k) back.push_back(k);
  for (int64_t k = nb + first; k < static_cast<int64_t>(shape.size()); ++k) back.push_back(k);
  return permute(r, IntList(back.begin(), back.end()));
}

// Note [A window a graph replays]
// `x[t:t+w]`, `x[:, i-1:i+2]` or `x.narrow(0, t, w)` with t a 0-dim tensor that a capture
// traces (a lowered loop's step, a counter a while_loop carries, an argument): reading t's
// value would bake it into the graph, so the window was refused and a loop around it
// unrolled. When its length is the same at every call (the stop is the start plus or
// minus numbers fixed in the graph, graph::Capture::fixed_distance; narrow's length is a
// number), the window is an index_select of positions made by ops, start + arange(w),
// as lax.dynamic_slice takes a traced start with a static size:
//  - a slice's bounds are read as eager reads them: negative from the end, then
//    clamped to [0, n]; narrow's start from the end when negative;
//  - its gradient is index_select's, the gradient scattered into zeros at the window;
//  - an assignment through it (y[t:t+w] = v) writes those positions (put_indexed, Note
//    [An index a graph replays]); a write into the taken window (y[t:t+w].zero_()) is
//    refused, as for y[i] (Note [A view taken with a tensor index]);
//  - where eager's window would not have w elements at a replay (x[3:6] of 5 rows has 2;
//    narrow fails there), the graph cannot change its shape: the positions are n, and
//    the replay fails with an error that names the window's line and says it ran past
//    the end (graph/executor.cpp's past_the_end). JAX's lax.dynamic_slice clamps the
//    start instead (x[2:5] for x[3:6]), which keeps the shape but returns other rows
//    than eager's, silently; an error is what a program here gets where the graph
//    cannot give eager's values.
// A slice whose length depends on a bound's value (y[i:], y[:i], y[i:2*i]) stays a value
// read, refused at its line (a loop around it unrolls, and explain() says why).
namespace {

Tensor bound_from_end(const Tensor& b, int64_t n) {
  Tensor i = to_dtype(reshape(to_device(b, cpu_device()), {}), DType::i64);
  return where(lt(i, int_scalar_tensor(0)), add(i, int_scalar_tensor(n)), i);
}

Tensor clamped(const Tensor& i, int64_t n) { return maximum(minimum(i, int_scalar_tensor(n)), int_scalar_tensor(0)); }

}  // namespace

Tensor window_positions(const Tensor& start, const Tensor& stop, int64_t length, int64_t n) {
  Tensor from = bound_from_end(start, n), fits;
  if (stop.defined()) {
    from = clamped(from, n);
    fits = eq(sub(clamped(bound_from_end(stop, n), n), from), int_scalar_tensor(length));
  } else {
    fits = eq(clamped(from, n - length), from);  // 0 <= from <= n - length
  }
  Tensor at = add(arange(length, DType::i64), from);
  return where(fits, at, int_scalar_tensor(n));
}

std::function<void(const Tensor&)> write_through(const Tensor& x, int64_t dim, const Tensor& at, bool one) {
  return [x, dim, at, one](const Tensor& value) {
    put_indexed(x, value, [&](const Tensor& positions) {
      Tensor taken = index_select(positions, dim, to_device(at, positions.device()));
      return one ? select(taken, dim, 0) : taken;
    }, true);
  };
}

Tensor narrow_window(const Tensor& x, int64_t dim, const Tensor& start, int64_t length) {
  auto* capture = dynamic_cast<graph::Capture*>(op_observer());
  if (!capture || start.dim() != 0 || is_floating(start.dtype()) || start.dtype() == DType::b8 ||
      !capture->traced(start) || length < 0)
    return Tensor();
  const int64_t n = x.size(dim), s = start.item_int(), from = s < 0 ? s + n : s;
  if (from < 0 || from > n || length > n - from) return Tensor();  // eager's error, now
  Tensor at = window_positions(start, Tensor(), length, x.size(dim));
  Tensor gathered = index_select(x, dim, to_device(at, x.device()));
  capture->dynamic_view(gathered, x, gathered, write_through(x, dim, at, false));  // Note [A view taken with a tensor index]
  return gathered;
}

Tensor drop_leading_ones(const Tensor& value, int64_t dims) {
  int64_t drop = 0;
  while (value.dim() - drop > dims && value.size(drop) == 1) ++drop;
  if (drop == 0) return value;
  const std::vector<int64_t> sizes = value.sizes().vec();
  return reshape(value, IntList(sizes.begin() + drop, sizes.end()));
}

// Note [An index a graph replays]
// Finding, on the host, which value each position of x takes last is how eager honours
// an index that names a position twice (PyTorch's CPU index_put_), but a graph capture
// cannot replay it: the positions would be baked in, so `out[:, i] = h` with the step's
// index i inside a lowered loop, or `y[idx] = 0` with an index the function was given,
// were refused. A capture (and vmap, whose positions differ per example) gets ops
// instead. Which of the k writes is the last at its position: a stable sort of the
// positions puts each position's writes in their order, and a write is the last where
// the next sorted position differs. When the index names each position at most once by
// construction (ints, slices, a 0-dim step index) every write is the last and the sort
// is skipped. A scatter_add of 1 + k over the last writes gives each position of x its
// source (0: not written), and x becomes where(written, index_select(values, source), x),
// which replays for any index values and is differentiable as those ops are.
namespace {

// 1 where write k is the last one at its position, 0 where a later write overwrites it.
Tensor last_at_position(const Tensor& at) {
  const int64_t k = at.numel();
  Tensor sorted, order;
  std::tie(sorted, order) = sort(at, 0, /*descending=*/false, /*stable=*/true);
  Tensor next_differs = cat({ne(slice(sorted, 0, 1, k), slice(sorted, 0, 0, k - 1)), ones({1}, DType::b8, at.device())}, 0);
  return scatter_add(zeros({k}, DType::i64, at.device()), 0, order, to_dtype(next_differs, DType::i64));
}

}  // namespace

Tensor put_flat(const Tensor& x, const Tensor& values, const Tensor& positions, bool each_once) {
  const Tensor at = to_device(reshape(positions, {-1}), x.device());
  const int64_t k = at.numel();
  if (k == 0) return x;
  Tensor ids = add(arange(k, DType::i64, x.device()), int_scalar_tensor(1));
  if (!each_once && k > 1) ids = mul(ids, last_at_position(at));
  Tensor pick = scatter_add(zeros({x.numel()}, DType::i64, x.device()), 0, at, ids);
  Tensor written = gt(pick, int_scalar_tensor(0));
  Tensor source = where(written, sub(pick, int_scalar_tensor(1)), pick);
  Tensor chosen = reshape(index_select(reshape(values, {-1}), 0, source), x.sizes().vec());
  return where(reshape(written, x.sizes().vec()), chosen, x);
}

void put_indexed(const Tensor& x, const Tensor& value_in, const IndexPositions& positions_of, bool each_once) {
  // Where each element the index reaches sits in x, flat.
  Tensor positions = positions_of(reshape(arange(x.numel(), DType::i64, x.device()), x.sizes().vec()));
  std::vector<int64_t> shape = positions.sizes().vec();
  const Tensor value = drop_leading_ones(value_in, static_cast<int64_t>(shape.size()));
  Shape vshape = value.sizes();
  bool fits = vshape.size() <= shape.size();
  for (size_t k = 0; fits && k < vshape.size(); ++k) {
    int64_t want = shape[shape.size() - vshape.size() + k];
    fits = vshape[k] == 1 || vshape[k] == want;
  }
  if (!fits)
    fail("shape mismatch: value tensor of shape " + value.shape_str() + " cannot be broadcast to indexing result of shape " +
         shape_text(shape));
  Tensor values = reshape(expand(to_dtype(value, x.dtype()), IntList(shape.begin(), shape.end())), {-1});
  if (values.numel() == 0) return;  // an empty index writes nothing
  // A graph (unless the positions are the same at every call: the rows a scan stacked,
  // written back once after it), or vmap's per-example positions.
  auto* capture = dynamic_cast<graph::Capture*>(op_observer());
  if (positions.impl()->batched || (op_observer() && !(capture && capture->fixed_values(positions)))) {
    Tensor target = x;
    copy_(target, put_flat(x, values, positions, each_once));
    return;
  }
  // For each position of x, the last value written there (PyTorch's CPU order): found on
  // the host, so a graph capture is told, as for a mask's positions.
  notify_value_read(positions, "assignment through an index tensor");
  std::vector<int64_t> pos = to_int64_vector(positions);
  if (write_directly(x, values, pos)) return;
  Tensor target = x;
  if (every_position_in_order(pos, x.numel())) {  // x[:] = v, out[arange(n)] = rows: the values are x
    copy_(target, reshape(values, x.sizes().vec()));
    return;
  }
  std::vector<int64_t> source(static_cast<size_t>(x.numel()), -1);
  for (size_t k = 0; k < pos.size(); ++k) source[static_cast<size_t>(pos[k])] = static_cast<int64_t>(k);
  std::vector<double> written(source.size()), pick(source.size());
  for (size_t p = 0; p < source.size(); ++p) {
    written[p] = source[p] >= 0;
    pick[p] = static_cast<double>(std::max<int64_t>(source[p], 0));
  }
  Tensor mask = to_device(tensor_from(written, x.sizes(), DType::b8), x.device());
  Tensor chosen = index_select(values, 0, to_device(tensor_from(pick, {x.numel()}, DType::i64), x.device()));
  Tensor updated = where(mask, reshape(chosen, x.sizes().vec()), x);
  copy_(target, updated);
}

}  // namespace nabla::interp
