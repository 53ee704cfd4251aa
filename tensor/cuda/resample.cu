// interpolate, interpolate_backward, pad and pad_backward on the GPU: one thread per
// output element, consecutive threads on consecutive elements of the innermost dim
// (coalesced writes; reads follow the tap table or the pad map, which is monotone
// within a row). The tap tables of tensor/resample.hpp are computed on the host and
// copied to the device once per call. The backward kernels scatter with atomicAdd
// (taps and pad sources overlap); their f16/bf16 inputs arrive as f32 (the rows'
// kernels are not half-native), so the atomics are f32 or f64.
#include "tensor/cpu/copy.hpp"
#include "tensor/cuda/common.cuh"
#include "tensor/cuda/kernels.hpp"
#include "tensor/resample.hpp"

namespace nabla::cuda {

namespace {

// f32 and f64 only: the dispatcher hands 16-bit tensors to these kernels as f32.
template <class F>
void visit_f32_f64(DType dt, const char* op, F&& f) {
  if (dt == DType::f64) return f(TypeTag<double>{});
  if (dt == DType::f32) return f(TypeTag<float>{});
  throw Error(std::string(op) + ": expected an f32 or f64 tensor on the GPU, got " + dtype_name(dt));
}

// A tap table on the device: index (i64) and weight (T) tensors.
struct DeviceTaps {
  Tensor index, weight;
  int taps;
};
DeviceTaps upload(const ResampleTaps& t, DType dt, Device device) {
  std::vector<double> index(t.index.begin(), t.index.end());
  auto n = static_cast<int64_t>(t.index.size());
  DeviceTaps d{empty({n}, DType::i64, device), empty({n}, dt, device), t.taps};
  cuda::copy_into(d.index, tensor_from(index, {n}, DType::i64));
  cuda::copy_into(d.weight, tensor_from(t.weight, {n}, dt));
  return d;
}

struct TapPointers {
  const int64_t* h_index;
  const int64_t* w_index;
  int h_taps, w_taps;
};

template <class T>
__global__ void interpolate_kernel(const T* x, T* y, ResamplePlanes p, TapPointers t, const T* wh, const T* ww,
                                   int64_t n) {
  NABLA_GRID_STRIDE_LOOP(i, n) {
    int64_t ow = i % p.out_w, oh = i / p.out_w % p.out_h, plane = i / (p.out_w * p.out_h);
    const T* src = x + plane * p.in_h * p.in_w;
    T acc = 0;
    for (int a = 0; a < t.h_taps; ++a) {
      const T* row = src + t.h_index[oh * t.h_taps + a] * p.in_w;
      T s = 0;
      for (int b = 0; b < t.w_taps; ++b) s += ww[ow * t.w_taps + b] * row[t.w_index[ow * t.w_taps + b]];
      acc += wh[oh * t.h_taps + a] * s;
    }
    y[i] = acc;
  }
}

template <class T>
__global__ void interpolate_backward_kernel(const T* g, T* gx, ResamplePlanes p, TapPointers t, const T* wh,
                                            const T* ww, int64_t n) {
  NABLA_GRID_STRIDE_LOOP(i, n) {
    int64_t ow = i % p.out_w, oh = i / p.out_w % p.out_h, plane = i / (p.out_w * p.out_h);
    T* dst = gx + plane * p.in_h * p.in_w;
    T v = g[i];
    for (int a = 0; a < t.h_taps; ++a) {
      T* row = dst + t.h_index[oh * t.h_taps + a] * p.in_w;
      T va = wh[oh * t.h_taps + a] * v;
      for (int b = 0; b < t.w_taps; ++b) atomicAdd(row + t.w_index[ow * t.w_taps + b], ww[ow * t.w_taps + b] * va);
    }
  }
}

// The input offset that padded element i copies, or -1 for the fill.
__device__ int64_t pad_input_offset(const PadGeometry& g, int64_t i, int64_t mode) {
  int64_t offset = 0, stride = 1;
  for (int d = g.dims - 1; d >= 0; --d) {
    int64_t o = i % g.out[d];
    i /= g.out[d];
    int64_t s = pad_source(o, g.left[d], g.in[d], mode);
    if (s < 0) return -1;
    offset += s * stride;
    stride *= g.in[d];
  }
  return i * stride + offset;  // i is now the outer index
}

template <class T>
__global__ void pad_kernel(const T* x, T* y, PadGeometry g, int64_t mode, T value, int64_t n) {
  NABLA_GRID_STRIDE_LOOP(i, n) {
    int64_t s = pad_input_offset(g, i, mode);
    y[i] = s < 0 ? value : x[s];
  }
}

template <class T>
__global__ void pad_backward_kernel(const T* g, T* gx, PadGeometry geo, int64_t mode, int64_t n) {
  NABLA_GRID_STRIDE_LOOP(i, n) {
    int64_t s = pad_input_offset(geo, i, mode);
    if (s >= 0) atomicAdd(gx + s, g[i]);
  }
}

// interpolate (backward = false: in is x, out is y) or its adjoint (in is the
// gradient of y, out the gradient of x).
void resample(const TensorList& in, const Attrs& attrs, TensorList& out, bool backward) {
  Tensor src = contiguous_raw(in[0]);
  const Tensor& dst = out[0];
  ResamplePlanes p = backward ? resample_planes(dst, src) : resample_planes(src, dst);
  DeviceGuard guard(dst.device().index);
  if (backward) cuda::fill(dst, 0.0);
  int64_t n = p.planes * p.out_h * p.out_w;  // one thread per element of the resized side
  if (n == 0) return;
  // Named, not structured bindings: a C++17 lambda cannot capture those.
  std::pair<ResampleTaps, ResampleTaps> taps = resample_taps_hw(p, attrs);
  const ResampleTaps &th = taps.first, &tw = taps.second;
  const char* op = backward ? "interpolate_backward" : "interpolate";
  visit_f32_f64(src.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    DeviceTaps h = upload(th, src.dtype(), dst.device()), w = upload(tw, src.dtype(), dst.device());
    TapPointers t{device_data<const int64_t>(h.index), device_data<const int64_t>(w.index), h.taps, w.taps};
    const T* wh = device_data<const T>(h.weight);
    const T* ww = device_data<const T>(w.weight);
    if (backward)
      interpolate_backward_kernel<T><<<blocks_for(n), kThreads, 0, stream_for(dst)>>>(
          device_data<const T>(src), device_data<T>(dst), p, t, wh, ww, n);
    else
      interpolate_kernel<T><<<blocks_for(n), kThreads, 0, stream_for(dst)>>>(device_data<const T>(src),
                                                                             device_data<T>(dst), p, t, wh, ww, n);
    NABLA_CUDA_LAUNCH_CHECK();
  });
}

}  // namespace

void interpolate(const TensorList& in, const Attrs& attrs, TensorList& out) { resample(in, attrs, out, false); }

void interpolate_backward(const TensorList& in, const Attrs& attrs, TensorList& out) { resample(in, attrs, out, true); }

void pad(const TensorList& in, const Attrs& attrs, TensorList& out) {
  Tensor x = contiguous_raw(in[0]);
  int64_t n = out[0].numel();
  if (n == 0) return;
  DeviceGuard guard(out[0].device().index);
  PadGeometry geo = pad_geometry(x.sizes(), attrs.ints("pad"));
  visit_device_dtype(x.dtype(), [&](auto tag) {  // integers and bools too (no gradient)
    using T = typename decltype(tag)::type;
    pad_kernel<T><<<blocks_for(n), kThreads, 0, stream_for(x)>>>(device_data<const T>(x), device_data<T>(out[0]), geo,
                                                                 attrs.i("mode"), convert<T>(attrs.f("value")), n);
    NABLA_CUDA_LAUNCH_CHECK();
  });
}

void pad_backward(const TensorList& in, const Attrs& attrs, TensorList& out) {
  Tensor g = contiguous_raw(in[0]);
  DeviceGuard guard(out[0].device().index);
  cuda::fill(out[0], 0.0);
  int64_t n = g.numel();
  if (n == 0) return;
  PadGeometry geo = pad_geometry(out[0].sizes(), attrs.ints("pad"));
  visit_f32_f64(g.dtype(), "pad_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    pad_backward_kernel<T><<<blocks_for(n), kThreads, 0, stream_for(g)>>>(
        device_data<const T>(g), device_data<T>(out[0]), geo, attrs.i("mode"), n);
    NABLA_CUDA_LAUNCH_CHECK();
  });
}

}  // namespace nabla::cuda
