// The fuzz targets' harnesses (see harness.hpp). Each returns normally for any input
// that ends in nabla's own error; everything else (a crash, a sanitizer report, a
// broken property) is a finding.
#include "tests/fuzz/harness.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>

#include "graph/ir.hpp"
#include "interp/builtins/idx_reader.hpp"
#include "interp/interpreter.hpp"
#include "tensor/allocator.hpp"
#include "tensor/error.hpp"
#include "tensor/random.hpp"
#include "tensor/safetensors.hpp"
#include "tests/fuzz/program_gen.hpp"

// LeakSanitizer's interface, where the build has it (the fuzz and sanitizer builds).
#if defined(__SANITIZE_ADDRESS__)
#define NABLA_FUZZ_HAS_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NABLA_FUZZ_HAS_LSAN 1
#endif
#endif
#ifdef NABLA_FUZZ_HAS_LSAN
#include <sanitizer/lsan_interface.h>
#endif

namespace nabla::fuzz {

namespace {

std::string as_text(const uint8_t* data, size_t size) { return std::string(reinterpret_cast<const char*>(data), size); }

// Small budgets keep the executions per second high: a program gets 20000 steps
// and 16 MiB of tensors, and may not touch files, sockets or the clock. (A loop
// that runs out of steps or a tensor over the budget is a clean error, which is
// itself worth fuzzing; larger budgets only made such inputs slower.)
Limits fuzz_limits() {
  Limits limits;
  limits.max_steps = 20000;
  limits.max_memory = size_t{16} << 20;
  limits.sandbox = true;
  return limits;
}

// serialize(parse(bytes)); "" when bytes is not a checkpoint nabla reads, or holds
// one that nabla cannot write back (a name that serialize refuses).
std::string reserialize(const std::string& bytes, const char* name) {
  safetensors::Checkpoint ck;
  try {
    ck = safetensors::parse(bytes, name);
  } catch (const Error&) {
    return "";
  }
  try {
    return safetensors::serialize(ck.tensors, ck.metadata);
  } catch (const Error&) {
    return "";
  }
}

// One interpreter serves kInputsPerInterpreter inputs, reset before each
// (Interpreter::reset: no name or import of one input reaches the next). Making an
// interpreter costs more than most inputs (every builtin installed, a worker thread
// started); a new one now and then bounds what an evaluator keeps of the programs it
// ran. A finding that does not replay alone is a finding too: state that outlived
// a reset.
//
// Leaks: an evaluator keeps the programs it ran until it goes, so libFuzzer's own
// per-input leak check (more mallocs than frees in one input) would scan the heap
// after every input, which took 55% of the time; scripts/fuzz.sh turns it off
// (-detect_leaks=0) for this target. Instead, each time an interpreter goes,
// LeakSanitizer checks that nothing of its inputs is left: a leak is a finding of
// the batch of inputs that ran in it (and LeakSanitizer checks again at exit).
constexpr int kInputsPerInterpreter = 64;

void check_no_leaks() {
#ifdef NABLA_FUZZ_HAS_LSAN
  if (__lsan_do_recoverable_leak_check())
    fail_property("parser_eval: memory of the last interpreter's inputs was never freed (the report above)");
#endif
}

Interpreter& interpreter_for_next_input(const Limits& limits) {
  static std::unique_ptr<Interpreter> interp;
  static int inputs = 0;
  if (interp && inputs < kInputsPerInterpreter) {
    interp->reset();
  } else {
    if (interp) {
      interp.reset();  // the old one first: one worker thread at a time
      check_no_leaks();
    }
    interp = std::make_unique<Interpreter>();
    interp->set_output([](const std::string&) {});
    inputs = 0;
  }
  interp->set_limits(limits);
  ++inputs;
  return *interp;
}

// Runs a program in the next input's interpreter: any end but a crash, and an error
// must have a message.
void run_program(const std::string& text, const Limits& limits) {
  manual_seed(0);  // each input sees the same random numbers, so a finding replays
  EvalResult r = interpreter_for_next_input(limits).eval(text, "<fuzz>");
  if (!r.ok && (!r.error || r.error->message.find("error") == std::string::npos))
    fail_property("an eval failed without an error message");
  // The allocator's cache may keep up to 2 GiB; keep a little, for speed, not more.
  if (CpuAllocator::instance().stats().reserved > (size_t{256} << 20)) CpuAllocator::instance().empty_cache();
}

// The generator's sizes in-process: deep enough to cross every recursion the
// 8 MiB stack cannot hold, small enough for many executions per second under ASan.
constexpr size_t kStructuredMaxSize = 20000;

}  // namespace

void parser_eval(const uint8_t* data, size_t size) { run_program(as_text(data, size), fuzz_limits()); }

void structured(const uint8_t* data, size_t size) {
  GeneratedProgram program = generate_program(data, size, kStructuredMaxSize);
  if (program.via_stdin) return;  // REPL sessions need a process (fuzz_exit_runner)
  Limits limits = fuzz_limits();
  limits.max_steps = 40 * kStructuredMaxSize;  // loops that build the structures
  limits.max_memory = size_t{256} << 20;
  run_program(program.text, limits);
}

void safetensors(const uint8_t* data, size_t size) {
  std::string once = reserialize(as_text(data, size), "<fuzz>");
  if (once.empty()) return;
  // What nabla wrote must read back, and write the same bytes again.
  std::string twice = reserialize(once, "<fuzz: serialized>");
  if (twice != once) fail_property("safetensors: a parsed checkpoint does not serialize, parse and serialize the same");
}

void idx(const uint8_t* data, size_t size) {
  static const std::string path =
      (std::filesystem::temp_directory_path() / ("nabla_fuzz_idx_" + std::to_string(getpid()))).string();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  // With scale=true or not by the input's length: one read per input (each opens a
  // gzip stream with a 1 MiB buffer, which ASan makes the slow part).
  try {
    interp::read_idx_file(path, size % 2 == 1);
  } catch (const std::exception&) {  // the reader's errors are the language's (LangError)
  }
  std::remove(path.c_str());
}

void ir_parse(const uint8_t* data, size_t size) {
  graph::Graph g;
  try {
    g = graph::parse_graph(as_text(data, size));
  } catch (const Error&) {
    return;
  }
  try {
    graph::verify(g);
  } catch (const Error&) {
  }
  // Whatever parsed prints, and the printed text is a fixed point of parse + print.
  std::string printed = graph::print_graph(g);
  std::string again;
  try {
    again = graph::print_graph(graph::parse_graph(printed));
  } catch (const Error& e) {
    fail_property("ir_parse: the printed form of a parsed graph does not parse: " + std::string(e.what()) +
                  "\n--- printed:\n" + printed);
  }
  if (again != printed)
    fail_property("ir_parse: print(parse(print(g))) differs from print(g)\n--- print(g):\n" + printed +
                  "\n--- again:\n" + again);
}

const std::vector<Target>& targets() {
  static const std::vector<Target> all = {
      {"parser_eval", parser_eval},
      {"safetensors", safetensors},
      {"idx", idx},
      {"ir_parse", ir_parse},
      {"structured", structured},
  };
  return all;
}

const Target* find_target(const std::string& name) {
  for (const Target& t : targets())
    if (name == t.name) return &t;
  return nullptr;
}

void initialize() { setenv("OMP_NUM_THREADS", "1", 0); }

void fail_property(const std::string& what) {
  std::fprintf(stderr, "nabla fuzz: property broken: %s\n", what.c_str());
  std::abort();
}

}  // namespace nabla::fuzz
