// Damaged checkpoints are clean errors (Note [Checkpoint checksums]): a flipped bit
// in a tensor or in the header, every cut and every single-bit flip of a small file,
// a damaged header structure; files of other tools still load. Saves are atomic also
// with two writers at once (Note [Atomic files]). Nesting is bounded both ways.
#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "interp/helpers.hpp"
#include "temp_dir.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/safetensors.hpp"

using namespace nabla;
using nabla::testing::Session;
using nabla::testing::TempDir;
namespace st = nabla::safetensors;

namespace {

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// A file from a header given as text and a data section (no checksums: as another
// tool writes it).
std::string file_of(const std::string& header, const std::string& data = "") {
  std::string out(8, '\0');
  uint64_t n = header.size();
  for (int k = 0; k < 8; ++k) out[k] = static_cast<char>((n >> (8 * k)) & 0xff);
  return out + header + data;
}

uint64_t header_end(const std::string& bytes) {
  uint64_t n = 0;
  for (int k = 0; k < 8; ++k) n |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[k])) << (8 * k);
  return 8 + n;
}

std::string error_of(const std::string& bytes, bool verify = true) {
  try {
    st::parse(bytes, "m.st", verify);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

const st::NamedTensors& small_state() {
  static const st::NamedTensors ts{{"w", tensor_from({1, 2, 3, 4, 5, 6}, {2, 3}, DType::f32)},
                                   {"b", tensor_from({0.5, -0.5}, {2}, DType::f64)}};
  return ts;
}

}  // namespace

TEST_CASE("hardening: a flipped bit in a tensor's bytes is an error naming the tensor") {
  std::string bytes = st::serialize(small_state(), {{"epoch", "3"}});
  uint64_t data = header_end(bytes);
  bytes[data + 5] ^= 0x10;  // in w, which comes first
  CHECK(error_of(bytes).find("m.st: tensor 'w': its bytes do not match their checksum (nabla.tensor_crc32c ") == 0);
  CHECK(error_of(bytes).find("): the file is damaged") != std::string::npos);
  // verify=false skips the checksums only: the damaged bytes come back (to salvage).
  st::Checkpoint ck = st::parse(bytes, "m.st", false);
  CHECK(ck.tensors.size() == 2);
  CHECK(ck.metadata == st::Metadata{{"epoch", "3"}});
}

TEST_CASE("hardening: a header damaged into other valid JSON is an error") {
  std::string bytes = st::serialize(small_state(), {{"epoch", "3"}});
  size_t at = bytes.find("\"epoch\":\"3\"");
  REQUIRE(at != std::string::npos);
  bytes[at + 9] = '7';  // "epoch": "7", still valid JSON, still valid metadata
  CHECK(error_of(bytes).find("m.st: the header does not match its checksum (nabla.header_crc32c ") == 0);
  // A checksum that is not 8 lower-case hex digits (an upper-case one is a flipped bit).
  std::string bad_hex = st::serialize(small_state());
  bad_hex[bad_hex.find("\"nabla.header_crc32c\":\"") + 23] = 'A';
  CHECK(error_of(bad_hex) == "m.st: 'nabla.header_crc32c' is not 8 lower-case hex digits: the file is damaged");
}

TEST_CASE("hardening: every cut and every single flipped bit of a checkpoint is a clean error") {
  const std::string bytes = st::serialize(small_state(), {{"epoch", "3"}});
  int errors = 0, cases = 0;
  for (size_t length = 0; length < bytes.size(); ++length, ++cases)
    errors += error_of(bytes.substr(0, length)).rfind("m.st: ", 0) == 0;
  for (size_t byte = 0; byte < bytes.size(); ++byte)
    for (int bit = 0; bit < 8; ++bit, ++cases) {
      std::string damaged = bytes;
      damaged[byte] = static_cast<char>(damaged[byte] ^ (1 << bit));
      errors += error_of(damaged).rfind("m.st: ", 0) == 0;
    }
  CHECK(cases == 9 * static_cast<int>(bytes.size()));
  CHECK(errors == cases);
  CHECK(error_of(bytes) == "no error");
}

TEST_CASE("hardening: files without checksums (another tool's) load; half of the checksums is damage") {
  const std::string header = R"({"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  CHECK(error_of(file_of(header, std::string(8, '\0'))) == "no error");
  const std::string half =
      R"({"__metadata__":{"nabla.header_crc32c":"00000000"},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  CHECK(error_of(file_of(half, std::string(8, '\0'))) ==
        "m.st: the header has 'nabla.header_crc32c' but not 'nabla.tensor_crc32c': the file is damaged");
}

TEST_CASE("hardening: a damaged header structure is an error naming the file and the problem") {
  const std::string ok = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  CHECK(error_of(file_of(ok + std::string(" \0 ", 3), std::string(8, '\0'))) ==
        "m.st: the header holds a NUL byte (at byte " + std::to_string(8 + ok.size() + 1) + " of the file)");
  CHECK(error_of(file_of(ok, std::string(12, '\0'))) ==
        "m.st: 4 bytes follow the last tensor (the data section has 12 bytes, the tensors end at 8)");
  std::string deep = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":)" + std::string(20, '[') +
                     std::string(20, ']') + "}}";
  CHECK(error_of(file_of(deep, std::string(8, '\0'))) == "m.st: the header nests deeper than 8 levels");
  // A million open brackets: refused while parsing, no recursion walks them.
  CHECK(error_of(file_of(std::string(1000000, '['))) == "m.st: the header nests deeper than 8 levels");
  // A header length past the limit of 100 MB, in a file long enough to hold it.
  std::string huge(8 + 100'000'008, ' ');
  uint64_t n = 100'000'001;
  for (int k = 0; k < 8; ++k) huge[k] = static_cast<char>((n >> (8 * k)) & 0xff);
  CHECK(error_of(huge) == "m.st: header length 100000001 is over the limit of 100000000 bytes");
}

TEST_CASE("hardening: two writers and a reader of one path: every load is one whole checkpoint") {
  TempDir tmp("nabla_hardening");
  const std::string path = tmp.file("shared.safetensors");
  const st::NamedTensors a{{"w", full({1000}, 1.0)}}, b{{"w", full({2000}, 2.0)}};
  st::save_file(path, a);
  std::atomic<bool> writing{true};
  std::atomic<int> bad_loads{0}, loads{0};
  std::thread reader([&] {
    while (writing) {
      try {
        st::Checkpoint ck = st::load_file(path);
        int64_t n = ck.tensors.at(0).second.numel();
        bad_loads += !(n == 1000 || n == 2000);
      } catch (const Error&) {
        ++bad_loads;
      }
      ++loads;
    }
  });
  auto writer = [&](const st::NamedTensors& state) {
    for (int k = 0; k < 30; ++k) st::save_file(path, state);
  };
  std::thread first(writer, a), second(writer, b);
  first.join();
  second.join();
  writing = false;
  reader.join();
  CHECK(loads > 0);
  CHECK(bad_loads == 0);
  CHECK(tmp.listing() == std::vector<std::string>{"shared.safetensors"});
}

TEST_CASE("hardening: nesting is bounded: a list that holds itself, a hostile nabla.values") {
  TempDir tmp("nabla_hardening");
  Session s;
  std::string err = s.error("let a = []\na.append(a)\nsave({'a': a}, '" + tmp.file("self.safetensors") + "')");
  CHECK(err.find("save(): the list contains itself (a reference cycle, at 'a.0')") != std::string::npos);
  err = s.error("let deep = 1\nfor k in range(200) { deep = [deep] }\nsave({'d': deep}, '" + tmp.file("deep.safetensors") + "')");
  CHECK(err.find("save(): the value nests deeper than 100 levels (at 'd.0.0.") != std::string::npos);
  // A file whose nabla.values nests 1000 deep (its checksums are right: the file is
  // well formed, only hostile).
  std::string deep = tmp.file("deep.safetensors");
  st::save_file(deep, {{"w", scalar_tensor(1)}},
                {{"nabla.values", std::string(1000, '[') + std::string(1000, ']')}});
  err = s.error("load('" + deep + "')");
  CHECK(err.find("load(): " + deep + ": nabla.values: nests deeper than 100 levels") != std::string::npos);
  // 100 levels round-trip.
  s.run("let v = 1\nfor k in range(99) { v = [v] }\nsave({'v': v}, '" + tmp.file("ok.safetensors") +
        "')\nlet back = load('" + tmp.file("ok.safetensors") + "')\nassert(back['v'] == v)");
}
