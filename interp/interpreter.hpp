// The embedding API (docs/DESIGN.md seam 7): what the REPL, the script runner, `nabla
// test` and the C++ test suites use. An Interpreter holds one global environment;
// eval() runs source text in it and keeps every binding, also after an error.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tensor/tensor.hpp"

namespace nabla {

// What went wrong, formatted for the user: "file:line:col: error: message", the
// source line, a caret, then the call trace ("  at train.dsl:12:5 in step()"). An
// error raised inside the standard library is at the innermost line of the user's
// code, its library frames marked " [library]" in the trace (see set_full_trace).
struct EvalError {
  enum class Kind { syntax, runtime } kind = Kind::runtime;
  std::string message;  // the whole formatted text
  bool interrupted = false;  // a runtime error from Interpreter::interrupt (Ctrl-C): exit status 130
  bool timed_out = false;    // a test's time limit stopped it (TestOptions::timeout_s), not Ctrl-C
};

// A value's forms for a notebook, keyed by MIME type: "text/plain" (its printed
// form), "image/svg+xml" (SVG text), "image/png" (the PNG file's bytes).
using MimeBundle = std::map<std::string, std::string>;

struct EvalResult {
  bool ok = true;
  std::optional<EvalError> error;
  // The printed form of the last expression statement's value (the REPL echoes
  // it); empty when the input ended with a non-expression or the value was none.
  std::string echo;
  // With a display sink set (Interpreter::set_display): that value's images, from
  // its _repr_svg_() and _repr_png_() methods ("image/svg+xml", "image/png"); a
  // notebook shows them with `echo` as the cell's result. Empty otherwise.
  MimeBundle images;
};

// What a program sends to a notebook (Interpreter::set_display): display(x), a
// drawing made without a path (gm.render()), a progress bar. A progress bar redraws
// itself in place: its first message has a display_id and update false, the later
// ones the same id and update true (Jupyter's display_data, update_display_data).
struct DisplayData {
  MimeBundle data;
  std::string display_id;  // "" for a display that never changes
  bool update = false;
};

// Limits for a program that must neither run away nor reach outside the process
// (the fuzzer's, tests/fuzz/; `nabla --max-steps N --max-memory BYTES --sandbox`).
// 0 means no limit; all are off by default. Going past one is an ordinary error at
// the DSL line that did, and the interpreter's state stays usable.
struct Limits {
  // Per eval (each REPL input, each test block): statements executed, loop
  // iterations and calls. Past it: "step budget of N exceeded".
  uint64_t max_steps = 0;
  // Bytes of live CPU tensors while an eval runs (the CPU allocator's `allocated`,
  // which counts the whole process's tensors). A tensor that would pass it is not
  // allocated: "memory budget of N bytes exceeded: ...".
  size_t max_memory = 0;
  // Builtins that read or write files, open sockets or sleep (save, load, read_text,
  // data.read_idx, dist.init, time.sleep, gm.render, ...) and imports of .dsl files
  // fail with "... is not available in sandbox mode"; the embedded stdlib still imports.
  bool sandbox = false;
};

// One test block's result (`nabla test -v` prints each as it ends).
struct TestResult {
  std::string name;  // the test's name; "" for the file's top level when it failed
  bool passed = true;
  bool timed_out = false;  // stopped by TestOptions::timeout_s
  double seconds = 0;
  std::vector<std::string> failures;  // each formatted with its location
};

// How run_tests runs a file's test blocks (`nabla test -k -x --timeout`).
struct TestOptions {
  // Which tests run, by name; every test when empty. The others are deselected.
  std::function<bool(const std::string& name)> select;
  // Seconds each test block (and the file's top level) may run; 0: no limit. A block
  // past it stops at its next statement, loop iteration or call, as Ctrl-C stops
  // one, and fails with "timed out after S s"; the next block runs.
  double timeout_s = 0;
  bool stop_at_first_failure = false;  // the file's remaining blocks do not run
  std::function<void(const TestResult&)> on_result;  // called as each test ends
};

// Results of test blocks (`nabla test`).
struct TestReport {
  int passed = 0, failed = 0, deselected = 0;
  bool interrupted = false;  // Ctrl-C stopped the file: its remaining blocks did not run
  bool stopped = false;      // TestOptions::stop_at_first_failure stopped the file
  std::vector<std::string> failures;  // each formatted with its location, after `test "name": `
};

// The test blocks of a program file, found by parsing it without running it (`nabla
// test --collect-only`); `error` is the syntax error or the read problem, else "".
struct TestCollection {
  std::vector<std::string> names;
  std::string error;
};
TestCollection collect_tests(const std::string& path);

// What `nabla graph` and the REPL's `:graph` ask of graph mode (Interpreter::graph;
// interp/app/graph_command.cpp). `entry` is an expression evaluated in the global scope:
//   - a graph module (what compile() returns) is used as it is;
//   - a call of a user function or a model, `f(x, y)`, compiles f with those
//     (positional) arguments as the example inputs;
//   - a function or a model compiles with the inputs `inputs` describes; without
//     them, when `entry` is a name N and the global `N_inputs` exists (a list or
//     tuple of the example arguments, or one tensor), with those; else with none
//     when N takes no arguments.
struct GraphRequest {
  std::string entry;
  std::string inputs;        // "f32[64,784],i64[64]": see parse_input_spec
  bool train = false;        // compile(..., train=true): a training step
  std::string passes;        // a pipeline ("default", "fold,cse"); "" runs none
  bool reoptimize = true;    // run `passes` on a graph module too (false: keep its own)
  bool explain = false;      // passes note the rewrites they did not make; fill GraphResult::explain
  bool cost = false;         // fill GraphResult::cost (gm.cost()'s table)
  std::string out;           // render to this path (.svg, .png, .dot or .gv), or .onnx: export, when not empty
  std::string before_after;  // with `out`: draw this pass's before and after instead
  std::string source_name = "<graph>";  // what errors in `entry` call it
};

struct GraphResult {
  bool ok = true;
  std::optional<EvalError> error;
  std::string heading;  // "graph module 'MLP' (inference): 7 nodes captured, 7 after passes"
  std::string report;   // one line per pass (format_records); empty when none ran
  std::string ir;       // the text form of the graph after the passes
  std::string explain;  // guards and captures (gm.explain()), when asked
  std::string cost;     // FLOPs, bytes and roofline per node (gm.cost()), when asked
};

// One example input of `nabla graph --inputs`: a dtype and a shape.
struct InputSpec {
  DType dtype = DType::f32;
  std::vector<int64_t> shape;
};
// Parses "f32[64,784]" or "f32[64,1,28,28],i64[64]" (dtypes f32 f64 f16 bf16 i64 i32
// bool; "f32[]" is a scalar). Throws nabla::Error naming the part it could not read.
std::vector<InputSpec> parse_input_spec(const std::string& spec);
// Example tensors for specs: floats standard normal, integers uniform in [0, 10)
// (valid class labels and embedding indices for most models), bools 0 or 1; drawn
// from the global generator, so manual_seed makes them reproducible.
std::vector<Tensor> example_inputs(const std::vector<InputSpec>& specs);
// Every registered pass: name, summary, requirements; then the default pipeline
// (the REPL's `:passes`, `nabla graph --list-passes`).
std::string describe_passes();
// Every op of the table: devices, gradient, whether the fusion passes can fuse it,
// grad of grad (or why not); then an error line per incomplete row (`nabla
// --list-ops`, the REPL's `:ops`; interp/app/op_listing.cpp).
std::string describe_ops();

// What the REPL's :help NAME prints: help("NAME")'s text, or its error.
struct HelpResult {
  bool ok = true;
  std::string text;   // signature, doc, methods or a module's names (interp/builtins/help.hpp)
  std::string error;  // "undefined name 'x'", "module 'nn' has no attribute 'Lienar'"
};

class Interpreter {
 public:
  Interpreter();
  ~Interpreter();
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  // Runs `source` (named `name` in errors: "<repl:3>", "<-e>", a path). Test blocks
  // are skipped unless run_tests was called for the file.
  EvalResult eval(const std::string& source, const std::string& name = "<string>");
  // eval under the op profiler, which prints its table when the source has run (the
  // REPL's :prof; `profile { }` in the language, interp/builtins/profile.hpp).
  EvalResult eval_profiled(const std::string& source, const std::string& name);
  // The REPL's :type: `source` must be one expression; its echo is the repr of its
  // value's type name ('tensor'). Errors point into `source` itself (the REPL once ran
  // "type(" + source + ")", whose errors quoted that text at shifted columns and
  // whose ")" let `:type 1); stmt; (2` run other statements).
  EvalResult eval_type(const std::string& source, const std::string& name);
  EvalResult eval_file(const std::string& path);
  // Runs the file's top level, then every `test "name" { ... }` block in it that
  // options.select selects.
  TestReport run_tests(const std::string& path, const TestOptions& options = {});

  // Read back values of globals.
  bool has(const std::string& name) const;
  std::optional<Tensor> tensor(const std::string& name) const;
  std::optional<double> number(const std::string& name) const;  // int, float or bool
  std::optional<std::string> str(const std::string& name) const;  // the printed form of any value
  std::vector<std::string> global_names() const;  // user globals and builtins
  // Names of the members of the value `expr` evaluates to (completion after '.').
  std::vector<std::string> member_names(const std::string& expr);
  // What help("NAME") prints: a builtin, op, method ("str.split", "Tensor.sum",
  // "model.parameters"), a native module's function ("math.sqrt"), a DSL function,
  // model or method ("nn.Linear", "optim.Adam.step"), a module (imported or not: "nn")
  // or a variable of the session.
  HelpResult help(const std::string& name);
  // The keyword arguments that the callable `callee` (an expression: "conv2d",
  // "nn.Linear", "m.forward") takes, for completion after "callee(".
  std::vector<std::string> keyword_names(const std::string& callee);

  // Graph mode from the command line and the REPL: capture, optimize, print and
  // render as GraphRequest says. Errors (an unknown name, a capture problem, a bad
  // pass, a path that cannot be written) come back in GraphResult::error, the
  // interpreter's state intact.
  GraphResult graph(const GraphRequest& request);

  // Where print() writes (stdout by default): tests capture it.
  void set_output(std::function<void(const std::string&)> sink);
  // Where warnings go ("gradcheck: warning: input 0 is f32, ..."): stderr by default;
  // a notebook's stderr stream.
  void set_warning_output(std::function<void(const std::string&)> sink);
  // Where display(x), gm.render() and render_autograd() without a path, and progress
  // bars send their output: a notebook (the Jupyter kernel, interp/jupyter/). Unset
  // (the default, or an empty function), display(x) prints x's text form, a drawing
  // needs a path, and a progress bar redraws a terminal line. See Note [Display] in
  // interp/builtins/display.hpp.
  void set_display(std::function<void(const DisplayData&)> sink);
  // Ask a running eval to stop at the next statement or loop iteration (signal-safe:
  // it only sets a flag); the eval fails with "interrupted", also when the request
  // came during its last statement or after it (Note [Interrupts] in interpreter.cpp).
  void interrupt();
  // Forgets every name and import of the session, as a new Interpreter would, and
  // keeps the settings (the output, warning and display sinks, limits, args). The
  // REPL's `:reset`; the fuzzer runs each input after a reset.
  void reset();
  // Arguments of `nabla FILE.dsl args...`, visible as `args` in the language.
  void set_args(const std::vector<std::string>& args);
  // Budgets and sandbox mode for the evals that follow (see Limits).
  void set_limits(const Limits& limits);
  const Limits& limits() const;
  // Errors raised inside the standard library are shown at the innermost line of the
  // user's code, the library frames marked "[library]" in the trace, and the ops the
  // library runs carry the user's call site and module path ("fc1 (train.dsl:12:9)").
  // on: the library's own lines instead, for work on the library (`--full-trace`,
  // the REPL's `:set full_trace on`). Off by default; reset() keeps it.
  void set_full_trace(bool on);
  bool full_trace() const;
  // In sandbox mode, the error that `what` (a REPL command such as ":load") gets, the
  // same as a builtin that reaches outside ("error: :load is not available in sandbox
  // mode ..."); nullopt when the sandbox is off. The REPL asks it before each command
  // that reads or writes files or reads the environment.
  std::optional<EvalError> sandbox_refusal(const std::string& what) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace nabla
