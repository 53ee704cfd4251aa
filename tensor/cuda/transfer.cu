// Moving data to, from and within CUDA devices: the strided copy kernel (any layout,
// broadcast, dtype conversion), fill, and the host/device/peer transfers behind
// copy_into and to_device (tensor/cuda/cuda_runtime.hpp).
//
// Note [Transfers]
// A transfer moves bytes between contiguous buffers of the same dtype; layout,
// broadcast and dtype are handled on the device by the strided kernel, before (for a
// download) or after (for an upload) the bytes move. Uploads from pageable memory
// return once the driver has staged the bytes, so the host buffer may go at once;
// uploads from pinned memory with non_blocking do not wait, and record the stream on
// the pinned block so that it is not reused before the copy is done. Downloads wait
// for the stream unless non_blocking and the destination is pinned: the block then
// records the stream too, and the caller synchronises before reading (as PyTorch's
// non_blocking=True). Copies between two GPUs wait for the copy.
#include <cstring>

#include "tensor/cpu/copy.hpp"
#include "tensor/cuda/common.cuh"
#include "tensor/cuda/cuda_graph.cuh"

namespace nabla::cuda {

namespace {

template <class To, class From>
__global__ void strided_copy_kernel(To* dst, const From* src, int64_t n,
                                    const __grid_constant__ OffsetCalculator<2> calc) {
  NABLA_GRID_STRIDE_LOOP(i, n) {
    int64_t off[2];
    calc.offsets(i, off);
    dst[off[0]] = convert<To>(src[off[1]]);
  }
}

template <class To, class From>
__global__ void contiguous_copy_kernel(To* dst, const From* src, int64_t n) {
  NABLA_GRID_STRIDE_LOOP(i, n) { dst[i] = convert<To>(src[i]); }
}

// The calculators are __grid_constant__ (as in elementwise.cu): indexed by a run-time
// dim, a by-value parameter would be copied into every thread's local memory.
template <class T>
__global__ void fill_kernel(T* dst, T value, int64_t n, const __grid_constant__ OffsetCalculator<1> calc) {
  NABLA_GRID_STRIDE_LOOP(i, n) {
    int64_t off[1];
    calc.offsets(i, off);
    dst[off[0]] = value;
  }
}

template <class T>
__global__ void contiguous_fill_kernel(T* dst, T value, int64_t n) {
  NABLA_GRID_STRIDE_LOOP(i, n) { dst[i] = value; }
}

template <class T>
bool all_bits_zero(const T& v) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  for (unsigned char b : bytes)
    if (b != 0) return false;
  return true;
}

// dst = src (broadcast, converted); both on dst's device.
void copy_on_device(const Tensor& dst, const Tensor& src) {
  int64_t n = dst.numel();
  if (n == 0) return;
  DeviceGuard guard(dst.device().index);
  cudaStream_t s = stream_for(dst);
  bool flat = dst.is_contiguous() && src.is_contiguous() && dst.sizes() == src.sizes();
  visit_device_dtype(dst.dtype(), [&](auto to_tag) {
    using To = typename decltype(to_tag)::type;
    visit_device_dtype(src.dtype(), [&](auto from_tag) {
      using From = typename decltype(from_tag)::type;
      if (flat) {
        contiguous_copy_kernel<To, From>
            <<<blocks_for(n), kThreads, 0, s>>>(device_data<To>(dst), device_data<const From>(src), n);
      } else {
        auto calc = make_offset_calculator<2>(dst.sizes(), {&dst, &src});
        strided_copy_kernel<To, From>
            <<<blocks_for(n), kThreads, 0, s>>>(device_data<To>(dst), device_data<const From>(src), n, calc);
      }
    });
  });
  NABLA_CUDA_LAUNCH_CHECK();
}

bool is_pinned(const Tensor& t) { return t.device().kind == DeviceKind::cpu && t.storage()->pinned; }

// `t` as a contiguous tensor on its own device (t itself when it already is).
Tensor contiguous_here(const Tensor& t) {
  if (t.is_contiguous()) return t;
  if (t.device().kind == DeviceKind::cpu) return contiguous_raw(t);
  Tensor c = empty(t.sizes(), t.dtype(), t.device());
  copy_on_device(c, t);
  return c;
}

size_t bytes_of(const Tensor& t) { return static_cast<size_t>(t.numel()) * dtype_size(t.dtype()); }

// The host waits for the work queued on `s` (counted in host_waits()).
void wait_for(cudaStream_t s) {
  count_host_wait();
  NABLA_CUDA_CHECK(cudaStreamSynchronize(s));
}

// Bytes of contiguous `from` (CPU) into contiguous `to` (cuda), same dtype and size.
void upload(const Tensor& to, const Tensor& from, bool non_blocking) {
  int device = to.device().index;
  DeviceGuard guard(device);
  cudaStream_t s = stream_of(device);
  if (is_recording(device)) {  // the graph replays the copy from memory that stays (cuda_graph.cu)
    const void* staged = stage_upload(device, from.raw_data(), bytes_of(from));
    NABLA_CUDA_CHECK(cudaMemcpyAsync(to.raw_data(), staged, bytes_of(from), cudaMemcpyHostToDevice, s));
    return;
  }
  NABLA_CUDA_CHECK(cudaMemcpyAsync(to.raw_data(), from.raw_data(), bytes_of(from), cudaMemcpyHostToDevice, s));
  if (is_pinned(from)) {
    if (non_blocking)
      record_stream(from.device(), from.storage()->data, current_stream(device));
    else
      wait_for(s);
  }
}

// Bytes of contiguous `from` (cuda) into contiguous `to` (CPU), same dtype and size.
void download(const Tensor& to, const Tensor& from, bool non_blocking) {
  int device = from.device().index;
  DeviceGuard guard(device);
  cudaStream_t s = stream_of(device);
  NABLA_CUDA_CHECK(cudaMemcpyAsync(to.raw_data(), from.raw_data(), bytes_of(from), cudaMemcpyDeviceToHost, s));
  if (non_blocking && is_pinned(to))
    // The copy still writes the pinned block: it must not be reused before then.
    record_stream(to.device(), to.storage()->data, current_stream(device));
  else
    wait_for(s);
}

// A contiguous tensor of `t`'s dtype and shape on `device` with t's values.
Tensor move_bytes(const Tensor& t, const Device& device, bool non_blocking) {
  Tensor src = contiguous_here(t);
  Tensor out = empty(src.sizes(), src.dtype(), device);
  if (src.numel() == 0) return out;
  if (device.kind == DeviceKind::cuda && src.device().kind == DeviceKind::cpu) {
    upload(out, src, non_blocking);
  } else if (device.kind == DeviceKind::cpu) {
    download(out, src, non_blocking);
  } else {
    // Peer copy: the source's stream must have produced the bytes first.
    synchronize_stream(src.device().index, current_stream(src.device().index));
    DeviceGuard guard(device.index);
    NABLA_CUDA_CHECK(cudaMemcpyPeerAsync(out.raw_data(), device.index, src.raw_data(), src.device().index,
                                         bytes_of(src), stream_of(device.index)));
    // src (often the temporary of contiguous_here) belongs to a stream of the other
    // device, which would reuse it as soon as it is freed on return; and record_stream
    // cannot name a stream of another device. So wait for the copy.
    wait_for(stream_of(device.index));
  }
  return out;
}

}  // namespace

void copy_into(const Tensor& dst, const Tensor& src, bool non_blocking) {
  Device to = dst.device(), from = src.device();
  if (to.kind == DeviceKind::cpu && from.kind == DeviceKind::cpu) return nabla::copy_into(dst, src);
  if (to == from) return copy_on_device(dst, src);
  if (to.kind == DeviceKind::cpu) {
    // Download as is, then let the CPU broadcast and convert into dst's layout.
    bool direct = dst.is_contiguous() && dst.dtype() == src.dtype() && dst.sizes() == src.sizes();
    if (direct) {
      Tensor c = contiguous_here(src);
      if (c.numel() > 0) download(dst, c, non_blocking);
      return;
    }
    nabla::copy_into(dst, move_bytes(src, to, false));
    return;
  }
  // To a device (from the CPU or another device): move the bytes, then convert there.
  bool direct =
      dst.is_contiguous() && dst.dtype() == src.dtype() && dst.sizes() == src.sizes() && from.kind == DeviceKind::cpu;
  if (direct) {
    Tensor c = contiguous_here(src);
    if (c.numel() > 0) upload(dst, c, non_blocking);
    return;
  }
  copy_on_device(dst, move_bytes(src, to, non_blocking));
}

void fill(const Tensor& dst, double value) {
  int64_t n = dst.numel();
  if (n == 0) return;
  DeviceGuard guard(dst.device().index);
  cudaStream_t s = stream_for(dst);
  visit_device_dtype(dst.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v = convert<T>(value);  // host-side conversion through the same rules
    if (dst.is_contiguous() && all_bits_zero(v)) {
      // zeros(), zero_grad(): the copy engine's memset, no kernel.
      NABLA_CUDA_CHECK(cudaMemsetAsync(dst.raw_data(), 0, static_cast<size_t>(n) * sizeof(T), s));
    } else if (dst.is_contiguous()) {
      contiguous_fill_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(device_data<T>(dst), v, n);
      NABLA_CUDA_LAUNCH_CHECK();
    } else {
      auto calc = make_offset_calculator<1>(dst.sizes(), {&dst});
      fill_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(device_data<T>(dst), v, n, calc);
      NABLA_CUDA_LAUNCH_CHECK();
    }
  });
}

Tensor to_device(const Tensor& t, const Device& device, bool non_blocking) {
  if (device.kind == DeviceKind::cuda) check_device(device.index);
  if (t.device() == device) return contiguous_here(t);
  return move_bytes(t, device, non_blocking);
}

}  // namespace nabla::cuda
