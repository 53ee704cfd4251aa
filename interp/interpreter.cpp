// Interpreter (interp/interpreter.hpp) on top of the Evaluator. Evaluation runs on a
// worker thread with a 256 MiB stack, so deep DSL recursion hits the language's
// recursion limit ("maximum recursion depth exceeded") long before the C++ stack
// ends; the calling thread waits for it. The worker lives as long as the
// Interpreter, so thread-local autograd state (grad mode) persists between evals.
#include "interp/interpreter.hpp"

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "interp/eval/evaluator.hpp"
#include "interp/builtins/builtin_table.hpp"
#include "interp/builtins/display.hpp"
#include "interp/builtins/help.hpp"
#include "interp/builtins/graph_module.hpp"
#include "interp/builtins/profile.hpp"
#include "interp/app/program_file.hpp"
#include "graph/executor.hpp"
#include "interp/test_watchdog.hpp"
#include "lang/parser.hpp"
#include "tensor/allocator.hpp"

namespace nabla {

using interp::Evaluator;
using interp::LangError;
using interp::Value;

// Note [Interrupts]
// Ctrl-C is never lost. The SIGINT handler (interp/app/repl.cpp) only sets the evaluator's
// interrupt_flag; the evaluator checks it before and after every statement, at each
// loop iteration and call, and inside builtins that wait (time.sleep). So a Ctrl-C
// during a long native op stops the run when the op returns, at that statement, even
// the program's last ("file:line:col: error: interrupted"); one that came after the
// last check is still this eval's error (report_late_interrupt), and one that came
// outside any eval (while the interpreter was made or freed, at exit) is reported by
// the command line (interp/app/main.cpp). An interrupted script exits with 130 (128 +
// SIGINT, as shells and Python report); the REPL drops the entry and goes on.

namespace {

// While a job of the worker runs: the step count starts from 0, the CPU allocator
// holds the memory budget (Limits), restored when the job ends, and each iteration
// of a graph's while_loop or scan counts as a step and checks for an interrupt, as
// the language's own loops do (Note [Loop polls] in graph/executor.hpp).
class LimitsScope {
 public:
  LimitsScope(Evaluator& ev, const Limits& limits)
      : capped_(limits.max_memory != 0), loop_poll_(&LimitsScope::poll_loop, &ev) {
    ev.steps = 0;
    if (capped_) saved_cap_ = CpuAllocator::instance().set_limit(limits.max_memory);
  }
  ~LimitsScope() {
    if (capped_) CpuAllocator::instance().set_limit(saved_cap_);
  }
  LimitsScope(const LimitsScope&) = delete;
  LimitsScope& operator=(const LimitsScope&) = delete;

 private:
  static void poll_loop(void* context) {
    auto& ev = *static_cast<Evaluator*>(context);
    ev.check_interrupt();
    ev.count_step();
  }
  bool capped_;
  size_t saved_cap_ = 0;
  graph::LoopPollScope loop_poll_;
};

}  // namespace

struct Interpreter::Impl {
  Evaluator ev;
  Limits limits;

  // ---- the worker thread ----
  std::mutex mu;
  std::condition_variable cv;
  std::function<void()> job;
  bool has_job = false, done = false, stop = false;
  pthread_t thread{};
  bool started = false;

  static void* thread_main(void* p) {
    auto* self = static_cast<Impl*>(p);
    std::unique_lock<std::mutex> lock(self->mu);
    while (true) {
      self->cv.wait(lock, [&] { return self->has_job || self->stop; });
      if (self->stop) return nullptr;
      auto j = std::move(self->job);
      self->has_job = false;
      lock.unlock();
      j();
      lock.lock();
      self->done = true;
      self->cv.notify_all();
    }
  }

  // Runs f on the worker under the limits; the containers it makes join the
  // evaluator's registry, and the cycles it left behind are freed when it is done
  // (Note [Reference cycles] in interp/values/cycles.hpp).
  void run(const std::function<void()>& f) {
    run_on_worker([&] {
      interp::CycleRegistry::Scope objects(&ev.cycles);
      {
        LimitsScope scope(ev, limits);
        f();
      }
      ev.cycles.collect();
    });
  }

  void run_on_worker(const std::function<void()>& f) {
    if (!started) {
      pthread_attr_t attr;
      pthread_attr_init(&attr);
      pthread_attr_setstacksize(&attr, size_t{256} << 20);
      if (pthread_create(&thread, &attr, thread_main, this) != 0) {
        pthread_attr_destroy(&attr);
        f();  // no thread: run here (the recursion limit still applies)
        return;
      }
      pthread_attr_destroy(&attr);
      started = true;
    }
    std::unique_lock<std::mutex> lock(mu);
    job = f;
    has_job = true;
    done = false;
    cv.notify_all();
    cv.wait(lock, [&] { return done; });
  }

  ~Impl() {
    if (started) {
      {
        std::lock_guard<std::mutex> lock(mu);
        stop = true;
        cv.notify_all();
      }
      pthread_join(thread, nullptr);
    }
  }

  // profiled: under a profiler with profile { }'s defaults (the REPL's :prof).
  enum class EchoForm { value, type };
  EvalResult eval_text(const std::string& source, const std::string& name, bool profiled = false,
                       EchoForm form = EchoForm::value) {
    EvalResult result;
    ev.interrupt_flag.store(false);
    run([&] {
      try {
        auto file = std::make_shared<lang::SourceFile>();
        file->name = name;
        file->text = source;
        auto parsed = lang::parse(file);
        if (!parsed.program) {
          result.ok = false;
          result.error = EvalError{EvalError::Kind::syntax, parsed.error.value_or("syntax error")};
          return;
        }
        std::shared_ptr<lang::Program> prog(std::move(parsed.program));
        if (form == EchoForm::type && (prog->stmts.size() != 1 || prog->stmts[0]->kind != lang::StmtKind::Expr)) {
          result.ok = false;
          result.error = EvalError{EvalError::Kind::syntax,
                                   "error: usage: :type expr (one expression, got " +
                                       std::to_string(prog->stmts.size()) + " statement" +
                                       (prog->stmts.size() == 1 ? " that is not an expression" : "s") + ")"};
          return;
        }
        if (name.empty() || name[0] != '<') ev.main_module->path = name;
        bool has_echo = false;
        Value last;
        auto run_it = [&] { last = ev.run_program(prog, ev.main_module, true, &has_echo); };
        if (profiled) {
          interp::run_profiled(ev, interp::ProfileOptions{}, run_it);
        } else {
          run_it();
        }
        if (form == EchoForm::type) {
          result.echo = interp::repr(interp::make_str(interp::type_name(last)));
          last_program = prog;
          return;
        }
        if (has_echo && !last.is_none()) result.echo = interp::repr(last);
        if (has_echo && !last.is_none() && ev.display) result.images = interp::repr_images(ev, last);
        last_program = prog;
      } catch (LangError& e) {
        result.ok = false;
        result.error = EvalError{EvalError::Kind::runtime, e.formatted(), e.interrupted && !e.timed_out, e.timed_out};
      } catch (std::exception& e) {
        result.ok = false;
        result.error = EvalError{EvalError::Kind::runtime, std::string("error: ") + e.what()};
      }
    });
    report_late_interrupt(result);
    return result;
  }

  // An interrupt that came after the last statement's check (while the cycles were
  // collected, say) is this eval's, not the next one's: Note [Interrupts].
  void report_late_interrupt(EvalResult& result) {
    bool late = ev.interrupt_flag.exchange(false);
    if (late && ev.timed_out.exchange(false)) return;  // a test's time limit, reached as the run ended: it ended in time
    if (!late || !result.ok) return;  // an error (the interrupt's own or another) already ends the run
    result.ok = false;
    result.echo.clear();
    result.error = EvalError{EvalError::Kind::runtime, "error: interrupted", true};
  }

  std::shared_ptr<lang::Program> last_program;

  // run_tests' parts.
  TestResult run_test_block(const lang::TestStmt& t, interp::TestWatchdog& watchdog, bool* interrupted);
  std::optional<TestResult> run_test_file_top(const std::string& path, interp::TestWatchdog& watchdog,
                                              bool* interrupted);
};

Interpreter::Interpreter() : impl_(std::make_unique<Impl>()) {}
Interpreter::~Interpreter() = default;

EvalResult Interpreter::eval(const std::string& source, const std::string& name) {
  return impl_->eval_text(source, name);
}

EvalResult Interpreter::eval_profiled(const std::string& source, const std::string& name) {
  return impl_->eval_text(source, name, true);
}

EvalResult Interpreter::eval_type(const std::string& source, const std::string& name) {
  return impl_->eval_text(source, name, false, Impl::EchoForm::type);
}

EvalResult Interpreter::eval_file(const std::string& path) {
  std::string text;
  if (std::string problem = read_program_file(path, &text); !problem.empty()) {
    EvalResult r;
    r.ok = false;
    r.error = EvalError{EvalError::Kind::runtime, "error: " + problem};
    return r;
  }
  EvalResult r = impl_->eval_text(text, path);
  r.echo.clear();
  return r;
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Counts `result` into `report` (its failures prefixed with the test's name) and
// tells options.on_result.
void record_result(TestReport& report, const TestResult& result, const TestOptions& options) {
  (result.passed ? report.passed : report.failed) += 1;
  std::string prefix = result.name.empty() ? "" : "test \"" + result.name + "\": ";
  for (const auto& f : result.failures) report.failures.push_back(prefix + f);
  if (options.on_result) options.on_result(result);
}

}  // namespace

// Runs one test block on the worker with the watchdog armed; a Ctrl-C ends the
// file (*interrupted), a time limit or any other error only the block.
TestResult Interpreter::Impl::run_test_block(const lang::TestStmt& t, interp::TestWatchdog& watchdog,
                                             bool* interrupted) {
  TestResult result;
  result.name = t.name;
  auto start = std::chrono::steady_clock::now();
  run([&] {
    ev.tests.active = true;
    ev.tests.failures.clear();
    ev.tests.failed_in_block = 0;
    watchdog.arm();
    try {
      ev.run_test_block(t, ev.main_module);
    } catch (LangError& e) {
      ev.tests.failures.push_back(e.formatted());
      *interrupted = e.interrupted && !e.timed_out;
      result.timed_out = e.timed_out;
    } catch (std::exception& e) {
      ev.tests.failures.push_back(std::string("error: ") + e.what());
    }
    watchdog.disarm();
    result.failures = std::move(ev.tests.failures);
    ev.tests.failures.clear();
    ev.tests.active = false;
  });
  if (!*interrupted && ev.interrupt_flag.exchange(false)) {  // a Ctrl-C after the block's last check
    *interrupted = true;
    result.failures.push_back("error: interrupted");
  }
  result.passed = result.failures.empty();
  result.seconds = seconds_since(start);
  return result;
}

// The file's top level, under the time limit; a failed result when it did not run to its end.
std::optional<TestResult> Interpreter::Impl::run_test_file_top(const std::string& path, interp::TestWatchdog& watchdog,
                                                               bool* interrupted) {
  std::string text;
  TestResult result;
  auto start = std::chrono::steady_clock::now();
  if (std::string problem = read_program_file(path, &text); !problem.empty()) {
    result.failures.push_back("error: " + problem);
  } else {
    watchdog.arm();
    EvalResult top = eval_text(text, path);
    watchdog.disarm();
    if (top.ok) return std::nullopt;
    *interrupted = top.error->interrupted;
    result.timed_out = top.error->timed_out;
    result.failures.push_back(top.error->message);
  }
  result.passed = false;
  result.seconds = seconds_since(start);
  return result;
}

TestReport Interpreter::run_tests(const std::string& path, const TestOptions& options) {
  TestReport report;
  bool interrupted = false;
  interp::TestWatchdog watchdog(impl_->ev, options.timeout_s);
  if (auto failed_top = impl_->run_test_file_top(path, watchdog, &interrupted)) {
    record_result(report, *failed_top, options);
    report.interrupted = interrupted;
    report.stopped = options.stop_at_first_failure;
    return report;
  }
  for (auto& s : impl_->last_program->stmts) {
    if (s->kind != lang::StmtKind::Test) continue;
    auto& t = static_cast<const lang::TestStmt&>(*s);
    if (options.select && !options.select(t.name)) {
      ++report.deselected;
      continue;
    }
    TestResult result = impl_->run_test_block(t, watchdog, &interrupted);
    record_result(report, result, options);
    report.interrupted = interrupted;
    report.stopped = !result.passed && options.stop_at_first_failure;
    if (interrupted || report.stopped) break;
  }
  return report;
}

TestCollection collect_tests(const std::string& path) {
  TestCollection out;
  auto file = std::make_shared<lang::SourceFile>();
  file->name = path;
  if (std::string problem = read_program_file(path, &file->text); !problem.empty()) {
    out.error = "error: " + problem;
    return out;
  }
  auto parsed = lang::parse(file);
  if (!parsed.program) {
    out.error = parsed.error.value_or("syntax error");
    return out;
  }
  for (auto& s : parsed.program->stmts)
    if (s->kind == lang::StmtKind::Test) out.names.push_back(static_cast<const lang::TestStmt&>(*s).name);
  return out;
}

bool Interpreter::has(const std::string& name) const { return impl_->ev.main_module->get(name) != nullptr; }

std::optional<Tensor> Interpreter::tensor(const std::string& name) const {
  const Value* v = impl_->ev.main_module->get(name);
  if (!v || v->tag != interp::Tag::Tensor) return std::nullopt;
  return v->t;
}

std::optional<double> Interpreter::number(const std::string& name) const {
  const Value* v = impl_->ev.main_module->get(name);
  if (!v || !v->is_num()) return std::nullopt;
  return v->as_double();
}

std::optional<std::string> Interpreter::str(const std::string& name) const {
  const Value* v = impl_->ev.main_module->get(name);
  if (!v) return std::nullopt;
  return interp::str(*v);
}

std::vector<std::string> Interpreter::global_names() const {
  // The user's globals and every builtin (completion offers both; the REPL's :vars
  // hides the names that existed at start-up).
  std::vector<std::string> names = impl_->ev.member_names(Value::object(interp::Tag::Module, impl_->ev.main_module));
  for (const auto& [name, value] : impl_->ev.builtins) names.push_back(name);
  return names;
}

HelpResult Interpreter::help(const std::string& name) {
  HelpResult result;
  impl_->run([&] {
    try {
      result.text = interp::help_for_name(impl_->ev, name);
    } catch (LangError& e) {
      result.ok = false;
      result.error = e.message;
    } catch (std::exception& e) {
      result.ok = false;
      result.error = e.what();
    }
  });
  return result;
}

std::vector<std::string> Interpreter::keyword_names(const std::string& callee) {
  std::vector<std::string> out;
  impl_->run([&] {
    try {
      Value v = impl_->ev.eval_source(callee, "<completion>", impl_->ev.main_module, true);
      out = interp::keyword_names(impl_->ev, v);
    } catch (std::exception&) {
    }
  });
  return out;
}

std::vector<std::string> Interpreter::member_names(const std::string& expr) {
  std::vector<std::string> out;
  impl_->run([&] {
    try {
      Value v = impl_->ev.eval_source(expr, "<completion>", impl_->ev.main_module, true);
      out = impl_->ev.member_names(v);
    } catch (std::exception&) {
    }
  });
  return out;
}

GraphResult Interpreter::graph(const GraphRequest& request) {
  GraphResult result;
  auto failed = [&](std::string message) {
    result = GraphResult();
    result.ok = false;
    result.error = EvalError{EvalError::Kind::runtime, std::move(message)};
  };
  impl_->ev.interrupt_flag.store(false);
  impl_->run([&] {
    try {
      result = interp::run_graph_request(impl_->ev, request);
    } catch (LangError& e) {
      failed(e.formatted());
    } catch (std::exception& e) {
      // A syntax error in the entry comes formatted already ("<graph>:1:3: error: ...").
      std::string what = e.what();
      failed(what.rfind(request.source_name + ":", 0) == 0 ? what : "error: " + what);
    }
  });
  return result;
}

void Interpreter::set_output(std::function<void(const std::string&)> sink) { impl_->ev.output = std::move(sink); }

void Interpreter::set_warning_output(std::function<void(const std::string&)> sink) {
  impl_->ev.warning_output = std::move(sink);
}

void Interpreter::set_display(std::function<void(const DisplayData&)> sink) { impl_->ev.display = std::move(sink); }

void Interpreter::set_limits(const Limits& limits) {
  impl_->limits = limits;
  impl_->ev.set_max_steps(limits.max_steps);
  impl_->ev.sandbox = limits.sandbox;
}

const Limits& Interpreter::limits() const { return impl_->limits; }

void Interpreter::set_full_trace(bool on) { impl_->ev.full_trace = on; }

bool Interpreter::full_trace() const { return impl_->ev.full_trace; }

std::optional<EvalError> Interpreter::sandbox_refusal(const std::string& what) const {
  try {
    impl_->ev.check_sandbox(what.c_str());
  } catch (const LangError& e) {
    return EvalError{EvalError::Kind::runtime, e.formatted()};
  }
  return std::nullopt;
}

void Interpreter::reset() {
  impl_->run([&] { impl_->ev.reset_session(); });
}

void Interpreter::interrupt() { impl_->ev.interrupt_flag.store(true, std::memory_order_relaxed); }

void Interpreter::set_args(const std::vector<std::string>& args) {
  impl_->ev.args = args;
  std::vector<Value> items;
  for (auto& a : args) items.push_back(interp::make_str(a));
  impl_->ev.main_module->set("args", interp::make_list(std::move(items)));
}

}  // namespace nabla
