// CUDA kernels of the indexing and joining ops: gather, index_select, embedding,
// scatter_add, cat, stack (semantics: tensor/cpu/index.cpp). Inputs keep their
// layout: strided and expanded operands are addressed through OffsetCalculator, never
// copied (backward rules pass expanded indices). Indices are read as i64 (an i32
// index is widened once, as on the CPU). Ops that only move elements move them as
// unsigned words of the element's size, so one instantiation serves every dtype of
// that size (f16/bf16 included). An index out of range fails a device-side check
// (check_index in reduce.cuh): checking on the host would need the indices there, a
// synchronisation per call.
//
// scatter_add adds with atomics: terms that meet in one output element are added in
// an order that depends on timing, so floating results may differ in the last bits
// from run to run and from the CPU's ordered sum. f16/bf16 go through f32 (the row
// is registered without half support): 16-bit atomics would round every term.
#include "tensor/cpu/copy.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/cuda/kernels.hpp"
#include "tensor/cuda/reduce.cuh"
#include "tensor/layout.hpp"

namespace nabla::cuda {

namespace {

// ---------------------------------------------------------------------------
// gather: out[p] = x[p with p[dim] = index[p]]; out is contiguous in index's shape.

template <class E>
__global__ void gather_kernel(E* out, const E* x, const int64_t* index, int64_t n, OffsetCalculator<2> calc,
                              int64_t step, int64_t size) {
  NABLA_GRID_STRIDE_LOOP(i, n) {
    int64_t off[2];
    calc.offsets(i, off);
    int64_t k = index[off[1]];
    check_index("gather", k, size);
    out[i] = x[off[0] + k * step];
  }
}

// ---------------------------------------------------------------------------
// index_select / embedding: out[o, i, j] = x[o, index[i], j]; out is contiguous with
// x's shape but `count` along dim; `inner` is the number of elements after dim.

template <class E>
__global__ void select_kernel(E* out, const E* x, const int64_t* index, int64_t n, OffsetCalculator<1> calc,
                              int64_t inner, int64_t count, int64_t step, int64_t size, bool embedding) {
  NABLA_GRID_STRIDE_LOOP(i, n) {
    int64_t off[1];
    calc.offsets(i, off);
    int64_t k = index[(i / inner) % count];
    check_index(embedding ? "embedding" : "index_select", k, size);
    out[i] = x[off[0] + k * step];
  }
}

// x (any layout, at least 1-D) indexed along dim by the values of `index_in` (any
// shape, read in row-major order) into `out`.
void select_along(const Tensor& x, int64_t dim, const Tensor& index_in, const Tensor& out, bool embedding) {
  Tensor index = contiguous_raw(cpu::as_dtype(index_in, DType::i64));
  int64_t count = index.numel();
  Shape shape = x.sizes();
  shape[dim] = count;
  NABLA_CHECK(shape_numel(shape) == out.numel(),
              std::string(embedding ? "embedding" : "index_select") + ": the output does not hold " + shape_str(shape));
  int64_t n = out.numel();
  if (n == 0) return;
  int64_t inner = size_product(shape, dim + 1, shape.size());
  Tensor xv = without_dim_step(x, shape, dim);
  auto calc = make_offset_calculator<1>(shape, {&xv});
  visit_bytes(dtype_size(x.dtype()), [&](auto tag) {
    using E = typename decltype(tag)::type;
    select_kernel<E><<<blocks_for(n), kThreads, 0, stream_for(out)>>>(
        device_data<E>(out), device_data<const E>(xv), device_data<const int64_t>(index), n, calc, inner, count,
        x.strides()[dim], x.sizes()[dim], embedding);
  });
  NABLA_CUDA_LAUNCH_CHECK();
}

// ---------------------------------------------------------------------------
// scatter_add: out[p with p[dim] = index[p]] += src[p] for p over index's shape.

template <class T>
__device__ __forceinline__ void atomic_add(T* at, T v) {
  if constexpr (std::is_same_v<T, int64_t>) {
    atomicAdd(reinterpret_cast<unsigned long long*>(at), static_cast<unsigned long long>(v));  // two's complement
  } else if constexpr (sizeof(T) <= 2) {
    // u8, i8 and i16: no byte or short atomics, so a compare-and-swap of the aligned
    // word holding the element (inside the same allocation: blocks are 256-byte
    // aligned). The sum wraps modulo 2^8 or 2^16, as the CPU's does.
    constexpr unsigned mask = sizeof(T) == 1 ? 0xffu : 0xffffu;
    auto address = reinterpret_cast<uintptr_t>(at);
    auto* word = reinterpret_cast<unsigned int*>(address & ~uintptr_t(3));
    unsigned shift = static_cast<unsigned>(address & 3) * 8;
    unsigned added = static_cast<unsigned>(v) & mask;
    unsigned old = *word, assumed;
    do {
      assumed = old;
      unsigned sum = ((assumed >> shift) + added) & mask;
      old = atomicCAS(word, assumed, (assumed & ~(mask << shift)) | (sum << shift));
    } while (assumed != old);
  } else {
    atomicAdd(at, v);
  }
}

template <class T>
__global__ void scatter_add_kernel(T* out, const T* src, const int64_t* index, int64_t n, OffsetCalculator<3> calc,
                                   int64_t step, int64_t size) {
  NABLA_GRID_STRIDE_LOOP(i, n) {
    int64_t off[3];
    calc.offsets(i, off);
    int64_t k = index[off[2]];
    check_index("scatter_add", k, size);
    atomic_add(out + off[0] + k * step, src[off[1]]);
  }
}

// The scatter itself (out already holds self); all at least 1-D, index i64.
void scatter_add_into(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) {
  int64_t n = index.numel();
  if (n == 0) return;
  const Shape& shape = index.sizes();
  Tensor ov = without_dim_step(out, shape, dim);
  Tensor sv = make_view(src, shape, src.strides(), src.offset());  // src may be larger than index
  auto calc = make_offset_calculator<3>(shape, {&ov, &sv, &index});
  visit_device_dtype(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t> ||
                  std::is_same_v<T, int64_t> || std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t> ||
                  std::is_same_v<T, int16_t>) {
      scatter_add_kernel<T><<<blocks_for(n), kThreads, 0, stream_for(out)>>>(
          device_data<T>(ov), device_data<const T>(sv), device_data<const int64_t>(index), n, calc, out.strides()[dim],
          out.sizes()[dim]);
    } else {
      throw Error(std::string("scatter_add: not defined for ") + dtype_name(out.dtype()) + " on CUDA");
    }
  });
  NABLA_CUDA_LAUNCH_CHECK();
}

// ---------------------------------------------------------------------------
// cat / stack: each input is copied (any layout, converting dtype) into its slab of
// out along dim by the strided copy kernel of transfer.cu.
void join(const TensorList& inputs, int64_t dim, const Tensor& out) {
  int64_t at = 0;  // where the current input starts along dim
  for (const Tensor& t : inputs) {
    int64_t len = t.sizes()[dim];
    nabla::copy_into(slab(out, dim, at, len), t);
    at += len;
  }
}

}  // namespace

void gather(const TensorList& in, const Attrs& attrs, TensorList& out) {
  int64_t n = out[0].numel();
  if (n == 0) return;
  DeviceGuard guard(out[0].device().index);
  Tensor x = at_least_1d(in[0]);
  int64_t dim = wrap_dim(attrs.i("dim"), x.dim(), "gather");
  Tensor index = at_least_1d(cpu::as_dtype(in[1], DType::i64));
  Tensor xv = without_dim_step(x, index.sizes(), dim);
  auto calc = make_offset_calculator<2>(index.sizes(), {&xv, &index});
  visit_bytes(dtype_size(x.dtype()), [&](auto tag) {
    using E = typename decltype(tag)::type;
    gather_kernel<E><<<blocks_for(n), kThreads, 0, stream_for(out[0])>>>(
        device_data<E>(out[0]), device_data<const E>(xv), device_data<const int64_t>(index), n, calc, x.strides()[dim],
        x.sizes()[dim]);
  });
  NABLA_CUDA_LAUNCH_CHECK();
}

void index_select(const TensorList& in, const Attrs& attrs, TensorList& out) {
  DeviceGuard guard(out[0].device().index);
  Tensor x = at_least_1d(in[0]);
  select_along(x, wrap_dim(attrs.i("dim"), x.dim(), "index_select"), in[1], out[0], false);
}

// Rows of weight [V, D] by the indices in row-major order: out seen as [n, D].
void embedding(const TensorList& in, const Attrs&, TensorList& out) {
  DeviceGuard guard(out[0].device().index);
  select_along(in[0], 0, in[1], out[0], true);
}

void scatter_add(const TensorList& in, const Attrs& attrs, TensorList& out) {
  DeviceGuard guard(out[0].device().index);
  Tensor o = at_least_1d(out[0]);
  nabla::copy_into(o, in[0]);
  int64_t dim = wrap_dim(attrs.i("dim"), o.dim(), "scatter_add");
  Tensor index = at_least_1d(cpu::as_dtype(in[1], DType::i64));
  Tensor src = at_least_1d(cpu::as_dtype(in[2], out[0].dtype()));
  scatter_add_into(o, dim, index, src);
}

void cat(const TensorList& in, const Attrs& attrs, TensorList& out) {
  DeviceGuard guard(out[0].device().index);
  join(in, wrap_dim(attrs.i("dim"), out[0].dim(), "cat"), out[0]);
}

// stack is cat of the inputs each given a size-1 dim at `dim`.
void stack(const TensorList& in, const Attrs& attrs, TensorList& out) {
  DeviceGuard guard(out[0].device().index);
  int64_t dim = wrap_dim(attrs.i("dim"), out[0].dim(), "stack");
  join(unsqueezed_at(in, dim), dim, out[0]);
}

}  // namespace nabla::cuda
