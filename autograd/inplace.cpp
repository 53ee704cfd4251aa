// In-place writes with autograd. x.op_(y) is recorded as x.copy_(op(x, y)): the op
// runs out of place (on a clone of x when x's old value must be saved), then a
// CopyBackward node takes over x's history. Writing into a leaf that requires grad
// is an error outside no_grad, and so is writing into a view of a tensor that
// requires grad (its base's history would not see the write).
//
// Note [In-place writes under transforms]
// Inside vmap a write into a batched tensor writes every example's slot of its
// physical tensor. A batched value written into a tensor that is not batched (one
// captured from outside the function) is an error, as in functorch: each example
// would write its own value into the one tensor. Inside jvp, in-place writes on
// tensors with tangents are an error (their tangents would not follow). Under a
// reverse level (Note [Reverse levels]) a write into a lifted tensor writes the value
// it wraps, and the copy becomes the wrapper's history at that level.
#include "autograd/grad_mode.hpp"
#include "autograd/node.hpp"
#include "autograd/ops.hpp"
#include "autograd/ops/common.hpp"
#include "autograd/trace.hpp"
#include "autograd/transforms/reverse.hpp"
#include "autograd/transforms/vmap.hpp"
#include "tensor/cpu/copy.hpp"

namespace nabla {

namespace {

void check_writable(const Tensor& dst, const char* op) {
  if (!grad_enabled()) return;
  if (dst.requires_grad() && dst.is_leaf())
    throw Error(std::string(op) +
                ": a leaf tensor that requires grad cannot be modified in place (wrap the update in no_grad)");
  if (dst.requires_grad() && dst.impl()->is_view)
    throw Error(std::string(op) +
                ": in-place writes into a view of a tensor that requires grad are not supported; clone() it first");
}

// Note [Overlapping writes]
// A tensor made by expand() (or any view with a stride of 0 over a dim of more than one
// element) holds several elements at one memory location. Writing into it in place
// (x.add_(1), x.copy_(y), x[...] = y over such dims, fill_, zero_) wrote each location
// once per element that refers to it, the last one winning, so x.add_(1) on zeros
// expanded to [3, 4] left ones, not threes, and copy_ kept only the last row. PyTorch
// refuses such writes (assert_no_internal_overlap), and so does nabla: the check is
// PyTorch's, a stride of 0 over a size above 1; other overlaps (as_strided) cannot be
// made in the language. Inside a transform a write goes to the physical tensor of its
// level (write_under_transforms), whose batch dim is never expanded by a write.
void check_no_internal_overlap(const Tensor& dst, const char* op) {
  const Shape& sizes = dst.sizes();
  const Shape& strides = dst.strides();
  for (size_t d = 0; d < sizes.size(); ++d)
    if (strides[d] == 0 && sizes[d] > 1)
      throw Error(std::string(op) + ": the tensor written in place (shape " + dst.shape_str() +
                  ") has more than one element at one memory location (dim " + std::to_string(d) +
                  " was expanded: its stride is 0); write into a clone() of it, or into the tensor it was expanded "
                  "from");
}

// An in-place op whose result (by type promotion) is of a higher category than dst:
// i64.add_(1.5) wrote 1, exp_() of an int truncated. PyTorch refuses it (canCast).
void check_inplace_dtype(const char* op, DType result, DType dst) {
  if (!can_cast(result, dst))
    throw Error(std::string(op) + ": the result's dtype " + dtype_name(result) +
                " cannot be written into a tensor of dtype " + dtype_name(dst) +
                " in place (it would be truncated; PyTorch refuses it too): use the out-of-place op, or convert "
                "the tensor first (.to(" + dtype_name(result) + "))");
}

// The first and one past the last element a strided tensor reaches in its storage.
std::pair<int64_t, int64_t> memory_extent(const Tensor& t) {
  int64_t lo = t.offset(), hi = t.offset();
  for (size_t d = 0; d < t.sizes().size(); ++d) {
    int64_t reach = t.strides()[d] * (t.sizes()[d] - 1);
    (reach < 0 ? lo : hi) += reach;
  }
  return {lo, hi + 1};
}

// src as copy_into may read it while it writes dst: a copy of it when the two share
// memory but are not the same elements in the same order. x[1:].copy_(x[:-1]) read
// elements it had already written, so every element became x[0]; PyTorch refuses
// such a copy, nabla copies from the values src had (as x[1:] = x[:-1].clone()).
Tensor unaliased_source(const Tensor& dst, const Tensor& src) {
  if (src.storage() != dst.storage() || src.numel() == 0 || dst.numel() == 0) return src;
  if (src.offset() == dst.offset() && src.sizes() == dst.sizes() && src.strides() == dst.strides()) return src;
  auto [slo, shi] = memory_extent(src);
  auto [dlo, dhi] = memory_extent(dst);
  if (shi <= dlo || dhi <= slo) return src;
  Tensor copy = empty(src.sizes(), src.dtype(), src.device());
  copy_into(copy, src);
  return copy;
}

// dst's history becomes `node`, whose inputs are dst's old history and src.
void take_history(Tensor& dst, const Tensor& src, const std::shared_ptr<Node>& node) {
  node->next_edges = {dst.requires_grad() ? gradient_edge(dst) : Edge{}, src.requires_grad() ? gradient_edge(src) : Edge{}};
  node->output_metas = {{dst.sizes(), dst.dtype(), dst.device()}};
  node->origin = current_origin_id();
  AutogradMeta& meta = dst.impl()->autograd_meta();
  meta.requires_grad = true;
  meta.grad_fn = node;
  meta.output_nr = 0;
}

void rebase_history(Tensor& dst, const Tensor& src) {
  bool track = grad_enabled() && (dst.requires_grad() || src.requires_grad());
  if (track) take_history(dst, src, std::make_shared<CopyBackward>(src.sizes()));
}

Tensor& apply_inplace(Tensor& dst, const Tensor& src, Tensor (*op)(const Tensor&, const Tensor&), const char* name) {
  if (!transforms::any_level_visible()) check_no_internal_overlap(dst, name);
  check_writable(dst, name);
  // A copy of dst's current value keeps the op's saved input valid after the write.
  bool recorded = grad_enabled() && (dst.requires_grad() || src.requires_grad());
  Tensor old = recorded ? dst + 0.0 : dst;
  Tensor result = op(old, src);
  NABLA_CHECK(result.sizes() == dst.sizes(), std::string(name) + ": the result of shape " + result.shape_str() +
                                           " does not fit the destination of shape " + dst.shape_str());
  check_inplace_dtype(name, result.dtype(), dst.dtype());
  return copy_(dst, result);
}

void write_lifted(Tensor& dst, const Tensor& src, const transforms::Level& level) {
  if (!transforms::lifted_at(dst, level.id))
    throw Error("grad (inside a jvp inside vmap): in-place write of a value being differentiated into a tensor "
                "that is not (one captured, or made from constants such as zeros()); write out of place (y = y + x)");
  check_writable(dst, "copy_");
  {
    transforms::HideLevels hide(level.id);
    Tensor value = dst.impl()->lifted->inner;
    copy_(value, transforms::lowered(src, level.id));
  }
  // Only what is lifted here has a history at this level; anything else is a constant.
  rebase_history(dst, transforms::lifted_at(src, level.id) ? src : detach(src));
}

// A write that a jvp, vmap or reverse level takes part in: done here (true), or an error.
bool write_under_transforms(Tensor& dst, const Tensor& src) {
  transforms::Level* level = transforms::innermost_level_of({dst, src});
  if (!level) return false;
  if (level->kind == transforms::LevelKind::forward)
    throw Error("jvp: in-place writes on tensors with tangents are not supported; write out of place (y = x + v)");
  if (level->kind == transforms::LevelKind::reverse) {
    write_lifted(dst, src, *level);
    return true;
  }
  bool dst_batched = transforms::batched_at(dst, level->id);
  if (!dst_batched)
    throw Error("vmap: in-place write of a batched value into a tensor that is not batched (captured from outside "
                "the function?): every example would write its own value into the one tensor; write out of place "
                "(y = x + v), or pass the tensor to vmap as an argument");
  Tensor dst_physical = transforms::unbatch(dst, level->id, level->batch_size, 0);
  Tensor src_physical = transforms::batched_at(src, level->id)
                            ? transforms::unbatch(src, level->id, level->batch_size, 0)
                            : src;  // broadcasts from the right, over the batch dim too
  transforms::HideLevels hide(level->id);
  // src broadcasts against dst's per-example shape: a batched src of lower rank (b[0] = 7.0,
  // b[i] = row) gets size-1 dims after its batch dim, or the batch dim would meet a data dim.
  if (transforms::batched_at(src, level->id))
    while (src_physical.dim() < dst_physical.dim()) src_physical = unsqueeze(src_physical, 1);
  copy_(dst_physical, src_physical);
  return true;
}

}  // namespace

Tensor& copy_(Tensor& dst, const Tensor& given) {
  // A wrapper of a reverse level that has ended is written as the value it wraps.
  const Tensor src = live_lifted_tensors() > 0 ? transforms::without_unseen_lifted({given})[0] : given;
  if (transforms::any_level_visible() && write_under_transforms(dst, src)) return dst;
  check_no_internal_overlap(dst, "copy_");
  check_writable(dst, "copy_");
  if (!(broadcast_shapes("copy_", dst.sizes(), src.sizes(), "self", "src") == dst.sizes()))
    throw Error("copy_: src of shape " + src.shape_str() + " cannot be broadcast to the destination shape " +
                dst.shape_str());
  notify_inplace(dst, src, "copy_");  // a captured graph cannot replay in-place writes
  copy_into(dst, unaliased_source(dst, src));
  dst.bump_version();
  rebase_history(dst, src);
  return dst;
}

// Note [A write into part of a tensor with gradients]
// x[t] = h or x[:, :k] = y with autograd on is PyTorch's copy_ into a view, whose base
// takes a CopySlices node. Here: the values are copied into x's part in place (the
// cost of the part, not of x), and x takes a node whose backward gives x's overwritten
// history the gradient with the part zeroed and the source the part of the gradient
// (summed over broadcast dims), both made of ops, so grad of grad holds. The part is
// a function that takes the same view of any tensor of x's shape. Before, the write
// was where(written, value, x) over all of x, found on the host: an RNN filling
// out[t] = h over 256 steps took seconds where PyTorch takes milliseconds.
class WriteIntoPartBackward : public Node {
 public:
  WriteIntoPartBackward(PartOf part, Shape src_shape, DType src_dtype)
      : part_(std::move(part)), src_shape_(std::move(src_shape)), src_dtype_(src_dtype) {}
  TensorList apply(TensorList&& grads) override {
    const Tensor& g = grads[0];
    TensorList out(2);
    if (next_edges[0].valid()) {
      Tensor keep = ones(g.sizes(), g.dtype(), g.device());
      {
        NoGradGuard quiet;
        Tensor written = part_(keep);
        copy_into(written, wrapped_scalar(0.0));
      }
      out[0] = mul(g, keep);
    }
    if (next_edges[1].valid()) {
      Tensor got = reduce_to_shape(part_(g), src_shape_);
      out[1] = got.dtype() == src_dtype_ ? got : to_dtype(got, src_dtype_);
    }
    return out;
  }
  std::string name() const override { return "CopySlices"; }

 private:
  PartOf part_;
  Shape src_shape_;
  DType src_dtype_;
};

Tensor& write_into_part(Tensor& dst, const Tensor& src, const PartOf& part) {
  check_no_internal_overlap(dst, "copy_");
  check_writable(dst, "copy_");
  Tensor view;
  {
    NoGradGuard quiet;
    view = part(dst);
  }
  if (!(broadcast_shapes("copy_", view.sizes(), src.sizes(), "self", "src") == view.sizes()))
    throw Error("copy_: src of shape " + src.shape_str() + " cannot be broadcast to the destination shape " +
                view.shape_str());
  notify_inplace(view, src, "copy_");
  copy_into(view, unaliased_source(view, src));
  dst.bump_version();
  if (grad_enabled() && (dst.requires_grad() || src.requires_grad()))
    take_history(dst, src, std::make_shared<WriteIntoPartBackward>(part, src.sizes(), src.dtype()));
  return dst;
}

Tensor& add_(Tensor& dst, const Tensor& src) { return apply_inplace(dst, src, add, "add_"); }
Tensor& sub_(Tensor& dst, const Tensor& src) { return apply_inplace(dst, src, sub, "sub_"); }
Tensor& mul_(Tensor& dst, const Tensor& src) { return apply_inplace(dst, src, mul, "mul_"); }
Tensor& div_(Tensor& dst, const Tensor& src) { return apply_inplace(dst, src, div, "div_"); }
Tensor& zero_(Tensor& dst) { return copy_(dst, wrapped_scalar(0.0)); }

}  // namespace nabla
