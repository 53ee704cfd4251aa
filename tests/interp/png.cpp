// encode_png: the signature, the header fields, every chunk's CRC, and the rows
// inflated back from IDAT.
#include "interp/builtins/png.hpp"

#include <doctest/doctest.h>
#include <zlib.h>

using nabla::interp::encode_png;

namespace {

uint32_t read_u32(const std::string& s, size_t at) {
  uint32_t v = 0;
  for (size_t k = 0; k < 4; ++k) v = v << 8 | static_cast<uint8_t>(s[at + k]);
  return v;
}

}  // namespace

TEST_CASE("encode_png writes a valid gray PNG whose rows inflate back") {
  std::vector<uint8_t> pixels{0, 10, 20, 30, 40, 50};  // 3 wide, 2 high
  std::string png = encode_png(pixels, 3, 2, 1);
  REQUIRE(png.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
  CHECK(png.substr(12, 4) == "IHDR");
  CHECK(read_u32(png, 16) == 3);
  CHECK(read_u32(png, 20) == 2);
  CHECK(static_cast<uint8_t>(png[24]) == 8);  // bit depth
  CHECK(static_cast<uint8_t>(png[25]) == 0);  // gray
  std::string idat;
  for (size_t at = 8; at < png.size();) {
    uint32_t len = read_u32(png, at);
    std::string body = png.substr(at + 4, 4 + len);
    CHECK(read_u32(png, at + 8 + len) ==
          crc32(0L, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size())));
    if (body.substr(0, 4) == "IDAT") idat = body.substr(4);
    at += 12 + len;
  }
  std::vector<uint8_t> raw(8);
  uLongf size = raw.size();
  REQUIRE(uncompress(raw.data(), &size, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) == Z_OK);
  CHECK(size == 8);
  CHECK(raw == std::vector<uint8_t>{0, 0, 10, 20, 0, 30, 40, 50});
  CHECK(png.substr(png.size() - 8, 4) == "IEND");
}

TEST_CASE("encode_png refuses a pixel count that does not match") {
  CHECK_THROWS(encode_png({1, 2, 3}, 2, 2, 1));
  CHECK_THROWS(encode_png({1, 2, 3, 4}, 2, 2, 2));
}

TEST_CASE("encode_png: RGB is color type 2, RGBA 6") {
  CHECK(static_cast<uint8_t>(encode_png({1, 2, 3}, 1, 1, 3)[25]) == 2);
  CHECK(static_cast<uint8_t>(encode_png({1, 2, 3, 4}, 1, 1, 4)[25]) == 6);
}
