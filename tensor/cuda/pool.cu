// max_pool2d, avg_pool2d, the pools' backward ops and the adaptive pools: own kernels,
// one thread per output element (per input element for avg_pool2d_backward, per grad
// element for max_pool2d_backward), following the CPU kernels' window
// rules (tensor/cpu/pool.cpp) exactly: the same first cell (first_tap), tie and NaN
// rules and flat indices for max, the same windows and divisors for avg (avg_window;
// both in tensor/cpu/conv_geometry.hpp, shared). cuDNN's pooling returns no indices
// and counts padded cells differently at a ceil_mode border, hence no cuDNN.
// Windows are summed in float for 16-bit inputs (as the CPU's f32 path does).
#include <cmath>
#include <type_traits>

#include "tensor/cpu/conv_geometry.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/cuda/common.cuh"
#include "tensor/cuda/reduce.cuh"

namespace nabla::cuda {

namespace {

using cpu::adaptive_end;
using cpu::adaptive_start;
using cpu::AdaptiveGeometry;
using cpu::avg_window;
using cpu::AvgWindow;
using cpu::first_tap;
using cpu::PoolGeometry;

__device__ __forceinline__ int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

// A window's starting value: -inf, or the type's lowest for u8 and i8 (quantized
// activations), so that a window of lowest values keeps its first cell.
template <class C>
__device__ __forceinline__ C window_start_value() {
  if constexpr (std::is_floating_point_v<C>)
    return -INFINITY;
  else
    return std::is_signed_v<C> ? C(-128) : C(0);
}

// Each window starts at -inf on its first in-range cell and takes strictly greater
// values (the first of equal maxima wins), and any NaN (the last NaN wins).
template <class T>
__global__ void max_pool_kernel(const T* x, T* y, int64_t* indices, PoolGeometry g, int64_t n) {
  using C = dcompute_t<T>;
  NABLA_GRID_STRIDE_LOOP(o, n) {
    int64_t ow = o % g.OW, oh = (o / g.OW) % g.OH, plane = o / (g.OW * g.OH);
    const T* in = x + plane * g.H * g.W;
    int64_t h_start = oh * g.stride.h - g.pad.h, w_start = ow * g.stride.w - g.pad.w;
    int64_t h0 = first_tap(h_start, g.dilation.h), h1 = min64(h_start + (g.kernel.h - 1) * g.dilation.h + 1, g.H);
    int64_t w0 = first_tap(w_start, g.dilation.w), w1 = min64(w_start + (g.kernel.w - 1) * g.dilation.w + 1, g.W);
    int64_t best = h0 * g.W + w0;
    C best_val = window_start_value<C>();
    for (int64_t ih = h0; ih < h1; ih += g.dilation.h)
      for (int64_t iw = w0; iw < w1; iw += g.dilation.w) {
        C v = load_as_compute(in + ih * g.W + iw);
        if (v > best_val || v != v) {
          best_val = v;
          best = ih * g.W + iw;
        }
      }
    y[o] = convert<T>(best_val);
    if (indices) indices[o] = best;  // null: an inference graph reads none
  }
}

template <class T>
__global__ void avg_pool_kernel(const T* x, T* y, PoolGeometry g, bool count_include_pad, int64_t n) {
  using C = dcompute_t<T>;
  NABLA_GRID_STRIDE_LOOP(o, n) {
    int64_t ow = o % g.OW, oh = (o / g.OW) % g.OH, plane = o / (g.OW * g.OH);
    const T* in = x + plane * g.H * g.W;
    AvgWindow win = avg_window(g, oh, ow, count_include_pad);
    C total = 0;
    for (int64_t ih = win.h0; ih < win.h1; ++ih)
      for (int64_t iw = win.w0; iw < win.w1; ++iw) total += load_as_compute(in + ih * g.W + iw);
    y[o] = convert<T>(win.divisor ? total / static_cast<C>(win.divisor) : C(0));
  }
}

// The adjoint as a gather: input cell (ih, iw) sums the shares of the windows that
// cover it, those with oh * stride - pad <= ih < oh * stride - pad + kernel.
template <class T>
__global__ void avg_pool_backward_kernel(const T* gy, T* dx, PoolGeometry g, bool count_include_pad, int64_t n) {
  using C = dcompute_t<T>;
  NABLA_GRID_STRIDE_LOOP(i, n) {
    int64_t iw = i % g.W, ih = (i / g.W) % g.H, plane = i / (g.W * g.H);
    int64_t ph = ih + g.pad.h, pw = iw + g.pad.w;
    int64_t oh0 = ph < g.kernel.h ? 0 : (ph - g.kernel.h) / g.stride.h + 1, oh1 = min64(ph / g.stride.h, g.OH - 1);
    int64_t ow0 = pw < g.kernel.w ? 0 : (pw - g.kernel.w) / g.stride.w + 1, ow1 = min64(pw / g.stride.w, g.OW - 1);
    const T* grad = gy + plane * g.OH * g.OW;
    C total = 0;
    for (int64_t oh = oh0; oh <= oh1; ++oh)
      for (int64_t ow = ow0; ow <= ow1; ++ow) {
        // The window holds (ih, iw), so its divisor is at least 1.
        int64_t divisor = avg_window(g, oh, ow, count_include_pad).divisor;
        total += load_as_compute(grad + oh * g.OW + ow) / static_cast<C>(divisor);
      }
    dx[i] = convert<T>(total);
  }
}

// Adaptive pools: the window of output (oh, ow) is adaptive_start..adaptive_end in
// each dim; max follows max_pool_kernel's rules.
template <class T>
__global__ void adaptive_avg_kernel(const T* x, T* y, AdaptiveGeometry g, int64_t n) {
  using C = dcompute_t<T>;
  NABLA_GRID_STRIDE_LOOP(o, n) {
    int64_t ow = o % g.OW, oh = (o / g.OW) % g.OH, plane = o / (g.OW * g.OH);
    const T* in = x + plane * g.H * g.W;
    int64_t h0 = adaptive_start(oh, g.H, g.OH), h1 = adaptive_end(oh, g.H, g.OH);
    int64_t w0 = adaptive_start(ow, g.W, g.OW), w1 = adaptive_end(ow, g.W, g.OW);
    C total = 0;
    for (int64_t ih = h0; ih < h1; ++ih)
      for (int64_t iw = w0; iw < w1; ++iw) total += load_as_compute(in + ih * g.W + iw);
    y[o] = convert<T>(total / static_cast<C>((h1 - h0) * (w1 - w0)));
  }
}

template <class T>
__global__ void adaptive_max_kernel(const T* x, T* y, int64_t* indices, AdaptiveGeometry g, int64_t n) {
  using C = dcompute_t<T>;
  NABLA_GRID_STRIDE_LOOP(o, n) {
    int64_t ow = o % g.OW, oh = (o / g.OW) % g.OH, plane = o / (g.OW * g.OH);
    const T* in = x + plane * g.H * g.W;
    int64_t h0 = adaptive_start(oh, g.H, g.OH), h1 = adaptive_end(oh, g.H, g.OH);
    int64_t w0 = adaptive_start(ow, g.W, g.OW), w1 = adaptive_end(ow, g.W, g.OW);
    int64_t best = h0 * g.W + w0;
    C best_val = window_start_value<C>();
    for (int64_t ih = h0; ih < h1; ++ih)
      for (int64_t iw = w0; iw < w1; ++iw) {
        C v = load_as_compute(in + ih * g.W + iw);
        if (v > best_val || v != v) {
          best_val = v;
          best = ih * g.W + iw;
        }
      }
    y[o] = convert<T>(best_val);
    indices[o] = best;
  }
}

}  // namespace

void max_pool2d(const TensorList& in, const Attrs& attrs, TensorList& out) {
  PoolGeometry g = cpu::pool_geometry(in[0].sizes(), attrs, "max_pool2d");
  int64_t n = out[0].numel();
  if (n == 0) return;
  DeviceGuard guard(out[0].device().index);
  Tensor x = contiguous_raw(in[0]);
  auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    max_pool_kernel<T><<<blocks_for(n), kThreads, 0, stream_for(out[0])>>>(
        device_data<const T>(x), device_data<T>(out[0]), out[1].defined() ? device_data<int64_t>(out[1]) : nullptr, g,
        n);
  };
  // u8 and i8 as on the CPU: the max pool of quantized activations.
  if (out[0].dtype() == DType::u8)
    run(TypeTag<uint8_t>{});
  else if (out[0].dtype() == DType::i8)
    run(TypeTag<int8_t>{});
  else
    visit_device_float(out[0].dtype(), "max_pool2d", run);
  NABLA_CUDA_LAUNCH_CHECK();
}

void avg_pool2d(const TensorList& in, const Attrs& attrs, TensorList& out) {
  PoolGeometry g = cpu::pool_geometry(in[0].sizes(), attrs, "avg_pool2d");
  int64_t n = out[0].numel();
  if (n == 0) return;
  DeviceGuard guard(out[0].device().index);
  Tensor x = contiguous_raw(in[0]);
  visit_device_float(out[0].dtype(), "avg_pool2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    avg_pool_kernel<T><<<blocks_for(n), kThreads, 0, stream_for(out[0])>>>(
        device_data<const T>(x), device_data<T>(out[0]), g, attrs.b("count_include_pad"), n);
  });
  NABLA_CUDA_LAUNCH_CHECK();
}

// in: grad [N, C, OH, OW]; out: the input's gradient, shaped by attribute input_shape.
void avg_pool2d_backward(const TensorList& in, const Attrs& attrs, TensorList& out) {
  const Tensor& dx = out[0];
  PoolGeometry g = cpu::pool_geometry(dx.sizes(), attrs, "avg_pool2d_backward");
  int64_t n = dx.numel();
  if (n == 0) return;
  DeviceGuard guard(dx.device().index);
  Tensor gy = contiguous_raw(in[0]);
  visit_device_float(dx.dtype(), "avg_pool2d_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    avg_pool_backward_kernel<T><<<blocks_for(n), kThreads, 0, stream_for(dx)>>>(
        device_data<const T>(gy), device_data<T>(dx), g, attrs.b("count_include_pad"), n);
  });
  NABLA_CUDA_LAUNCH_CHECK();
}

namespace {

// max_pool2d_backward: one thread per grad element adds it into its plane of dx
// (zeroed first) at its index. Windows that overlap may share a maximum, so the
// adds are atomic: such terms add in an order that depends on timing (last bits may
// differ from the CPU's ordered sum, as scatter_add's do).
template <class T>
__global__ void max_pool_backward_kernel(const T* grad, const int64_t* indices, T* dx, int64_t in_plane,
                                         int64_t out_plane, int64_t n) {
  NABLA_GRID_STRIDE_LOOP(k, n) {
    int64_t j = indices[k];
    check_index("max_pool2d_backward", j, in_plane);
    atomicAdd(dx + (k / out_plane) * in_plane + j, grad[k]);
  }
}

}  // namespace

// in: grad and indices [N, C, *out]; out: [N, C, *in] (attribute input_shape).
void max_pool2d_backward(const TensorList& in, const Attrs&, TensorList& out) {
  const Tensor& dx = out[0];
  if (dx.numel() == 0) return;
  DeviceGuard guard(dx.device().index);
  int64_t planes = dx.sizes()[0] * dx.sizes()[1];
  Tensor grad = contiguous_raw(in[0]), indices = contiguous_raw(in[1]);
  int64_t n = grad.numel();
  NABLA_CUDA_CHECK(
      cudaMemsetAsync(dx.raw_data(), 0, static_cast<size_t>(dx.numel()) * dtype_size(dx.dtype()), stream_for(dx)));
  if (n == 0) return;
  visit_device_float(dx.dtype(), "max_pool2d_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      max_pool_backward_kernel<T><<<blocks_for(n), kThreads, 0, stream_for(dx)>>>(
          device_data<const T>(grad), device_data<const int64_t>(indices), device_data<T>(dx), dx.numel() / planes,
          n / planes, n);
    } else {
      throw Error(std::string("max_pool2d_backward: 16-bit floats compute through f32 on CUDA"));
    }
  });
  NABLA_CUDA_LAUNCH_CHECK();
}

void max_pool1d(const TensorList& in, const Attrs& attrs, TensorList& out) {
  cpu::on_unit_height<max_pool2d>(in, attrs, out, "max_pool1d");
}

void avg_pool1d(const TensorList& in, const Attrs& attrs, TensorList& out) {
  cpu::on_unit_height<avg_pool2d>(in, attrs, out, "avg_pool1d");
}

void adaptive_avg_pool2d(const TensorList& in, const Attrs& attrs, TensorList& out) {
  AdaptiveGeometry g = cpu::adaptive_geometry(in[0].sizes(), attrs, "adaptive_avg_pool2d");
  int64_t n = out[0].numel();
  if (n == 0) return;
  DeviceGuard guard(out[0].device().index);
  Tensor x = contiguous_raw(in[0]);
  visit_device_float(out[0].dtype(), "adaptive_avg_pool2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    adaptive_avg_kernel<T>
        <<<blocks_for(n), kThreads, 0, stream_for(out[0])>>>(device_data<const T>(x), device_data<T>(out[0]), g, n);
  });
  NABLA_CUDA_LAUNCH_CHECK();
}

void adaptive_avg_pool1d(const TensorList& in, const Attrs& attrs, TensorList& out) {
  cpu::on_unit_height<adaptive_avg_pool2d>(in, attrs, out, "adaptive_avg_pool1d");
}

void adaptive_max_pool2d(const TensorList& in, const Attrs& attrs, TensorList& out) {
  AdaptiveGeometry g = cpu::adaptive_geometry(in[0].sizes(), attrs, "adaptive_max_pool2d");
  int64_t n = out[0].numel();
  if (n == 0) return;
  DeviceGuard guard(out[0].device().index);
  Tensor x = contiguous_raw(in[0]);
  visit_device_float(out[0].dtype(), "adaptive_max_pool2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    adaptive_max_kernel<T><<<blocks_for(n), kThreads, 0, stream_for(out[0])>>>(
        device_data<const T>(x), device_data<T>(out[0]), out[1].defined() ? device_data<int64_t>(out[1]) : nullptr, g,
        n);
  });
  NABLA_CUDA_LAUNCH_CHECK();
}

}  // namespace nabla::cuda
