// The caching allocator's backends over cudart: device memory (cudaMalloc, cudaFree,
// events, cudaMemGetInfo) and page-locked host memory (cudaHostAlloc), and the
// allocator instances that Storage takes its bytes from. Host code only; nvcc builds
// it with the other .cu files when NABLA_CUDA is on (no_cuda.cpp stands in otherwise).
#include <cuda_runtime.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tensor/cuda/caching_allocator.hpp"
#include "tensor/cuda/common.cuh"
#include "tensor/cuda/cuda_graph.cuh"
#include "tensor/error.hpp"

namespace nabla::cuda {

namespace {

void check_cuda(cudaError_t status, const std::string& what, const std::string& device) {
  if (status == cudaSuccess) return;
  throw Error(what + " on " + device + " failed: " + cudaGetErrorString(status));
}

class CudartBackend : public DeviceBackend {
 public:
  explicit CudartBackend(int device) : device_(device), name_("cuda:" + std::to_string(device)) {}

  std::string device_name() const override { return name_; }

  void* raw_malloc(size_t nbytes) override {
    DeviceGuard guard(device_);
    void* ptr = nullptr;
    cudaError_t status = cudaMalloc(&ptr, nbytes);
    if (status == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // clear the error so that the next call does not see it
      return nullptr;
    }
    check_cuda(status, "cudaMalloc(" + format_bytes(nbytes) + ")", name_);
    return ptr;
  }

  void raw_free(void* ptr) override {
    DeviceGuard guard(device_);
    check_cuda(cudaFree(ptr), "cudaFree", name_);
  }

  EventHandle record_event(StreamId stream) override {
    DeviceGuard guard(device_);
    cudaEvent_t event = nullptr;
    check_cuda(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate", name_);
    check_cuda(cudaEventRecord(event, reinterpret_cast<cudaStream_t>(stream)), "cudaEventRecord", name_);
    return event;
  }

  bool event_completed(EventHandle event) override {
    cudaError_t status = cudaEventQuery(static_cast<cudaEvent_t>(event));
    if (status == cudaErrorNotReady) {
      cudaGetLastError();
      return false;
    }
    check_cuda(status, "cudaEventQuery", name_);
    return true;
  }

  void synchronize_event(EventHandle event) override {
    count_host_wait();
    check_cuda(cudaEventSynchronize(static_cast<cudaEvent_t>(event)), "cudaEventSynchronize", name_);
  }

  void destroy_event(EventHandle event) override {
    check_cuda(cudaEventDestroy(static_cast<cudaEvent_t>(event)), "cudaEventDestroy", name_);
  }

  DeviceMemoryInfo memory_info() override {
    DeviceGuard guard(device_);
    DeviceMemoryInfo info;
    if (cudaMemGetInfo(&info.free, &info.total) != cudaSuccess) cudaGetLastError();  // report 0 of 0
    return info;
  }

 private:
  int device_;
  std::string name_;
};

// Page-locked host memory for the same allocator: a pinned block that a copy read
// (record_stream) is reused only once that copy is done. Events go on the stream's
// own device.
class PinnedHostBackend : public DeviceBackend {
 public:
  std::string device_name() const override { return "pinned host memory"; }

  void* raw_malloc(size_t nbytes) override {
    void* ptr = nullptr;
    cudaError_t status = cudaHostAlloc(&ptr, nbytes, cudaHostAllocDefault);
    if (status == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      return nullptr;
    }
    check_cuda(status, "cudaHostAlloc(" + format_bytes(nbytes) + ")", device_name());
    return ptr;
  }

  void raw_free(void* ptr) override { check_cuda(cudaFreeHost(ptr), "cudaFreeHost", device_name()); }

  EventHandle record_event(StreamId stream) override {
    int device = 0;
    check_cuda(cudaStreamGetDevice(reinterpret_cast<cudaStream_t>(stream), &device), "cudaStreamGetDevice",
               device_name());
    DeviceGuard guard(device);
    cudaEvent_t event = nullptr;
    check_cuda(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate", device_name());
    check_cuda(cudaEventRecord(event, reinterpret_cast<cudaStream_t>(stream)), "cudaEventRecord", device_name());
    return event;
  }

  bool event_completed(EventHandle event) override {
    cudaError_t status = cudaEventQuery(static_cast<cudaEvent_t>(event));
    if (status == cudaErrorNotReady) {
      cudaGetLastError();
      return false;
    }
    check_cuda(status, "cudaEventQuery", device_name());
    return true;
  }

  void synchronize_event(EventHandle event) override {
    count_host_wait();
    check_cuda(cudaEventSynchronize(static_cast<cudaEvent_t>(event)), "cudaEventSynchronize", device_name());
  }

  void destroy_event(EventHandle event) override {
    check_cuda(cudaEventDestroy(static_cast<cudaEvent_t>(event)), "cudaEventDestroy", device_name());
  }

  DeviceMemoryInfo memory_info() override { return {}; }  // host memory: the CPU allocator reports it
};

CachingAllocator& pinned_allocator() {
  static auto* allocator = new CachingAllocator(std::make_unique<PinnedHostBackend>());  // never destroyed
  return *allocator;
}

}  // namespace

CachingAllocator& device_allocator(int device) {
  static std::mutex mutex;
  // Never destroyed: tensors may outlive statics, and cudaFree after the driver's own
  // teardown at exit fails.
  static auto* allocators = new std::vector<std::unique_ptr<CachingAllocator>>();
  check_device(device);
  std::lock_guard<std::mutex> lock(mutex);
  if (allocators->size() < size_t(device_count())) allocators->resize(device_count());
  auto& allocator = (*allocators)[device];
  if (!allocator) allocator = std::make_unique<CachingAllocator>(std::make_unique<CudartBackend>(device));
  return *allocator;
}

void* allocate(int device, size_t nbytes, const std::string& tag) {
  void* ptr = device_allocator(device).allocate(nbytes, current_stream(device), tag);
  adopt_if_recording(device, ptr);  // Note [Memory of a recording] in cuda_graph.cu
  return ptr;
}

void release(int device, void* ptr) {
  if (ptr && !release_to_recording(ptr)) device_allocator(device).free(ptr);
}

// Pinned blocks are filed under a stream id that no real stream has. The allocator
// skips record_stream for a block's own stream (right for device memory, whose reuse
// is stream-ordered), but the host reuses pinned memory at once: filed under 0, a
// non_blocking copy on the default stream would record nothing, and the block could
// be refilled while the copy still reads it.
constexpr StreamId kPinnedPoolStream = ~StreamId(0);

void* allocate_pinned(size_t nbytes) { return pinned_allocator().allocate(nbytes, kPinnedPoolStream, "pinned"); }

void release_pinned(void* ptr) {
  if (ptr) pinned_allocator().free(ptr);
}

void record_stream(const Device& device, void* ptr, StreamId stream) {
  if (device.kind == DeviceKind::cuda)
    device_allocator(device.index).record_stream(ptr, stream);
  else
    pinned_allocator().record_stream(ptr, stream);
}

}  // namespace nabla::cuda
