// batch_norm, batch_norm_backward, layer_norm, group_norm and rms_norm: own kernels, with the formulas of
// the CPU kernels (tensor/cpu/norm.cpp). A channel (batch_norm) or a row (layer_norm)
// is reduced by one block with warp-shuffle sums, in two passes (the mean, then the
// squared deviations), which stays accurate for inputs with a large mean. Sums and
// per-channel constants are f64 for f64 inputs and f32 otherwise (the CPU uses f64
// throughout; f32 block sums lose far less than a serial f32 sum would).
//
// batch_norm updates the running statistics in place, in their own dtype and layout
// (f32 statistics for f16 activations included), and bumps their version, as the
// CPU kernel does; it is half_native so that the dispatcher never hands it f32
// copies of 16-bit statistics, whose update would be lost.
#include <algorithm>
#include <limits>

#include "tensor/cpu/copy.hpp"
#include "tensor/cuda/block_reduce.cuh"
#include "tensor/cuda/common.cuh"
#include "tensor/layout.hpp"

namespace nabla::cuda {

namespace {

constexpr int kNormThreads = 256;

// Element j of channel c of a contiguous [N, C, S] block, j running over its N * S items.
__device__ __forceinline__ int64_t channel_item(int64_t j, int64_t c, int64_t C, int64_t S) {
  return (j / S * C + c) * S + j % S;
}

// Per channel (one block each): the mean and the biased variance.
template <class T>
__global__ void channel_stats_kernel(const T* x, int64_t N, int64_t C, int64_t S, dcompute_t<T>* mean,
                                     dcompute_t<T>* var) {
  using A = dcompute_t<T>;
  __shared__ A scratch[kWarpSize];
  int64_t items = N * S;
  for (int64_t c = blockIdx.x; c < C; c += gridDim.x) {
    A sum = 0;
    for (int64_t j = threadIdx.x; j < items; j += blockDim.x) sum += load_as_compute(x + channel_item(j, c, C, S));
    A m = block_sum(sum, scratch) / static_cast<A>(items);
    A sq = 0;
    for (int64_t j = threadIdx.x; j < items; j += blockDim.x) {
      A d = load_as_compute(x + channel_item(j, c, C, S)) - m;
      sq += d * d;
    }
    A v = block_sum(sq, scratch) / static_cast<A>(items);
    if (threadIdx.x == 0) mean[c] = m, var[c] = v;
  }
}

// In place: scale = weight / sqrt(var + eps), shift = bias - mean * scale.
template <class A>
__global__ void fold_affine_kernel(A* scale, A* shift, const A* mean, const A* var, A eps, int64_t C) {
  NABLA_GRID_STRIDE_LOOP(c, C) {
    A s = scale[c] / sqrt(var[c] + eps);
    scale[c] = s;
    shift[c] = shift[c] - mean[c] * s;
  }
}

// running = (1 - momentum) * running + momentum * stat * factor.
template <class A>
__global__ void running_update_kernel(A* running, const A* stat, A momentum, A factor, int64_t C) {
  NABLA_GRID_STRIDE_LOOP(c, C) running[c] = (A(1) - momentum) * running[c] + momentum * stat[c] * factor;
}

template <class T>
__global__ void channel_affine_kernel(const T* x, T* y, const dcompute_t<T>* scale, const dcompute_t<T>* shift,
                                      int64_t C, int64_t S, int64_t n) {
  NABLA_GRID_STRIDE_LOOP(i, n) {
    int64_t c = i / S % C;
    y[i] = convert<T>(load_as_compute(x + i) * scale[c] + shift[c]);
  }
}

// Per channel (one block each): sum(g) and sum(g * (x - mean)).
template <class T>
__global__ void grad_sums_kernel(const T* g, const T* x, int64_t N, int64_t C, int64_t S, const dcompute_t<T>* mean,
                                 dcompute_t<T>* sum_g, dcompute_t<T>* sum_g_xc) {
  using A = dcompute_t<T>;
  __shared__ A scratch[kWarpSize];
  int64_t items = N * S;
  for (int64_t c = blockIdx.x; c < C; c += gridDim.x) {
    A sg = 0, sgx = 0, m = mean[c];
    for (int64_t j = threadIdx.x; j < items; j += blockDim.x) {
      int64_t i = channel_item(j, c, C, S);
      A gi = load_as_compute(g + i);
      sg += gi;
      sgx += gi * (load_as_compute(x + i) - m);
    }
    sg = block_sum(sg, scratch);
    sgx = block_sum(sgx, scratch);
    if (threadIdx.x == 0) sum_g[c] = sg, sum_g_xc[c] = sgx;
  }
}

// The backward's per-channel constants, as the CPU kernel folds them: grad_weight,
// grad_bias, and gx = k * (g - shift_g - (x - mean) * slope), with k taking the
// weight's place in `k` and shift_g, slope 0 in eval mode.
template <class T>
__global__ void backward_constants_kernel(const dcompute_t<T>* var, const dcompute_t<T>* sum_g,
                                          const dcompute_t<T>* sum_g_xc, dcompute_t<T>* k, dcompute_t<T>* shift_g,
                                          dcompute_t<T>* slope, T* grad_weight, T* grad_bias, dcompute_t<T> eps,
                                          dcompute_t<T> count, bool training, int64_t C) {
  using A = dcompute_t<T>;
  NABLA_GRID_STRIDE_LOOP(c, C) {
    A rstd = A(1) / sqrt(var[c] + eps);
    A gw = sum_g_xc[c] * rstd;
    k[c] *= rstd;
    shift_g[c] = training ? sum_g[c] / count : A(0);
    slope[c] = training ? gw * rstd / count : A(0);
    grad_weight[c] = convert<T>(gw);
    grad_bias[c] = convert<T>(sum_g[c]);
  }
}

template <class T>
__global__ void input_grad_kernel(const T* g, const T* x, T* gx, const dcompute_t<T>* k, const dcompute_t<T>* shift_g,
                                  const dcompute_t<T>* mean, const dcompute_t<T>* slope, int64_t C, int64_t S,
                                  int64_t n) {
  NABLA_GRID_STRIDE_LOOP(i, n) {
    int64_t c = i / S % C;
    gx[i] = convert<T>(k[c] * (load_as_compute(g + i) - shift_g[c] - (load_as_compute(x + i) - mean[c]) * slope[c]));
  }
}

// One block per row of D values.
template <class T>
__global__ void layer_norm_kernel(const T* x, const T* weight, const T* bias, T* y, int64_t rows, int64_t D,
                                  dcompute_t<T> eps) {
  using A = dcompute_t<T>;
  __shared__ A scratch[kWarpSize];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* in = x + r * D;
    T* out = y + r * D;
    A sum = 0;
    for (int64_t j = threadIdx.x; j < D; j += blockDim.x) sum += load_as_compute(in + j);
    A mean = block_sum(sum, scratch) / static_cast<A>(D);
    A sq = 0;
    for (int64_t j = threadIdx.x; j < D; j += blockDim.x) {
      A d = load_as_compute(in + j) - mean;
      sq += d * d;
    }
    A rstd = A(1) / sqrt(block_sum(sq, scratch) / static_cast<A>(D) + eps);
    for (int64_t j = threadIdx.x; j < D; j += blockDim.x) {
      A v = (load_as_compute(in + j) - mean) * rstd;
      if (weight) v *= load_as_compute(weight + j);
      if (bias) v += load_as_compute(bias + j);
      out[j] = convert<T>(v);
    }
  }
}

// One block per (n, g) group of a contiguous [N, C, S] input: the group's C / G
// channels are contiguous, so the two statistics passes and the affine pass read it
// coalesced; channel c = g * C / G + j / S for item j of the group.
template <class T>
__global__ void group_norm_kernel(const T* x, const T* weight, const T* bias, T* y, int64_t groups_total, int64_t G,
                                  int64_t per_group, int64_t S, dcompute_t<T> eps) {
  using A = dcompute_t<T>;
  __shared__ A scratch[kWarpSize];
  int64_t size = per_group * S;
  for (int64_t ng = blockIdx.x; ng < groups_total; ng += gridDim.x) {
    const T* in = x + ng * size;
    T* out = y + ng * size;
    A sum = 0;
    for (int64_t j = threadIdx.x; j < size; j += blockDim.x) sum += load_as_compute(in + j);
    A mean = block_sum(sum, scratch) / static_cast<A>(size);
    A sq = 0;
    for (int64_t j = threadIdx.x; j < size; j += blockDim.x) {
      A d = load_as_compute(in + j) - mean;
      sq += d * d;
    }
    A rstd = A(1) / sqrt(block_sum(sq, scratch) / static_cast<A>(size) + eps);
    int64_t first_channel = ng % G * per_group;
    for (int64_t j = threadIdx.x; j < size; j += blockDim.x) {
      int64_t c = first_channel + j / S;
      A v = (load_as_compute(in + j) - mean) * rstd;
      if (weight) v *= load_as_compute(weight + c);
      if (bias) v += load_as_compute(bias + c);
      out[j] = convert<T>(v);
    }
  }
}

// One block per row: x * rsqrt(mean(x^2) + eps) * weight.
template <class T>
__global__ void rms_norm_kernel(const T* x, const T* weight, T* y, int64_t rows, int64_t D, dcompute_t<T> eps) {
  using A = dcompute_t<T>;
  __shared__ A scratch[kWarpSize];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* in = x + r * D;
    T* out = y + r * D;
    A sq = 0;
    for (int64_t j = threadIdx.x; j < D; j += blockDim.x) {
      A v = load_as_compute(in + j);
      sq += v * v;
    }
    A rms = A(1) / sqrt(block_sum(sq, scratch) / static_cast<A>(D) + eps);
    for (int64_t j = threadIdx.x; j < D; j += blockDim.x) {
      A v = load_as_compute(in + j) * rms;
      if (weight) v *= load_as_compute(weight + j);
      out[j] = convert<T>(v);
    }
  }
}

unsigned blocks_of(int64_t units) { return static_cast<unsigned>(std::min<int64_t>(units, kMaxBlocks)); }

// A warp per 32 values, up to kNormThreads: short rows do not idle a whole block.
int row_threads(int64_t D) {
  return static_cast<int>(
      std::max<int64_t>(kWarpSize, std::min<int64_t>(kNormThreads, (D + kWarpSize - 1) / kWarpSize * kWarpSize)));
}

// t's device data, or null for an absent optional input.
template <class T>
const T* optional_data(const Tensor& t) {
  return t.defined() ? device_data<const T>(t) : nullptr;
}

// The accumulation dtype of x's: f64 for f64, f32 otherwise.
DType acc_dtype(DType x) { return x == DType::f64 ? DType::f64 : DType::f32; }

// A per-channel vector [C] in `dt` on `like`'s device, holding `t` (converted) or `fill_value`.
Tensor channel_vector(int64_t C, DType dt, const Tensor& like, const Tensor& t = Tensor(), double fill_value = 0.0) {
  Tensor v = empty({C}, dt, like.device());
  if (t.defined())
    cuda::copy_into(v, t);
  else
    fill(v, fill_value);
  return v;
}

template <class A>
A* ptr(const Tensor& t) {
  return static_cast<A*>(t.raw_data());
}

// running <- (1 - momentum) * running + momentum * stat * factor, in running's own
// dtype and layout (through a copy in stat's dtype).
template <class A>
void update_running(const Tensor& running, const Tensor& stat, double momentum, double factor) {
  int64_t C = stat.numel();
  Tensor r = channel_vector(C, stat.dtype(), stat, running);
  running_update_kernel<A>
      <<<blocks_for(C), kThreads, 0, stream_for(stat)>>>(ptr<A>(r), ptr<const A>(stat), A(momentum), A(factor), C);
  NABLA_CUDA_LAUNCH_CHECK();
  cuda::copy_into(running, r);
  running.bump_version();
}

// The batch's mean and biased variance per channel of contiguous x [N, C, S].
template <class T>
void batch_stats(const Tensor& x, int64_t N, int64_t C, int64_t S, const Tensor& mean, const Tensor& var) {
  using A = dcompute_t<T>;
  channel_stats_kernel<T>
      <<<blocks_of(C), kNormThreads, 0, stream_for(x)>>>(device_data<const T>(x), N, C, S, ptr<A>(mean), ptr<A>(var));
  NABLA_CUDA_LAUNCH_CHECK();
}

}  // namespace

void batch_norm(const TensorList& in, const Attrs& attrs, TensorList& out) {
  const Tensor &weight = in[1], &bias = in[2], &running_mean = in[3], &running_var = in[4], &y = out[0];
  Tensor x = contiguous_raw(in[0]);
  ChannelLayout planes = channel_layout(x);  // x [N, C, ...] as [N, C, S]
  int64_t N = planes.N, C = planes.C, S = planes.S;
  if (C == 0) return;
  DeviceGuard guard(y.device().index);
  bool training = attrs.b("training");
  double eps = attrs.f("eps"), momentum = attrs.f("momentum");
  visit_device_float(x.dtype(), "batch_norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = dcompute_t<T>;
    DType acc = acc_dtype(x.dtype());
    Tensor mean = channel_vector(C, acc, x, training ? Tensor() : running_mean);
    Tensor var = channel_vector(C, acc, x, training ? Tensor() : running_var);
    if (training) batch_stats<T>(x, N, C, S, mean, var);
    Tensor scale = channel_vector(C, acc, x, weight, 1.0), shift = channel_vector(C, acc, x, bias, 0.0);
    fold_affine_kernel<A><<<blocks_for(C), kThreads, 0, stream_for(x)>>>(
        ptr<A>(scale), ptr<A>(shift), ptr<const A>(mean), ptr<const A>(var), A(eps), C);
    NABLA_CUDA_LAUNCH_CHECK();
    if (training && running_mean.defined()) {
      // The running variance is the unbiased estimate, as in PyTorch.
      double count = static_cast<double>(N * S);
      update_running<A>(running_mean, mean, momentum, 1.0);
      update_running<A>(running_var, var, momentum, count / (count - 1.0));
    }
    int64_t n = x.numel();
    if (n == 0) return;
    channel_affine_kernel<T><<<blocks_for(n), kThreads, 0, stream_for(x)>>>(
        device_data<const T>(x), device_data<T>(y), ptr<const A>(scale), ptr<const A>(shift), C, S, n);
    NABLA_CUDA_LAUNCH_CHECK();
  });
}

// Outputs grad_input, grad_weight, grad_bias (see the CPU kernel for the formulas).
void batch_norm_backward(const TensorList& in, const Attrs& attrs, TensorList& out) {
  const Tensor &weight = in[2], &running_mean = in[3], &running_var = in[4];
  Tensor g = contiguous_raw(in[0]), x = contiguous_raw(in[1]);
  ChannelLayout planes = channel_layout(x);  // x [N, C, ...] as [N, C, S]
  int64_t N = planes.N, C = planes.C, S = planes.S;
  if (C == 0) return;
  DeviceGuard guard(out[0].device().index);
  bool training = attrs.b("training");
  double eps = attrs.f("eps");
  visit_device_float(x.dtype(), "batch_norm_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = dcompute_t<T>;
    DType acc = acc_dtype(x.dtype());
    cudaStream_t stream = stream_for(x);
    Tensor mean = channel_vector(C, acc, x, training ? Tensor() : running_mean);
    Tensor var = channel_vector(C, acc, x, training ? Tensor() : running_var);
    if (training) batch_stats<T>(x, N, C, S, mean, var);
    Tensor sum_g = channel_vector(C, acc, x), sum_g_xc = channel_vector(C, acc, x);
    grad_sums_kernel<T><<<blocks_of(C), kNormThreads, 0, stream>>>(
        device_data<const T>(g), device_data<const T>(x), N, C, S, ptr<const A>(mean), ptr<A>(sum_g), ptr<A>(sum_g_xc));
    NABLA_CUDA_LAUNCH_CHECK();
    Tensor k = channel_vector(C, acc, x, weight, 1.0), shift_g = channel_vector(C, acc, x),
           slope = channel_vector(C, acc, x);
    backward_constants_kernel<T><<<blocks_for(C), kThreads, 0, stream>>>(
        ptr<const A>(var), ptr<const A>(sum_g), ptr<const A>(sum_g_xc), ptr<A>(k), ptr<A>(shift_g), ptr<A>(slope),
        device_data<T>(out[1]), device_data<T>(out[2]), A(eps), A(N * S), training, C);
    NABLA_CUDA_LAUNCH_CHECK();
    int64_t n = x.numel();
    if (n == 0) return;
    input_grad_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(
        device_data<const T>(g), device_data<const T>(x), device_data<T>(out[0]), ptr<const A>(k),
        ptr<const A>(shift_g), ptr<const A>(mean), ptr<const A>(slope), C, S, n);
    NABLA_CUDA_LAUNCH_CHECK();
  });
}

void layer_norm(const TensorList& in, const Attrs& attrs, TensorList& out) {
  Tensor x = contiguous_raw(in[0]);
  RowLayout layout = layer_norm_rows(x, attrs.ints("normalized_shape"));
  int64_t rows = layout.rows, D = layout.D;
  if (rows == 0) return;
  DeviceGuard guard(out[0].device().index);
  Tensor weight = in[1].defined() ? contiguous_raw(in[1]) : Tensor();
  Tensor bias = in[2].defined() ? contiguous_raw(in[2]) : Tensor();
  int threads = row_threads(D);
  visit_device_float(x.dtype(), "layer_norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = dcompute_t<T>;
    layer_norm_kernel<T><<<blocks_of(rows), threads, 0, stream_for(x)>>>(
        device_data<const T>(x), weight.defined() ? device_data<const T>(weight) : nullptr,
        bias.defined() ? device_data<const T>(bias) : nullptr, device_data<T>(out[0]), rows, D,
        static_cast<A>(attrs.f("eps")));
  });
  NABLA_CUDA_LAUNCH_CHECK();
}

void group_norm(const TensorList& in, const Attrs& attrs, TensorList& out) {
  Tensor x = contiguous_raw(in[0]);
  ChannelLayout planes = channel_layout(x);
  int64_t G = attrs.i("num_groups"), groups_total = planes.N * G, per_group = planes.C / G;
  if (groups_total == 0 || x.numel() == 0) return;
  DeviceGuard guard(out[0].device().index);
  Tensor weight = in[1].defined() ? contiguous_raw(in[1]) : Tensor();
  Tensor bias = in[2].defined() ? contiguous_raw(in[2]) : Tensor();
  visit_device_float(x.dtype(), "group_norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = dcompute_t<T>;
    group_norm_kernel<T><<<blocks_of(groups_total), row_threads(per_group * planes.S), 0, stream_for(x)>>>(
        device_data<const T>(x), optional_data<T>(weight), optional_data<T>(bias), device_data<T>(out[0]), groups_total,
        G, per_group, planes.S, static_cast<A>(attrs.f("eps")));
  });
  NABLA_CUDA_LAUNCH_CHECK();
}

void rms_norm(const TensorList& in, const Attrs& attrs, TensorList& out) {
  Tensor x = contiguous_raw(in[0]);
  RowLayout layout = layer_norm_rows(x, attrs.ints("normalized_shape"));
  int64_t rows = layout.rows, D = layout.D;
  if (rows == 0 || D == 0) return;
  DeviceGuard guard(out[0].device().index);
  Tensor weight = in[1].defined() ? contiguous_raw(in[1]) : Tensor();
  // eps defaults to the machine epsilon of the dtype computed in (f32 for 16-bit).
  double eps = !attrs.is_none("eps")     ? attrs.f("eps")
               : x.dtype() == DType::f64 ? std::numeric_limits<double>::epsilon()
                                         : std::numeric_limits<float>::epsilon();
  visit_device_float(x.dtype(), "rms_norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = dcompute_t<T>;
    rms_norm_kernel<T><<<blocks_of(rows), row_threads(D), 0, stream_for(x)>>>(
        device_data<const T>(x), optional_data<T>(weight), device_data<T>(out[0]), rows, D, static_cast<A>(eps));
  });
  NABLA_CUDA_LAUNCH_CHECK();
}

}  // namespace nabla::cuda
