// encode_png (png.hpp), on zlib's compress2 and crc32.
#include "interp/builtins/png.hpp"

#include <zlib.h>

#include "tensor/error.hpp"

namespace nabla::interp {

namespace {

void put_u32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xffu));
}

// length, type, data, CRC of type + data.
void put_chunk(std::string& out, const char* type, const std::string& data) {
  put_u32(out, static_cast<uint32_t>(data.size()));
  std::string body = std::string(type, 4) + data;
  out += body;
  put_u32(out, static_cast<uint32_t>(
                   crc32(0L, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()))));
}

}  // namespace

std::string encode_png(const std::vector<uint8_t>& pixels, int64_t width, int64_t height, int channels) {
  bool known_channels = channels == 1 || channels == 3 || channels == 4;
  if (width <= 0 || height <= 0 || width > 0x7fffffff || height > 0x7fffffff || !known_channels)
    throw Error("encode_png: expected a positive size and 1, 3 or 4 channels, got " + std::to_string(width) + " x " +
                std::to_string(height) + " x " + std::to_string(channels));
  size_t row = static_cast<size_t>(width) * static_cast<size_t>(channels);
  if (pixels.size() != row * static_cast<size_t>(height))
    throw Error("encode_png: the pixel count does not match the size");
  // Each row starts with its filter type (0: none).
  std::vector<uint8_t> raw;
  raw.reserve((row + 1) * static_cast<size_t>(height));
  for (int64_t y = 0; y < height; ++y) {
    raw.push_back(0);
    raw.insert(raw.end(), pixels.begin() + static_cast<ptrdiff_t>(y * row),
               pixels.begin() + static_cast<ptrdiff_t>((y + 1) * row));
  }
  uLongf packed_size = compressBound(static_cast<uLong>(raw.size()));
  std::string packed(packed_size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(packed.data()), &packed_size, raw.data(), static_cast<uLong>(raw.size()),
                Z_DEFAULT_COMPRESSION) != Z_OK)
    throw Error("encode_png: zlib could not compress the image");
  packed.resize(packed_size);
  std::string header;
  put_u32(header, static_cast<uint32_t>(width));
  put_u32(header, static_cast<uint32_t>(height));
  // Bit depth 8; color type 0 (gray), 2 (RGB) or 6 (RGBA); compression, filter, interlace 0.
  int color_type = channels == 1 ? 0 : channels == 3 ? 2 : 6;
  for (int byte : {8, color_type, 0, 0, 0}) header.push_back(static_cast<char>(byte));
  std::string out = "\x89PNG\r\n\x1a\n";
  put_chunk(out, "IHDR", header);
  put_chunk(out, "IDAT", packed);
  put_chunk(out, "IEND", "");
  return out;
}

}  // namespace nabla::interp
