// The fuzz targets (docs/hardening.md): for each reader of untrusted text or bytes,
// one function that feeds it an input and must return, whatever the bytes, without
// crashing, hanging, leaking or tripping a sanitizer. A malformed input is fine as
// long as it ends in nabla's own error.
//
// The same functions run in two places:
//   - under libFuzzer (fuzz_main.cpp, one executable per target, built with
//     -DNABLA_FUZZ=ON into build-fuzz/; scripts/fuzz.sh runs them);
//   - in the normal ctest (replay.cpp), which feeds them the seed corpora
//     (tests/fuzz/corpus/<target>/) and every input that once crashed
//     (tests/fuzz/regressions/<target>/), through the normal build's code.
// A property that does not hold (an IR text that does not round-trip, an error of
// the wrong type) is reported by fail_property, which aborts: a crash to libFuzzer,
// a failed test to the replay.
//
// To add a target: a function here and in harness.cpp, a row in targets(), a seed
// folder tests/fuzz/corpus/<name>/ (and tests/fuzz/<name>.dict if a dictionary helps).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace nabla::fuzz {

// The DSL parser and evaluator: the bytes are a program, run in a fresh interpreter
// in sandbox mode with a step and a memory budget (fuzz_limits in harness.cpp).
void parser_eval(const uint8_t* data, size_t size);
// safetensors::parse on the bytes; what parses must serialize and parse back equal.
void safetensors(const uint8_t* data, size_t size);
// The IDX reader (data.read_idx), through a temporary file.
void idx(const uint8_t* data, size_t size);
// The IR text parser; what parses must print, parse and print again to the same text.
void ir_parse(const uint8_t* data, size_t size);
// A program written by the structure-aware generator (program_gen.hpp) from the bytes,
// run as parser_eval runs its input, with steps enough for deep structures.
void structured(const uint8_t* data, size_t size);

struct Target {
  const char* name;
  void (*run)(const uint8_t* data, size_t size);
};
const std::vector<Target>& targets();
const Target* find_target(const std::string& name);

// Settles what a process needs before the first input (one OpenMP thread, so that
// runs are deterministic and the machine's cores stay free).
void initialize();

[[noreturn]] void fail_property(const std::string& what);

}  // namespace nabla::fuzz
