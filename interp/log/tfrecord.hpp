// TFRecord framing, the container of TensorBoard's event files (TensorFlow's
// RecordWriter): each record is its length as a little-endian uint64, the masked
// CRC-32C of those 8 bytes, the data, and the masked CRC-32C of the data. The CRC is
// tensor/crc32c.hpp's; this file knows nothing of events or protobuf.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace nabla::tensorboard_log {

// TFRecord's masked CRC-32C: ((crc >> 15) | (crc << 17)) + 0xa282ead8, so that a CRC
// of data that itself holds CRCs does not look like one.
uint32_t masked_crc32c(const void* data, size_t n);

// One record around `data`: 8 + 4 + data.size() + 4 bytes.
std::string tfrecord(std::string_view data);

}  // namespace nabla::tensorboard_log
