// Device discovery, errors and streams of the CUDA backend, and a kernel round trip
// that proves the toolchain works end to end where a GPU exists. With no GPU (or no
// driver) the queries answer without failing.
#include <cuda_runtime.h>

#include <atomic>
#include <mutex>
#include <vector>

#include "tensor/cuda/common.cuh"

namespace nabla::cuda {

namespace {
__global__ void fill_iota(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

// Runs fill_iota on device 0 and checks the result; false on any failure.
bool kernel_round_trip() {
  constexpr int n = 256;
  int* device = nullptr;
  if (cudaMalloc(&device, n * sizeof(int)) != cudaSuccess) return false;
  fill_iota<<<(n + 127) / 128, 128>>>(device, n);
  int host[n] = {};
  bool ok = cudaMemcpy(host, device, sizeof host, cudaMemcpyDeviceToHost) == cudaSuccess;
  cudaFree(device);
  for (int i = 0; ok && i < n; ++i) ok = host[i] == i;
  return ok;
}

// This thread's current stream of each device (0, the default stream, until set).
std::vector<StreamId>& current_streams() {
  thread_local std::vector<StreamId> streams;
  return streams;
}

// The streams new_stream made, with their devices: set_current_stream takes only
// these (and 0), since any other number would reach cudart as a stream handle.
class StreamRegistry {
 public:
  void add(int device, StreamId stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    made_.push_back({device, stream});
  }
  bool made_on(int device, StreamId stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [d, s] : made_)
      if (d == device && s == stream) return true;
    return false;
  }

 private:
  std::mutex mutex_;
  std::vector<std::pair<int, StreamId>> made_;
};

StreamRegistry& streams_made() {
  static StreamRegistry* registry = new StreamRegistry;  // never destroyed, as the streams
  return *registry;
}
}  // namespace

void check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  cudaGetLastError();  // clear a sticky-free error so the next call does not report it again
  throw Error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(status));
}

bool built_with_cuda() { return true; }

int device_count() {
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    return n;
  }();
  return count;
}

void check_device(int device) {
  int count = device_count();
  if (device >= 0 && device < count) return;
  if (count == 0) {
    int runtime = 0;
    cudaRuntimeGetVersion(&runtime);
    throw Error("cuda:" + std::to_string(device) + ": this machine has no GPU (nabla is built with CUDA " +
                std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10) +
                "; cuda.is_available() says whether one is there)");
  }
  throw Error("cuda:" + std::to_string(device) + ": no such device (" + std::to_string(count) +
              " GPU(s) found: cuda:0 to cuda:" + std::to_string(count - 1) + ")");
}

std::string device_name(int device) {
  check_device(device);
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  return prop.name;
}

std::string runtime_info() {
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  std::string info = "CUDA runtime " + std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10);
  int count = device_count();
  if (count == 0) return info + ", no GPU found";
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  return info + ", " + std::to_string(count) + " GPU(s), device 0: " + prop.name +
         (kernel_round_trip() ? " (kernel check ok)" : " (kernel check FAILED)");
}

StreamId current_stream(int device) {
  auto& streams = current_streams();
  return device >= 0 && size_t(device) < streams.size() ? streams[device] : 0;
}

void set_current_stream(int device, StreamId stream) {
  check_device(device);
  if (stream != 0 && !streams_made().made_on(device, stream))
    throw Error("cuda:" + std::to_string(device) + ": " + std::to_string(stream) +
                " is not a stream of this device (streams come from cuda.new_stream(), 0 is the default stream)");
  auto& streams = current_streams();
  if (streams.size() <= size_t(device)) streams.resize(device + 1, 0);
  streams[device] = stream;
}

StreamId new_stream(int device) {
  check_device(device);
  DeviceGuard guard(device);
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  StreamId id = reinterpret_cast<StreamId>(s);  // never destroyed: tensors may still be queued on it
  streams_made().add(device, id);
  return id;
}

std::atomic<uint64_t> host_wait_count{0};

void count_host_wait() { host_wait_count.fetch_add(1, std::memory_order_relaxed); }
uint64_t host_waits() { return host_wait_count.load(std::memory_order_relaxed); }

void synchronize(int device) {
  check_device(device);
  DeviceGuard guard(device);
  count_host_wait();
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

void synchronize_stream(int device, StreamId stream) {
  check_device(device);
  DeviceGuard guard(device);
  count_host_wait();
  check(cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(stream)), "cudaStreamSynchronize");
}

}  // namespace nabla::cuda
