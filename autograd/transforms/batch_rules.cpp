// vmap's batching rules (OpDef::batch).
//
// Note [Batching rules]
// Under vmap an op's inputs are physical tensors, some with a batch dim (BatchContext).
// A rule runs the op once for the whole batch and says where the batch dim of each
// output is. Most rules are one of a few shapes:
//   same layout  one input, outputs of its shape (unary elementwise ops, copies,
//                dropout): the op on the physical tensor, the batch dim stays.
//   broadcast    elementwise ops of several inputs: batched inputs get the batch dim
//                first and size-1 dims up to the largest per-example rank, so that
//                unbatched inputs broadcast against the per-example dims.
//   shifted dims the batch dim first and every dim attribute moved up by one
//                (reductions, softmax, scans, sort, views, cat and stack).
//   folded       ops on a leading N dim (conv, pooling, interpolate, group_norm) whose
//                other inputs are unbatched: batch and N merge into one dim
//                (max_pool2d_backward folds its indices alike).
//   per-example reductions: the losses run with reduction="none" and reduce per
//                batch element.
// A row without a rule, or a call that its rule does not cover (a batched conv weight),
// runs once per batch element and is stacked: the same values, slower, and a note
// names the op once (vmap.cpp). Each rule is checked against that loop by the op
// sweep, which prints the count as `vmap=N`.
#include <numeric>

#include "autograd/ops.hpp"
#include "autograd/ops/common.hpp"
#include "autograd/transforms/vmap.hpp"

namespace nabla {

namespace {

IntList shape_of(const Tensor& t) { return IntList(t.sizes().begin(), t.sizes().end()); }

// x (batch dim first) with size-1 dims after the batch dim up to per-example rank `rank`.
Tensor pad_rank(const Tensor& x, int64_t rank) {
  Tensor out = x;
  while (out.dim() - 1 < rank) out = unsqueeze(out, 1);
  return out;
}

// The per-example dims 0..rank-1 as physical dims 1..rank.
IntList all_dims_after_batch(int64_t rank) {
  IntList dims(static_cast<size_t>(rank));
  std::iota(dims.begin(), dims.end(), int64_t{1});
  return dims;
}

// A rule that declines: the loop runs instead (vmap.cpp).
TensorList decline(BatchContext& c);

TensorList batch_same_layout(BatchContext& c) {
  TensorList outs = call(c.def().id, {c.physical(0)}, c.attrs());
  c.out_bdims.assign(outs.size(), c.bdim(0));
  return outs;
}

TensorList batch_broadcast(BatchContext& c) {
  int64_t rank = 0;
  for (size_t i = 0; i < c.num_inputs(); ++i)
    if (c.physical(i).defined()) rank = std::max(rank, c.logical_dim(i));
  TensorList args;
  for (size_t i = 0; i < c.num_inputs(); ++i)
    args.push_back(c.batched(i) ? pad_rank(c.batch_first(i), rank) : c.physical(i));
  return c.call_batched_first(args, c.attrs());
}

// The dim attribute `name` of a per-example tensor of rank `rank`, as a physical dim.
int64_t shifted(const BatchContext& c, int64_t d, int64_t rank) { return wrap_dim(d, rank, c.def().name) + 1; }

// Rows with one input and dim attributes: "dim" (an int, or none for "all dims"),
// "dims" (a list; empty means all dims for the reductions), "dim0"/"dim1"/"dim2".
TensorList batch_shift_dims(BatchContext& c) {
  int64_t rank = c.logical_dim(0);
  // A dim of a 0-dim tensor (but unsqueeze's new one): the loop keeps the op's own rules.
  if (rank == 0 && c.def().id != OpId::unsqueeze) return decline(c);
  Tensor x = c.batch_first(0);
  Attrs a = c.attrs();
  const OpDef& def = c.def();
  for (const AttrSpec& spec : def.attrs) {
    const std::string& name = spec.name;
    if (name == "dim" || name == "dim0" || name == "dim1" || name == "dim2") {
      if (a.is_none(name)) {  // argmax/argmin over every element: per example, flattened
        if (a.b("keepdim")) return decline(c);
        x = reshape(x, {c.batch_size(), -1});
        a.set(name, int64_t{1});
        continue;
      }
      int64_t extra = def.id == OpId::unsqueeze ? 1 : 0;  // unsqueeze may name the new last dim
      a.set(name, shifted(c, a.i(name), rank + extra));
    } else if (name == "dims" && spec.kind == AttrKind::ints) {
      if (a.is_none(name)) {
        if (def.id != OpId::squeeze) return decline(c);
        IntList ones;  // squeeze(): every per-example dim of size 1, never the batch dim
        for (int64_t d = 1; d < x.dim(); ++d)
          if (x.size(d) == 1) ones.push_back(d);
        a.set(name, ones);
        continue;
      }
      IntList dims = a.ints(name);
      if (dims.empty()) {
        if (def.id == OpId::roll || def.id == OpId::flip) return decline(c);
        dims = all_dims_after_batch(rank);  // the reductions' "every dim"
      } else {
        for (int64_t& d : dims) d = shifted(c, d, rank);
      }
      if (def.id == OpId::permute) dims.insert(dims.begin(), 0);
      a.set(name, dims);
    }
  }
  return c.call_batched_first({x}, a);
}

// view, reshape: the batch dim first, then the per-example shape. A per-example view
// need not be a view of the moved physical tensor, so both reshape (copying only then).
TensorList batch_reshape(BatchContext& c) {
  IntList shape = c.attrs().ints("shape");
  shape.insert(shape.begin(), c.batch_size());
  c.out_bdims = {0};
  return {reshape(c.batch_first(0), shape)};
}

TensorList batch_expand(BatchContext& c) {
  IntList shape = c.attrs().ints("shape");
  Tensor x = pad_rank(c.batch_first(0), static_cast<int64_t>(shape.size()));
  shape.insert(shape.begin(), c.batch_size());
  Attrs a = c.attrs();
  a.set("shape", shape);
  return c.call_batched_first({x}, a);
}

TensorList batch_repeat(BatchContext& c) {
  IntList sizes = c.attrs().ints("sizes");
  Tensor x = pad_rank(c.batch_first(0), static_cast<int64_t>(sizes.size()));
  sizes.insert(sizes.begin(), 1);
  Attrs a = c.attrs();
  a.set("sizes", sizes);
  return c.call_batched_first({x}, a);
}

// tril, triu: the last two dims, whatever leads.
TensorList batch_matrix_last(BatchContext& c) {
  if (c.logical_dim(0) < 2) return decline(c);  // the op's own error
  return c.call_batched_first({c.batch_first(0)}, c.attrs());
}

// The row on every tensor input with the batch dim first (unbatched ones expanded),
// its "dim" attribute (of a per-example tensor of rank `rank`) moved up.
TensorList call_all_batched(BatchContext& c, int64_t rank) {
  TensorList args;
  for (size_t i = 0; i < c.num_inputs(); ++i) args.push_back(c.batch_first(i));
  Attrs a = c.attrs();
  a.set("dim", shifted(c, a.i("dim"), rank));
  return c.call_batched_first(args, a);
}

// cat, stack: every input batched, the dim moved up.
TensorList batch_join(BatchContext& c) {
  for (size_t i = 0; i < c.num_inputs(); ++i)
    if (c.logical_dim(i) == 0 && c.def().id == OpId::cat) return decline(c);
  return call_all_batched(c, c.logical_dim(0) + (c.def().id == OpId::stack ? 1 : 0));
}

// gather, scatter_add: every tensor input batched (their ranks agree per example, so
// they agree batched), the dim moved up.
TensorList batch_indexed(BatchContext& c) {
  if (c.logical_dim(0) == 0) return decline(c);
  return call_all_batched(c, c.logical_dim(0));
}

// index_select: a batched input with one index for every example is the op with the
// dim moved up; an index per example ([B, k]) is a gather along that dim, the index
// spread over the other dims (the input expanded over the batch when it is not batched).
TensorList batch_index_select(BatchContext& c) {
  if (c.logical_dim(0) == 0 || (c.batched(1) && c.logical_dim(1) != 1)) return decline(c);
  const int64_t dim = shifted(c, c.attrs().i("dim"), c.logical_dim(0));
  if (!c.batched(1)) {
    Attrs a = c.attrs();
    a.set("dim", dim);
    return c.call_batched_first({c.batch_first(0), c.physical(1)}, a);
  }
  Tensor x = c.batch_first(0);
  Tensor index = to_dtype(c.batch_first(1), DType::i64);
  IntList along(static_cast<size_t>(x.dim()), 1), out_shape = shape_of(x);
  along[0] = c.batch_size();
  along[static_cast<size_t>(dim)] = out_shape[static_cast<size_t>(dim)] = index.size(1);
  c.out_bdims = {0};
  return {gather(x, dim, expand(reshape(index, along), out_shape))};
}

// masked_fill: the input batched whenever the mask is (the output has the input's
// shape), both at one per-example rank; a batched fill value loops.
TensorList batch_masked_fill(BatchContext& c) {
  for (size_t i = 2; i < c.num_inputs(); ++i)
    if (c.batched(i)) return decline(c);
  int64_t rank = std::max(c.logical_dim(0), c.logical_dim(1));
  TensorList args{pad_rank(c.batch_first(0), rank)};
  args.push_back(c.batched(1) ? pad_rank(c.batch_first(1), rank) : c.physical(1));
  for (size_t i = 2; i < c.num_inputs(); ++i) args.push_back(c.physical(i));
  return c.call_batched_first(args, c.attrs());
}

// slice_backward: the gradient of a slice of a batched tensor, batch dim first.
TensorList batch_slice_backward(BatchContext& c) {
  Attrs a = c.attrs();
  IntList shape = a.ints("input_shape");
  a.set("dim", shifted(c, a.i("dim"), static_cast<int64_t>(shape.size())));
  shape.insert(shape.begin(), c.batch_size());
  a.set("input_shape", shape);
  return c.call_batched_first({c.batch_first(0)}, a);
}

// max, min of every element: per example, flattened.
TensorList batch_full_extremum(BatchContext& c) {
  Tensor flat = reshape(c.batch_first(0), {c.batch_size(), -1});
  Attrs a{{"dim", int64_t{1}}, {"keepdim", false}};
  OpId per_example = c.def().id == OpId::max ? OpId::max_dim : OpId::min_dim;
  TensorList outs = call(per_example, {flat}, a);
  c.out_bdims = {0};
  return {outs[0]};
}

// matmul: 1-D operands made matrices, the batched ones given the batch dim first and
// size-1 dims up to one per-example rank (unbatched ones broadcast against those),
// then the added dims squeezed away.
TensorList batch_matmul(BatchContext& c) {
  int64_t ra = c.logical_dim(0), rb = c.logical_dim(1);
  if (ra == 0 || rb == 0) return decline(c);  // the op's own error
  Tensor a = c.batched(0) ? c.batch_first(0) : c.physical(0);
  Tensor b = c.batched(1) ? c.batch_first(1) : c.physical(1);
  if (ra == 1) a = unsqueeze(a, -2);
  if (rb == 1) b = unsqueeze(b, -1);
  int64_t rank = std::max<int64_t>({ra, rb, 2});
  if (c.batched(0)) a = pad_rank(a, rank);
  if (c.batched(1)) b = pad_rank(b, rank);
  Tensor out = matmul(a, b);
  if (rb == 1) out = squeeze(out, {-1});
  if (ra == 1) out = squeeze(out, {-2});
  c.out_bdims = {0};
  return {out};
}

// linear: a batched input rides in the leading dims of one GEMM. A batched weight
// (per-example gradients differentiate an expanded one: Note [Per-example gradients]
// in builtins_func.cpp) makes it a batched matmul, whose operand may stay a
// broadcast view (no copy of the weight per example).
TensorList batch_linear(BatchContext& c) {
  if (!c.batched(1) && !c.batched(2))
    return c.call_batched_first({c.batch_first(0), c.physical(1), c.physical(2)}, c.attrs());
  if (c.logical_dim(0) == 0 || c.logical_dim(1) != 2) return decline(c);  // the op's own error
  Tensor x = c.batch_first(0);
  IntList shape = shape_of(x);
  int64_t in = shape.back();
  Tensor rows = reshape(x, {c.batch_size(), -1, in});
  Tensor y = matmul(rows, transpose(c.batch_first(1), 1, 2));  // [B, rows, out]
  if (c.physical(2).defined()) y = y + (c.batched(2) ? unsqueeze(c.batch_first(2), 1) : c.physical(2));
  shape.back() = y.size(-1);
  c.out_bdims = {0};
  return {reshape(y, shape)};
}

// embedding: the batched indices lead the output as they lead the input.
TensorList batch_embedding(BatchContext& c) {
  if (c.batched(0)) return decline(c);
  TensorList outs = call(OpId::embedding, {c.physical(0), c.physical(1)}, c.attrs());
  c.out_bdims = {c.bdim(1)};
  return outs;
}

// Rows whose later inputs (weights) must be unbatched and whose op works on the
// trailing dims, whatever leads: layer_norm, rms_norm, pad.
TensorList batch_trailing(BatchContext& c) {
  for (size_t i = 1; i < c.num_inputs(); ++i)
    if (c.batched(i)) return decline(c);
  TensorList args{c.batch_first(0)};
  for (size_t i = 1; i < c.num_inputs(); ++i) args.push_back(c.physical(i));
  return c.call_batched_first(args, c.attrs());
}

// linalg_solve broadcasts its batch dims, so a batched A or B rides in them, as
// matmul's operands do.
TensorList batch_linalg_solve(BatchContext& c) {
  int64_t ra = c.logical_dim(0), rb = c.logical_dim(1);
  if (ra < 2 || rb < 2) return decline(c);  // the op's own error
  int64_t rank = std::max(ra, rb);
  Tensor a = c.batched(0) ? pad_rank(c.batch_first(0), rank) : c.physical(0);
  Tensor b = c.batched(1) ? pad_rank(c.batch_first(1), rank) : c.physical(1);
  c.out_bdims = {0};
  return {linalg_solve(a, b)};
}

// The rank each folded row wants for its first input (N first).
int64_t folded_rank(OpId id) {
  switch (id) {
    case OpId::conv1d: case OpId::conv_transpose1d: case OpId::max_pool1d: case OpId::avg_pool1d:
    case OpId::adaptive_avg_pool1d:
      return 3;
    case OpId::conv3d:
      return 5;
    default:
      return 4;
  }
}

// x [B, N, ...] (batch dim first) as [B * N, ...].
Tensor merge_batch_into_n(const Tensor& x) {
  IntList merged = shape_of(x);
  merged[1] *= merged[0];
  merged.erase(merged.begin());
  return reshape(x, merged);
}

// The outputs of a call on [B * N, ...] inputs back as [B, N, ...], batch dim first.
TensorList split_batch_from_n(BatchContext& c, TensorList outs, int64_t n) {
  for (Tensor& out : outs) {
    IntList split = shape_of(out);
    split[0] = n;
    split.insert(split.begin(), c.batch_size());
    out = reshape(out, split);
  }
  c.out_bdims.assign(outs.size(), 0);
  return outs;
}

// conv, pooling, interpolate, group_norm: batch and N merged into one N.
TensorList batch_fold_n(BatchContext& c) {
  for (size_t i = 1; i < c.num_inputs(); ++i)
    if (c.batched(i)) return decline(c);
  OpId id = c.def().id;
  bool any_rank = id == OpId::group_norm || id == OpId::interpolate;
  if (!any_rank && c.logical_dim(0) != folded_rank(id)) return decline(c);
  if (c.logical_dim(0) < 1) return decline(c);
  Tensor x = c.batch_first(0);
  TensorList args{merge_batch_into_n(x)};
  for (size_t i = 1; i < c.num_inputs(); ++i) args.push_back(c.physical(i));
  return split_batch_from_n(c, call(id, args, c.attrs()), x.sizes()[1]);
}

// max_pool2d_backward: grad and indices (either may be batched) folded alike, and
// input_shape's N scaled by the batch.
TensorList batch_max_pool_backward(BatchContext& c) {
  if (c.logical_dim(0) < 3 || c.logical_dim(1) != c.logical_dim(0)) return decline(c);
  Tensor grad = c.batch_first(0);
  Attrs a = c.attrs();
  IntList input_shape = a.ints("input_shape");
  if (input_shape.empty()) return decline(c);
  input_shape[0] *= c.batch_size();
  a.set("input_shape", input_shape);
  TensorList args{merge_batch_into_n(grad), merge_batch_into_n(c.batch_first(1))};
  return split_batch_from_n(c, call(OpId::max_pool2d_backward, args, a), grad.sizes()[1]);
}

// The losses: reduction "none" on the whole batch, then each example's own reduction.
constexpr int64_t kNone = 0, kMean = 1;
bool is_class_loss(OpId id) { return id == OpId::cross_entropy || id == OpId::nll_loss; }

TensorList batch_loss(BatchContext& c) {
  OpId id = c.def().id;
  Tensor input = c.batch_first(0), target = c.batch_first(1);
  int64_t reduction = c.attrs().i("reduction");
  Attrs none = c.attrs();
  none.set("reduction", kNone);
  Tensor losses;
  if (is_class_loss(id) && c.logical_dim(0) >= 2) {  // [B, N, C, ...]: B and N merged
    IntList in_shape = shape_of(input), t_shape = shape_of(target);
    int64_t n = in_shape[1];
    in_shape.erase(in_shape.begin());
    in_shape[0] *= c.batch_size();
    t_shape.erase(t_shape.begin());
    t_shape[0] *= c.batch_size();
    losses = call1(id, {reshape(input, in_shape), reshape(target, t_shape)}, none);
    IntList out_shape = shape_of(losses);
    out_shape[0] = n;
    out_shape.insert(out_shape.begin(), c.batch_size());
    losses = reshape(losses, out_shape);
  } else {  // pointwise losses, or one example's logits [C]: the batch is the N
    losses = call1(id, {input, target}, none);
  }
  c.out_bdims = {0};
  if (reduction == kNone) return {losses};
  IntList dims = all_dims_after_batch(losses.dim() - 1);
  Tensor total = dims.empty() ? losses : sum(losses, dims);
  if (reduction != kMean) return {total};
  if (!is_class_loss(id) || is_floating(target.dtype()))  // the mean of every loss of an example
    return {total / static_cast<double>(std::max<int64_t>(1, losses.numel() / c.batch_size()))};
  // Class indices: the mean over the targets that are not ignored, as the op's own mean.
  Tensor ignored = wrapped_scalar(static_cast<double>(c.attrs().i("ignore_index")));
  Tensor counted = to_dtype(ne(target, ignored), losses.dtype());
  IntList target_dims = all_dims_after_batch(target.dim() - 1);
  return {total / (target_dims.empty() ? counted : sum(counted, target_dims))};
}

TensorList decline(BatchContext&) { return TensorList{}; }

void set_rule(std::vector<OpDef>& table, BatchFn rule, std::initializer_list<OpId> ops) {
  for (OpId id : ops) row(table, id).batch = rule;
}

}  // namespace

void register_batch_rules(std::vector<OpDef>& t) {
  for (OpDef& def : t) {
    OpId id = static_cast<OpId>(&def - t.data());
    if (is_unary_op(id) || is_parametric_unary_op(id) || id == OpId::clamp) def.batch = batch_same_layout;
    if (is_binary_op(id) || is_comparison_op(id) || id == OpId::where || id == OpId::threshold_backward)
      def.batch = batch_broadcast;
  }
  set_rule(t, batch_same_layout,
           {OpId::contiguous, OpId::alias, OpId::detach, OpId::to_dtype, OpId::to_device, OpId::dropout, OpId::one_hot});
  set_rule(t, batch_shift_dims,
           {OpId::sum, OpId::mean, OpId::var, OpId::std, OpId::logsumexp, OpId::softmax, OpId::log_softmax,
            OpId::max_dim, OpId::min_dim, OpId::argmax, OpId::argmin, OpId::cumsum, OpId::cumprod, OpId::sort,
            OpId::topk, OpId::flip, OpId::roll, OpId::transpose, OpId::permute, OpId::slice, OpId::select,
            OpId::squeeze, OpId::unsqueeze, OpId::split, OpId::unbind, OpId::diagonal, OpId::unfold_windows});
  set_rule(t, batch_reshape, {OpId::view, OpId::reshape});
  set_rule(t, batch_expand, {OpId::expand});
  set_rule(t, batch_repeat, {OpId::repeat});
  set_rule(t, batch_matrix_last, {OpId::tril, OpId::triu});
  set_rule(t, batch_join, {OpId::cat, OpId::stack});
  set_rule(t, batch_full_extremum, {OpId::max, OpId::min});
  set_rule(t, batch_matmul, {OpId::matmul});
  set_rule(t, batch_linear, {OpId::linear});
  set_rule(t, batch_embedding, {OpId::embedding});
  set_rule(t, batch_trailing,
           {OpId::layer_norm, OpId::rms_norm, OpId::pad, OpId::pad_backward, OpId::inverse, OpId::det, OpId::cholesky,
            OpId::eigh, OpId::svd, OpId::qr});
  set_rule(t, batch_linalg_solve, {OpId::linalg_solve});
  set_rule(t, batch_indexed, {OpId::gather, OpId::scatter_add});
  set_rule(t, batch_index_select, {OpId::index_select});
  set_rule(t, batch_masked_fill, {OpId::masked_fill});
  set_rule(t, batch_slice_backward, {OpId::slice_backward});
  set_rule(t, batch_fold_n,
           {OpId::conv1d, OpId::conv2d, OpId::conv3d, OpId::conv_transpose1d, OpId::conv_transpose2d,
            OpId::max_pool1d, OpId::max_pool2d, OpId::avg_pool1d, OpId::avg_pool2d, OpId::adaptive_avg_pool1d,
            OpId::adaptive_avg_pool2d, OpId::adaptive_max_pool2d, OpId::interpolate, OpId::group_norm});
  set_rule(t, batch_max_pool_backward, {OpId::max_pool2d_backward});
  set_rule(t, batch_loss,
           {OpId::cross_entropy, OpId::nll_loss, OpId::mse_loss, OpId::binary_cross_entropy,
            OpId::binary_cross_entropy_with_logits});
}

}  // namespace nabla
