// scaled_dot_product_attention as steps on the device: the scores q k^T * scale as
// one batched GEMM (cuBLAS, the scale as its alpha), the attn_mask added (a bool mask
// as 0 / -inf, read broadcast in place), a masked row softmax (a warp per row; a row
// that sees no key is 0, as on the CPU), dropout on the weights (the keep-mask drawn
// with the CPU's uniform_at), and the weighted sum p v as a second batched GEMM.
// Grouped-query attention is broadcasting (Note [Grouped-query attention]).
// Unlike the CPU's flash-style kernel, the [batch..., L, S] score matrix exists, once:
// simple and right, at the price of that memory. With 16-bit inputs the scores stay
// in f32 and the weights are rounded to the input dtype for the second GEMM (both
// GEMMs accumulate in f32). The causal mask is the CPU's: query i sees keys j <= i.
#include <algorithm>
#include <cmath>

#include "tensor/cuda/blas.cuh"
#include "tensor/cuda/block_reduce.cuh"
#include "tensor/layout.hpp"
#include "tensor/random.hpp"

namespace nabla::cuda {

namespace {

// weights[r, :] = softmax(scores[r, :]) over the keys row r sees (row r of the
// [rows, S] block is query r % L), 0 for the masked ones. scores and weights may be
// the same memory: each lane writes only the entries it read.
template <class T>
__global__ void masked_softmax_kernel(const dcompute_t<T>* scores, T* weights, int64_t rows, int64_t L, int64_t S,
                                      bool causal) {
  using A = dcompute_t<T>;
  int lane = threadIdx.x % kWarpSize;
  int64_t warp = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarpSize;
  int64_t warps = static_cast<int64_t>(gridDim.x) * blockDim.x / kWarpSize;
  for (int64_t r = warp; r < rows; r += warps) {
    const A* in = scores + r * S;
    T* out = weights + r * S;
    int64_t visible = causal ? (r % L + 1 < S ? r % L + 1 : S) : S;  // key 0 is always visible
    A mx = -INFINITY, seen = 0;  // seen: a score that is not -inf (a NaN counts: its row stays NaN)
    for (int64_t j = lane; j < visible; j += kWarpSize) {
      mx = in[j] > mx ? in[j] : mx;
      if (!(in[j] == -INFINITY)) seen = 1;
    }
    mx = warp_max(mx);
    if (warp_max(seen) == A(0)) {  // no key visible: the row attends to nothing, 0
      for (int64_t j = lane; j < S; j += kWarpSize) out[j] = convert<T>(A(0));
      continue;
    }
    A sum = 0;
    for (int64_t j = lane; j < visible; j += kWarpSize) sum += ::exp(in[j] - mx);
    A inv = A(1) / warp_sum(sum);
    for (int64_t j = lane; j < S; j += kWarpSize) out[j] = convert<T>(j < visible ? ::exp(in[j] - mx) * inv : A(0));
  }
}

// scores += mask (broadcast to the scores' shape; a bool mask adds 0 or -inf).
template <class A>
__global__ void add_mask_kernel(A* scores, int64_t n, OffsetCalculator<1> mask_at, const void* mask, DType mask_dtype) {
  NABLA_GRID_STRIDE_LOOP(i, n) {
    int64_t off[1];
    mask_at.offsets(i, off);
    if (mask_dtype == DType::b8)
      scores[i] = static_cast<const bool*>(mask)[off[0]] ? scores[i] : A(-INFINITY);
    else
      scores[i] += load_converted<A>(mask, mask_dtype, off[0]);
  }
}

// weights *= keep / (1 - p), the keep-mask drawn here (one bool per weight).
template <class T>
__global__ void dropout_weights_kernel(T* weights, bool* keep, int64_t n, uint64_t seed, double p, double scale) {
  using A = dcompute_t<T>;
  NABLA_GRID_STRIDE_LOOP(i, n) {
    bool k = p < 1.0 && uniform_at(seed, static_cast<uint64_t>(i)) >= p;
    keep[i] = k;
    weights[i] = convert<T>(k ? static_cast<A>(weights[i]) * static_cast<A>(scale) : A(0));
  }
}

// The view of t with its last two dims swapped.
Tensor transposed_last(const Tensor& t) {
  Shape sizes = t.sizes(), strides = t.strides();
  int64_t nd = t.dim();
  std::swap(sizes[nd - 1], sizes[nd - 2]);
  std::swap(strides[nd - 1], strides[nd - 2]);
  return make_view(t, sizes, strides, t.offset());
}

}  // namespace

void scaled_dot_product_attention(const TensorList& in, const Attrs& attrs, TensorList& out) {
  if (out[0].numel() == 0) return;
  DeviceGuard guard(out[0].device().index);
  int64_t heads = in[0].dim() >= 3 ? in[0].sizes()[in[0].dim() - 3] : 1;
  int64_t groups = attrs.b("enable_gqa") ? heads / in[1].sizes()[in[1].dim() - 3] : 1;
  Tensor q = gqa_view(in[0], heads, groups), k = gqa_view(in[1], heads, groups), v = gqa_view(in[2], heads, groups);
  Tensor mask = gqa_view(in[3], heads, groups), o = gqa_view(out[0], heads, groups);
  int64_t E = q.sizes()[q.dim() - 1], L = q.sizes()[q.dim() - 2], S = k.sizes()[k.dim() - 2];
  double dropout_p = attrs.f("dropout_p");
  uint64_t seed = dropout_p > 0.0 && dropout_p < 1.0 ? random_bits() : 0;  // before any early return, as on the CPU
  // No keys: every row attends to nothing, 0, as on the CPU.
  if (S == 0) return fill(out[0], 0.0);
  double scale = attrs.is_none("scale") ? 1.0 / std::sqrt(static_cast<double>(E)) : attrs.f("scale");
  Shape scores_shape(o.sizes().begin(), o.sizes().end() - 2);
  int64_t rows = shape_numel(scores_shape) * L;
  scores_shape.push_back(L);
  scores_shape.push_back(S);
  Tensor scores = empty(scores_shape, is_half(o.dtype()) ? DType::f32 : o.dtype(), o.device());
  batched_matmul(q, transposed_last(k), scores, scale);
  if (mask.defined()) {
    OffsetCalculator<1> mask_at = make_offset_calculator<1>(scores_shape, {&mask});
    visit_device_float(scores.dtype(), "scaled_dot_product_attention", [&](auto tag) {
      using A = typename decltype(tag)::type;
      add_mask_kernel<A><<<blocks_for(scores.numel()), kThreads, 0, stream_for(o)>>>(
          device_data<A>(scores), scores.numel(), mask_at, mask.raw_data(), mask.dtype());
    });
    NABLA_CUDA_LAUNCH_CHECK();
  }
  Tensor weights = scores.dtype() == o.dtype() ? scores : empty(scores_shape, o.dtype(), o.device());
  bool causal = attrs.b("is_causal");
  visit_device_float(o.dtype(), "scaled_dot_product_attention", [&](auto tag) {
    using T = typename decltype(tag)::type;
    masked_softmax_kernel<T><<<blocks_for(rows * kWarpSize), kThreads, 0, stream_for(o)>>>(
        device_data<const dcompute_t<T>>(scores), device_data<T>(weights), rows, L, S, causal);
    if (dropout_p > 0.0)
      dropout_weights_kernel<T><<<blocks_for(weights.numel()), kThreads, 0, stream_for(o)>>>(
          device_data<T>(weights), device_data<bool>(out[1]), weights.numel(), seed, dropout_p,
          dropout_p < 1.0 ? 1.0 / (1.0 - dropout_p) : 0.0);
  });
  NABLA_CUDA_LAUNCH_CHECK();
  batched_matmul(weights, v, o);
}

}  // namespace nabla::cuda
