// A structure-aware generator of hostile programs (issue 25): the input bytes are
// read as a sequence of choices (which class of program, which shape, how deep, which
// operations on the result), and the generator writes a program that a byte-level
// mutator would take millions of tries to find: a 10^5-deep unary chain, a list that
// holds itself and is then compared, a model whose field is the model, a 10^6-node
// autograd chain kept alive until exit. The sizes come from the bytes on a log scale,
// up to a cap the caller sets, so short inputs make small programs and coverage
// guidance can push the sizes up.
//
// Two drivers use it (docs/hardening.md):
//   - the libFuzzer target `structured` (harness.cpp): the program runs in-process
//     under the sandbox and the fuzz limits, like parser_eval;
//   - fuzz_exit_runner (exit_runner.cpp): each program runs as its own `nabla`
//     process under an 8 MiB stack and must end with status 0, 1 or 2 and a message,
//     which checks what happens at exit (freeing deep graphs and values), the half of
//     the crashes an in-process harness never sees.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace nabla::fuzz {

// The classes of bad input of the hardening table, one generator each.
enum class ProgramClass : uint8_t {
  deep_expression,  // unary, binary, power, ternary, lambda, bracket and postfix chains
  deep_container,   // lists, dicts, tuples nested 10^k deep, then printed, compared, saved, freed
  cycle,            // containers that reach themselves, at distance 1 to 3
  self_module,      // models whose fields reach the model, shared submodules, tied weights
  deep_graph,       // autograd chains and view chains, differentiated, hooked, kept until exit
  int_edge,         // int64 extremes through every integer operator
  huge_count,       // repetition, ranges and factories of enormous sizes
  repl_session,     // a REPL fed by a pipe: errors between entries, state kept
};
constexpr int kProgramClassCount = 8;
const char* class_name(ProgramClass c);

struct GeneratedProgram {
  ProgramClass kind;
  std::string text;
  std::vector<std::string> args;  // nabla's options before the file (or before stdin's REPL)
  bool via_stdin = false;         // pipe the text to a REPL instead of running it as a file
};

// Reads choices from the bytes; past the end every choice is 0 (the smallest).
class Choices {
 public:
  Choices(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  // A number in [0, n).
  uint32_t below(uint32_t n);
  bool flag() { return below(2) == 1; }
  // A size in [1, cap] on a log scale: as likely 3 as 30000.
  size_t size_up_to(size_t cap);
  template <class T>
  const T& pick(const std::vector<T>& options) {
    return options[below(static_cast<uint32_t>(options.size()))];
  }

 private:
  uint8_t next_byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// The program the bytes choose; no size exceeds max_size (nesting depth, loop count,
// chain length).
GeneratedProgram generate_program(const uint8_t* data, size_t size, size_t max_size);

}  // namespace nabla::fuzz
