// safetensors files: round trips of every dtype, the exact header layout, every
// validation error with its message, atomic saves and loading into existing tensors.
#include "tensor/safetensors.hpp"

#include <doctest/doctest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "temp_dir.hpp"
#include "tensor/cpu/copy.hpp"

using namespace nabla;
using nabla::testing::TempDir;
namespace st = nabla::safetensors;
namespace fs = std::filesystem;

namespace {


void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// A file from a header given as text and a data section.
std::string file_of(const std::string& header, const std::string& data = "") {
  std::string out(8, '\0');
  uint64_t n = header.size();
  for (int k = 0; k < 8; ++k) out[k] = static_cast<char>((n >> (8 * k)) & 0xff);
  return out + header + data;
}

uint64_t header_length(const std::string& bytes) {
  uint64_t n = 0;
  for (int k = 0; k < 8; ++k) n |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[k])) << (8 * k);
  return n;
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.sizes() != b.sizes()) return false;
  Tensor ca = contiguous_raw(a), cb = contiguous_raw(b);
  size_t n = static_cast<size_t>(a.numel()) * dtype_size(a.dtype());
  return n == 0 || std::memcmp(ca.raw_data(), cb.raw_data(), n) == 0;
}

}  // namespace

TEST_CASE("safetensors: every dtype, 0-dim and empty tensors round-trip bit for bit") {
  TempDir tmp("nabla_safetensors");
  st::NamedTensors ts;
  const std::vector<double> vals{1.5, -2.25, 0.0, 3.0, 1e-3, -7.0};
  for (DType d : {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i64, DType::i32, DType::b8})
    ts.emplace_back(std::string("t_") + dtype_name(d), tensor_from(vals, {2, 3}, d));
  ts.emplace_back("big_i64", tensor_from({0}, {1}, DType::i64));
  ts.back().second.data<int64_t>()[0] = (int64_t{1} << 62) + 1;  // not exact as a double
  ts.emplace_back("scalar", scalar_tensor(4.5, DType::f64));
  ts.emplace_back("empty", empty({0, 3}, DType::f32));
  Tensor base = tensor_from(vals, {2, 3}, DType::f32);
  ts.emplace_back("transposed", make_view(base, {3, 2}, {1, 3}, 0));  // non-contiguous: saved row-major

  std::string path = tmp.file("all.safetensors");
  st::save_file(path, ts, {{"format", "pt"}, {"note", "hello"}});
  st::Checkpoint ck = st::load_file(path);
  REQUIRE(ck.tensors.size() == ts.size());
  for (size_t k = 0; k < ts.size(); ++k) {
    CAPTURE(ts[k].first);
    CHECK(ck.tensors[k].first == ts[k].first);
    CHECK(same_bytes(ck.tensors[k].second, ts[k].second));
  }
  CHECK(ck.tensors[8].second.dim() == 0);
  CHECK(ck.tensors[9].second.numel() == 0);
  CHECK(to_double_vector(ck.tensors[10].second) == std::vector<double>{1.5, 3.0, -2.25, double(1e-3f), 0.0, -7.0});
  CHECK(ck.metadata == st::Metadata{{"format", "pt"}, {"note", "hello"}});
  CHECK_FALSE(fs::exists(path + ".tmp"));
}

TEST_CASE("safetensors: i16 is written as I16 and read back bit for bit") {
  TempDir tmp("nabla_safetensors_i16");
  st::NamedTensors ts{{"pcm", tensor_from({-32768, 32767, 0, -1}, {2, 2}, DType::i16)}};
  CHECK(st::serialize(ts, {}).find("\"dtype\":\"I16\"") != std::string::npos);
  std::string path = tmp.file("pcm.safetensors");
  st::save_file(path, ts, {});
  st::Checkpoint ck = st::load_file(path);
  REQUIRE(ck.tensors.size() == 1);
  CHECK(ck.tensors[0].second.dtype() == DType::i16);
  CHECK(same_bytes(ck.tensors[0].second, ts[0].second));
}

TEST_CASE("safetensors: the exact header layout, offsets, checksums and 8-byte alignment") {
  st::NamedTensors ts{{"w", tensor_from({1, 2, 3}, {3}, DType::f32)},
                      {"step", scalar_tensor(7, DType::i64)},
                      {"mask", tensor_from({1, 0}, {2}, DType::b8)}};
  std::string bytes = st::serialize(ts, {{"k", "v"}});
  // The CRC-32Cs come from a bitwise Python CRC-32C (reversed polynomial 0x82f63b78,
  // checked on "123456789" -> e3069283): of struct.pack('<3f', 1, 2, 3) and so on,
  // and of this header without the header CRC's own entry.
  const std::string json =
      R"({"__metadata__":{"k":"v","nabla.tensor_crc32c":"{\"w\":\"384de783\",\"step\":\"7671b78e\",)"
      R"(\"mask\":\"e2c3efa5\"}","nabla.header_crc32c":"c7b625c7"},)"
      R"("w":{"dtype":"F32","shape":[3],"data_offsets":[0,12]},)"
      R"("step":{"dtype":"I64","shape":[],"data_offsets":[12,20]},)"
      R"("mask":{"dtype":"BOOL","shape":[2],"data_offsets":[20,22]}})";
  uint64_t n = header_length(bytes);
  CHECK(n % 8 == 0);
  CHECK(n == (json.size() + 7) / 8 * 8);
  CHECK(bytes.substr(8, n) == json + std::string(n - json.size(), ' '));
  CHECK(bytes.size() == 8 + n + 22);
  float w[3];
  std::memcpy(w, bytes.data() + 8 + n, 12);
  CHECK(w[0] == 1.0f);
  CHECK(w[2] == 3.0f);
  CHECK(bytes[8 + n + 12] == 7);  // i64 little-endian
  CHECK(bytes[8 + n + 20] == 1);
  CHECK(bytes[8 + n + 21] == 0);
  // The checksums are nabla's bookkeeping: loading leaves them out of the metadata.
  CHECK(st::parse(bytes, "m.st").metadata == st::Metadata{{"k", "v"}});
  // Without metadata, __metadata__ holds the checksums only.
  CHECK(st::serialize({{"a", scalar_tensor(1)}}).substr(8, 39) == R"({"__metadata__":{"nabla.tensor_crc32c":)");
}

TEST_CASE("safetensors: names are checked when saving") {
  CHECK_THROWS_WITH_AS(st::serialize({{"a", scalar_tensor(1)}, {"a", scalar_tensor(2)}}),
                       "<memory>: tensor name 'a' appears twice", Error);
  CHECK_THROWS_WITH_AS(st::serialize({{"__metadata__", scalar_tensor(1)}}),
                       "<memory>: '__metadata__' is reserved and cannot name a tensor", Error);
  CHECK_THROWS_WITH_AS(st::serialize({{"", scalar_tensor(1)}}), "<memory>: a tensor name is empty", Error);
  CHECK_THROWS_WITH_AS(st::serialize({{"a", scalar_tensor(1)}}, {{"nabla.header_crc32c", "0"}}),
                       "<memory>: metadata key 'nabla.header_crc32c' is reserved for nabla's checksums", Error);
}

TEST_CASE("safetensors: every validation error names the file and the problem") {
  auto err = [](const std::string& bytes) {
    try {
      st::parse(bytes, "m.st");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string ok = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  CHECK(err(file_of(ok, std::string(8, '\0'))) == "no error");
  CHECK(err("abc") == "m.st: not a safetensors file: 3 bytes, fewer than the 8 of the header length");
  CHECK(err(file_of(ok).substr(0, 20)) == "m.st: header length 54 is past the end of the file (12 bytes follow it)");
  CHECK(err(file_of(R"({"a": )")) == "m.st: the header is not valid JSON");
  CHECK(err(file_of("[1, 2]")) == "m.st: the header is not a JSON object");
  CHECK(err(file_of(R"({"a":{"dtype":"F8","shape":[1],"data_offsets":[0,1]}})", "x")) ==
        "m.st: tensor 'a': unknown dtype 'F8' (nabla reads F32, F64, F16, BF16, I64, I32, I16, I8, U8, BOOL)");
  CHECK(err(file_of(R"({"a":{"dtype":"F32","shape":[2]}})")) ==
        "m.st: tensor 'a': expected an object with dtype, shape and data_offsets");
  CHECK(err(file_of(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", std::string(8, '\0'))) ==
        "m.st: tensor 'a': shape must hold non-negative integers");
  CHECK(err(file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", std::string(4, '\0'))) ==
        "m.st: tensor 'a': data_offsets [0, 8] are out of range (the data section has 4 bytes)");
  CHECK(err(file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", std::string(8, '\0'))) ==
        "m.st: tensor 'a': data_offsets [8, 0] are reversed");
  CHECK(err(file_of(R"({"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,8]}})", std::string(8, '\0'))) ==
        "m.st: tensor 'a': data_offsets [0, 8] hold 8 bytes but dtype F32 and shape [2, 3] need 24");
  CHECK(err(file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[-1,8]}})", std::string(8, '\0'))) ==
        "m.st: tensor 'a': data_offsets must be two non-negative integers");
  CHECK(err(file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                    R"("b":{"dtype":"I32","shape":[2],"data_offsets":[4,12]}})",
                    std::string(12, '\0'))) ==
        "m.st: tensors 'a' and 'b' overlap (data_offsets [0, 8] and [4, 12])");
  CHECK(err(file_of(R"({"__metadata__":{"k":1}})")) ==
        "m.st: __metadata__ must map strings to strings ('k' is not a string)");
  CHECK(err(file_of(R"({"a":{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,8]}})",
                    std::string(8, '\0'))) ==
        "m.st: tensor 'a': data_offsets [0, 8] hold 8 bytes but dtype F32 and shape [4611686018427387904, 4] need "
        "more than 2^64");
}

TEST_CASE("safetensors: a truncated file on disk is an error naming it") {
  TempDir tmp("nabla_safetensors");
  std::string path = tmp.file("t.safetensors");
  st::save_file(path, {{"a", tensor_from({1, 2, 3, 4}, {4}, DType::f32)}});
  std::string bytes = nabla::testing::read_file(path);
  write_bytes(path, bytes.substr(0, bytes.size() - 3));
  CHECK_THROWS_WITH_AS(st::load_file(path),
                       (path + ": tensor 'a': data_offsets [0, 16] are out of range (the data section has 13 bytes)")
                           .c_str(),
                       Error);
  const uint64_t n = header_length(bytes);
  write_bytes(path, bytes.substr(0, 30));
  CHECK_THROWS_WITH_AS(st::load_file(path),
                       (path + ": header length " + std::to_string(n) + " is past the end of the file (22 bytes follow it)")
                           .c_str(),
                       Error);
  std::string huge = bytes;
  huge[7] = '\x7f';  // a header length of about 2^63
  write_bytes(path, huge);
  CHECK_THROWS_WITH_AS(st::load_file(path),
                       (path + ": header length " + std::to_string((uint64_t{0x7f} << 56) + n) +
                        " is past the end of the file (" + std::to_string(bytes.size() - 8) + " bytes follow it)")
                           .c_str(),
                       Error);
  CHECK_THROWS_WITH_AS(st::load_file(tmp.path().string()),
                       ("cannot load '" + tmp.path().string() + "': it is a folder, not a regular file").c_str(), Error);
  CHECK_THROWS_WITH_AS(st::load_file(tmp.file("none.safetensors")),
                       ("cannot load '" + tmp.file("none.safetensors") + "': No such file or directory").c_str(), Error);
}

TEST_CASE("safetensors: a failed save leaves the old file intact") {
  TempDir tmp("nabla_safetensors");
  std::string path = tmp.file("model.safetensors");
  st::save_file(path, {{"w", tensor_from({1, 2}, {2}, DType::f32)}});
  std::string before = nabla::testing::read_file(path);
  // The temporary path is a directory: opening it for writing fails.
  fs::create_directory(path + ".tmp");
  CHECK_THROWS_WITH_AS(st::save_file(path, {{"w", tensor_from({3, 4, 5}, {3}, DType::f32)}}),
                       ("save: cannot write '" + path + "': cannot open its temporary file '" + path +
                        ".tmp': Is a directory")
                           .c_str(),
                       Error);
  CHECK(nabla::testing::read_file(path) == before);
  CHECK(fs::is_directory(path + ".tmp"));
  fs::remove(path + ".tmp");
  // A symlink planted at the temporary path is refused, and its target left alone.
  std::string victim = tmp.file("victim");
  write_bytes(victim, "precious");
  fs::create_symlink(victim, path + ".tmp");
  CHECK_THROWS_WITH_AS(st::save_file(path, {{"w", tensor_from({3, 4, 5}, {3}, DType::f32)}}),
                       doctest::Contains(("cannot open its temporary file '" + path +
                                          ".tmp': Too many levels of symbolic links")
                                             .c_str()),
                       Error);
  CHECK(nabla::testing::read_file(victim) == "precious");
  CHECK(nabla::testing::read_file(path) == before);
  fs::remove(path + ".tmp");
  // A write error part way (here a file size limit, as a full disk would) removes
  // the temporary file.
  struct rlimit saved;
  REQUIRE(getrlimit(RLIMIT_FSIZE, &saved) == 0);
  auto saved_handler = std::signal(SIGXFSZ, SIG_IGN);  // the write fails with EFBIG instead
  struct rlimit small = saved;
  small.rlim_cur = 64;
  REQUIRE(setrlimit(RLIMIT_FSIZE, &small) == 0);
  CHECK_THROWS_WITH_AS(st::save_file(path, {{"w", tensor_from({3, 4, 5}, {3}, DType::f32)}}),
                       ("save: cannot write '" + path + "': File too large").c_str(), Error);
  REQUIRE(setrlimit(RLIMIT_FSIZE, &saved) == 0);
  std::signal(SIGXFSZ, saved_handler);
  CHECK(nabla::testing::read_file(path) == before);
  CHECK(tmp.listing() == std::vector<std::string>{"model.safetensors", "victim"});
  // A successful save replaces it.
  st::save_file(path, {{"w", tensor_from({3, 4, 5}, {3}, DType::f32)}});
  CHECK(to_double_vector(st::load_file(path).tensors[0].second) == std::vector<double>{3, 4, 5});
}

TEST_CASE("safetensors: a temporary file left by a killed save is reused, not piled up") {
  TempDir tmp("nabla_safetensors");
  std::string path = tmp.file("model.safetensors");
  write_bytes(path + ".tmp", std::string(100000, 'x'));  // what a SIGKILL half way leaves
  st::save_file(path, {{"w", tensor_from({1, 2}, {2}, DType::f32)}});
  CHECK(tmp.listing() == std::vector<std::string>{"model.safetensors"});
  CHECK(to_double_vector(st::load_file(path).tensors[0].second) == std::vector<double>{1, 2});
}

TEST_CASE("safetensors: loading into existing tensors checks every name, shape and dtype") {
  TempDir tmp("nabla_safetensors");
  std::string path = tmp.file("state.safetensors");
  st::save_file(path, {{"w", tensor_from({1, 2, 3, 4, 5, 6}, {2, 3}, DType::f32)},
                       {"b", tensor_from({7, 8}, {2}, DType::f64)},
                       {"extra", scalar_tensor(1)}});
  Tensor w = zeros({3, 2}), b = zeros({2}, DType::f32), c = zeros({1});
  uint32_t v0 = w.version();
  CHECK_THROWS_WITH_AS(st::load_into(path, {{"w", w}, {"b", b}, {"c", c}}),
                       (path + ": does not match the state (4 problems):\n"
                               "  wrong shape: 'w' is [2, 3] in the file, [3, 2] in the state\n"
                               "  wrong dtype: 'b' is f64 in the file, f32 in the state\n"
                               "  missing: 'c' ([1] f32)\n"
                               "  unexpected: 'extra' ([] f32)")
                           .c_str(),
                       Error);
  CHECK(w.version() == v0);  // nothing written
  CHECK(to_double_vector(w) == std::vector<double>(6, 0.0));

  Tensor w2 = zeros({2, 3}), b2 = zeros({2}, DType::f64), e2 = zeros({});
  st::load_into(path, {{"w", w2}, {"b", b2}, {"extra", e2}});
  CHECK(to_double_vector(w2) == std::vector<double>{1, 2, 3, 4, 5, 6});
  CHECK(to_double_vector(b2) == std::vector<double>{7, 8});
  CHECK(e2.item() == 1.0);
  CHECK(w2.version() == 1);
}

TEST_CASE("safetensors: save_safetensors, load_safetensors and load_safetensors_into") {
  TempDir tmp("nabla_safetensors");
  std::string path = tmp.file("named.safetensors");
  save_safetensors(path, {{"a", tensor_from({1, 2}, {2}, DType::bf16)}}, {{"k", "v"}});
  st::Checkpoint ck = load_safetensors(path);
  CHECK(ck.tensors.size() == 1);
  CHECK(ck.tensors[0].second.dtype() == DType::bf16);
  CHECK(ck.metadata == st::Metadata{{"k", "v"}});
  Tensor a = zeros({2}, DType::bf16);
  load_safetensors_into(path, {{"a", a}});
  CHECK(to_double_vector(a) == std::vector<double>{1, 2});
}
