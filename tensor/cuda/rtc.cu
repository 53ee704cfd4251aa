// NVRTC on first use, the disk cache, and the generated fused kernels' loading and
// launch (tensor/cuda/rtc.hpp).
#include <nvrtc.h>

#include <mutex>
#include <unordered_map>

#include "tensor/cuda/common.cuh"
#include "tensor/cuda/fused_codegen.hpp"
#include "tensor/cuda/kernel_cache.hpp"
#include "tensor/cuda/rtc.cuh"
#include "tensor/cuda/rtc.hpp"
#include "tensor/cuda/settings.hpp"
#include "tensor/cuda/shared_library.cuh"

// The file CMake found (CMakeLists.txt sets it on this file alone).
#ifndef NABLA_NVRTC_LIBRARY
#define NABLA_NVRTC_LIBRARY ""
#endif

#define NABLA_NVRTC_ENTRY_POINTS(X) \
  X(nvrtcVersion)                   \
  X(nvrtcGetErrorString)            \
  X(nvrtcCreateProgram)             \
  X(nvrtcCompileProgram)            \
  X(nvrtcGetProgramLogSize)         \
  X(nvrtcGetProgramLog)             \
  X(nvrtcGetCUBINSize)              \
  X(nvrtcGetCUBIN)                  \
  X(nvrtcDestroyProgram)

namespace nabla::cuda {

namespace {

struct NvrtcLibrary {
#define NABLA_NVRTC_POINTER(name) decltype(&::name) name = nullptr;
  NABLA_NVRTC_ENTRY_POINTS(NABLA_NVRTC_POINTER)
#undef NABLA_NVRTC_POINTER
  std::string path;
  std::string version;  // "13.0": part of every cached kernel's recipe
};

NvrtcLibrary open_nvrtc() {
  NvrtcLibrary lib;
  std::string built = "NVRTC " + std::to_string(CUDART_VERSION / 1000) + "." + std::to_string(CUDART_VERSION % 1000 / 10);
  void* handle = open_first_library("NVRTC", "a fused kernel compiled at run time",
                                    {NABLA_NVRTC_LIBRARY, "libnvrtc.so." + std::to_string(CUDART_VERSION / 1000),
                                     "libnvrtc.so"},
                                    lib.path);
#define NABLA_RESOLVE_NVRTC(name) resolve_symbol(handle, #name, lib.path, built, lib.name);
  NABLA_NVRTC_ENTRY_POINTS(NABLA_RESOLVE_NVRTC)
#undef NABLA_RESOLVE_NVRTC
  int major = 0, minor = 0;
  lib.nvrtcVersion(&major, &minor);
  lib.version = std::to_string(major) + "." + std::to_string(minor);
  return lib;
}

const NvrtcLibrary& nvrtc() {
  static const NvrtcLibrary lib = open_nvrtc();  // an exception leaves it for the next call to try
  return lib;
}

std::mutex stats_mutex;
GeneratedKernelStats stats;

void count(size_t GeneratedKernelStats::*field) {
  std::lock_guard<std::mutex> lock(stats_mutex);
  ++(stats.*field);
}

// NVRTC's options besides the architecture. No fast math and no contraction across
// steps: each step rounds as the unfused kernel does (fused_codegen.hpp).
constexpr const char* kOptions[] = {"--std=c++17", "-default-device", "--fmad=false"};

// Everything that makes the binary: the key of the disk cache.
std::string recipe_of(const std::string& source, const std::vector<SourceHeader>& headers, const std::string& arch) {
  std::string recipe = "arch " + arch + "\nnvrtc " + nvrtc().version + "\noptions";
  for (const char* option : kOptions) recipe += std::string(" ") + option;
  recipe += "\n";
  for (const SourceHeader& h : headers) recipe += "header " + h.name + "\n" + h.text + "\n";
  return recipe + "source\n" + source;
}

void check_nvrtc(nvrtcResult status, const char* what) {
  if (status != NVRTC_SUCCESS) throw Error(std::string("NVRTC: ") + what + ": " + nvrtc().nvrtcGetErrorString(status));
}

std::string nvrtc_compile(const std::string& source, const std::vector<SourceHeader>& headers,
                          const std::string& arch) {
  const NvrtcLibrary& lib = nvrtc();
  std::vector<const char*> texts, names;
  for (const SourceHeader& h : headers) {
    texts.push_back(h.text.c_str());
    names.push_back(h.name.c_str());
  }
  nvrtcProgram program = nullptr;
  check_nvrtc(lib.nvrtcCreateProgram(&program, source.c_str(), "nabla_generated.cu", static_cast<int>(headers.size()),
                                     texts.data(), names.data()),
              "nvrtcCreateProgram");
  std::string arch_option = "--gpu-architecture=" + arch;
  std::vector<const char*> options{arch_option.c_str()};
  for (const char* option : kOptions) options.push_back(option);
  nvrtcResult status = lib.nvrtcCompileProgram(program, static_cast<int>(options.size()), options.data());
  size_t log_size = 0;
  lib.nvrtcGetProgramLogSize(program, &log_size);
  std::string log(log_size, '\0');
  if (log_size > 0) lib.nvrtcGetProgramLog(program, log.data());
  std::string cubin;
  if (status == NVRTC_SUCCESS) {
    size_t size = 0;
    lib.nvrtcGetCUBINSize(program, &size);
    cubin.resize(size);
    lib.nvrtcGetCUBIN(program, cubin.data());
  }
  lib.nvrtcDestroyProgram(&program);
  if (status != NVRTC_SUCCESS)
    throw Error("NVRTC could not compile a generated kernel for " + arch + ": " + lib.nvrtcGetErrorString(status) +
                "\n" + log + "\nsource:\n" + source);
  return cubin;
}

// "sm_90" for an H100.
std::string device_arch(int device) {
  cudaDeviceProp prop{};
  NABLA_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  return "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
}

// The loaded kernel of `source` on `device`, compiled (or read from the disk cache)
// and loaded on first use; nullptr when that failed once (the reason is in the stats).
cudaKernel_t loaded_kernel(int device, const std::string& source) {
  static std::mutex mutex;
  static std::unordered_map<std::string, cudaKernel_t> kernels;  // by device and source; never unloaded
  std::string key = std::to_string(device) + "\n" + source;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = kernels.find(key);
  if (it != kernels.end()) return it->second;
  cudaKernel_t kernel = nullptr;
  try {
    std::string cubin = compile_cuda_source(source, {{"scalar_ops.hpp", scalar_ops_source()}}, device_arch(device));
    DeviceGuard guard(device);
    cudaLibrary_t library = nullptr;
    NABLA_CUDA_CHECK(cudaLibraryLoadData(&library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    NABLA_CUDA_CHECK(cudaLibraryGetKernel(&kernel, library, kFusedKernelName));
    count(&GeneratedKernelStats::loaded);
  } catch (const Error& e) {
    std::lock_guard<std::mutex> stats_lock(stats_mutex);
    stats.last_problem = e.what();
    kernel = nullptr;
  }
  kernels.emplace(key, kernel);
  return kernel;
}

}  // namespace

std::string compile_cuda_source(const std::string& source, const std::vector<SourceHeader>& headers,
                                const std::string& arch) {
  std::string recipe = recipe_of(source, headers, arch);
  if (std::optional<std::string> cached = read_cached_kernel(recipe)) {
    count(&GeneratedKernelStats::disk_hits);
    return *cached;
  }
  std::string cubin = nvrtc_compile(source, headers, arch);
  count(&GeneratedKernelStats::compiled);
  write_cached_kernel(recipe, cubin);
  return cubin;
}

std::string load_nvrtc() { return "NVRTC " + nvrtc().version + " (" + nvrtc().path + ")"; }

GeneratedKernelStats generated_kernel_stats() {
  std::lock_guard<std::mutex> lock(stats_mutex);
  return stats;
}

bool run_generated_program(const cpu::ElementwiseProgram& program, const TensorList& inputs, const Tensor& out) {
  if (!generated_kernels() || !generated_kernel_fits(program, inputs, out)) return false;
  int device = out.device().index;
  cudaKernel_t kernel = loaded_kernel(device, fused_kernel_source(fused_kernel_spec(program, inputs, out)));
  if (!kernel) {
    count(&GeneratedKernelStats::fallbacks);
    return false;
  }
  std::vector<const void*> pointers{out.raw_data()};
  for (const Tensor& t : inputs) pointers.push_back(t.raw_data());
  long long n = out.numel();
  std::vector<void*> args;
  for (const void*& p : pointers) args.push_back(&p);
  args.push_back(&n);
  DeviceGuard guard(device);
  NABLA_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(blocks_for(n)), dim3(kThreads),
                                    args.data(), 0, stream_for(out)));
  count(&GeneratedKernelStats::launches);
  return true;
}

}  // namespace nabla::cuda
