// scaled_dot_product_attention as three steps on the device: the scores
// q k^T * scale as one batched GEMM (cuBLAS, the scale as its alpha), a masked row
// softmax (a warp per row), and the weighted sum p v as a second batched GEMM.
// Unlike the CPU's flash-style kernel, the [batch..., L, S] score matrix exists, once:
// simple and right, at the price of that memory. With 16-bit inputs the scores stay
// in f32 and the weights are rounded to the input dtype for the second GEMM (both
// GEMMs accumulate in f32). The causal mask is the CPU's: query i sees keys j <= i.
#include <algorithm>
#include <cmath>

#include "tensor/cuda/blas.cuh"
#include "tensor/cuda/block_reduce.cuh"

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
    A mx = -INFINITY;
    for (int64_t j = lane; j < visible; j += kWarpSize) mx = in[j] > mx ? in[j] : mx;
    mx = warp_max(mx);
    A sum = 0;
    for (int64_t j = lane; j < visible; j += kWarpSize) sum += ::exp(in[j] - mx);
    A inv = A(1) / warp_sum(sum);
    for (int64_t j = lane; j < S; j += kWarpSize) out[j] = convert<T>(j < visible ? ::exp(in[j] - mx) * inv : A(0));
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
  const Tensor &q = in[0], &k = in[1], &v = in[2], &o = out[0];
  if (o.numel() == 0) return;
  DeviceGuard guard(o.device().index);
  int64_t E = q.sizes()[q.dim() - 1], L = q.sizes()[q.dim() - 2], S = k.sizes()[k.dim() - 2];
  // Softmax over no keys is 0/0, as on the CPU.
  if (S == 0) return fill(o, NAN);
  double scale = attrs.is_none("scale") ? 1.0 / std::sqrt(static_cast<double>(E)) : attrs.f("scale");
  Shape scores_shape(o.sizes().begin(), o.sizes().end() - 2);
  int64_t rows = shape_numel(scores_shape) * L;
  scores_shape.push_back(L);
  scores_shape.push_back(S);
  Tensor scores = empty(scores_shape, is_half(o.dtype()) ? DType::f32 : o.dtype(), o.device());
  batched_matmul(q, transposed_last(k), scores, scale);
  Tensor weights = scores.dtype() == o.dtype() ? scores : empty(scores_shape, o.dtype(), o.device());
  bool causal = attrs.b("is_causal");
  visit_device_float(o.dtype(), "scaled_dot_product_attention", [&](auto tag) {
    using T = typename decltype(tag)::type;
    masked_softmax_kernel<T><<<blocks_for(rows * kWarpSize), kThreads, 0, stream_for(o)>>>(
        device_data<const dcompute_t<T>>(scores), device_data<T>(weights), rows, L, S, causal);
  });
  NABLA_CUDA_LAUNCH_CHECK();
  batched_matmul(weights, v, o);
}

}  // namespace nabla::cuda
