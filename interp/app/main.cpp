// The `nabla` command: the REPL, scripts (`nabla FILE.dsl args`, `nabla -e CODE`),
// the language's test runner (`nabla test PATH`), graph mode (`nabla graph FILE
// --entry NAME`), local data-parallel ranks (`nabla launch -n N FILE`, launch.hpp),
// the Jupyter kernel (`nabla kernel -f FILE`, `nabla jupyter install`,
// interp/jupyter/kernel.hpp) and --version/--help/--list-ops; --max-steps, --max-memory and --sandbox before any
// of them but launch set the interpreter's Limits (docs/hardening.md), and
// --full-trace before any of them shows errors at the standard library's own lines.
// Exit status: 0 on success, 1 on a runtime error or a failed test, 2 on a usage or
// syntax error, 130 when Ctrl-C (SIGINT) stopped it. Errors go to stderr. Uses the
// language only through the embedding API (interp/interpreter.hpp); reads the pass
// registry (graph/pass_manager.hpp) to reject a bad `nabla graph --passes` before the
// file runs.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "autograd/op_table.hpp"
#include "graph/pass_manager.hpp"
#include "interp/app/launch.hpp"
#include "interp/app/openmp_wait.hpp"
#include "interp/app/program_file.hpp"
#include "interp/app/repl.hpp"
#include "interp/app/test_command.hpp"
#include "interp/interpreter.hpp"
#include "interp/jupyter/kernel.hpp"
#include "tensor/cuda/cuda_runtime.hpp"

namespace {

namespace fs = std::filesystem;
using Args = std::vector<std::string>;

const char* const kUsage =
    "usage: nabla                        start the REPL\n"
    "       nabla FILE.dsl [ARGS...]     run a script (ARGS are `args` in the language)\n"
    "       nabla -e CODE [ARGS...]      run CODE\n"
    "       nabla test [-k PATTERN] [-v] [-x] [--timeout S] [--collect-only] PATH...\n"
    "                                    run the test blocks of PATH (test_*.dsl, *_test.dsl)\n"
    "       nabla graph FILE.dsl --entry NAME [OPTIONS] [-- ARGS...]\n"
    "                                    capture NAME as a graph, optimize, print, draw\n"
    "       nabla graph --list-passes    list the graph passes and the default pipeline\n"
    "       nabla launch -n N [--master-port P] [--grace S] FILE.dsl [ARGS...]\n"
    "                                    run FILE.dsl as N ranks of a process group\n"
    "       nabla launch -n N --nnodes M --node-rank R --master-addr HOST --master-port P\n"
    "                    [--max-restarts K] FILE.dsl [ARGS...]\n"
    "                                    node R's N ranks of an M-node group\n"
    "       nabla kernel -f CONNECTION_FILE\n"
    "                                    serve a Jupyter notebook (Jupyter starts it)\n"
    "       nabla jupyter install [--user | --prefix DIR]\n"
    "                                    write the Jupyter kernelspec of this nabla\n"
    "       nabla --version | --help | --list-ops\n"
    "       nabla [--max-steps N] [--max-memory BYTES] [--sandbox] [COMMAND...]\n"
    "                                    any of the above but launch (or the REPL), with limits\n"
    "       nabla --full-trace [COMMAND...]\n"
    "                                    any of the above, errors at the standard library's lines\n"
    "\n"
    "  --version    print the version and the CUDA runtime found\n"
    "  --help       print this help (nabla test --help, nabla graph --help: the command's part)\n"
    "  --list-ops   print every op of the op table: name, devices, whether it has\n"
    "               a gradient, whether the graph passes can fuse it, and a\n"
    "               gradient of its gradient (or why not)\n"
    "  --max-steps N       stop a run (each REPL input, each test block) after N steps\n"
    "                      (statements, loop iterations and calls): a runtime error\n"
    "  --max-memory BYTES  a runtime error when live CPU tensors would take more than\n"
    "                      BYTES (suffixes K, M, G: powers of 1024)\n"
    "  --sandbox           builtins that touch files, sockets or sleep are errors\n"
    "  --full-trace        an error raised inside the standard library (nn, optim, data,\n"
    "                      ...) is shown at the library's line, not at the innermost line\n"
    "                      of your code that called it, and ops the library runs keep its\n"
    "                      lines in graphs and profiles (for work on the library itself;\n"
    "                      the REPL's :set full_trace on)\n"
    "These options may also follow `test` or `graph` (nabla test tests --full-trace).\n";

const char* const kTestHelp =
    "nabla test runs the `test \"name\" { ... }` blocks of each PATH: a file (whatever its\n"
    "name), or a folder searched recursively for test_*.dsl and *_test.dsl files (folders\n"
    "starting with '.' are skipped). Each file runs in a fresh interpreter: its top\n"
    "level, then its test blocks; a failure prints FAIL and its location, and the run\n"
    "ends with \"N passed, N failed\". Options:\n"
    "  -k PATTERN       run the tests whose name matches: words matched as parts of the\n"
    "                   name, ignoring case, combined with and, or, not and parentheses\n"
    "                   (-k \"linear and not cuda\"); words side by side are one phrase\n"
    "  -v, --verbose    print each test: PASS or FAIL, FILE::NAME and its time\n"
    "  -x, --exitfirst  stop at the first failure\n"
    "  --timeout S      a test (and a file's top level) running longer than S seconds\n"
    "                   (default 60; 0: no limit) stops at its next statement, loop\n"
    "                   iteration or call, fails with \"timed out after S s\", and the\n"
    "                   run goes on\n"
    "  --collect-only   list the tests that would run (FILE::NAME), run none\n";

const char* const kGraphHelp =
    "nabla graph runs FILE.dsl (ARGS after -- are its `args`), then compiles NAME, a\n"
    "model, a function or a graph module defined at its top level, as compile() does,\n"
    "runs the pass pipeline and prints one line per pass. A model class whose\n"
    "constructor needs no arguments is constructed (--entry Net); else construct one\n"
    "in NAME (--entry 'Net(4)'). Options:\n"
    "  --entry NAME         what to compile (also an expression: a call f(x, y)\n"
    "                       compiles f with those arguments as example inputs)\n"
    "  --inputs SPEC        example inputs: f32[64,784] or f32[64,1,28,28],i64[64]\n"
    "                       (dtypes f32 f64 f16 bf16 i64 i32 i16 i8 u8 bool): floats\n"
    "                       standard normal, integers uniform in [0, 10), bools 0 or\n"
    "                       1. Without it, the file's NAME_inputs (a list of example\n"
    "                       inputs), or none if NAME takes no arguments\n"
    "  --passes P           a pipeline: default (the default), fold,cse,dce; \"\": none\n"
    "  --train              capture a training step (compile(..., train=true)): NAME's\n"
    "                       first result must be the scalar loss\n"
    "  --out PATH           draw the optimized graph: .svg, .png, .dot or .gv; or\n"
    "                       write it as an ONNX model (opset 17): .onnx\n"
    "  --before-after PASS  with --out, draw the graph before and after PASS instead\n"
    "  --print              print the optimized graph's text form\n"
    "  --explain            print the passes' notes on rewrites not made, and the\n"
    "                       guards the graph depends on\n"
    "  --list-passes        list the graph passes and the default pipeline\n";

const char* const kLaunchHelp =
    "nabla launch starts N processes of this nabla on FILE.dsl, as torchrun does, each\n"
    "with RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR=127.0.0.1 and\n"
    "MASTER_PORT (a free port unless --master-port) for dist.init(), and OMP_NUM_THREADS\n"
    "= cores / N unless set. -n is also spelled --nproc-per-node. When a rank fails,\n"
    "the others get --grace seconds (60) to stop, then SIGTERM, then SIGKILL; the exit\n"
    "status is the first failing rank's (128 + N for signal N). Across machines, run one\n"
    "launcher per node with --nnodes M, its --node-rank R, and the same --master-addr and\n"
    "--master-port (node 0's address): node R runs ranks R*N .. R*N+N-1 of M*N. With\n"
    "--max-restarts K a failed rank stops this node's others at once and all start again,\n"
    "up to K times, with NABLA_RESTART_COUNT set (dist.elastic_state()); the script\n"
    "resumes from its latest checkpoint.\n";

const char* const kHelpEnd =
    "In the REPL, :help lists its commands. Exit status: 0 on success, 1 on a runtime\n"
    "error or a failed test, 2 on a usage or syntax error, 130 when Ctrl-C stopped it.\n";

int print_help() {
  std::printf("%s\n%s\n%s\n%s\n%s", kUsage, kTestHelp, kGraphHelp, kLaunchHelp, kHelpEnd);
  return 0;
}

// `nabla test --help`, `nabla graph --help`: the command's part of the help (not a
// script's argument after --).
bool asks_for_help(const Args& args) {
  auto end = std::find(args.begin(), args.end(), "--");
  return std::any_of(args.begin(), end, [](const std::string& a) { return a == "--help" || a == "-h"; });
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "nabla: error: %s\n", message.c_str());
  return 2;
}

// The limits of --max-steps, --max-memory and --sandbox, for every interpreter made here.
nabla::Limits g_limits;
// --full-trace, for every interpreter made here and the ranks of nabla launch.
bool g_full_trace = false;

// The front options' settings on a new interpreter.
void apply_options(nabla::Interpreter& interp) {
  interp.set_limits(g_limits);
  interp.set_full_trace(g_full_trace);
}

// A count with an optional K, M or G suffix (powers of 1024); false when `text` is not one.
bool parse_count(const std::string& text, uint64_t* out) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  size_t used = 0;
  unsigned long long n;
  try {
    n = std::stoull(text, &used);
  } catch (const std::exception&) {
    return false;
  }
  std::string suffix = text.substr(used);
  int shift = suffix.empty() ? 0 : suffix == "K" || suffix == "k" ? 10 : suffix == "M" || suffix == "m" ? 20
                                 : suffix == "G" || suffix == "g" ? 30 : -1;
  if (shift < 0 || (shift > 0 && n > (UINT64_MAX >> shift))) return false;
  *out = static_cast<uint64_t>(n) << shift;
  return true;
}

// The option at args[i] when it is a limit or --full-trace: applied to g_limits or
// g_full_trace and erased from args (with its value), *taken set; "" unless its
// value is bad, then the message.
std::string take_option_at(Args& args, size_t i, bool* taken) {
  const std::string option = args[i];
  bool numeric = option == "--max-steps" || option == "--max-memory";
  *taken = numeric || option == "--sandbox" || option == "--full-trace";
  if (!*taken) return "";
  if (option == "--sandbox") g_limits.sandbox = true;
  if (option == "--full-trace") g_full_trace = true;
  if (numeric) {
    uint64_t n = 0;
    if (i + 1 >= args.size() || !parse_count(args[i + 1], &n) || n == 0)
      return option + " needs a positive count, got " + (i + 1 >= args.size() ? "nothing" : "'" + args[i + 1] + "'");
    if (option == "--max-steps") g_limits.max_steps = n;
    else g_limits.max_memory = static_cast<size_t>(n);
    args.erase(args.begin() + static_cast<std::ptrdiff_t>(i));
  }
  args.erase(args.begin() + static_cast<std::ptrdiff_t>(i));
  return "";
}

// Takes the options at the front of `args` (limits, --full-trace) into g_limits and
// g_full_trace; "" when they are fine, else the message.
std::string take_front_options(Args& args) {
  bool taken = true;
  while (!args.empty() && taken)
    if (std::string e = take_option_at(args, 0, &taken); !e.empty()) return e;
  return "";
}

// Takes those options from anywhere among a command's own arguments (before `--`),
// as pytest users write them: `nabla test tests --full-trace`.
std::string take_command_options(Args& args) {
  for (size_t i = 0; i < args.size() && args[i] != "--";) {
    bool taken = false;
    if (std::string e = take_option_at(args, i, &taken); !e.empty()) return e;
    if (!taken) ++i;
  }
  return "";
}

// The table itself is describe_ops(), which the REPL's :ops prints too.
int list_ops() {
  std::fputs(nabla::describe_ops().c_str(), stdout);
  return nabla::incomplete_rows().empty() ? 0 : 1;
}

// The exit status of a run stopped by Ctrl-C: 128 + SIGINT, as shells and Python report.
constexpr int kInterruptedStatus = 130;

// Prints an eval's error and maps it to the exit status.
int finish(const nabla::EvalResult& r) {
  std::fflush(stdout);
  if (r.ok) return 0;
  if (r.error) std::fprintf(stderr, "%s\n", r.error->message.c_str());
  if (r.error && r.error->interrupted) return kInterruptedStatus;
  return r.error && r.error->kind == nabla::EvalError::Kind::syntax ? 2 : 1;
}

// Runs `run` (which makes, uses and frees an interpreter) with the SIGINT handler on:
// a Ctrl-C that no eval reported (it came while the interpreter was made or freed, or
// after the last statement's check) still ends the command with "error: interrupted"
// and status 130 (Note [Interrupts] in interp/interpreter.cpp).
template <class Run>
int with_interrupts(Run run) {
  nabla::install_sigint_handler();
  int before = nabla::sigints_received();
  int status = run();
  if (nabla::sigints_received() != before && status != kInterruptedStatus) {
    std::fflush(stdout);
    std::fprintf(stderr, "error: interrupted\n");
    status = kInterruptedStatus;
  }
  return status;
}

int run_code(const std::string& code, const Args& args) {
  return with_interrupts([&] {
    nabla::Interpreter interp;
    interp.set_args(args);
    apply_options(interp);
    nabla::InterruptScope scope(interp);
    return finish(interp.eval(code, "<-e>"));
  });
}

int run_script(const std::string& path, const Args& args) {
  if (std::string problem = nabla::program_file_problem(path); !problem.empty()) return usage_error(problem);
  return with_interrupts([&] {
    nabla::Interpreter interp;
    interp.set_args(args);
    apply_options(interp);
    nabla::InterruptScope scope(interp);
    return finish(interp.eval_file(path));
  });
}

// `nabla test [OPTIONS] PATH...` (interp/app/test_command.hpp).
int run_tests(const Args& args) {
  if (asks_for_help(args)) return std::fputs(kTestHelp, stdout), 0;
  nabla::TestCommand cmd;
  if (std::string e = nabla::parse_test_args(args, cmd); !e.empty()) return usage_error(e);
  std::vector<std::string> files;
  if (std::string e = nabla::collect_test_files(cmd.paths, files); !e.empty()) return usage_error(e);
  return with_interrupts([&] { return nabla::run_test_files(cmd, files, apply_options); });
}

// ---- nabla graph ------------------------------------------------------------------

struct GraphCommand {
  std::string file;
  nabla::GraphRequest request;
  bool print_ir = false;
  bool list_passes = false;
  Args script_args;
};

// Reads `nabla graph`'s arguments ("--opt VALUE" or "--opt=VALUE"); "" when they
// are fine, else the message.
std::string parse_graph_args(const Args& args, GraphCommand& cmd) {
  cmd.request.passes = "default";
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i], value;
    if (a == "--") {
      cmd.script_args.assign(args.begin() + static_cast<long>(i) + 1, args.end());
      break;
    }
    bool has_value = false;
    if (size_t eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
      has_value = true;
    }
    auto take = [&](std::string* out) {
      if (!has_value && i + 1 >= args.size()) return a + " needs a value (see nabla --help)";
      *out = has_value ? value : args[++i];
      return std::string();
    };
    std::string error;
    if (a == "--entry") error = take(&cmd.request.entry);
    else if (a == "--inputs") error = take(&cmd.request.inputs);
    else if (a == "--passes") error = take(&cmd.request.passes);
    else if (a == "--out") error = take(&cmd.request.out);
    else if (a == "--before-after") error = take(&cmd.request.before_after);
    else if (a == "--print") cmd.print_ir = true;
    else if (a == "--explain") cmd.request.explain = true;
    else if (a == "--train") cmd.request.train = true;
    else if (a == "--list-passes") cmd.list_passes = true;
    else if (a.size() > 1 && a[0] == '-') error = "unknown option '" + a + "' for nabla graph (see nabla --help)";
    else if (cmd.file.empty()) cmd.file = a;
    else error = "nabla graph takes one FILE, got '" + cmd.file + "' and '" + a + "' (script arguments go after --)";
    if (!error.empty()) return error;
  }
  return "";
}

// Whether `path` could be written (its folder exists and is writable), so that a
// bad --out fails before the script runs; "" when it could, else the reason.
std::string unwritable(const std::string& path) {
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return "no folder '" + dir.string() + "'";
  if (access(dir.c_str(), W_OK) != 0) return std::string("folder '") + dir.string() + "': " + std::strerror(errno);
  return "";
}

// The checks that need no interpreter: each bad option is one line and status 2.
std::string check_graph_command(const GraphCommand& cmd) {
  const nabla::GraphRequest& r = cmd.request;
  if (cmd.file.empty()) return "nabla graph needs a FILE.dsl (see nabla --help)";
  if (std::string problem = nabla::program_file_problem(cmd.file); !problem.empty()) return problem;
  if (r.entry.empty()) return "nabla graph needs --entry NAME (a model or a function of " + cmd.file + ")";
  try {
    if (!r.inputs.empty()) nabla::parse_input_spec(r.inputs);
    nabla::graph::parse_pipeline(r.passes);
    if (!r.before_after.empty() && nabla::graph::parse_pipeline(r.before_after).size() != 1)
      return "--before-after takes one pass name, got '" + r.before_after + "'";
  } catch (const std::exception& e) {
    return e.what();
  }
  if (!r.before_after.empty() && r.out.empty()) return "--before-after needs --out PATH to draw to";
  if (r.out.empty()) return "";
  std::string ext = fs::path(r.out).extension().string();
  if (ext != ".svg" && ext != ".png" && ext != ".dot" && ext != ".gv" && ext != ".onnx")
    return "--out '" + r.out + "': unknown format '" + ext + "' (use .svg, .png, .dot, .gv or .onnx)";
  if (ext == ".onnx" && !r.before_after.empty()) return "--before-after draws a drawing; --out '" + r.out + "' is an ONNX model";
  std::string why = unwritable(r.out);
  return why.empty() ? "" : "cannot write '" + r.out + "': " + why;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

void print_graph_result(const GraphCommand& cmd, const nabla::GraphResult& g) {
  // explain() has the heading, the passes with their notes, the guards and the captures.
  if (!g.explain.empty()) std::printf("%s", g.explain.c_str());
  else std::printf("%s\n%s", g.heading.c_str(), g.report.empty() ? "no passes run\n" : g.report.c_str());
  if (cmd.print_ir) std::printf("%s", g.ir.c_str());
  const auto& r = cmd.request;
  if (!r.out.empty())
    std::printf("wrote %s%s\n", r.out.c_str(), r.before_after.empty() ? "" : (" (before and after " + r.before_after + ")").c_str());
}

int run_graph(const GraphCommand& cmd);

// `nabla graph FILE --entry NAME ...`: runs FILE, then Interpreter::graph.
int run_graph_command(const Args& args) {
  if (asks_for_help(args)) return std::fputs(kGraphHelp, stdout), 0;
  GraphCommand cmd;
  if (std::string e = parse_graph_args(args, cmd); !e.empty()) return usage_error(e);
  if (cmd.list_passes) return std::fputs(nabla::describe_passes().c_str(), stdout), 0;
  if (std::string e = check_graph_command(cmd); !e.empty()) return usage_error(e);
  return with_interrupts([&] { return run_graph(cmd); });
}

int run_graph(const GraphCommand& cmd) {
  nabla::Interpreter interp;
  interp.set_args(cmd.script_args);
  apply_options(interp);
  nabla::InterruptScope scope(interp);
  if (int status = finish(interp.eval_file(cmd.file))) return status;
  if (is_identifier(cmd.request.entry) && !interp.has(cmd.request.entry))
    return usage_error(cmd.file + " defines no '" + cmd.request.entry +
                       "' (--entry names a model, a function or a graph module of its top level)");
  nabla::GraphResult g = interp.graph(cmd.request);
  std::fflush(stdout);
  if (!g.ok) {
    const std::string& m = g.error->message;
    std::fprintf(stderr, "%s%s\n", m.rfind("error: ", 0) == 0 ? "nabla: " : "", m.c_str());
    return 1;
  }
  print_graph_result(cmd, g);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  nabla::run_with_short_openmp_spin(argv);  // Note [How long the team's threads spin]
  Args args(argv + 1, argv + argc);
  if (std::string e = take_front_options(args); !e.empty()) return usage_error(e);
  if (args.empty()) {
    nabla::Interpreter interp;
    apply_options(interp);
    return nabla::run_repl(interp);
  }
  const std::string& first = args[0];
  Args rest(args.begin() + 1, args.end());
  if (first == "--help" || first == "-h") return print_help();
  if (first == "--version") {
    std::printf("nabla %s\n%s\n", NABLA_VERSION, nabla::cuda::runtime_info().c_str());
    return 0;
  }
  if (first == "--list-ops") return list_ops();
  if (first == "-e") {
    if (rest.empty()) return usage_error("-e needs CODE (see nabla --help)");
    return run_code(rest[0], Args(rest.begin() + 1, rest.end()));
  }
  if (first == "test" || first == "graph") {
    if (std::string e = take_command_options(rest); !e.empty()) return usage_error(e);
    return first == "test" ? run_tests(rest) : run_graph_command(rest);
  }
  if (first == "kernel") {
    nabla::Interpreter interp;
    apply_options(interp);
    return nabla::jupyter::run_kernel_command(interp, rest);
  }
  if (first == "jupyter") return nabla::jupyter::run_jupyter_command(rest);
  if (first == "launch") {
    if (g_limits.max_steps || g_limits.max_memory || g_limits.sandbox)
      return usage_error("--max-steps, --max-memory and --sandbox do not reach the ranks of nabla launch");
    return nabla::run_launch(rest, g_full_trace ? Args{"--full-trace"} : Args{});
  }
  if (first.size() > 1 && first[0] == '-') return usage_error("unknown option '" + first + "' (see nabla --help)");
  return run_script(first, rest);
}
