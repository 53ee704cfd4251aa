// A minimal PNG encoder (8-bit grayscale, RGB or RGBA, no interlacing, filter 0 on every
// row, one zlib-compressed IDAT chunk): enough to look at tensors as images.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace nabla::interp {

// The bytes of a PNG file of `width` x `height` pixels of `channels` (1 gray, 3 RGB, 4 RGBA)
// 8-bit samples, row-major, channels interleaved.
std::string encode_png(const std::vector<uint8_t>& pixels, int64_t width, int64_t height, int channels);

}  // namespace nabla::interp
