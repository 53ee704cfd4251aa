// The cuBLAS, cuBLASLt and cuDNN handles of each (thread, device), their errors, and
// the TF32 setting (settings.hpp). See Note [Library handles] in handles.cuh.
#include <atomic>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tensor/cuda/cublas_library.cuh"
#include "tensor/cuda/handles.cuh"
#include "tensor/cuda/settings.hpp"

namespace nabla::cuda {

namespace {

// cuBLAS asks for 32 MiB on Hopper (4 MiB on earlier GPUs); one size keeps it simple.
constexpr size_t kCublasWorkspaceBytes = size_t(32) << 20;

std::atomic<bool> tf32_allowed{false};
std::atomic<bool> benchmark_on{false};
std::atomic<bool> generated_on{true};

struct DeviceHandles {
  cublasHandle_t blas = nullptr;
  cublasLtHandle_t lt = nullptr;
  cudnnHandle_t dnn = nullptr;
  std::unordered_map<StreamId, Tensor> workspaces;  // cuBLAS's and cuBLASLt's, by stream
};

// Handles of threads that have ended, by device, for new threads to take.
class HandlePool {
 public:
  DeviceHandles take(int device) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.size() <= size_t(device) || free_[device].empty()) return {};
    DeviceHandles h = std::move(free_[device].back());
    free_[device].pop_back();
    return h;
  }
  void give(int device, DeviceHandles&& h) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.size() <= size_t(device)) free_.resize(device + 1);
    free_[device].push_back(std::move(h));
  }

 private:
  std::mutex mutex_;
  std::vector<std::vector<DeviceHandles>> free_;
};

// Never destroyed (see the Note): a thread may end after static destructors ran.
HandlePool& pool() {
  static HandlePool* p = new HandlePool;
  return *p;
}

// One thread's handles; they go back to the pool when the thread ends.
class ThreadHandles {
 public:
  ~ThreadHandles() {
    for (size_t d = 0; d < devices_.size(); ++d)
      if (taken_[d]) pool().give(static_cast<int>(d), std::move(devices_[d]));
  }
  DeviceHandles& of(int device) {
    if (devices_.size() <= size_t(device)) {
      devices_.resize(device + 1);
      taken_.resize(device + 1, false);
    }
    if (!taken_[device]) {
      devices_[device] = pool().take(device);
      taken_[device] = true;
    }
    return devices_[device];
  }

 private:
  std::vector<DeviceHandles> devices_;
  std::vector<bool> taken_;
};

DeviceHandles& handles_of(int device) {
  thread_local ThreadHandles mine;
  return mine.of(device);
}

// The workspace of `h` for the current stream of `device`, made on first use.
void* workspace_of(DeviceHandles& h, int device) {
  StreamId stream = current_stream(device);
  auto it = h.workspaces.find(stream);
  if (it == h.workspaces.end()) {
    Tensor ws = empty({static_cast<int64_t>(kCublasWorkspaceBytes / 8)}, DType::i64, Device{DeviceKind::cuda, device});
    it = h.workspaces.emplace(stream, std::move(ws)).first;
  }
  return it->second.raw_data();
}

}  // namespace

void set_allow_tf32(bool allow) { tf32_allowed.store(allow, std::memory_order_relaxed); }
bool allow_tf32() { return tf32_allowed.load(std::memory_order_relaxed); }
void set_benchmark(bool on) { benchmark_on.store(on, std::memory_order_relaxed); }
bool benchmark() { return benchmark_on.load(std::memory_order_relaxed); }
void set_generated_kernels(bool on) { generated_on.store(on, std::memory_order_relaxed); }
bool generated_kernels() { return generated_on.load(std::memory_order_relaxed); }

void check_cublas(cublasStatus_t status, const char* what) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw Error(std::string("cuBLAS error in ") + what + ": " + cublas_library().cublasGetStatusString(status));
}

void check_cudnn(cudnnStatus_t status, const char* what) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  char detail[512] = {};
  cudnnGetLastErrorString(detail, sizeof detail);
  throw Error(std::string("cuDNN error in ") + what + ": " + cudnnGetErrorString(status) +
              (detail[0] ? std::string(" (") + detail + ")" : std::string()));
}

cublasHandle_t cublas_handle(int device) {
  DeviceHandles& h = handles_of(device);
  if (!h.blas) NABLA_CUBLAS_CHECK(cublas_library().cublasCreate(&h.blas));
  NABLA_CUBLAS_CHECK(cublas_library().cublasSetStream(h.blas, stream_of(device)));
  // cublasSetStream puts the default workspace back: give it this stream's own again.
  NABLA_CUBLAS_CHECK(cublas_library().cublasSetWorkspace(h.blas, workspace_of(h, device), kCublasWorkspaceBytes));
  return h.blas;
}

LtHandle cublaslt_handle(int device) {
  DeviceHandles& h = handles_of(device);
  if (!h.lt) NABLA_CUBLAS_CHECK(cublas_library().cublasLtCreate(&h.lt));
  return {h.lt, workspace_of(h, device), kCublasWorkspaceBytes};
}

cudnnHandle_t cudnn_handle(int device) {
  DeviceHandles& h = handles_of(device);
  if (!h.dnn) NABLA_CUDNN_CHECK(cudnnCreate(&h.dnn));
  NABLA_CUDNN_CHECK(cudnnSetStream(h.dnn, stream_of(device)));
  return h.dnn;
}

}  // namespace nabla::cuda
