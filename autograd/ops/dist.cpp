// Rows of the differentiable collectives of tensor parallelism (issue 8): the four
// "regions" of Megatron-LM, each the adjoint of another, so that every backward rule
// is an op of this family and grad of grad works across ranks:
//
//   dist_copy(x)         forward: x (every rank holds it whole)   backward: all_reduce
//   dist_reduce(x)       forward: all_reduce (sum of partials)    backward: identity
//   dist_split(x, dim)   forward: this rank's chunk of dim        backward: all_gather
//   dist_gather(x, dim)  forward: all ranks' chunks along dim     backward: split
//
// See Note [Tensor-parallel regions]. They run on the group dist.init() made
// (tensor/dist/communicator.hpp); without one they act on a group of one process,
// where each is the identity, as Megatron's are when the model-parallel size is 1.
// Every rank must call them in the same order (the graph is the same on every rank,
// so backward calls them in the same order too); the group must not also be in use
// by a data-parallel reducer's thread.
#include "autograd/ops/common.hpp"
#include "tensor/dist/communicator.hpp"

namespace nabla {

// Note [Tensor-parallel regions]
// A column-parallel Linear holds rows of W (out features) and a row-parallel one
// columns of W (in features). Column then row needs no communication in between:
//   y = dist_reduce( linear_r( act( linear_c( dist_copy(x) ) ) ) )
// dist_copy marks where a replicated tensor enters rank-local work: its gradient is
// the sum of every rank's contribution, hence all_reduce in backward. dist_reduce
// sums the ranks' partial products; its output is replicated, so the gradient each
// rank receives is already the whole gradient, and passes through unchanged.

namespace {

struct Group {
  std::shared_ptr<dist::Communicator> comm;  // null: a group of one process
  int rank = 0;
  int world = 1;
};

Group current_group() {
  Group g;
  g.comm = dist::default_communicator();
  if (g.comm) {
    g.rank = g.comm->rank();
    g.world = g.comm->world_size();
  }
  return g;
}

std::vector<TensorMeta> infer_same(const TensorList& in, const Attrs&, const char* op) {
  check_floating(op, "input", in[0]);
  return one(in[0].sizes(), in[0].dtype());
}

std::vector<TensorMeta> infer_copy(const TensorList& in, const Attrs& a) { return infer_same(in, a, "dist_copy"); }
std::vector<TensorMeta> infer_reduce(const TensorList& in, const Attrs& a) { return infer_same(in, a, "dist_reduce"); }

std::vector<TensorMeta> infer_split(const TensorList& in, const Attrs& a) {
  check_floating("dist_split", "input", in[0]);
  const Tensor& x = in[0];
  NABLA_CHECK(x.dim() >= 1, "dist_split: argument 'input' must have at least 1 dim, got a scalar");
  int64_t dim = wrap_dim(a.i("dim"), x.dim(), "dist_split");
  int world = current_group().world;
  Shape out = x.sizes();
  if (out[dim] % world != 0)
    throw Error("dist_split: dim " + std::to_string(dim) + " of argument 'input' of shape " + x.shape_str() +
                " has " + std::to_string(out[dim]) + " elements, not a multiple of the world size " +
                std::to_string(world));
  out[dim] /= world;
  return one(out, x.dtype());
}

std::vector<TensorMeta> infer_gather(const TensorList& in, const Attrs& a) {
  check_floating("dist_gather", "input", in[0]);
  const Tensor& x = in[0];
  NABLA_CHECK(x.dim() >= 1, "dist_gather: argument 'input' must have at least 1 dim, got a scalar");
  int64_t dim = wrap_dim(a.i("dim"), x.dim(), "dist_gather");
  Shape out = x.sizes();
  out[dim] *= current_group().world;
  return one(out, x.dtype());
}

void kernel_copy(const TensorList& in, const Attrs&, TensorList& out) { copy_into(out[0], in[0]); }

void kernel_reduce(const TensorList& in, const Attrs&, TensorList& out) {
  copy_into(out[0], in[0]);
  Group g = current_group();
  if (g.comm) g.comm->all_reduce(out[0], dist::ReduceOp::sum);
}

// `t` with dim `dim` cut into `world` chunks, the chunk index moved to the front:
// a strided view of shape [world, ..., size/world, ...] over t's storage.
Tensor chunks_in_front(const Tensor& t, int64_t dim, int world) {
  Shape sizes = t.sizes(), strides = t.strides();
  int64_t chunk = sizes[dim] / world;
  sizes[dim] = chunk;
  sizes.insert(0, world);
  strides.insert(0, t.strides()[dim] * chunk);
  return make_view(t, sizes, strides, t.offset());
}

void kernel_split(const TensorList& in, const Attrs& a, TensorList& out) {
  const Tensor& x = in[0];
  int64_t dim = wrap_dim(a.i("dim"), x.dim(), "dist_split");
  Group g = current_group();
  Tensor chunks = chunks_in_front(x, dim, g.world);
  Shape sizes(chunks.sizes().begin() + 1, chunks.sizes().end());
  Shape strides(chunks.strides().begin() + 1, chunks.strides().end());
  copy_into(out[0], make_view(x, sizes, strides, x.offset() + g.rank * chunks.strides()[0]));
}

// all_gather concatenates along dim 0, so the ranks' (contiguous) chunks arrive as
// [world, ...x's shape]; they are then laid into the output along `dim`.
void kernel_gather(const TensorList& in, const Attrs& a, TensorList& out) {
  const Tensor& x = in[0];
  int64_t dim = wrap_dim(a.i("dim"), x.dim(), "dist_gather");
  Group g = current_group();
  if (!g.comm) return copy_into(out[0], x);
  Tensor mine = contiguous_raw(x);
  Shape with_rank = mine.sizes();
  with_rank.insert(0, 1);
  Tensor gathered = g.comm->all_gather(make_view(mine, with_rank, contiguous_strides(with_rank), mine.offset()));
  copy_into(chunks_in_front(out[0], dim, g.world), gathered);
}

TensorList backward_copy(BackwardContext& c) { return {dist_reduce(c.grad())}; }
TensorList backward_reduce(BackwardContext& c) { return {dist_copy(c.grad())}; }
TensorList backward_split(BackwardContext& c) { return {dist_gather(c.grad(), c.attrs().i("dim"))}; }
TensorList backward_gather(BackwardContext& c) { return {dist_split(c.grad(), c.attrs().i("dim"))}; }

// The kernels only copy and call the group, which picks the device's library (Gloo
// for CPU tensors, NCCL for CUDA ones): the same function serves both devices, and
// moves 16-bit floats as they are on a GPU (NCCL reduces them natively).
void set_row(std::vector<OpDef>& t, OpId id, InferFn infer, KernelFn kernel, BackwardFn backward,
             std::vector<AttrSpec> attrs) {
  OpDef& r = row(t, id);
  r = {.num_inputs = 1, .attrs = std::move(attrs), .infer = infer, .cpu = kernel, .backward = backward};
  r.cuda = kernel;
  r.cuda_half_native = true;
}

}  // namespace

void register_dist_ops(std::vector<OpDef>& t) {
  set_row(t, OpId::dist_copy, infer_copy, kernel_copy, backward_copy, {});
  set_row(t, OpId::dist_reduce, infer_reduce, kernel_reduce, backward_reduce, {});
  set_row(t, OpId::dist_split, infer_split, kernel_split, backward_split,
          {attr_optional("dim", AttrKind::integer, int64_t{-1})});
  set_row(t, OpId::dist_gather, infer_gather, kernel_gather, backward_gather,
          {attr_optional("dim", AttrKind::integer, int64_t{-1})});
  name_inputs(t, {{OpId::dist_copy, {"input"}},
                  {OpId::dist_reduce, {"input"}},
                  {OpId::dist_split, {"input"}},
                  {OpId::dist_gather, {"input"}}});
  // What :help prints for each op of this family; tests/interp/op_docs.cpp runs every example.
  document_ops(t,
               {{OpId::dist_copy,
                 "The input itself, whose gradient is all-reduced over the tensor-parallel group (Megatron's copy to "
                 "the model-parallel region; the identity without a group). "
                 "Example: dist_copy(randn(4))"},
                {OpId::dist_reduce,
                 "The sum of every rank's input (an all-reduce) whose gradient passes through unchanged (Megatron's "
                 "reduce from the model-parallel region; the identity without a group). "
                 "Example: dist_reduce(randn(4))"},
                {OpId::dist_split,
                 "This rank's chunk of input along dim, whose gradient is all-gathered (Megatron's scatter to the "
                 "model-parallel region; the identity without a group). "
                 "Example: dist_split(randn(2, 4), dim=-1)"},
                {OpId::dist_gather,
                 "Every rank's input joined along dim (an all-gather), whose gradient is split back (Megatron's "
                 "gather from the model-parallel region; the identity without a group). "
                 "Example: dist_gather(randn(2, 4), dim=-1)"}});
}

Tensor dist_copy(const Tensor& x) { return call1(OpId::dist_copy, {x}); }
Tensor dist_reduce(const Tensor& x) { return call1(OpId::dist_reduce, {x}); }
Tensor dist_split(const Tensor& x, int64_t dim) { return call1(OpId::dist_split, {x}, {{"dim", dim}}); }
Tensor dist_gather(const Tensor& x, int64_t dim) { return call1(OpId::dist_gather, {x}, {{"dim", dim}}); }

}  // namespace nabla
