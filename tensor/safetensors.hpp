// Checkpoints in the safetensors format (https://github.com/huggingface/safetensors),
// so that other tools read nabla's files and nabla reads theirs:
//
//   8 bytes   N, the header length (u64, little-endian)
//   N bytes   JSON: {"__metadata__": {str: str}, "name": {"dtype": "F32", "shape": [2, 3],
//             "data_offsets": [begin, end]}, ...}, padded with spaces to a multiple of 8
//   rest      the tensors' bytes, row-major, little-endian, contiguous; offsets are
//             relative to the start of this data section
//
// Deals only with tensors and files (the language's save/load are in
// interp/builtins/builtins_checkpoint.cpp). Errors are nabla::Error naming the file.
//
// Note [Checkpoint checksums]
// A bit flipped on disk leaves a file that still parses: tensor bytes have no
// structure to break, and many header bytes (a digit of an offset or a shape, a
// letter of a name or of "nabla.values") give other valid JSON. So nabla writes two
// kinds of CRC-32C (tensor/crc32c.hpp) into __metadata__, as strings since the format
// wants string values:
//   "nabla.tensor_crc32c": JSON text {"name": "89abcdef", ...}, the CRC of each tensor's bytes
//   "nabla.header_crc32c": "89abcdef", the CRC of the header's compact JSON text
//                          without this one entry (parsing and dumping reproduces it)
// Loading checks both when they are there; files from other tools have neither and
// load unchecked. A CRC-32C catches every single flipped bit and every burst of up to
// 32 bits by construction, and other damage with odds of 2^-32 against missing it. It
// guards against damage, not against a forger: anyone can write a matching CRC. The
// two entries are nabla's bookkeeping: Checkpoint::metadata leaves them out. Checking
// costs ~0.1 ms per MB (the bytes are checksummed in chunks while they are in cache):
// `scripts/bench.sh checkpoint_load` prints it.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor.hpp"

namespace nabla::safetensors {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;
using Metadata = std::vector<std::pair<std::string, std::string>>;

struct Checkpoint {
  NamedTensors tensors;  // in the order of their data offsets
  Metadata metadata;     // the "__metadata__" entries, in the header's order, less the checksums
};

// The __metadata__ keys of Note [Checkpoint checksums]; a caller's metadata cannot use them.
inline constexpr const char* kHeaderCrcKey = "nabla.header_crc32c";
inline constexpr const char* kTensorCrcKey = "nabla.tensor_crc32c";

// "F32", "F64", "F16", "BF16", "I64", "I32", "BOOL".
const char* dtype_code(DType t);
bool dtype_from_code(const std::string& code, DType* out);

// The whole file as bytes (header length, padded header, data). Names must be unique
// and non-empty and must not be "__metadata__"; tensors must be on the CPU.
std::string serialize(const NamedTensors& tensors, const Metadata& metadata = {});
// Parses the bytes of a file; `name` is the file named in errors. Every check runs;
// verify=false skips only the checksums (to measure them, or to salvage a damaged file).
Checkpoint parse(const std::string& bytes, const std::string& name, bool verify = true);

// Writes through an AtomicFileWriter (Note [Atomic files]): `path` is the old file or
// the complete new one, never a part, even if the process is killed.
void save_file(const std::string& path, const NamedTensors& tensors, const Metadata& metadata = {});
Checkpoint load_file(const std::string& path, bool verify = true);

// Loads `path` into existing tensors (a model's state) in place, with no autograd.
// Every mismatch (missing, unexpected, wrong shape, wrong dtype) is reported in one
// error; nothing is written unless all match.
void load_into(const std::string& path, const NamedTensors& targets);
void load_into(const Checkpoint& ckpt, const NamedTensors& targets, const std::string& name);

}  // namespace nabla::safetensors

namespace nabla {
// The same under the names of issue 4.
inline void save_safetensors(const std::string& path, const safetensors::NamedTensors& tensors,
                             const safetensors::Metadata& metadata = {}) {
  safetensors::save_file(path, tensors, metadata);
}
inline safetensors::Checkpoint load_safetensors(const std::string& path) { return safetensors::load_file(path); }
inline void load_safetensors_into(const std::string& path, const safetensors::NamedTensors& targets) {
  safetensors::load_into(path, targets);
}
}  // namespace nabla
