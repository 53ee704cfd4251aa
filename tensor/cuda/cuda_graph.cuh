// What the allocator and the uploads need of a recording in progress
// (tensor/cuda/cuda_graph.cu; record_graph in cuda_runtime.hpp). Only .cu files include this.
#pragma once
#include <cstddef>

namespace nabla::cuda {

// Memory that `device`'s allocator just handed out: if this thread is recording for
// that device, the recording takes charge of it.
void adopt_if_recording(int device, void* ptr);
// A release of `ptr`: true when a recording owns it, which then frees it only when the
// recording is destroyed (the graph still names it); false for ordinary memory.
bool release_to_recording(void* ptr);
// While recording for `device`: a copy of `bytes` host bytes in pinned memory that the
// recording keeps, for an upload the graph replays.
const void* stage_upload(int device, const void* host, size_t bytes);

}  // namespace nabla::cuda
