// The libFuzzer entry points of one fuzz target, chosen at build time by
// NABLA_FUZZ_TARGET (tests/fuzz/CMakeLists.txt makes one executable per target).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "tests/fuzz/harness.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  nabla::fuzz::initialize();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const nabla::fuzz::Target* target = nabla::fuzz::find_target(NABLA_FUZZ_TARGET);
  if (!target) {
    std::fprintf(stderr, "nabla fuzz: no target named %s\n", NABLA_FUZZ_TARGET);
    std::abort();
  }
  target->run(data, size);
  return 0;
}
