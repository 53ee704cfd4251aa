// interp/log/: the TFRecord framing and its masked CRC-32C, PyTorch's histogram
// buckets and the image layouts, without the language (tests/stdlib/log/ has the
// module's DSL tests and the read-back by python3-protobuf).
#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "interp/log/image_layout.hpp"
#include "interp/log/summaries.hpp"
#include "interp/log/tfrecord.hpp"
#include "tensor/crc32c.hpp"

namespace tb = nabla::tensorboard_log;

namespace {

uint32_t u32_at(const std::string& s, size_t at) {
  uint32_t v;
  std::memcpy(&v, s.data() + at, 4);
  return v;  // little-endian on the machines nabla runs on
}

}  // namespace

TEST_CASE("tfrecord: CRC-32C check values, the mask, and the framing") {
  CHECK(nabla::crc32c("123456789", 9) == 0xE3069283u);  // the standard check value
  CHECK(nabla::crc32c("", 0) == 0u);
  // ((0xE3069283 >> 15) | (0xE3069283 << 17)) + 0xa282ead8, modulo 2^32.
  CHECK(tb::masked_crc32c("123456789", 9) == 0xC78AB0E5u);
  std::string record = tb::tfrecord("abc");
  REQUIRE(record.size() == 8 + 4 + 3 + 4);
  uint64_t length;
  std::memcpy(&length, record.data(), 8);
  CHECK(length == 3);
  CHECK(u32_at(record, 8) == tb::masked_crc32c(record.data(), 8));
  CHECK(record.substr(12, 3) == "abc");
  CHECK(u32_at(record, 15) == tb::masked_crc32c("abc", 3));
}

TEST_CASE("histograms: np.histogram's buckets, trimmed as PyTorch trims them") {
  // Edges 0..3: 0.5 in [0, 1), 1.5 twice in [1, 2), 2.5 in [2, 3]; 9 outside.
  auto h = tb::make_histogram({0.5, 1.5, 1.5, 2.5, 9}, {0, 1, 2, 3}, std::nullopt);
  CHECK(std::vector<double>(h.bucket_limit().begin(), h.bucket_limit().end()) == std::vector<double>{0, 1, 2, 3});
  CHECK(std::vector<double>(h.bucket().begin(), h.bucket().end()) == std::vector<double>{0, 1, 2, 1});
  CHECK(h.num() == 5);
  CHECK(h.min() == 0.5);
  CHECK(h.max() == 9);
  CHECK(h.sum() == 15);
  CHECK(h.sum_squares() == 0.25 + 2.25 + 2.25 + 6.25 + 81);
  // The last edge is inside the last bucket; a bucket left of the first that holds values is kept.
  auto right = tb::make_histogram({3, 3}, {0, 1, 2, 3}, std::nullopt);
  CHECK(std::vector<double>(right.bucket().begin(), right.bucket().end()) == std::vector<double>{0, 2});
  CHECK(std::vector<double>(right.bucket_limit().begin(), right.bucket_limit().end()) == std::vector<double>{2, 3});
  CHECK(tb::equal_bins({1, 1}, 2) == std::vector<double>{0.5, 1, 1.5});
  CHECK_THROWS_WITH(tb::make_histogram({}, {0, 1}, std::nullopt), doctest::Contains("empty"));
  CHECK_THROWS_WITH(tb::make_histogram({5}, {0, 1}, std::nullopt), doctest::Contains("no value falls in the bins"));
  CHECK(tb::tensorflow_bins().size() == 2 * 774 + 1);
}

TEST_CASE("images: CHW, HW and NCHW grids as 8-bit HWC, gray made RGB") {
  tb::Image chw = tb::image_from_values({0, 1, 0.5, 0.25, 2, -1}, {3, 1, 2}, "CHW", false);
  CHECK(chw.height == 1);
  CHECK(chw.width == 2);
  CHECK(chw.channels == 3);
  CHECK(chw.pixels == std::vector<uint8_t>{0, 127, 255, 255, 63, 0});  // truncated, clipped
  tb::Image gray = tb::image_from_values({7, 200}, {1, 2}, "HW", true);
  CHECK(gray.pixels == std::vector<uint8_t>{7, 7, 7, 200, 200, 200});
  tb::Image grid = tb::image_from_values(std::vector<double>(9, 1.0), {9, 1, 1, 1}, "NCHW", false);
  CHECK(grid.height == 2);  // 8 to a row, then one
  CHECK(grid.width == 8);
  CHECK(grid.pixels[3 * 8] == 255);
  CHECK(grid.pixels[3 * 9] == 0);  // an empty cell
  CHECK_THROWS_WITH(tb::image_from_values({0, 0}, {2, 1, 1}, "CHW", false), doctest::Contains("1, 3 or 4 channels"));
  CHECK_THROWS_WITH(tb::image_from_values({0}, {1, 1}, "CHW", false), doctest::Contains("has 3 letters"));
}
