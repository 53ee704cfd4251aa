// NABLA_HOST_DEVICE marks a small function that the CPU kernels and the CUDA kernels
// both call per element (a window's bounds, a class's offset, dropout's draw): nvcc
// compiles it for the host and the device, g++ sees a plain inline function. Such a
// function is written once so that the two devices cannot drift apart. Headers that
// use it stay C++17 (nvcc compiles the .cu files as C++17).
#pragma once

#if defined(__CUDACC__)
#define NABLA_HOST_DEVICE __host__ __device__
#else
#define NABLA_HOST_DEVICE
#endif
