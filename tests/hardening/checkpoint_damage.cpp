// Damages a checkpoint the ways a disk, a cut-off copy or a bad transfer do, and
// loads each damaged file through the language's load() (the whole real path): every
// load must be a clean error that names the file, never a success and never a crash.
//
//   checkpoint_damage FILE [DATA_CASES [STRIDE]]
//
// The cases: the file cut at every length up to the end of its header and at
// DATA_CASES (default 500) random lengths in the data; every bit of the length prefix
// and of the header flipped, one at a time (of every STRIDE-th byte only, for a
// quicker run); DATA_CASES random bits of the data flipped. Prints
//   HARDEN corrupt_files tried=N clean_errors=N crashes=0
// (a crash kills this process before that line: crash_safety.sh reports it) and exits
// with status 1 when a load was not a clean error, showing the first few.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "interp/interpreter.hpp"

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

uint64_t header_end(const std::string& bytes) {
  uint64_t n = 0;
  for (int k = 0; k < 8; ++k) n |= uint64_t(static_cast<unsigned char>(bytes[k])) << (8 * k);
  return 8 + n;
}

// Loads damaged copies of `original`: cut ones written whole to `work`.cut, flipped
// ones damaged in place in `work` and restored after each load.
class Damager {
 public:
  Damager(const std::string& original, const std::string& work)
      : original_(original), work_(work), cut_(work + ".cut") {
    fd_ = ::open(work_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) std::perror(work_.c_str()), std::exit(2);
    put(fd_, 0, original_.size());
    interp_.set_output([](const std::string&) {});
  }
  ~Damager() {
    ::close(fd_);
    ::unlink(work_.c_str());
    ::unlink(cut_.c_str());
  }

  void cut_at(uint64_t length) {
    int fd = ::open(cut_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) std::perror(cut_.c_str()), std::exit(2);
    put(fd, 0, length);
    ::close(fd);
    check(cut_, "cut at " + std::to_string(length) + " bytes");
  }

  void flip(uint64_t byte, int bit) {
    char c = static_cast<char>(original_[byte] ^ (1 << bit));
    if (::pwrite(fd_, &c, 1, static_cast<off_t>(byte)) != 1) std::perror("pwrite"), std::exit(2);
    check(work_, "bit " + std::to_string(bit) + " of byte " + std::to_string(byte) + " flipped");
    put(fd_, byte, byte + 1);
  }

  int tried = 0, clean = 0;
  std::vector<std::string> bad;  // the first few loads that were not clean errors

 private:
  // Writes original_[begin, end) to the same place of fd's file.
  void put(int fd, uint64_t begin, uint64_t end) {
    if (::pwrite(fd, original_.data() + begin, end - begin, static_cast<off_t>(begin)) != ssize_t(end - begin))
      std::perror("pwrite"), std::exit(2);
  }

  void check(const std::string& path, const std::string& what) {
    ++tried;
    nabla::EvalResult r = interp_.eval("let loaded = load(\"" + path + "\")", "<damage>");
    bool named = r.error && r.error->message.find(path + ": ") != std::string::npos;
    if (!r.ok && r.error->kind == nabla::EvalError::Kind::runtime && named) {
      ++clean;
      return;
    }
    if (bad.size() < 5) bad.push_back(what + ": " + (r.ok ? std::string("loaded") : r.error->message));
  }

  std::string original_, work_, cut_;
  int fd_ = -1;
  nabla::Interpreter interp_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: checkpoint_damage FILE [DATA_CASES [STRIDE]]\n");
    return 2;
  }
  const std::string original = read_all(argv[1]);
  const int data_cases = argc >= 3 ? std::atoi(argv[2]) : 500;
  const uint64_t stride = argc == 4 ? std::max(1, std::atoi(argv[3])) : 1;
  const uint64_t header = header_end(original);
  if (original.size() < 8 || header >= original.size()) {
    std::fprintf(stderr, "checkpoint_damage: %s is not a checkpoint with data\n", argv[1]);
    return 2;
  }
  Damager d(original, std::string(argv[1]) + ".damaged");
  std::mt19937_64 random(10);
  std::uniform_int_distribution<uint64_t> in_data(header, original.size() - 1);
  for (uint64_t length = 0; length <= header; length += stride) d.cut_at(length);
  for (int k = 0; k < data_cases; ++k) d.cut_at(in_data(random));
  for (uint64_t byte = 0; byte < header; byte += stride)
    for (int bit = 0; bit < 8; ++bit) d.flip(byte, bit);
  for (int k = 0; k < data_cases; ++k) d.flip(in_data(random), static_cast<int>(random() % 8));
  for (const auto& b : d.bad) std::fprintf(stderr, "not a clean error: %s\n", b.c_str());
  std::printf("HARDEN corrupt_files tried=%d clean_errors=%d crashes=0\n", d.tried, d.clean);
  return d.clean == d.tried ? 0 : 1;
}
