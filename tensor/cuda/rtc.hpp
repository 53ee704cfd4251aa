// CUDA C++ compiled at run time: NVRTC, opened on first use (as cuBLAS is, Note
// [Loading cuBLAS]), with its results kept on disk (tensor/cuda/kernel_cache.hpp), and
// the fused elementwise kernels generated from programs (fused_codegen.hpp) that the
// graph executor runs on a GPU. Plain C++ header; tensor/cuda/rtc.cu defines these in
// a CUDA build, no_cuda.cpp otherwise.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace nabla::cuda {

struct SourceHeader {
  std::string name;  // as the source includes it: "scalar_ops.hpp"
  std::string text;
};

// The cubin of `source` for `arch` ("sm_90"): from the disk cache when it has it, else
// compiled by NVRTC (C++17, -default-device, with `headers`) and kept there. Needs no
// GPU. Throws nabla::Error with NVRTC's log when the source does not compile, or
// naming the library when NVRTC cannot be opened (or in a build without CUDA).
std::string compile_cuda_source(const std::string& source, const std::vector<SourceHeader>& headers,
                                const std::string& arch);
// "NVRTC 13.0 (/usr/local/cuda/lib/libnvrtc.so)"; throws as compile_cuda_source.
std::string load_nvrtc();

// What this process's generated kernels did: cuda.kernel_cache_stats() in the language.
struct GeneratedKernelStats {
  size_t compiled = 0;   // sources NVRTC compiled
  size_t disk_hits = 0;  // binaries read from the disk cache instead
  size_t loaded = 0;     // kernels loaded onto a device
  size_t launches = 0;   // fused programs run by a generated kernel
  size_t fallbacks = 0;  // fused programs run by the interpreted kernel instead
  std::string last_problem;  // why the last fallback happened ("" for none)
};
GeneratedKernelStats generated_kernel_stats();

}  // namespace nabla::cuda
