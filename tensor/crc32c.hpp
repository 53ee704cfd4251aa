// CRC-32C (Castagnoli), the checksum of iSCSI, ext4 and Btrfs: the one of checkpoint
// files (Note [Checkpoint checksums] in safetensors.hpp). x86 has an instruction for
// it (SSE 4.2, crc32), which three interleaved streams run at ~8 bytes a cycle;
// elsewhere a table does it a byte at a time. Knows nothing of tensors.
#pragma once
#include <cstddef>
#include <cstdint>

namespace nabla {

// The CRC-32C of n bytes; pass the CRC of the bytes before them to go on
// (crc32c(b, crc32c(a)) is the CRC of a then b). crc32c("123456789") is 0xe3069283.
uint32_t crc32c(const void* data, size_t n, uint32_t crc = 0);
// The same without the instruction (what other CPUs run; tests compare the two).
uint32_t crc32c_portable(const void* data, size_t n, uint32_t crc = 0);

}  // namespace nabla
