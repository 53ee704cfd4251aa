#include "tensor/cuda/kernel_cache.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tensor/atomic_file.hpp"
#include "tensor/error.hpp"

namespace nabla::cuda {

namespace {

constexpr const char* kMagic = "nabla-kernel 1\n";

// 64-bit FNV-1a: the file name, not the check (the recipe in the file is).
std::string hash_hex(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// magic, the recipe's length, the recipe, then the binary.
std::string header_of(const std::string& recipe) { return kMagic + std::to_string(recipe.size()) + "\n" + recipe; }

}  // namespace

std::string kernel_cache_dir() {
  if (std::string dir = env("NABLA_KERNEL_CACHE"); !dir.empty()) return dir;
  if (std::string dir = env("XDG_CACHE_HOME"); !dir.empty()) return dir + "/nabla/kernels";
  if (std::string home = env("HOME"); !home.empty()) return home + "/.cache/nabla/kernels";
  return "";
}

std::string kernel_cache_path(const std::string& recipe) { return kernel_cache_dir() + "/" + hash_hex(recipe) + ".bin"; }

std::optional<std::string> read_cached_kernel(const std::string& recipe) {
  if (kernel_cache_dir().empty()) return std::nullopt;
  std::ifstream in(kernel_cache_path(recipe), std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream bytes;
  bytes << in.rdbuf();
  std::string file = bytes.str(), header = header_of(recipe);
  if (file.size() <= header.size() || file.compare(0, header.size(), header) != 0) return std::nullopt;
  return file.substr(header.size());
}

bool write_cached_kernel(const std::string& recipe, const std::string& binary) {
  std::string dir = kernel_cache_dir();
  if (dir.empty()) return false;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return false;
  try {
    write_file_atomically(kernel_cache_path(recipe), header_of(recipe) + binary, "kernel cache");
  } catch (const Error&) {
    return false;  // a cache: the kernel is compiled again next time
  }
  return true;
}

}  // namespace nabla::cuda
