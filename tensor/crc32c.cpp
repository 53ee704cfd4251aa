#include "tensor/crc32c.hpp"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace nabla {

namespace {

// The polynomial, bit-reversed: bit 31 is x^0, as the crc32 instruction has it.
constexpr uint32_t kPolynomial = 0x82f63b78;

constexpr std::array<uint32_t, 256> make_table() {
  std::array<uint32_t, 256> t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t c = b;
    for (int k = 0; k < 8; ++k) c = c & 1 ? (c >> 1) ^ kPolynomial : c >> 1;
    t[b] = c;
  }
  return t;
}
constexpr std::array<uint32_t, 256> kTable = make_table();

// The CRC register run over n bytes, without the inversions before and after.
uint32_t register_portable(uint32_t crc, const unsigned char* p, size_t n) {
  while (n--) crc = kTable[(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return crc;
}

#if defined(__x86_64__)
// a * b modulo the polynomial (both bit-reversed), as zlib's multmodp.
uint32_t multiply_mod(uint32_t a, uint32_t b) {
  uint32_t product = 0;
  for (uint32_t m = 1u << 31; m; m >>= 1) {
    if (a & m) product ^= b;
    b = b & 1 ? (b >> 1) ^ kPolynomial : b >> 1;
  }
  return product;
}

// The streams run over three neighbouring strides of each block. The register of a
// then b is shift(register(a)) ^ register_from_zero(b), where shift multiplies by
// x^(8 * kStride): the register of x^0 run over kStride zero bytes.
constexpr size_t kStride = 4096;

uint32_t stride_shift() {
  static const unsigned char zeros[kStride] = {};
  static const uint32_t factor = register_portable(1u << 31, zeros, kStride);
  return factor;
}

uint64_t load8(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

__attribute__((target("sse4.2"))) uint32_t register_sse42(uint32_t crc, const unsigned char* p, size_t n) {
  const uint32_t shift = stride_shift();
  for (; n >= 3 * kStride; p += 3 * kStride, n -= 3 * kStride) {
    uint64_t a = crc, b = 0, c = 0;
    for (size_t i = 0; i < kStride; i += 8) {
      a = _mm_crc32_u64(a, load8(p + i));
      b = _mm_crc32_u64(b, load8(p + kStride + i));
      c = _mm_crc32_u64(c, load8(p + 2 * kStride + i));
    }
    crc = multiply_mod(shift, multiply_mod(shift, static_cast<uint32_t>(a)) ^ static_cast<uint32_t>(b)) ^
          static_cast<uint32_t>(c);
  }
  uint64_t r = crc;
  for (; n >= 8; p += 8, n -= 8) r = _mm_crc32_u64(r, load8(p));
  crc = static_cast<uint32_t>(r);
  for (; n; ++p, --n) crc = _mm_crc32_u8(crc, *p);
  return crc;
}

bool has_sse42() {
  static const bool yes = __builtin_cpu_supports("sse4.2");
  return yes;
}
#endif

}  // namespace

uint32_t crc32c_portable(const void* data, size_t n, uint32_t crc) {
  return ~register_portable(~crc, static_cast<const unsigned char*>(data), n);
}

uint32_t crc32c(const void* data, size_t n, uint32_t crc) {
#if defined(__x86_64__)
  if (has_sse42()) return ~register_sse42(~crc, static_cast<const unsigned char*>(data), n);
#endif
  return crc32c_portable(data, n, crc);
}

}  // namespace nabla
