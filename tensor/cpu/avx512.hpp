// Kernels in AVX-512 on a build whose baseline is AVX2 (NABLA_CPU_BASELINE): such a
// function carries NABLA_AVX512 (the target attribute) and is called only where
// oneDNN runs its own AVX-512 kernels (blocked_activations(), fused.hpp), so one
// switch, DNNL_MAX_CPU_ISA, turns both off.
#pragma once

#if defined(__x86_64__)
#include <immintrin.h>
// GCC 12 warns of "uninitialized" in its own AVX-512 headers, whose intrinsics start
// from _mm512_undefined_*() when inlined into a target("avx512f") function.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#define NABLA_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,fma")))
#endif
