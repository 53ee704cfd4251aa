// The tree-walking evaluator of nabla (docs/LANGUAGE.md has the language).
//
// A resolver pass runs over each program before it executes and gives every Name a
// place: a slot of the current function's frame or of an enclosing one (depth,
// slot), a slot of the module (depth -1), a field of `self` (slot -2) or `self`
// itself (slot -3). Every function call gets one Frame for all its block scopes
// (block scoping is resolved statically to distinct slots); closures keep their
// enclosing frame alive. Module globals are a vector of slots with a name map used
// only by the resolver, so a variable access never hashes a string.
//
// Errors: one exception type (LangError) that gets the span of the innermost
// expression that failed (of the innermost user frame when that expression is the
// standard library's: Note [User line] in evaluator_trace.cpp) and a snapshot of the
// DSL call stack; nabla::Error thrown by ops is converted at the expression that
// called the op.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "interp/interpreter.hpp"
#include "interp/values/value.hpp"
#include "lang/ast.hpp"

namespace nabla {
class Profiler;  // autograd/profiler.hpp
}

namespace nabla::interp {

// How the embedded standard library's files are named in spans and errors
// ("<stdlib>/nn.dsl:108:16").
inline constexpr const char* kStdlibPrefix = "<stdlib>/";

// One call's variables. Tracked: a closure kept in the frame it closes over is a
// cycle (Note [Reference cycles] in cycles.hpp).
struct Frame : Tracked, std::enable_shared_from_this<Frame> {
  explicit Frame(int n) : nslots(n) {
    if (n > kInline) {
      heap.reset(new Value[static_cast<size_t>(n)]);
      slots = heap.get();
    }
  }
  void visit_references(RefVisitor& v) const override;
  void release_references(Graveyard& g) override;
  static constexpr int kInline = 6;
  int nslots;
  Value inline_slots[kInline];
  std::unique_ptr<Value[]> heap;
  Value* slots = inline_slots;
  std::shared_ptr<Frame> parent;
  Value self;
};

struct FnInfo {
  int nslots = 0;
  int nparams = 0;
  bool variadic = false;  // has a *rest parameter (binding never takes the fast path)
};

struct ModelInfo {
  FnInfo ctor;
  std::unordered_set<std::string> members;  // fields, buffers and methods (bare names in methods)
  std::unordered_map<std::string, std::shared_ptr<lang::FnDecl>> methods;
};

struct Loc {
  int32_t depth = -1;  // -1: module slot
  int32_t slot = 0;
};

class LangError : public std::exception {
 public:
  explicit LangError(std::string m) : message(std::move(m)) {}
  const char* what() const noexcept override { return message.c_str(); }
  std::string message;
  lang::SourceSpan span;
  bool located = false;
  bool interrupted = false;  // Ctrl-C or a test's time limit: expect_error and the like let it through
  bool timed_out = false;    // the test's time limit (Evaluator::timeout_s), not Ctrl-C
  // Raised by the program's own fail() or assert(), not by the interpreter: a lowered
  // if's side may raise it only when taken (Note [A failing side of a lowered if],
  // interp/eval/script/raising.cpp).
  bool raised = false;
  std::vector<std::string> trace;
  std::string formatted() const;
};

[[noreturn]] void fail(const std::string& message);
// "fname() got an unexpected keyword argument 'key'", then the closest of `valid` and
// the list of them (interp/eval/suggestions.cpp): every keyword check ends here.
[[noreturn]] void fail_unexpected_keyword(const std::string& fname, const std::string& key,
                                          const std::vector<std::string>& valid);

struct TestState {
  bool active = false;
  std::vector<std::string> failures;
  int failed_in_block = 0;
};

struct ScriptMode;  // interp/eval/script/script_mode.hpp

class Evaluator {
 public:
  Evaluator();
  ~Evaluator();

  // Set while compile(..., mode="script") captures: control flow on tensors lowers
  // to graph nodes (interp/eval/script/script_mode.hpp).
  ScriptMode* script = nullptr;

  // The containers this evaluator made (first member: destroyed last, after every
  // other member has dropped its values). See Note [Reference cycles].
  CycleRegistry cycles;

  // Runs a parsed program in `module`: resolves, then executes the top level.
  // Returns the last expression statement's value when `echo` is set.
  Value run_program(const std::shared_ptr<lang::Program>& prog, const std::shared_ptr<Module>& module,
                    bool want_echo, bool* has_echo);
  // Runs `source` (named `name`) in a child scope of `module` (expect_error, member_names);
  // called from a test block's own statements, the scope sees the block's locals.
  Value eval_source(const std::string& source, const std::string& name, const std::shared_ptr<Module>& module,
                    bool want_value);
  std::shared_ptr<Module> current_module();
  // Runs a test block's statements in `module`; expect_error's code (eval_source) sees its locals.
  void run_test_block(const lang::TestStmt& test, const std::shared_ptr<Module>& module);
  std::shared_ptr<Module> new_module(const std::string& name, const std::string& path);
  // A native or standard-library module by name, loaded and cached as `import` does,
  // but bound in no module (help finds `nn` before `import nn`); null when there is
  // no module of that name.
  std::shared_ptr<Module> find_module(const std::string& name);
  // Interpreter::reset: a new main module (builtins and `args` only), no imports,
  // no profile, no test results. The builtins, native modules and settings stay.
  void reset_session();

  // Calls a callable value with arguments.
  Value call_value(const Value& callee, CallArgs& args);
  // While alive, calls made from C++ with no statement running (Interpreter::graph
  // calling its entry) name `site` as their call site in error traces, not the last
  // call of whatever ran before. `site` must outlive the scope.
  class CallSiteScope {
   public:
    CallSiteScope(Evaluator& ev, const lang::SourceSpan* site);
    ~CallSiteScope();
    CallSiteScope(const CallSiteScope&) = delete;
    CallSiteScope& operator=(const CallSiteScope&) = delete;

   private:
    Evaluator& ev_;
    const lang::SourceSpan* saved_;
  };
  Value get_attr(const Value& obj, const std::string& name);
  void set_attr(const Value& obj, const std::string& name, Value v);
  // Calls a model's __getattr__(name) or __setattr__(name, *value) hook.
  Value call_attr_hook(const Value& obj, const char* hook, const std::string& name, const Value* value);
  Value call_unbound_method(const Value& cls, const std::string& name, CallArgs& args);
  Value call_method(const Value& obj, const std::string& name, CallArgs& args);
  std::vector<std::string> member_names(const Value& v);
  // "; did you mean 'weight'?" for an attribute `name` that `obj` lacks, or "" (also
  // while a QuietLookup is held).
  std::string attribute_hint(const Value& obj, const std::string& name);
  // Whether get_attr(obj, name) would fail for want of the attribute, known without
  // running a hook: false when unsure (then get_attr itself decides).
  bool lacks_attr(const Value& obj, const std::string& name);
  // Note [Lookups that expect to miss]: getattr(obj, name, default) and hasattr catch
  // the error of a missing attribute, so its did-you-mean (an edit distance to every
  // member's name, tens of microseconds on a model) would be built for nothing, and
  // the standard library asks such questions on every step (a scheduler's
  // getattr(s, "cycle_momentum", false)). They hold this while they look, and first ask
  // lacks_attr, which answers a plain miss on a model, object or module without the
  // throw and catch of an error (about 3 us a miss, every scheduler step).
  class QuietLookup {
   public:
    explicit QuietLookup(Evaluator& ev) : ev_(ev) { ++ev_.quiet_lookups_; }
    ~QuietLookup() { --ev_.quiet_lookups_; }
    QuietLookup(const QuietLookup&) = delete;
    QuietLookup& operator=(const QuietLookup&) = delete;

   private:
    Evaluator& ev_;
  };

  // Values of an iterable as a vector (lists, tuples, ranges, dicts' keys, strings, tensors).
  std::vector<Value> iterate(const Value& v);
  // Python's truth of v: a model with __len__ is false when its length is 0 (an empty
  // nn.Sequential or nn.ModuleList, as PyTorch's); any other value as truthy().
  bool truth(const Value& v);
  // len() of a model instance with a __len__ method: what it returns, checked to be an
  // int >= 0 (Note [A model's __len__ and __iter__] in evaluator_models.cpp).
  int64_t model_length(const Value& inst);
  // What `for x in m` walks for a model m with __iter__: what m.__iter__() returns,
  // through the __iter__ of a model it returns (one that leads back is an error).
  Value model_items(const Value& inst);

  std::shared_ptr<Module> main_module;
  std::function<void(const std::string&)> output;
  // Where warnings go (stderr by default; Interpreter::set_warning_output).
  std::function<void(const std::string&)> warning_output;
  // A notebook's display (Interpreter::set_display); empty on a terminal. Note [Display]
  // in interp/builtins/display.hpp.
  std::function<void(const DisplayData&)> display;
  std::atomic<bool> interrupt_flag{false};
  std::vector<std::string> args;
  TestState tests;
  int max_depth = 1000;
  std::string current_file;  // the file being evaluated (relative imports)

  // Builtins (builtins.cpp) are copied into every new module.
  std::vector<std::pair<std::string, Value>> builtins;
  std::shared_ptr<Profiler> last_profile;  // of the last profile { } block or :prof (last_profile())
  std::unordered_map<std::string, std::function<std::shared_ptr<Module>(Evaluator&)>> native_modules;
  std::unordered_map<std::string, std::shared_ptr<Module>> import_cache;

  // Location helpers for builtins (expect failures name the calling line).
  const lang::SourceSpan* current_span = nullptr;
  void check_interrupt() {
    if (interrupt_flag.load(std::memory_order_relaxed)) throw_interrupt();
  }
  [[noreturn]] void throw_interrupt();
  // A test's time limit (`nabla test --timeout`; interp/test_watchdog.hpp): the watchdog
  // sets timed_out, then interrupt_flag, and the interrupt it causes is the error
  // "timed out after <timeout_s> s" rather than "interrupted".
  std::atomic<bool> timed_out{false};
  double timeout_s = 0;

  // The step budget (Interpreter::set_limits): one step per statement executed, loop
  // iteration and call, counted from the start of each eval; past max_steps the
  // step that was to run fails with "step budget of N exceeded". Counting loop
  // iterations and calls too means every runaway program (an empty `while true {}`,
  // endless recursion) spends steps.
  uint64_t steps = 0;
  uint64_t max_steps = 0;  // 0: no budget
  void count_step() {
    if (++steps > step_limit_) throw_step_budget();
  }
  void set_max_steps(uint64_t n) {
    max_steps = n;
    step_limit_ = n ? n : UINT64_MAX;
  }
  [[noreturn]] void throw_step_budget();
  // Sandbox mode (Interpreter::set_limits): builtins that read or write files, open
  // sockets or sleep call this first; it fails naming `what` ("save()").
  bool sandbox = false;
  void check_sandbox(const char* what) {
    if (sandbox) throw_sandboxed(what);
  }
  [[noreturn]] void throw_sandboxed(const char* what);
  // `--full-trace`, the REPL's `:set full_trace on`: errors raised in the standard
  // library are shown at the library's line and its ops carry their library lines,
  // for work on the library itself (Note [User line] in evaluator_trace.cpp).
  bool full_trace = false;

  struct Impl;
  std::unique_ptr<Impl> impl;

 private:
  // The top level of a resolved program in the current module; a return, break or
  // continue that escapes it is an error at its statement.
  Value run_statements(const lang::Program& prog, bool want_value, bool* has_value);
  uint64_t step_limit_ = UINT64_MAX;  // max_steps, or no limit
  int quiet_lookups_ = 0;             // QuietLookups held
};

// builtins.cpp
void install_builtins(Evaluator& ev);
Value tensor_attr(Evaluator& ev, const Value& self, const std::string& name, bool* found);
Value tensor_method(Evaluator& ev, const Value& self, const std::string& name, CallArgs& args);
std::vector<std::string> tensor_member_names();
bool has_container_method(Tag tag, const std::string& name);
Value container_method(Evaluator& ev, const Value& self, const std::string& name, CallArgs& args);
std::vector<std::string> container_method_names(Tag tag);
// interp/models/model_methods.cpp: parameters(), to(), state_dict(), ... of every model.
Value builtin_model_method(Evaluator& ev, const Value& self, const std::string& name, CallArgs& args);
Value binary_op(lang::BinaryOp op, const Value& a, const Value& b);
Value unary_op(lang::UnaryOp op, const Value& a);
Tensor to_tensor_arg(const Value& v, const char* what);
std::string format_value(const Value& v, const std::string& spec);
Value index_value(Evaluator& ev, const Value& obj, const std::vector<Value>& idx);
void assign_index(Evaluator& ev, const Value& obj, const std::vector<Value>& idx, const Value& v);
Value make_slice_value(const Value& start, const Value& stop, const Value& step);
Value ellipsis_value();
Value tensor_value(Tensor t);  // none for an undefined tensor

// Embedded stdlib sources (`import nn`): a name and its DSL text.
void register_stdlib_source(const std::string& name, const std::string& source);
const std::string* find_stdlib_source(const std::string& name);
// stdlib/*.dsl as compiled into the binary (generated by cmake/embed_stdlib.cmake).
const std::vector<std::pair<std::string, std::string>>& embedded_stdlib();

}  // namespace nabla::interp
