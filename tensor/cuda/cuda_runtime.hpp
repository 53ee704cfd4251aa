// The CUDA seam: what the rest of nabla may ask of the CUDA backend. Built from the
// .cu files when nvcc is found, from no_cuda.cpp otherwise; nothing here may require a
// GPU to be present, and nothing here names a CUDA type (plain .cpp files include it).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tensor/attrs.hpp"
#include "tensor/op_list.hpp"
#include "tensor/tensor.hpp"

namespace nabla::cuda {

class CachingAllocator;           // tensor/cuda/caching_allocator.hpp
using StreamId = std::uintptr_t;  // a cudaStream_t's bits; 0 is the legacy default stream

// ---------------------------------------------------------------------------
// Devices

int device_count();                   // 0 without a GPU, a driver, or a CUDA build
bool built_with_cuda();               // whether this nabla has the CUDA backend at all
std::string runtime_info();           // one line for `nabla --version`
std::string device_name(int device);  // "NVIDIA H100 80GB HBM3"
// Throws nabla::Error naming the device when it is not there (or CUDA is not built).
void check_device(int device);
// Opens cuBLAS and cuBLASLt now, which otherwise happens at the first matmul on a GPU
// (Note [Loading cuBLAS] in tensor/cuda/cublas_library.cuh), and says which were opened:
// "cuBLAS 13.1.0 (/usr/local/cuda/lib/libcublas.so), cuBLASLt 130100 (...)". Needs no
// GPU. Throws nabla::Error when they cannot be opened, or in a build without CUDA.
std::string load_cublas();

// ---------------------------------------------------------------------------
// Memory. Device memory comes from the caching allocator of its device; `tag` (the
// DSL line that asked) is what an out-of-memory message names.

// The caching allocator of device `device` (one per device, made on first use, over
// cudart). Throws nabla::Error for a device that is not there, or in a build without CUDA.
CachingAllocator& device_allocator(int device);
void* allocate(int device, size_t nbytes, const std::string& tag);
void release(int device, void* ptr);
// Page-locked host memory (for copies that overlap compute), from a caching host
// allocator: a freed block is reused only after the copies that read it are done.
void* allocate_pinned(size_t nbytes);
void release_pinned(void* ptr);
// Marks `ptr` (device or pinned host memory) as used by work on `stream`, so that its
// block is not reused before that work is done.
void record_stream(const Device& device, void* ptr, StreamId stream);

// ---------------------------------------------------------------------------
// Streams. Each thread has a current stream per device (the default stream until it
// sets another); kernels and copies are queued on it.

StreamId current_stream(int device);
void set_current_stream(int device, StreamId stream);
StreamId new_stream(int device);  // a non-blocking stream, owned by nabla until exit
void synchronize(int device);     // waits for all work on the device
void synchronize_stream(int device, StreamId stream);
// How many times this process's host has waited for a GPU: synchronizations, copies to
// the host (item(), printing, .cpu()), the allocator waiting on an event. A training
// loop that reads no value should not add to it (cuda.host_waits() in the language).
uint64_t host_waits();

// ---------------------------------------------------------------------------
// CUDA graphs (tensor/cuda/cuda_graph.cu; Note [CUDA graph replay] in graph/replay.cpp).

// One recorded run, replayable. It owns the device memory that the recorded work
// allocated, since the graph has those addresses baked in.
class RecordedGraph {
 public:
  virtual ~RecordedGraph() = default;
  virtual void launch() = 0;            // queues one replay on the current stream of its device
  virtual size_t node_count() const = 0;  // kernels, copies and memsets in the graph
};

// Runs `work` with this thread's work on `device` recorded into a CUDA graph instead
// of executed: kernels and copies are queued into the graph and nothing runs until
// launch(). The recording is made on a stream of its own that waits for the work
// queued so far. Device memory allocated while recording belongs to the recording
// until it is destroyed: a block freed earlier (an intermediate, a dropped output) is
// not handed out again, so the addresses in the graph stay valid. Uploads from the
// host are staged in pinned memory the recording keeps (their values are constants
// of the graph). Throws nabla::Error naming the reason when the work does what a
// graph cannot hold (a copy to the host, a synchronization); the device and the
// current stream are then as before. Throws in a build without CUDA.
std::unique_ptr<RecordedGraph> record_graph(int device, const std::function<void()>& work);
// Whether this thread is recording work for `device` now.
bool is_recording(int device);

// ---------------------------------------------------------------------------
// Data movement (tensor/cuda/transfer.cu): any layout, any dtype, across devices.
// copy_into(dst, src) broadcasts src to dst's shape and converts the dtype; when one
// side is on the CPU the copy waits for the device unless `non_blocking` and the CPU
// side is pinned.

void copy_into(const Tensor& dst, const Tensor& src, bool non_blocking = false);
void fill(const Tensor& dst, double value);
// A contiguous copy of `t` on `device` (t itself when it is already there and contiguous).
Tensor to_device(const Tensor& t, const Device& device, bool non_blocking = false);

// ---------------------------------------------------------------------------
// Kernels of the op table (the same signature as the CPU ones in tensor/cpu/kernels.hpp).

using TensorList = std::vector<Tensor>;
using KernelFn = void (*)(const TensorList& in, const Attrs& attrs, TensorList& out);
struct Kernel {
  KernelFn fn = nullptr;
  // The kernel takes f16/bf16 itself; otherwise they compute through f32 as on the CPU.
  bool half_native = false;
};
// The CUDA kernel of `op` (tensor/cuda/kernel_table.cu); a null fn where it has none.
Kernel find_kernel(OpId op);

}  // namespace nabla::cuda
