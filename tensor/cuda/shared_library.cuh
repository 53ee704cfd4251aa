// Opening the CUDA libraries that nabla loads on first use rather than links (cuBLAS:
// Note [Loading cuBLAS] in cublas_library.cuh; NVRTC: rtc.cu). Only .cu files include this.
#pragma once
#include <dlfcn.h>

#include <initializer_list>
#include <string>

#include "tensor/error.hpp"

namespace nabla::cuda {

// Opens the first of `files` that loads and sets `opened` to it; the error names
// `library`, what needs it, and each file's reason. RTLD_LOCAL: the symbols are
// reached through dlsym only.
inline void* open_first_library(const char* library, const char* needed_by, std::initializer_list<std::string> files,
                                std::string& opened) {
  std::string reasons;
  for (const std::string& file : files) {
    if (file.empty()) continue;
    if (void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      opened = file;
      return handle;
    }
    reasons += "\n  " + std::string(dlerror());
  }
  throw Error(std::string("cannot open ") + library + ", which " + needed_by + " needs:" + reasons +
              "\n(put the CUDA toolkit's library folder on LD_LIBRARY_PATH)");
}

// slot = the entry point `name` of the library opened from `file`; `built_against`
// ("cuBLAS 13.1") says which version's entry points nabla expects.
template <class Pointer>
void resolve_symbol(void* handle, const char* name, const std::string& file, const std::string& built_against,
                    Pointer& slot) {
  void* symbol = dlsym(handle, name);
  if (!symbol)
    throw Error(file + " has no " + name + ": nabla was built against " + built_against +
                ", and needs that version or a later one of the same major");
  slot = reinterpret_cast<Pointer>(symbol);
}

}  // namespace nabla::cuda
