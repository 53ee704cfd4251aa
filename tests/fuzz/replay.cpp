// Replays the fuzz targets' inputs through the normal build (no libFuzzer, the
// default compiler and flags): every seed of tests/fuzz/corpus/<target>/ and every
// input that once crashed a target, kept in tests/fuzz/regressions/<target>/. Each
// must come back normally (harness.hpp); a crash or a broken property fails the test.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/fuzz/harness.hpp"

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Runs each file of `dir` through the target; returns how many there were.
size_t replay(const nabla::fuzz::Target& target, const fs::path& dir) {
  std::vector<fs::path> files = files_in(dir);
  for (const fs::path& file : files) {
    INFO("replaying " << file.string());
    std::string bytes = read_bytes(file);
    target.run(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  return files.size();
}

const fs::path kFuzzDir = fs::path(NABLA_TEST_DATA) / "fuzz";

}  // namespace

TEST_CASE("fuzz targets: seeds and regressions replay cleanly") {
  nabla::fuzz::initialize();
  for (const auto& target : nabla::fuzz::targets()) {
    SUBCASE(target.name) {
      size_t seeds = replay(target, kFuzzDir / "corpus" / target.name);
      CHECK_MESSAGE(seeds > 0, "no seeds in tests/fuzz/corpus/" << target.name);
      replay(target, kFuzzDir / "regressions" / target.name);
    }
  }
}
