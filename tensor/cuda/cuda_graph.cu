// record_graph (tensor/cuda/cuda_runtime.hpp): a run recorded with stream capture into
// a CUDA graph, and the memory that the recording owns. See Note [CUDA graph replay]
// in graph/replay.cpp for how graph modules use it.
#include <cuda_runtime.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "tensor/cuda/caching_allocator.hpp"
#include "tensor/cuda/common.cuh"
#include "tensor/cuda/cuda_graph.cuh"

namespace nabla::cuda {

namespace {

// Note [Memory of a recording]
// A CUDA graph replays with the addresses it was recorded with: every buffer a recorded
// kernel read or wrote must stay where it is for as long as the graph may replay. So
// each block the allocator hands out while a thread records is adopted by the
// recording. When its tensor is freed (an intermediate after its last use, an output
// the caller dropped) the block is not given back to the allocator but parked with the
// recording, and freed with it. Uploads from the host are staged in pinned blocks the
// recording keeps, since a graph cannot copy from pageable memory. The recorded memory
// is therefore never reused inside one recording either: the memory plan's arena,
// which is one block, is what keeps a recorded step small.
struct RecordingMemory {
  int device = 0;
  std::vector<void*> parked;  // adopted blocks already released by their tensors
  std::vector<void*> staged;  // pinned host copies of the uploads
  size_t adopted = 0;         // blocks adopted, still live or parked
};

std::mutex& registry_mutex() {
  static auto* mutex = new std::mutex;  // never destroyed: tensors are freed at exit too
  return *mutex;
}
// Adopted blocks that are still live, by address, with their recording.
std::unordered_map<void*, RecordingMemory*>& adopted_blocks() {
  static auto* blocks = new std::unordered_map<void*, RecordingMemory*>;  // outlives the recordings
  return *blocks;
}
std::atomic<int> live_recordings{0};  // release_to_recording looks only while some exist

// The recording this thread makes now (null when none).
thread_local RecordingMemory* t_recording = nullptr;

// Frees what a recording parked and disowns its live blocks, which their tensors free
// as usual later. The device must be done with every replay first.
void free_recording_memory(RecordingMemory* memory) {
  std::vector<void*> parked, staged;
  {
    std::lock_guard<std::mutex> lock(registry_mutex());
    auto& blocks = adopted_blocks();
    for (auto it = blocks.begin(); it != blocks.end();)
      it = it->second == memory ? blocks.erase(it) : std::next(it);
    parked.swap(memory->parked);
    staged.swap(memory->staged);
  }
  for (void* p : parked) device_allocator(memory->device).free(p);
  for (void* p : staged) release_pinned(p);
  --live_recordings;
}

// One stream per device for recording, made on first use.
StreamId recording_stream(int device) {
  static std::mutex mutex;
  static std::unordered_map<int, StreamId> streams;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = streams.find(device);
  if (it == streams.end()) it = streams.emplace(device, new_stream(device)).first;
  return it->second;
}

// Makes `waiter` wait for the work queued on `producer` so far.
void stream_waits_for(cudaStream_t waiter, cudaStream_t producer) {
  cudaEvent_t event = nullptr;
  NABLA_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  NABLA_CUDA_CHECK(cudaEventRecord(event, producer));
  NABLA_CUDA_CHECK(cudaStreamWaitEvent(waiter, event, 0));
  NABLA_CUDA_CHECK(cudaEventDestroy(event));
}

class CudaRecordedGraph : public RecordedGraph {
 public:
  CudaRecordedGraph(int device, cudaGraphExec_t exec, std::unique_ptr<RecordingMemory> memory, size_t nodes)
      : device_(device), exec_(exec), memory_(std::move(memory)), nodes_(nodes) {}
  // Also runs at exit, when the driver may be gone already: nothing here may throw.
  ~CudaRecordedGraph() override {
    int previous = device_;
    cudaGetDevice(&previous);
    cudaSetDevice(device_);
    count_host_wait();
    cudaDeviceSynchronize();  // no replay may still use the memory about to be freed
    cudaGraphExecDestroy(exec_);
    cudaGetLastError();
    try {
      free_recording_memory(memory_.get());
    } catch (const std::exception&) {
      // the allocator could not be reached (exit): the process returns the memory
    }
    cudaSetDevice(previous);
  }
  void launch() override {
    DeviceGuard guard(device_);
    NABLA_CUDA_CHECK(cudaGraphLaunch(exec_, stream_of(device_)));
  }
  size_t node_count() const override { return nodes_; }

 private:
  int device_;
  cudaGraphExec_t exec_;
  std::unique_ptr<RecordingMemory> memory_;
  size_t nodes_;
};

// Ends the capture on `stream` (after a failure: discards what it holds) and puts the
// thread's stream and recording state back.
cudaGraph_t end_capture(int device, cudaStream_t stream, StreamId previous, cudaError_t* status) {
  cudaGraph_t graph = nullptr;
  *status = cudaStreamEndCapture(stream, &graph);
  t_recording = nullptr;
  set_current_stream(device, previous);
  return graph;
}

}  // namespace

void adopt_if_recording(int device, void* ptr) {
  RecordingMemory* memory = t_recording;
  if (!memory || !ptr || memory->device != device) return;
  std::lock_guard<std::mutex> lock(registry_mutex());
  adopted_blocks()[ptr] = memory;
  ++memory->adopted;
}

bool release_to_recording(void* ptr) {
  if (live_recordings.load() == 0) return false;
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto& blocks = adopted_blocks();
  auto it = blocks.find(ptr);
  if (it == blocks.end()) return false;
  it->second->parked.push_back(ptr);
  blocks.erase(it);
  return true;
}

const void* stage_upload(int device, const void* host, size_t bytes) {
  RecordingMemory* memory = t_recording;
  if (!memory || memory->device != device) throw Error("stage_upload: this thread is not recording for this device");
  void* pinned = allocate_pinned(bytes);
  std::memcpy(pinned, host, bytes);
  std::lock_guard<std::mutex> lock(registry_mutex());
  memory->staged.push_back(pinned);
  return pinned;
}

bool is_recording(int device) { return t_recording && t_recording->device == device; }

std::unique_ptr<RecordedGraph> record_graph(int device, const std::function<void()>& work) {
  check_device(device);
  if (t_recording) throw Error("cuda:" + std::to_string(device) + ": a CUDA graph is already being recorded");
  DeviceGuard guard(device);
  StreamId previous = current_stream(device);
  auto stream = reinterpret_cast<cudaStream_t>(recording_stream(device));
  stream_waits_for(stream, reinterpret_cast<cudaStream_t>(previous));
  auto memory = std::make_unique<RecordingMemory>();
  memory->device = device;
  ++live_recordings;
  // From here on, a failure frees what the recording adopted (nothing ran on it).
  auto fail = [&](const std::string& why) -> std::unique_ptr<RecordedGraph> {
    cudaGetLastError();
    free_recording_memory(memory.get());
    throw Error("cuda:" + std::to_string(device) + ": the run cannot be recorded as a CUDA graph: " + why);
  };
  set_current_stream(device, recording_stream(device));
  t_recording = memory.get();
  // Relaxed: the allocator may still take a new segment from the driver (cudaMalloc)
  // while a recording runs; everything queued on the stream is recorded.
  cudaError_t status = cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed);
  if (status != cudaSuccess) {
    t_recording = nullptr;
    set_current_stream(device, previous);
    return fail(std::string("cudaStreamBeginCapture: ") + cudaGetErrorString(status));
  }
  cudaGraph_t graph = nullptr;
  try {
    work();
  } catch (const std::exception& e) {
    graph = end_capture(device, stream, previous, &status);
    if (graph) cudaGraphDestroy(graph);
    return fail(e.what());
  }
  graph = end_capture(device, stream, previous, &status);
  if (status != cudaSuccess || !graph) {
    if (graph) cudaGraphDestroy(graph);
    return fail(std::string("cudaStreamEndCapture: ") + cudaGetErrorString(status));
  }
  size_t nodes = 0;
  cudaGraphGetNodes(graph, nullptr, &nodes);
  cudaGraphExec_t exec = nullptr;
  status = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  if (status != cudaSuccess) return fail(std::string("cudaGraphInstantiate: ") + cudaGetErrorString(status));
  return std::make_unique<CudaRecordedGraph>(device, exec, std::move(memory), nodes);
}

}  // namespace nabla::cuda
