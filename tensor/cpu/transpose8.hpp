// An 8 x 8 block of f32 transposed in AVX2 registers: the int8 epilogue's
// channel-major writes (int8_epilogue.cpp) and the pooled convolution's planar
// writes (pool.cpp) share it.
#pragma once
#ifdef __AVX2__
#include <immintrin.h>

namespace nabla::cpu {

// r[j][k] -> r[k][j] for an 8 x 8 block of floats.
inline void transpose8(__m256 r[8]) {
  __m256 t[8], s[8];
  for (int j = 0; j < 8; j += 2) {
    t[j] = _mm256_unpacklo_ps(r[j], r[j + 1]);
    t[j + 1] = _mm256_unpackhi_ps(r[j], r[j + 1]);
  }
  for (int j = 0; j < 8; j += 4) {
    s[j] = _mm256_shuffle_ps(t[j], t[j + 2], _MM_SHUFFLE(1, 0, 1, 0));
    s[j + 1] = _mm256_shuffle_ps(t[j], t[j + 2], _MM_SHUFFLE(3, 2, 3, 2));
    s[j + 2] = _mm256_shuffle_ps(t[j + 1], t[j + 3], _MM_SHUFFLE(1, 0, 1, 0));
    s[j + 3] = _mm256_shuffle_ps(t[j + 1], t[j + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int j = 0; j < 4; ++j) {
    r[j] = _mm256_permute2f128_ps(s[j], s[j + 4], 0x20);
    r[j + 4] = _mm256_permute2f128_ps(s[j], s[j + 4], 0x31);
  }
}

}  // namespace nabla::cpu
#endif
