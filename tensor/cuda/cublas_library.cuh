// cuBLAS and cuBLASLt, opened on the first call that needs them. Only .cu files
// include this; calls go through the table: cublas_library().cublasLtMatmul(...).
//
// Note [Loading cuBLAS]
// libcublasLt's static constructors cost about 0.3 s and 210 MB of resident memory
// in every process that links it, GPU or not: three quarters of the time and
// memory of `nabla file.dsl` on a CPU machine. So nabla does not link cuBLAS. The
// first call that needs it opens libcublasLt and libcublas with dlopen (the files
// CMake linked against, NABLA_CUBLAS*_LIBRARY, else by soname on the loader's
// path) and resolves the entry points listed below, declared with the headers'
// own types so that a signature cannot drift. A library that cannot be opened, or
// an entry point it lacks, is a nabla::Error naming the file and the loader's
// message, raised by that first call. cuDNN and NCCL stay linked: they start in
// about 10 ms.
#pragma once
#include <cublasLt.h>
#include <cublas_v2.h>

#include <string>

// The entry points nabla uses (the _v2 names are what cublas_v2.h's macros expand
// to, and what libcublas exports).
#define NABLA_CUBLAS_ENTRY_POINTS(X) \
  X(cublasCreate_v2)                 \
  X(cublasSetStream_v2)              \
  X(cublasSetWorkspace_v2)           \
  X(cublasGetStatusString)           \
  X(cublasGetProperty)               \
  X(cublasGemmStridedBatchedEx_64)   \
  X(cublasGemmBatchedEx_64)

#define NABLA_CUBLASLT_ENTRY_POINTS(X)    \
  X(cublasLtCreate)                       \
  X(cublasLtGetVersion)                   \
  X(cublasLtMatmul)                       \
  X(cublasLtMatmulAlgoGetHeuristic)       \
  X(cublasLtMatmulDescCreate)             \
  X(cublasLtMatmulDescDestroy)            \
  X(cublasLtMatmulDescSetAttribute)       \
  X(cublasLtMatmulPreferenceCreate)       \
  X(cublasLtMatmulPreferenceDestroy)      \
  X(cublasLtMatmulPreferenceSetAttribute) \
  X(cublasLtMatrixLayoutCreate)           \
  X(cublasLtMatrixLayoutDestroy)

namespace nabla::cuda {

struct CublasLibrary {
#define NABLA_CUBLAS_POINTER(name) decltype(&::name) name = nullptr;
  NABLA_CUBLAS_ENTRY_POINTS(NABLA_CUBLAS_POINTER)
  NABLA_CUBLASLT_ENTRY_POINTS(NABLA_CUBLAS_POINTER)
#undef NABLA_CUBLAS_POINTER
  std::string cublas_path;  // the files that were opened, for messages
  std::string cublaslt_path;
};

// Opens the libraries on the first call (thread-safe); throws nabla::Error when they
// cannot be opened, and again on every later call.
const CublasLibrary& cublas_library();

}  // namespace nabla::cuda
