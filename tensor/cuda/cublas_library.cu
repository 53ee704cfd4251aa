// Opens cuBLAS and cuBLASLt on first use. See Note [Loading cuBLAS] in cublas_library.cuh.
#include "tensor/cuda/cublas_library.cuh"
#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/cuda/shared_library.cuh"

// The files CMake found (CMakeLists.txt sets them on this file alone).
#ifndef NABLA_CUBLAS_LIBRARY
#define NABLA_CUBLAS_LIBRARY ""
#endif
#ifndef NABLA_CUBLASLT_LIBRARY
#define NABLA_CUBLASLT_LIBRARY ""
#endif

namespace nabla::cuda {

namespace {

std::string built_against() {
  return "cuBLAS " + std::to_string(CUBLAS_VER_MAJOR) + "." + std::to_string(CUBLAS_VER_MINOR);
}

std::string soname(const char* stem) { return std::string(stem) + ".so." + std::to_string(CUBLAS_VER_MAJOR); }

CublasLibrary open_cublas() {
  CublasLibrary lib;
  // libcublasLt goes first, so that libcublas's dependency on it finds the one already
  // open (by its soname).
  void* lt = open_first_library("cuBLASLt", "matmul on a GPU", {NABLA_CUBLASLT_LIBRARY, soname("libcublasLt")},
                                lib.cublaslt_path);
  void* blas =
      open_first_library("cuBLAS", "matmul on a GPU", {NABLA_CUBLAS_LIBRARY, soname("libcublas")}, lib.cublas_path);
#define NABLA_RESOLVE_CUBLAS(name) resolve_symbol(blas, #name, lib.cublas_path, built_against(), lib.name);
#define NABLA_RESOLVE_CUBLASLT(name) resolve_symbol(lt, #name, lib.cublaslt_path, built_against(), lib.name);
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
