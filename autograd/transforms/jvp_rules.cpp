// The forward-mode derivative of every row (OpDef::jvp_kind, OpDef::jvp).
//
// Note [Forward-mode rules]
// jvp carries a tangent through each op: output tangent = J · input tangents, J the
// op's Jacobian. A row gets its rule in one of these ways, most derived from the
// row itself, as PyTorch derives many of its forward formulas from its backward ones:
//   linear       the op is linear in its floating inputs together (views, where, sum,
//                cat, gather, pooling by averages, interpolate): J t is the op of t.
//   multilinear  linear in each floating input alone (matmul; linear and conv, whose
//                bias is added): the sum of the op with one input replaced.
//   elementwise  every op of the elementwise families (add and mul too, so that a new
//                one needs nothing here): J is diagonal once inputs are broadcast to
//                the output's shape, so J t = J^T t, the row's backward rule with t
//                as the output gradient.
//   rule         written here with ops of the table (softmax, max_dim, masked_fill).
//   transpose    every other differentiable row: its backward rule B(g) = J^T g is
//                linear in g, so J t is the gradient of <B(g), t> with respect to g,
//                one more backward through the rule (PyTorch's "double backward
//                trick", used per row, not for the whole function).
// Every kind is made of ops of the table, so tangents of tangents (jvp of jvp), of
// gradients (jvp of grad, hvp) and gradients of tangents all work. The op sweep
// (tests/ops/op_sweep.cpp) checks each row's rule against central differences in f64
// and prints the count as `jvp=N`; `nabla --list-ops` shows each row's kind.
#include "autograd/ops.hpp"
#include "autograd/ops/common.hpp"
#include "autograd/transforms/forward.hpp"

namespace nabla {

namespace {

// softmax: dy = y * (dx - sum(y * dx, dim))
TensorList jvp_softmax(const JvpContext& c) {
  int64_t dim = c.attrs().i("dim");
  Tensor y = c.output(0);
  Tensor t = c.tangent(0);
  return {y * (t - sum(y * t, {dim}, true))};
}

// log_softmax: dy = dx - sum(softmax(x) * dx, dim)
TensorList jvp_log_softmax(const JvpContext& c) {
  int64_t dim = c.attrs().i("dim");
  Tensor t = c.tangent(0);
  return {t - sum(exp(c.output(0)) * t, {dim}, true)};
}

// logsumexp: dy = sum(softmax(x) * dx, dims)
TensorList jvp_logsumexp(const JvpContext& c) {
  const Tensor& x = c.input(0);
  std::vector<int64_t> dims = reduction_dims("logsumexp", c.attrs().ints("dims"), x.dim());
  bool keepdim = c.attrs().b("keepdim");
  Tensor y = unsqueeze_reduced(c.output(0), x.sizes(), dims, keepdim);
  return {sum(exp(x - y) * c.tangent(0), IntList(dims.begin(), dims.end()), keepdim)};
}

// max_dim, min_dim: the tangent at the index each value came from.
TensorList jvp_extremum_dim(const JvpContext& c) {
  int64_t dim = wrap_dim(c.attrs().i("dim"), c.input(0).dim(), c.def().name);
  bool keepdim = c.attrs().b("keepdim");
  Tensor index = keepdim ? c.output(1) : unsqueeze(c.output(1), dim);
  Tensor picked = gather(c.tangent(0), dim, index);
  return {keepdim ? picked : squeeze(picked, {dim}), Tensor()};
}

// masked_fill: the filled places are constants (or the value's tangent, where the
// value is a tensor input).
TensorList jvp_masked_fill(const JvpContext& c) {
  const Tensor& mask = c.input(1);
  Tensor zero = wrapped_scalar(0.0);
  Tensor out = where(mask, zero, c.tangent_or_zero(0));
  for (size_t i = 2; i < c.num_inputs(); ++i)
    if (c.has_tangent(i)) out = out + where(mask, c.tangent(i), zero);
  return {out};
}

// pad: the padding's constant value has no tangent, so the tangent pads with zeros.
TensorList jvp_pad(const JvpContext& c) {
  Attrs attrs = c.attrs();
  attrs.set("value", 0.0);
  return call(OpId::pad, {c.tangent(0)}, attrs);
}

void set_kind(std::vector<OpDef>& table, JvpKind kind, std::initializer_list<OpId> ops) {
  for (OpId id : ops) row(table, id).jvp_kind = kind;
}

void set_rule(std::vector<OpDef>& table, OpId id, JvpFn fn) {
  row(table, id).jvp_kind = JvpKind::rule;
  row(table, id).jvp = fn;
}

}  // namespace

void register_jvp_rules(std::vector<OpDef>& t) {
  set_kind(t, JvpKind::linear,
           {OpId::view, OpId::reshape, OpId::transpose, OpId::permute, OpId::slice, OpId::select, OpId::expand,
            OpId::diagonal, OpId::unfold_windows,
            OpId::squeeze, OpId::unsqueeze, OpId::contiguous, OpId::slice_backward, OpId::to_dtype, OpId::to_device,
            OpId::alias, OpId::where, OpId::sum, OpId::mean, OpId::cat, OpId::stack,
            OpId::split, OpId::unbind, OpId::cumsum, OpId::flip, OpId::roll, OpId::tril, OpId::triu, OpId::repeat,
            OpId::avg_pool1d, OpId::avg_pool2d, OpId::avg_pool2d_backward, OpId::max_pool2d_backward,
            OpId::adaptive_avg_pool1d, OpId::adaptive_avg_pool2d, OpId::interpolate, OpId::interpolate_backward,
            OpId::pad_backward,
            OpId::embedding, OpId::gather, OpId::index_select, OpId::scatter_add, OpId::dist_copy,
            OpId::dist_reduce, OpId::dist_split, OpId::dist_gather, OpId::dist_shard_gather, OpId::dist_shard_reduce});
  set_kind(t, JvpKind::multilinear,
           {OpId::matmul, OpId::linear, OpId::conv1d, OpId::conv2d, OpId::conv3d, OpId::conv_transpose1d,
            OpId::conv_transpose2d, OpId::conv2d_backward_input, OpId::conv2d_backward_weight,
            OpId::conv3d_backward_input, OpId::conv3d_backward_weight});
  for (OpId id : {OpId::linear, OpId::conv1d, OpId::conv2d, OpId::conv3d, OpId::conv_transpose1d,
                  OpId::conv_transpose2d})
    row(t, id).jvp_bias_input = 2;
  set_rule(t, OpId::softmax, jvp_softmax);
  set_rule(t, OpId::log_softmax, jvp_log_softmax);
  set_rule(t, OpId::logsumexp, jvp_logsumexp);
  set_rule(t, OpId::max_dim, jvp_extremum_dim);
  set_rule(t, OpId::min_dim, jvp_extremum_dim);
  set_rule(t, OpId::masked_fill, jvp_masked_fill);
  set_rule(t, OpId::pad, jvp_pad);
  // The rest of the differentiable rows: elementwise ones from their backward rule,
  // the others by its transpose; surrogate gradients have no forward derivative.
  for (OpDef& def : t) {
    if (!def.backward || def.jvp_kind != JvpKind::none || def.straight_through) continue;
    def.jvp_kind = def.elementwise ? JvpKind::elementwise : JvpKind::transpose;
  }
}

}  // namespace nabla
