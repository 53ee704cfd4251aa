// CRC-32C against published values (the check value of the CRC catalogue and the
// iSCSI test vectors of RFC 3720, B.4), and the instruction path against the
// portable one at every length around its block boundaries, continued or not.
#include "tensor/crc32c.hpp"

#include <doctest/doctest.h>

#include <random>
#include <vector>

using nabla::crc32c;
using nabla::crc32c_portable;

TEST_CASE("crc32c: the published check value and the RFC 3720 vectors") {
  unsigned char zeros[32] = {}, ones[32], ascending[32], descending[32];
  for (int k = 0; k < 32; ++k) {
    ones[k] = 0xff;
    ascending[k] = static_cast<unsigned char>(k);
    descending[k] = static_cast<unsigned char>(31 - k);
  }
  for (auto crc : {crc32c, crc32c_portable}) {
    CHECK(crc("123456789", 9, 0) == 0xe3069283u);
    CHECK(crc(zeros, 32, 0) == 0x8a9136aau);
    CHECK(crc(ones, 32, 0) == 0x62a8ab43u);
    CHECK(crc(ascending, 32, 0) == 0x46dd794eu);
    CHECK(crc(descending, 32, 0) == 0x113fdb5cu);
    CHECK(crc(nullptr, 0, 0) == 0u);
  }
}

TEST_CASE("crc32c: the instruction path equals the portable one, and continues") {
  std::mt19937 random(3);
  std::vector<unsigned char> bytes(3 * 3 * 4096 + 64);
  for (auto& b : bytes) b = static_cast<unsigned char>(random());
  int mismatches = 0;
  for (size_t n = 0; n <= bytes.size(); n += (n % 4096 < 16 || n % 4096 > 4080) ? 1 : 97) {
    mismatches += crc32c(bytes.data(), n) != crc32c_portable(bytes.data(), n);
    size_t half = n / 3;
    mismatches += crc32c(bytes.data() + half, n - half, crc32c(bytes.data(), half)) != crc32c(bytes.data(), n);
  }
  CHECK(mismatches == 0);
}
