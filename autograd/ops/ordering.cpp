// Rows of the scans, ordering and indexing ops: cumsum, cumprod, sort, topk, flip,
// roll, tril, triu, masked_fill, repeat, one_hot, multinomial (kernels in
// tensor/cpu/ordering.cpp and tensor/cuda/ordering.cu), and the composites argsort and
// repeat_interleave. Backward rules use only table ops, so they are differentiable
// again: sort and topk scatter the gradient back where their indices say, flip, roll,
// tril, triu and masked_fill apply themselves to the gradient, repeat sums the copies.
#include <algorithm>
#include <cmath>

#include "autograd/cost.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/ops/common.hpp"
#include "autograd/transforms/levels.hpp"

namespace nabla {

namespace {

std::string str(int64_t v) { return std::to_string(v); }
std::string ints_str(const IntList& v) { return shape_str(Shape(v)); }

// The size of dim d (already wrapped) of x; a 0-dim tensor has one element along dim 0.
int64_t size_along(const Tensor& x, int64_t d) { return x.dim() == 0 ? 1 : x.sizes()[d]; }

// ---- cumsum(x; dim), cumprod(x; dim) ----

// Integers and bools accumulate in i64, as PyTorch's.
std::vector<TensorMeta> infer_scan(const char* op, const TensorList& in, const Attrs& a) {
  wrap_dim(a.i("dim"), in[0].dim(), op);
  return one(in[0].sizes(), is_floating(in[0].dtype()) ? in[0].dtype() : DType::i64);
}
std::vector<TensorMeta> infer_cumsum(const TensorList& in, const Attrs& a) { return infer_scan("cumsum", in, a); }
std::vector<TensorMeta> infer_cumprod(const TensorList& in, const Attrs& a) { return infer_scan("cumprod", in, a); }

// The sum from each position to the end along dim.
Tensor reverse_cumsum(const Tensor& g, int64_t dim) {
  if (g.dim() == 0) return g;
  return flip(cumsum(flip(g, {dim}), dim), {dim});
}

TensorList backward_cumsum(BackwardContext& c) { return {reverse_cumsum(c.grad(), c.attrs().i("dim"))}; }

// Note [cumprod with zeros]
// Without zeros, d out_j / d x_i = out_j / x_i for j >= i, so the gradient is
// reverse_cumsum(g * out) / x. A zero makes that 0/0. With zeros the rule builds, for
// every i, the products with x_i left out, P[i, j] = prod_{k <= j, k != i} x_k (a
// cumprod of x with its i-th element set to 1), and sums g_j P[i, j] over j >= i:
// exact at zeros, as PyTorch's, and made of ops again (its own backward is cumprod's),
// at the price of an [n, n] block per row. Which form is decided when the backward
// runs, by looking at x; either is the derivative where it is used.
Tensor cumprod_backward_with_zeros(const Tensor& x, const Tensor& g, int64_t dim) {
  int64_t last = x.dim() - 1;
  Tensor xt = transpose(x, dim, last), gt = transpose(g, dim, last);
  int64_t n = x.sizes()[dim];
  IntList square = xt.sizes().vec();
  square.push_back(n);  // [..., i, k]
  Tensor pos = arange(n, DType::i64, x.device());
  Tensor row = reshape(pos, {n, 1}), col = reshape(pos, {1, n});
  Tensor spread = where(eq(row, col), wrapped_scalar(1.0), expand(unsqueeze(xt, -2), square));
  Tensor products = cumprod(spread, -1);  // P[..., i, j]
  Tensor terms = where(ge(col, row), products * unsqueeze(gt, -2), wrapped_scalar(0.0));
  return transpose(sum(terms, {-1}), dim, last);
}

// The tensor under vmap's wrappers: every example's values, which may be read.
const Tensor& every_example(const Tensor& t) {
  return t.impl()->batched ? every_example(t.impl()->batched->physical) : t;
}

TensorList backward_cumprod(BackwardContext& c) {
  Tensor x = c.input(0), g = c.grad();
  if (x.dim() == 0) return {g};
  int64_t dim = wrap_dim(c.attrs().i("dim"), x.dim(), "cumprod");
  bool has_zero;
  {
    // Inside vmap x is a wrapper whose values cannot be read (jacfwd and jvp of cumprod
    // under vmap failed here); a zero in any example takes the zero-safe form for all.
    NoGradGuard no_grad;
    has_zero = sum(to_dtype(eq(every_example(x), wrapped_scalar(0.0)), DType::i64)).item_int() > 0;
  }
  if (!has_zero) return {reverse_cumsum(g * c.output(0), dim) / x};
  return {cumprod_backward_with_zeros(x, g, dim)};
}

// ---- sort(x; dim, descending, stable), topk(x; k, dim, largest, sorted) ----

std::vector<TensorMeta> infer_sort(const TensorList& in, const Attrs& a) {
  wrap_dim(a.i("dim"), in[0].dim(), "sort");
  return {TensorMeta{in[0].sizes(), in[0].dtype()}, TensorMeta{in[0].sizes(), DType::i64}};
}

std::vector<TensorMeta> infer_topk(const TensorList& in, const Attrs& a) {
  const Tensor& x = in[0];
  int64_t dim = wrap_dim(a.i("dim"), x.dim(), "topk");
  int64_t k = a.i("k"), size = size_along(x, dim);
  NABLA_CHECK(k >= 0 && k <= size, "topk: k (" + str(k) + ") is out of range for dim " + str(dim) +
                                       " of the input of shape " + x.shape_str() + " (size " + str(size) + ")");
  Shape s = x.sizes();
  if (x.dim() > 0) s[dim] = k;
  return {TensorMeta{s, x.dtype()}, TensorMeta{s, DType::i64}};
}

// The gradient of the values goes back to the positions the indices name: a scatter
// into zeros, whose own backward (a gather) carries grad of grad.
TensorList backward_by_indices(BackwardContext& c) {
  const Shape& shape = c.input_shape(0);
  const Tensor& g = c.grad(0);
  if (shape.empty()) return {g};
  int64_t dim = wrap_dim(c.attrs().i("dim"), static_cast<int64_t>(shape.size()), "sort");
  return {scatter_add(zeros(shape, g.dtype(), g.device()), dim, c.output(1), g)};
}

// ---- flip(x; dims), roll(x; shifts, dims) ----

std::vector<int64_t> checked_dims(const char* op, const IntList& dims, int64_t ndim) {
  std::vector<int64_t> out;
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, ndim, op);
    NABLA_CHECK(std::find(out.begin(), out.end(), w) == out.end(),
                std::string(op) + ": dim " + str(w) + " appears more than once in dims " + ints_str(dims));
    out.push_back(w);
  }
  return out;
}

std::vector<TensorMeta> infer_flip(const TensorList& in, const Attrs& a) {
  checked_dims("flip", a.ints("dims"), in[0].dim());
  return one(in[0].sizes(), in[0].dtype());
}
TensorList backward_flip(BackwardContext& c) { return {flip(c.grad(), c.attrs().ints("dims"))}; }

std::vector<TensorMeta> infer_roll(const TensorList& in, const Attrs& a) {
  const IntList &shifts = a.ints("shifts"), &dims = a.ints("dims");
  NABLA_CHECK(!shifts.empty(), "roll: shifts must not be empty");
  if (dims.empty()) {
    NABLA_CHECK(shifts.size() == 1, "roll: without dims, shifts must have one element, got " + ints_str(shifts));
  } else {
    NABLA_CHECK(shifts.size() == dims.size(),
                "roll: shifts " + ints_str(shifts) + " and dims " + ints_str(dims) + " must have the same length");
    for (int64_t d : dims) wrap_dim(d, in[0].dim(), "roll");
  }
  return one(in[0].sizes(), in[0].dtype());
}
TensorList backward_roll(BackwardContext& c) {
  IntList back = c.attrs().ints("shifts");
  for (int64_t& s : back) s = -s;
  return {roll(c.grad(), back, c.attrs().ints("dims"))};
}

// ---- tril(x; diagonal), triu(x; diagonal) ----

std::vector<TensorMeta> infer_triangle(const char* op, const TensorList& in) {
  NABLA_CHECK(in[0].dim() >= 2, std::string(op) + ": input must have at least 2 dims, got shape " + in[0].shape_str());
  return one(in[0].sizes(), in[0].dtype());
}
std::vector<TensorMeta> infer_tril(const TensorList& in, const Attrs&) { return infer_triangle("tril", in); }
std::vector<TensorMeta> infer_triu(const TensorList& in, const Attrs&) { return infer_triangle("triu", in); }
TensorList backward_tril(BackwardContext& c) { return {tril(c.grad(), c.attrs().i("diagonal"))}; }
TensorList backward_triu(BackwardContext& c) { return {triu(c.grad(), c.attrs().i("diagonal"))}; }

// ---- masked_fill(x, mask, value) ----

// value is a 0-dim tensor (a number arrives wrapped), cast to x's dtype as PyTorch's.
std::vector<TensorMeta> infer_masked_fill(const TensorList& in, const Attrs&) {
  const Tensor &x = in[0], &mask = in[1], &value = in[2];
  NABLA_CHECK(mask.dtype() == DType::b8, std::string("masked_fill: mask must be a bool tensor, got ") +
                                             dtype_name(mask.dtype()) + " of shape " + mask.shape_str());
  NABLA_CHECK(value.dim() == 0,
              "masked_fill: value must be a number or a 0-dim tensor, got a tensor of shape " + value.shape_str());
  bool fits = mask.dim() <= x.dim();
  for (int64_t d = 1; fits && d <= mask.dim(); ++d) {
    int64_t m = mask.sizes()[mask.dim() - d];
    fits = m == 1 || m == x.sizes()[x.dim() - d];
  }
  NABLA_CHECK(fits, "masked_fill: mask of shape " + mask.shape_str() + " cannot be broadcast to the input of shape " +
                        x.shape_str());
  return one(x.sizes(), x.dtype());
}
// x's gradient where it was kept; value's the sum of the gradient where it was put.
TensorList backward_masked_fill(BackwardContext& c) {
  Tensor mask = c.input(1);
  Tensor gx = c.needs_grad(0) ? masked_fill(c.grad(), mask, 0.0) : Tensor();
  Tensor gv;
  if (c.needs_grad(2)) {
    gv = sum(where(mask, c.grad(), wrapped_scalar(0.0)));
    if (gv.dtype() != c.input_dtype(2)) gv = to_dtype(gv, c.input_dtype(2));
    if (gv.device() != c.input_device(2)) gv = to_device(gv, c.input_device(2));
  }
  return {gx, Tensor(), gv};
}

// ---- repeat(x; sizes) ----

std::vector<TensorMeta> infer_repeat(const TensorList& in, const Attrs& a) {
  const Tensor& x = in[0];
  const IntList& sizes = a.ints("sizes");
  NABLA_CHECK(static_cast<int64_t>(sizes.size()) >= x.dim(),
              "repeat: sizes " + ints_str(sizes) + " must have at least as many entries as the input of shape " +
                  x.shape_str() + " has dims (" + str(x.dim()) + ")");
  size_t pad = sizes.size() - static_cast<size_t>(x.dim());
  Shape s;
  for (size_t d = 0; d < sizes.size(); ++d) {
    NABLA_CHECK(sizes[d] >= 0, "repeat: sizes must be non-negative, got " + ints_str(sizes));
    s.push_back(size_mul("repeat", sizes[d], d < pad ? 1 : x.sizes()[d - pad]));
  }
  return one(s, x.dtype());
}
// The output is [r0 * d0, r1 * d1, ...]: seen as [r0, d0, r1, d1, ...], the copies
// are the r dims, which the gradient sums.
TensorList backward_repeat(BackwardContext& c) {
  const IntList& sizes = c.attrs().ints("sizes");
  const Shape& shape = c.input_shape(0);
  size_t pad = sizes.size() - shape.size();
  IntList split, copies;
  for (size_t d = 0; d < sizes.size(); ++d) {
    copies.push_back(static_cast<int64_t>(2 * d));
    split.push_back(sizes[d]);
    split.push_back(d < pad ? 1 : shape[d - pad]);
  }
  return {reshape(sum(reshape(c.grad(), split), copies), shape.vec())};
}

// ---- one_hot(x; num_classes), multinomial(probs; num_samples, replacement) ----

std::vector<TensorMeta> infer_one_hot(const TensorList& in, const Attrs& a) {
  NABLA_CHECK(
      in[0].dtype() == DType::i64 || in[0].dtype() == DType::i32,
      std::string("one_hot: input must be an integer tensor of class indices, got ") + dtype_name(in[0].dtype()));
  int64_t classes = a.i("num_classes");
  NABLA_CHECK(classes >= 0, "one_hot: num_classes must be non-negative, got " + str(classes));
  Shape s = in[0].sizes();
  s.push_back(classes);
  return one(s, DType::i64);
}

std::vector<TensorMeta> infer_multinomial(const TensorList& in, const Attrs& a) {
  const Tensor& p = in[0];
  check_floating("multinomial", "input", p);
  NABLA_CHECK(p.dim() == 1 || p.dim() == 2, "multinomial: input must be 1-D or 2-D, got shape " + p.shape_str());
  int64_t samples = a.i("num_samples"), categories = p.sizes()[p.dim() - 1];
  NABLA_CHECK(samples > 0, "multinomial: num_samples must be positive, got " + str(samples));
  NABLA_CHECK(categories > 0, "multinomial: input of shape " + p.shape_str() + " has no categories");
  NABLA_CHECK(a.b("replacement") || samples <= categories, "multinomial: cannot draw " + str(samples) +
                                                               " samples without replacement from " + str(categories) +
                                                               " categories (input of shape " + p.shape_str() + ")");
  Shape s = p.sizes();
  s[p.dim() - 1] = samples;
  return one(s, DType::i64);
}

AttrSpec dim_attr(int64_t d) { return attr_optional("dim", AttrKind::integer, d); }
AttrSpec flag(const char* name, bool v) { return attr_optional(name, AttrKind::boolean, v); }

// sort compares about n log2 n times per row of n; topk about n log2 k.
double log2_of(int64_t n) { return n > 1 ? std::log2(static_cast<double>(n)) : 1.0; }
OpCost cost_sort(const TensorList& in, const Attrs& a, const TensorList& out) {
  int64_t n = in[0].dim() == 0 ? 1 : in[0].sizes()[wrap_dim(a.i("dim"), in[0].dim(), "sort")];
  return {cost_numel(in[0]) * log2_of(n), io_bytes(in, out)};
}
OpCost cost_topk(const TensorList& in, const Attrs& a, const TensorList& out) {
  return {cost_numel(in[0]) * log2_of(std::max<int64_t>(a.i("k"), 2)), io_bytes(in, out)};
}

void register_scans_and_sorts(std::vector<OpDef>& t) {
  row(t, OpId::cumsum) = {.num_inputs = 1,
                          .attrs = {attr_required("dim", AttrKind::integer)},
                          .infer = infer_cumsum,
                          .cpu = cpu::cumsum,
                          .backward = backward_cumsum,
                          .autocast = AutocastPolicy::f32};  // PyTorch's autocast scans in f32
  row(t, OpId::cumprod) = {.num_inputs = 1,
                           .attrs = {attr_required("dim", AttrKind::integer)},
                           .infer = infer_cumprod,
                           .cpu = cpu::cumprod,
                           .backward = backward_cumprod,
                           .saves = {1, 1},
                           .autocast = AutocastPolicy::f32};
  row(t, OpId::sort) = {.num_inputs = 1,
                        .num_outputs = 2,
                        .attrs = {dim_attr(-1), flag("descending", false), flag("stable", false)},
                        .infer = infer_sort,
                        .cpu = cpu::sort,
                        .backward = backward_by_indices,
                        .saves = {0, 0b10},
                        .nondiff_outputs = 0b10,
                        .cost = cost_sort};
  row(t, OpId::topk) = {
      .num_inputs = 1,
      .num_outputs = 2,
      .attrs = {attr_required("k", AttrKind::integer), dim_attr(-1), flag("largest", true), flag("sorted", true)},
      .infer = infer_topk,
      .cpu = cpu::topk,
      .backward = backward_by_indices,
      .saves = {0, 0b10},
      .nondiff_outputs = 0b10,
      .cost = cost_topk};
}

void register_moves(std::vector<OpDef>& t) {
  row(t, OpId::flip) = {.num_inputs = 1,
                        .attrs = {attr_required("dims", AttrKind::ints)},
                        .infer = infer_flip,
                        .cpu = cpu::flip,
                        .backward = backward_flip,
                        .half_native = true};
  row(t, OpId::roll) = {
      .num_inputs = 1,
      .attrs = {attr_required("shifts", AttrKind::ints), attr_optional("dims", AttrKind::ints, IntList{})},
      .infer = infer_roll,
      .cpu = cpu::roll,
      .backward = backward_roll,
      .half_native = true};
  AttrSpec diagonal = attr_optional("diagonal", AttrKind::integer, int64_t{0});
  row(t, OpId::tril) = {.num_inputs = 1,
                        .attrs = {diagonal},
                        .infer = infer_tril,
                        .cpu = cpu::tril,
                        .backward = backward_tril,
                        .half_native = true};
  row(t, OpId::triu) = {.num_inputs = 1,
                        .attrs = {diagonal},
                        .infer = infer_triu,
                        .cpu = cpu::triu,
                        .backward = backward_triu,
                        .half_native = true};
  row(t, OpId::masked_fill) = {.num_inputs = 3,
                               .infer = infer_masked_fill,
                               .cpu = cpu::masked_fill,
                               .backward = backward_masked_fill,
                               .saves = {0b10, 0},
                               .half_native = true};
  row(t, OpId::repeat) = {.num_inputs = 1,
                          .attrs = {attr_required("sizes", AttrKind::ints)},
                          .infer = infer_repeat,
                          .cpu = cpu::repeat,
                          .backward = backward_repeat,
                          .half_native = true};
  for (OpId id : {OpId::flip, OpId::roll, OpId::tril, OpId::triu, OpId::masked_fill, OpId::repeat})
    row(t, id).cost = cost_copy;
}

}  // namespace

void register_ordering_ops(std::vector<OpDef>& t) {
  register_scans_and_sorts(t);
  register_moves(t);
  row(t, OpId::one_hot) = {.num_inputs = 1,
                           .attrs = {attr_required("num_classes", AttrKind::integer)},
                           .infer = infer_one_hot,
                           .cpu = cpu::one_hot};
  row(t, OpId::multinomial) = {.num_inputs = 1,
                               .attrs = {attr_required("num_samples", AttrKind::integer), flag("replacement", false)},
                               .infer = infer_multinomial,
                               .cpu = cpu::multinomial};
  name_inputs(t, {{OpId::cumsum, {"input"}},
                  {OpId::cumprod, {"input"}},
                  {OpId::sort, {"input"}},
                  {OpId::topk, {"input"}},
                  {OpId::flip, {"input"}},
                  {OpId::roll, {"input"}},
                  {OpId::tril, {"input"}},
                  {OpId::triu, {"input"}},
                  {OpId::masked_fill, {"input", "mask", "value"}},
                  {OpId::repeat, {"input"}},
                  {OpId::one_hot, {"input"}},
                  {OpId::multinomial, {"input"}}});
  // What :help prints for each op of this family; tests/interp/op_docs.cpp runs every example.
  document_ops(t, {{OpId::cumsum,
                    "The running sums along dim, as torch.cumsum. "
                    "Example: cumsum(arange(5), dim=0)"},
                   {OpId::cumprod,
                    "The running products along dim, as torch.cumprod. "
                    "Example: cumprod(tensor([1.0, 2.0, 3.0]), dim=0)"},
                   {OpId::sort,
                    "The values sorted along dim and the indices they came from, a (values, indices) tuple, as "
                    "torch.sort. "
                    "Example: sort(randn(5), descending=true)"},
                   {OpId::topk,
                    "The k largest values along dim (the smallest with largest=false) and their indices, a (values, "
                    "indices) tuple, as torch.topk. "
                    "Example: topk(randn(10), 3)"},
                   {OpId::flip,
                    "The tensor reversed along each of dims, as torch.flip. "
                    "Example: flip(arange(6).view(2, 3), 0, 1)"},
                   {OpId::roll,
                    "The elements shifted by shifts along dims, those pushed off the end coming back at the start (no "
                    "dims: the flattened tensor), as torch.roll. "
                    "Example: roll(arange(5), 2)"},
                   {OpId::tril,
                    "The lower triangle of the last two dims, the elements above diagonal zeroed, as torch.tril. "
                    "Example: tril(ones(3, 3))"},
                   {OpId::triu,
                    "The upper triangle of the last two dims, the elements below diagonal zeroed, as torch.triu. "
                    "Example: triu(ones(3, 3), diagonal=1)"},
                   {OpId::masked_fill,
                    "A copy of input with value wherever the bool mask (broadcast to input) is true, as "
                    "torch.Tensor.masked_fill. "
                    "Example: masked_fill(randn(2, 2), tensor([[true, false], [false, true]]), 0.0)"},
                   {OpId::repeat,
                    "The tensor tiled sizes[d] times along each dim d, as torch.Tensor.repeat. "
                    "Example: repeat(tensor([1, 2]), 2, 2)"},
                   {OpId::one_hot,
                    "i64 one-hot vectors of the class indices in input (num_classes -1: the largest index + 1), as "
                    "torch.nn.functional.one_hot. "
                    "Example: one_hot(tensor([0, 2, 1]), num_classes=3)"},
                   {OpId::multinomial,
                    "num_samples indices drawn from each row of the probability weights in input, with or without "
                    "replacement, as torch.multinomial. "
                    "Example: multinomial(tensor([0.2, 0.8]), 4, replacement=true)"}});
}

// The functional API of this family.

Tensor cumsum(const Tensor& x, int64_t dim) { return call1(OpId::cumsum, {x}, {{"dim", dim}}); }
Tensor cumprod(const Tensor& x, int64_t dim) { return call1(OpId::cumprod, {x}, {{"dim", dim}}); }
std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t dim, bool descending, bool stable) {
  TensorList r = call(OpId::sort, {x}, {{"dim", dim}, {"descending", descending}, {"stable", stable}});
  return {r[0], r[1]};
}
Tensor argsort(const Tensor& x, int64_t dim, bool descending, bool stable) {
  NoGradGuard no_grad;  // only the indices are kept: no graph for the values
  return sort(x, dim, descending, stable).second;
}
std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim, bool largest, bool sorted) {
  TensorList r = call(OpId::topk, {x}, {{"k", k}, {"dim", dim}, {"largest", largest}, {"sorted", sorted}});
  return {r[0], r[1]};
}
Tensor flip(const Tensor& x, const IntList& dims) { return call1(OpId::flip, {x}, {{"dims", dims}}); }
Tensor roll(const Tensor& x, const IntList& shifts, const IntList& dims) {
  return call1(OpId::roll, {x}, {{"shifts", shifts}, {"dims", dims}});
}
Tensor tril(const Tensor& x, int64_t diagonal) { return call1(OpId::tril, {x}, {{"diagonal", diagonal}}); }
Tensor triu(const Tensor& x, int64_t diagonal) { return call1(OpId::triu, {x}, {{"diagonal", diagonal}}); }
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Tensor& value) {
  return call1(OpId::masked_fill, {x, mask, value}, {});
}
Tensor masked_fill(const Tensor& x, const Tensor& mask, double value) {
  return masked_fill(x, mask, wrapped_scalar(value));
}
Tensor repeat(const Tensor& x, const IntList& sizes) { return call1(OpId::repeat, {x}, {{"sizes", sizes}}); }

// repeat_interleave with one count: each slice along dim followed by its copies, an
// unsqueeze, expand and reshape (so its gradient is expand's sum).
Tensor repeat_interleave(const Tensor& x, int64_t repeats, std::optional<int64_t> dim) {
  NABLA_CHECK(repeats >= 0, "repeat_interleave: repeats must be non-negative, got " + str(repeats));
  Tensor src = dim ? x : reshape(x, {-1});
  int64_t d = dim ? wrap_dim(*dim, x.dim(), "repeat_interleave") : 0;
  if (src.dim() == 0) src = reshape(src, {1});
  IntList spread = src.sizes().vec(), shape = src.sizes().vec();
  spread.insert(spread.begin() + d + 1, repeats);
  shape[d] *= repeats;
  return reshape(expand(unsqueeze(src, d + 1), spread), shape);
}

// With a count per slice: the slices picked by index_select of each position as often
// as its count says (the indices are computed on the host, where the counts go once).
Tensor repeat_interleave(const Tensor& x, const Tensor& repeats, std::optional<int64_t> dim) {
  NABLA_CHECK(is_index_type(repeats.dtype()),
              std::string("repeat_interleave: repeats must be an integer tensor, got ") + dtype_name(repeats.dtype()));
  NABLA_CHECK(repeats.dim() <= 1, "repeat_interleave: repeats must be 0-dim or 1-D, got shape " + repeats.shape_str());
  if (repeats.dim() == 0 || repeats.numel() == 1) return repeat_interleave(x, repeats.item_int(), dim);
  Tensor src = dim ? x : reshape(x, {-1});
  int64_t d = dim ? wrap_dim(*dim, x.dim(), "repeat_interleave") : 0;
  int64_t size = size_along(src, d);
  NABLA_CHECK(repeats.numel() == size, "repeat_interleave: repeats of shape " + repeats.shape_str() +
                                           " must have one count per element of dim " + str(d) + " (size " + str(size) +
                                           ") of the input of shape " + src.shape_str());
  Tensor counts = contiguous_raw(to_dtype_raw(cpu_copy(repeats), DType::i64));
  const int64_t* c = counts.data<int64_t>();
  // The total first, so that counts past memory are the allocator's error, not the
  // host vector's bare std::length_error (or a wrapped negative size).
  int64_t total = 0;
  for (int64_t i = 0; i < size; ++i) {
    NABLA_CHECK(c[i] >= 0, "repeat_interleave: repeats must be non-negative, got " + str(c[i]) + " at " + str(i));
    NABLA_CHECK(!__builtin_add_overflow(total, c[i], &total),
                "repeat_interleave: the repeats of shape " + repeats.shape_str() + " add up past 2^63");
  }
  Tensor index = empty(Shape{total}, DType::i64);
  int64_t* out = index.data<int64_t>();
  for (int64_t i = 0; i < size; ++i) out = std::fill_n(out, c[i], i);
  return index_select(src, d, to_device(index, x.device()));
}

Tensor one_hot(const Tensor& x, int64_t num_classes) {
  // -1 alone means "find it", as PyTorch's; -5 found it too and hid the mistake.
  NABLA_CHECK(num_classes >= -1,
              "one_hot: num_classes must be -1 (the largest class + 1) or at least 0, got " + std::to_string(num_classes));
  // Before max(x).item_int() below, whose error named item_int(), not one_hot.
  NABLA_CHECK(is_index_type(x.dtype()),
              std::string("one_hot: input must be an integer tensor of class indices, got ") + dtype_name(x.dtype()));
  if (num_classes == -1) {
    NABLA_CHECK(x.numel() > 0, "one_hot: cannot find num_classes of an empty tensor; give num_classes");
    NoGradGuard no_grad;
    num_classes = max(x).item_int() + 1;
  }
  return call1(OpId::one_hot, {x}, {{"num_classes", num_classes}});
}
Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement) {
  return call1(OpId::multinomial, {probs}, {{"num_samples", num_samples}, {"replacement", replacement}});
}

}  // namespace nabla
