// TFRecord framing (tfrecord.hpp).
#include "interp/log/tfrecord.hpp"

#include "tensor/crc32c.hpp"

namespace nabla::tensorboard_log {

namespace {

constexpr uint32_t kMaskDelta = 0xa282ead8u;

void put_little_endian(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
}

}  // namespace

uint32_t masked_crc32c(const void* data, size_t n) {
  uint32_t crc = crc32c(data, n);
  return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}

std::string tfrecord(std::string_view data) {
  std::string out;
  out.reserve(data.size() + 16);
  put_little_endian(out, data.size(), 8);
  put_little_endian(out, masked_crc32c(out.data(), 8), 4);
  out.append(data);
  put_little_endian(out, masked_crc32c(data.data(), data.size()), 4);
  return out;
}

}  // namespace nabla::tensorboard_log
