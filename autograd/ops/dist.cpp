// Rows of the differentiable collectives, each the adjoint of another, so that every
// backward rule is an op of this family and grad of grad works across ranks. The four
// "regions" of Megatron-LM's tensor parallelism:
//
//   dist_copy(x)         forward: x (every rank holds it whole)   backward: all_reduce
//   dist_reduce(x)       forward: all_reduce (sum of partials)    backward: identity
//   dist_split(x, dim)   forward: this rank's chunk of dim        backward: all_gather
//   dist_gather(x, dim)  forward: all ranks' chunks along dim     backward: split
//
// and the pair of FSDP's sharded parameters (Note [Sharded parameters in a graph]):
//
//   dist_shard_gather(s)  forward: all ranks' shards joined       backward: reduce-scatter (average)
//   dist_shard_reduce(f)  forward: reduce-scatter (average)       backward: all-gather
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

// Note [Sharded parameters in a graph]
// FSDP's unit, in a compiled step (stdlib/_fsdp.dsl), reads its parameters through
//   full = dist_shard_gather(flat_shard, dtype=param_dtype, reduce_dtype=...)
// so the gather is a node of the graph and the reduce-scatter of the flat gradient
// the node its backward rule makes: the passes and the memory plan see both (the
// reshard pass gathers again for the backward under sharding="full"). The two ops
// are each other's adjoint under FSDP's convention: the objective is the mean of the
// ranks' losses, so the gradient of a sharded tensor is the average over ranks of
// what each rank computed, while each rank's copy of a whole tensor has its own.
// With sharded=false the parameter is whole on every rank (sharding="none"): the
// gather is a cast and the reduction an averaging all-reduce. Without a group both
// are casts.
std::optional<DType> optional_dtype(const Attrs& a, const char* name) {
  return a.is_none(name) ? std::nullopt : std::optional<DType>(a.dtype(name));
}

int shard_world(const Attrs& a) { return a.b("sharded") ? current_group().world : 1; }

std::vector<TensorMeta> infer_shard_gather(const TensorList& in, const Attrs& a) {
  check_floating("dist_shard_gather", "shard", in[0]);
  const Tensor& x = in[0];
  NABLA_CHECK(x.dim() == 1, "dist_shard_gather: argument 'shard' must be 1-D (a unit's flat parameter shard), got shape " +
                                x.shape_str());
  return one({x.size(0) * shard_world(a)}, optional_dtype(a, "dtype").value_or(x.dtype()));
}

std::vector<TensorMeta> infer_shard_reduce(const TensorList& in, const Attrs& a) {
  check_floating("dist_shard_reduce", "full", in[0]);
  const Tensor& x = in[0];
  NABLA_CHECK(x.dim() == 1, "dist_shard_reduce: argument 'full' must be 1-D (a unit's flat gradient), got shape " +
                                x.shape_str());
  int world = shard_world(a);
  if (x.size(0) % world != 0)
    throw Error("dist_shard_reduce: argument 'full' has " + std::to_string(x.size(0)) +
                " elements, not a multiple of the world size " + std::to_string(world));
  return one({x.size(0) / world}, optional_dtype(a, "dtype").value_or(x.dtype()));
}

void kernel_shard_gather(const TensorList& in, const Attrs& a, TensorList& out) {
  Group g = current_group();
  if (!g.comm || !a.b("sharded")) return copy_into(out[0], in[0]);
  g.comm->all_gather_into(to_dtype_raw(in[0], out[0].dtype()), out[0]);
}

void kernel_shard_reduce(const TensorList& in, const Attrs& a, TensorList& out) {
  Group g = current_group();
  DType reduce_dtype = optional_dtype(a, "reduce_dtype").value_or(in[0].dtype());
  if (!g.comm) return copy_into(out[0], to_dtype_raw(in[0], reduce_dtype));  // rounded through it all the same
  if (!a.b("sharded")) {  // all_reduce works in place: a buffer of its own
    Tensor work = empty(in[0].sizes(), reduce_dtype, in[0].device());
    copy_into(work, in[0]);
    g.comm->all_reduce(work, dist::ReduceOp::avg);
    return copy_into(out[0], work);
  }
  copy_into(out[0], g.comm->reduce_scatter(to_dtype_raw(in[0], reduce_dtype), dist::ReduceOp::avg));
}

TensorList backward_shard_gather(BackwardContext& c) {
  const Attrs& a = c.attrs();
  return {call1(OpId::dist_shard_reduce, {c.grad()},
                {{"dtype", c.input_dtype(0)}, {"reduce_dtype", a.value("reduce_dtype")}, {"sharded", a.b("sharded")}})};
}

TensorList backward_shard_reduce(BackwardContext& c) {
  return {call1(OpId::dist_shard_gather, {c.grad()}, {{"dtype", c.input_dtype(0)}, {"sharded", c.attrs().b("sharded")}})};
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
  auto shard_attrs = [] {
    return std::vector<AttrSpec>{attr_optional("dtype", AttrKind::dtype, NoneAttr{}),
                                 attr_optional("reduce_dtype", AttrKind::dtype, NoneAttr{}),
                                 attr_optional("sharded", AttrKind::boolean, true)};
  };
  // reshard: the gathered vector may be freed after the forward and gathered again for
  // the backward (sharding="full"); the reshard pass reads it (passes/reshard.cpp).
  std::vector<AttrSpec> gather_attrs = shard_attrs();
  gather_attrs.push_back(attr_optional("reshard", AttrKind::boolean, false));
  set_row(t, OpId::dist_shard_gather, infer_shard_gather, kernel_shard_gather, backward_shard_gather, gather_attrs);
  set_row(t, OpId::dist_shard_reduce, infer_shard_reduce, kernel_shard_reduce, backward_shard_reduce, shard_attrs());
  name_inputs(t, {{OpId::dist_shard_gather, {"shard"}},
                  {OpId::dist_shard_reduce, {"full"}},
                  {OpId::dist_copy, {"input"}},
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
                 "Example: dist_gather(randn(2, 4), dim=-1)"},
                {OpId::dist_shard_gather,
                 "Every rank's 1-D shard joined in rank order and cast to dtype (FSDP's all-gather of a unit's flat "
                 "parameter, torch's all_gather_into_tensor), whose gradient is reduce-scattered as the average over the "
                 "ranks in reduce_dtype (sharded=false: the whole parameter on every rank, its gradient all-reduced; a "
                 "cast without a group); reshard=true lets a compiled step free it after the forward and gather it again "
                 "for the backward (FSDP's reshard_after_forward). Example: dist_shard_gather(randn(6), dtype=f32)"},
                {OpId::dist_shard_reduce,
                 "This rank's slice of the average over the ranks of a 1-D tensor, reduced in reduce_dtype and cast to "
                 "dtype (FSDP's reduce-scatter of a flat gradient), whose gradient is all-gathered (sharded=false: an "
                 "averaging all-reduce; a cast without a group). Example: dist_shard_reduce(randn(6), reduce_dtype=f64)"}});
}

Tensor dist_copy(const Tensor& x) { return call1(OpId::dist_copy, {x}); }
Tensor dist_reduce(const Tensor& x) { return call1(OpId::dist_reduce, {x}); }
Tensor dist_split(const Tensor& x, int64_t dim) { return call1(OpId::dist_split, {x}, {{"dim", dim}}); }
Tensor dist_gather(const Tensor& x, int64_t dim) { return call1(OpId::dist_gather, {x}, {{"dim", dim}}); }

namespace {
AttrValue dtype_or_none(std::optional<DType> d) { return d ? AttrValue(*d) : AttrValue(NoneAttr{}); }
}  // namespace

Tensor dist_shard_gather(const Tensor& shard, std::optional<DType> dtype, std::optional<DType> reduce_dtype) {
  return call1(OpId::dist_shard_gather, {shard}, {{"dtype", dtype_or_none(dtype)}, {"reduce_dtype", dtype_or_none(reduce_dtype)}});
}
Tensor dist_shard_reduce(const Tensor& full, std::optional<DType> dtype, std::optional<DType> reduce_dtype) {
  return call1(OpId::dist_shard_reduce, {full}, {{"dtype", dtype_or_none(dtype)}, {"reduce_dtype", dtype_or_none(reduce_dtype)}});
}

}  // namespace nabla
