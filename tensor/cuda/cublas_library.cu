// Opens cuBLAS and cuBLASLt on first use. See Note [Loading cuBLAS] in cublas_library.cuh.
#include <dlfcn.h>

#include <initializer_list>

#include "tensor/cuda/cublas_library.cuh"
#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/error.hpp"

// The files CMake found (CMakeLists.txt sets them on this file alone).
#ifndef NABLA_CUBLAS_LIBRARY
#define NABLA_CUBLAS_LIBRARY ""
#endif
#ifndef NABLA_CUBLASLT_LIBRARY
#define NABLA_CUBLASLT_LIBRARY ""
#endif

namespace nabla::cuda {

namespace {

// Opens the first of `files` that loads and sets `opened` to it. RTLD_LOCAL: the
// symbols are reached through dlsym only. libcublasLt goes first, so that
// libcublas's dependency on it finds the one already open (by its soname).
void* open_first(const char* library, std::initializer_list<std::string> files, std::string& opened) {
  std::string reasons;
  for (const std::string& file : files) {
    if (file.empty()) continue;
    if (void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      opened = file;
      return handle;
    }
    reasons += "\n  " + std::string(dlerror());
  }
  throw Error(std::string("cannot open ") + library + ", which matmul on a GPU needs:" + reasons +
              "\n(put the CUDA toolkit's library folder on LD_LIBRARY_PATH)");
}

template <class Pointer>
void resolve(void* handle, const char* name, const std::string& file, Pointer& slot) {
  void* symbol = dlsym(handle, name);
  if (!symbol)
    throw Error(file + " has no " + name + ": nabla was built against cuBLAS " + std::to_string(CUBLAS_VER_MAJOR) +
                "." + std::to_string(CUBLAS_VER_MINOR) + ", and needs that version or a later one of the same major");
  slot = reinterpret_cast<Pointer>(symbol);
}

std::string soname(const char* stem) { return std::string(stem) + ".so." + std::to_string(CUBLAS_VER_MAJOR); }

CublasLibrary open_cublas() {
  CublasLibrary lib;
  void* lt = open_first("cuBLASLt", {NABLA_CUBLASLT_LIBRARY, soname("libcublasLt")}, lib.cublaslt_path);
  void* blas = open_first("cuBLAS", {NABLA_CUBLAS_LIBRARY, soname("libcublas")}, lib.cublas_path);
#define NABLA_RESOLVE_CUBLAS(name) resolve(blas, #name, lib.cublas_path, lib.name);
#define NABLA_RESOLVE_CUBLASLT(name) resolve(lt, #name, lib.cublaslt_path, lib.name);
  NABLA_CUBLAS_ENTRY_POINTS(NABLA_RESOLVE_CUBLAS)
  NABLA_CUBLASLT_ENTRY_POINTS(NABLA_RESOLVE_CUBLASLT)
#undef NABLA_RESOLVE_CUBLAS
#undef NABLA_RESOLVE_CUBLASLT
  return lib;  // the handles stay open for the life of the process
}

}  // namespace

const CublasLibrary& cublas_library() {
  static const CublasLibrary lib = open_cublas();  // an exception leaves it for the next call to try
  return lib;
}

std::string load_cublas() {
  const CublasLibrary& lib = cublas_library();
  int version[3] = {};
  const libraryPropertyType parts[3] = {MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL};
  for (int i = 0; i < 3; ++i) lib.cublasGetProperty(parts[i], &version[i]);
  return "cuBLAS " + std::to_string(version[0]) + "." + std::to_string(version[1]) + "." + std::to_string(version[2]) +
         " (" + lib.cublas_path + "), cuBLASLt " + std::to_string(lib.cublasLtGetVersion()) + " (" + lib.cublaslt_path +
         ")";
}

}  // namespace nabla::cuda
