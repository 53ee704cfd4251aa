// How a kernel sees its operands, written once for every device: the normalised dims
// of a reduction and the [outer, reduced, inner] block it reduces, the [outer, C,
// inner] block of a class loss, the [N, C, S] planes of batch_norm and the rows of
// layer_norm, and the views the indexing and joining kernels address (a 0-dim tensor
// as 1-D, a dim whose step an index supplies, a slab along a dim), the grouped-query
// attention views. tensor/cpu/ and
// tensor/cuda/ both use these; only the kernels differ. The shape rules' dims
// normaliser (autograd/ops/common.hpp) is the same function.
//
// Must not touch: autograd, the language, any device API. .cu files include this, so
// it stays C++17 (nvcc's mode) and free of GCC vector extensions.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tensor/attrs.hpp"
#include "tensor/host_device.hpp"
#include "tensor/tensor.hpp"

namespace nabla {

using TensorList = std::vector<Tensor>;

// ---- reductions ---------------------------------------------------------------------

// The dims of a reduction over a tensor of `ndim` dims, sorted: each wrapped (negative
// counts from the end; a 0-dim tensor accepts 0 and -1 and reduces nothing), empty
// meaning every dim. A dim out of range or given twice is an error naming `op`.
std::vector<int64_t> reduction_dims(const char* op, const std::vector<int64_t>& dims, int64_t ndim);
// The same for a kernel, whose row's shape rule has already checked the dims.
inline std::vector<int64_t> reduction_dims(const Tensor& x, const std::vector<int64_t>& dims) {
  return reduction_dims("reduction", dims, x.dim());
}
// argmax/argmin's dims: a none "dim" means the flattened tensor.
std::vector<int64_t> arg_dims(const Tensor& x, const Attrs& attrs);

// The input of a reduction as a contiguous [outer, reduced, inner] block, so that a
// kernel is two plain loops (CPU) or one generic launch (CUDA, Note [CUDA reduction
// layout] in tensor/cuda/reduce.cuh). Reducing a consecutive run of dims of a
// contiguous tensor needs no copy; other cases copy once, on x's device, with the
// reduced dims moved last.
struct ReduceLayout {
  Tensor data;  // contiguous
  int64_t outer = 1, reduced = 1, inner = 1;
};
// `dims` sorted, unique, non-negative (reduction_dims); empty reduces nothing.
ReduceLayout reduce_layout(const Tensor& x, const std::vector<int64_t>& dims);

// ---- class losses (cross_entropy, nll_loss) -----------------------------------------

// The element of class c at target position p of a contiguous [outer, classes, inner]
// block, p = o * inner + s.
NABLA_HOST_DEVICE inline int64_t class_offset(int64_t p, int64_t c, int64_t classes, int64_t inner) {
  return ((p / inner) * classes + c) * inner + p % inner;
}

// The input of a class loss as a contiguous [outer, classes, inner] block: the class
// dim is 1, or 0 for an unbatched [C] input; target position p picks input[o, :, s].
struct ClassLayout {
  int64_t outer = 1, classes = 1, inner = 1;
  int64_t positions() const { return outer * inner; }
  int64_t at(int64_t p, int64_t c) const { return class_offset(p, c, classes, inner); }
};
ClassLayout class_layout(const Tensor& input);

// ---- normalization ------------------------------------------------------------------

// batch_norm's x [N, C, ...] as a contiguous [N, C, S] block, S the product of the
// dims after C (0 when N * C is).
struct ChannelLayout {
  int64_t N = 0, C = 0, S = 0;
};
ChannelLayout channel_layout(const Tensor& x);

// layer_norm's x as rows of D = numel(normalized_shape) values (no rows when D is 0).
struct RowLayout {
  int64_t rows = 0, D = 0;
};
RowLayout layer_norm_rows(const Tensor& x, const std::vector<int64_t>& normalized_shape);

// ---- indexing and joining (gather, scatter_add, index_select, embedding, cat, stack) --

// Calls f(TypeTag<U>{}) with U an unsigned integer as wide as an element of
// `element_size` bytes: moving a U moves the element, so the kernels that only move
// elements have one instantiation per size, not per dtype (f16/bf16 included).
template <class F>
void visit_bytes(size_t element_size, F&& f) {
  switch (element_size) {
    case 1:
      return f(TypeTag<uint8_t>{});
    case 2:
      return f(TypeTag<uint16_t>{});
    case 4:
      return f(TypeTag<uint32_t>{});
    case 8:
      return f(TypeTag<uint64_t>{});
  }
  throw Error("index kernels: unsupported element size " + std::to_string(element_size));
}

// A 0-dim tensor seen as one element of a 1-D tensor, so kernels index a real dim.
Tensor at_least_1d(const Tensor& t);
// `t` seen with `sizes` (no larger than its own off `dim`) and no step along `dim`:
// an index value supplies the position along dim (gather, scatter_add).
Tensor without_dim_step(const Tensor& t, const Shape& sizes, int64_t dim);
// The positions [start, start + length) of `t` along `dim`: where cat writes one input.
Tensor slab(const Tensor& t, int64_t dim, int64_t start, int64_t length);
// The view of t that slice(t, dim, start, _, step) of `count` elements is: where
// slice_backward writes its gradient (its attributes as the shape rule checked them).
Tensor sliced_view(const Tensor& t, const Attrs& slice_attrs, int64_t count);
// The inputs of stack, each given a size-1 dim at `dim` (a view): stack is cat of these.
TensorList unsqueezed_at(const TensorList& inputs, int64_t dim);
// The product of sizes[begin, end).
int64_t size_product(const Shape& sizes, size_t begin, size_t end);

// ---- attention ------------------------------------------------------------------------

// Note [Grouped-query attention]
// With enable_gqa, query has Hq heads (dim -3) and key and value Hk, Hq a multiple of
// Hk: query head h reads key/value head h / (Hq / Hk), as PyTorch's repeat_interleave
// of the key and value heads. No copy: the kernels see it as broadcasting. The head
// dim of query, output, mask and keep-mask is split into [Hk, Hq / Hk] (a view),
// key and value gain a unit dim there ([Hk, 1]), and a mask whose head dim is 1 a
// unit dim too; the batch loops then pair the heads. The backward rule does the same
// with reshape and unsqueeze (autograd/ops/attention.cpp).
//
// `t` ([..., H, rows, cols]) so seen, for `groups` = Hq / Hk and `query_heads` = Hq;
// t itself when groups is 1 or t has fewer than 3 dims (it broadcasts as it is).
Tensor gqa_view(const Tensor& t, int64_t query_heads, int64_t groups);

}  // namespace nabla
