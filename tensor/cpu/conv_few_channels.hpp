// What the first layer's AVX-512 kernels share (conv_few_channels.cpp: channels in the
// vector lanes, for a pool or nChw16c; conv_few_channels_planar.cpp: pixels in the
// lanes, for planar tensors): the vector width, the size limit, the copy of an image
// into a zero-padded buffer and the threads' sums added.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "tensor/cpu/avx512.hpp"

namespace nabla::cpu::few_channels {

constexpr int64_t kLanes = 16;

// Each thread copies a whole image, padded: past 4M floats (16 MB; a 2048 x 2048 grey
// image fits) the kernels decline, and oneDNN, which tiles, runs instead.
constexpr int64_t kMaxPaddedImage = int64_t{4} << 20;
inline bool padded_image_fits(int64_t C, int64_t HP, int64_t WP) {
  return HP <= kMaxPaddedImage && WP <= kMaxPaddedImage && C * HP * WP <= kMaxPaddedImage;
}

// Image n of planar x [N, C, H, W] into `image` (C planes of HP x WP rows, already
// zero), pad_h rows and pad_w columns in: the zeros around it stay.
inline void pad_image(const float* x, int64_t n, int64_t C, int64_t H, int64_t W, int64_t pad_h, int64_t pad_w,
                      int64_t HP, int64_t WP, float* image) {
  for (int64_t c = 0; c < C; ++c)
    for (int64_t h = 0; h < H; ++h)
      std::memcpy(image + (c * HP + h + pad_h) * WP + pad_w, x + ((n * C + c) * H + h) * W,
                  static_cast<size_t>(W) * sizeof(float));
}

// Two threads' partial sums added (parallel_reduce's combine, in thread order); an
// empty `a` is the identity.
inline std::vector<float> add_sums(std::vector<float> a, const std::vector<float>& b) {
  if (a.empty()) return b;
  for (size_t i = 0; i < b.size(); ++i) a[i] += b[i];
  return a;
}

}  // namespace nabla::cpu::few_channels
