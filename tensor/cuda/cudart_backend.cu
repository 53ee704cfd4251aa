// The caching allocator's DeviceBackend over cudart (cudaMalloc, cudaFree, events,
// cudaMemGetInfo), and the per-device allocator instances. Host code only; nvcc
// builds it with the other .cu files when NABLA_CUDA is on (no_cuda.cpp stands in
// otherwise). Not yet used by Tensor: the cuda device comes later in issue 6.
#include <cuda_runtime.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tensor/cuda/caching_allocator.hpp"
#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/error.hpp"

namespace nabla::cuda {

namespace {

// Makes `device` current for a scope; cudart state is per thread.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    cudaGetDevice(&previous_);
    if (previous_ != device) cudaSetDevice(device);
  }
  ~DeviceGuard() { cudaSetDevice(previous_); }

 private:
  int previous_ = 0;
};

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

}  // namespace

CachingAllocator& device_allocator(int device) {
  static std::mutex mutex;
  // Never destroyed: tensors may outlive statics, and cudaFree after the driver's own
  // teardown at exit fails.
  static auto* allocators = new std::vector<std::unique_ptr<CachingAllocator>>();
  std::lock_guard<std::mutex> lock(mutex);
  int count = device_count();
  NABLA_CHECK(device >= 0 && device < count,
              "cuda:" + std::to_string(device) + ": no such device (" + std::to_string(count) + " GPU(s) found)");
  if (allocators->size() < size_t(count)) allocators->resize(count);
  auto& allocator = (*allocators)[device];
  if (!allocator) allocator = std::make_unique<CachingAllocator>(std::make_unique<CudartBackend>(device));
  return *allocator;
}

}  // namespace nabla::cuda
