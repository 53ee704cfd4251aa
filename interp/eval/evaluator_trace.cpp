// Where the user sees a runtime error and where an op says it came from: the call
// trace of an error and its primary location (locate), and the origin of the ops the
// standard library runs (library_origin, with the module paths of layer_calls), and
// the errors the evaluator raises (interrupts, budgets, a full stack) and locates
// (rethrow_located). The statements and expressions that call these are
// evaluator.cpp's.
//
// Note [User line]
// The standard library is code the user did not write: an error it raises (a Linear
// given the wrong number of features, an assert in a constructor, an optimizer's
// step) is about the user's call into it. So the error is shown at the innermost
// frame in the user's own code (its file:line:col, source line and caret), and the
// library frames follow in the trace marked "[library]". The ops the library runs
// likewise carry the user's call site as their origin (tensor/origin.hpp), with the
// path of the module running them when the library runs them inside a model's
// method: "fc1 (train.dsl:12:9)", "encoder.layers.0.self_attn (train.dsl:30:5)", the
// model's class name for the outermost one ("Linear (t.dsl:4:9)"). Graph IR comments,
// Graphviz labels, gm.explain()'s pass notes, the profiler's by-line table, anomaly
// messages and memory reports all read the origin, so they tell fc1 from fc2.
// Evaluator::full_trace (`--full-trace`, `:set full_trace on`) turns both off, for
// work on the library itself. Library code is a file the stdlib importer loaded
// (SourceFile::library); a local file the user imports is the user's.
#include "interp/eval/evaluator.hpp"

#include "interp/eval/evaluator_impl.hpp"
#include "interp/models/module_walk.hpp"

namespace nabla::interp {

// ---- errors -----------------------------------------------------------------------

void fail(const std::string& message) { throw LangError(message); }

std::string LangError::formatted() const {
  std::string out = located ? format_error(span, message) : "error: " + message;
  for (const auto& line : trace) out += "\n" + line;
  return out;
}

namespace {

bool in_library(const SourceSpan* s) { return s && s->file && s->file->library; }
bool in_user_code(const SourceSpan* s) { return s && s->file && !s->file->library; }

// One frame of a trace: where it is and the function it is in ("<module>" for the
// top level).
struct TraceFrame {
  const SourceSpan* where;
  std::string in;
};

std::string trace_line(const TraceFrame& f) {
  return "  at " + (f.where ? f.where->where() : std::string("<native>")) + " in " + f.in +
         (in_library(f.where) ? " [library]" : "");
}

// A trace of more than 24 frames keeps its first and last 10.
void cut_long_trace(std::vector<std::string>& lines) {
  if (lines.size() <= 24) return;
  size_t skipped = lines.size() - 20;
  std::vector<std::string> cut(lines.begin(), lines.begin() + 10);
  cut.push_back("  ... " + std::to_string(skipped) + " more calls ...");
  cut.insert(cut.end(), lines.end() - 10, lines.end());
  lines = std::move(cut);
}

}  // namespace

// The error's span and trace: the frames innermost first; the primary location is
// `span`, or, when that is library code, the innermost frame in the user's code.
void Evaluator::Impl::locate(LangError& e, const SourceSpan& span) {
  e.located = true;
  e.span = span;
  size_t n = stack.size();
  if (n == 0) return;
  std::vector<TraceFrame> frames;
  frames.push_back({&span, *stack[n - 1].name + "()"});
  for (size_t k = n - 1; k >= 1; --k) frames.push_back({stack[k].site, *stack[k - 1].name + "()"});
  frames.push_back({stack[0].site, "<module>"});
  if (in_library(&span) && !ev.full_trace)
    for (const TraceFrame& f : frames)
      if (in_user_code(f.where)) {
        e.span = *f.where;
        break;
      }
  std::vector<std::string> lines;
  for (const TraceFrame& f : frames) lines.push_back(trace_line(f));
  cut_long_trace(lines);
  e.trace = std::move(lines);
}

// A module's top level runs on a stack of its own, so an error raised while an
// import runs it (an `import nn` under --max-steps, a bad file the user imports) has
// no frame of the importer: the import statement joins the trace, as Python's import
// chain does. When the error is the library's, the user's import statement becomes
// its primary location, the library's lines staying in the trace (Note [User line]).
void Evaluator::Impl::locate_at_import(LangError& e, const SourceSpan& import_site) {
  if (!e.located) return;
  if (e.trace.empty()) e.trace.push_back(trace_line({&e.span, "<module>"}));  // raised at the module's top level
  e.trace.push_back(trace_line({&import_site, stack.empty() ? "<module>" : *stack.back().name + "()"}));
  if (!ev.full_trace && in_library(&e.span) && in_user_code(&import_site)) e.span = import_site;
}

// Pushes a call record, with the depth of the innermost call made from the user's
// code at or below it (CallRec::user_frames).
void Evaluator::Impl::push_call(const SourceSpan* site, const std::string* name) {
  size_t user_frames = in_user_code(site) ? stack.size() + 1 : stack.empty() ? 0 : stack.back().user_frames;
  stack.push_back({site, name, 0, user_frames});
}

// The origin of an op that library expression `e` runs: the innermost call made from
// the user's code, with the path of the innermost model method the library runs
// above it. Interned once per call record or layer call.
OriginId Evaluator::Impl::library_origin(const Expr& e) {
  size_t k = stack.empty() ? 0 : stack.back().user_frames;
  if (k == 0) return e.origin_id;  // no user code below (an import's top level)
  CallRec& boundary = stack[k - 1];
  bool in_layer = !layer_calls.empty() && layer_calls.back().depth >= k - 1;
  OriginId& cached = in_layer ? layer_calls.back().origin : boundary.library_origin;
  if (cached == 0) {
    std::string site = boundary.site->where();
    cached = intern_origin(in_layer ? layer_label(layer_calls.size() - 1) + " (" + site + ")" : site);
    note_origin_expression(cached, boundary.site->text());
  }
  return cached;
}

// layer_calls[k]'s module path: its name in the model whose method called it,
// after that one's path; "" for a model that is not a submodule of the caller (the
// outermost, or one passed in as an argument). Resolved from the first unknown
// caller upward, with no recursion (a method may call itself a thousand times).
const std::string& Evaluator::Impl::layer_path(size_t k) {
  size_t first = k;
  while (first > 0 && !layer_calls[first].path_known) --first;
  for (size_t j = first; j <= k; ++j) {
    LayerCall& c = layer_calls[j];
    if (c.path_known) continue;
    c.path_known = true;
    if (j == 0) continue;
    const LayerCall& caller = layer_calls[j - 1];
    if (caller.model == c.model) {
      c.path = caller.path;  // a method calling another of its model's
      continue;
    }
    std::string name = submodule_name(*caller.model, *c.model);
    if (!name.empty()) c.path = join_path(caller.path, name);
  }
  return layer_calls[k].path;
}

// The module path of layer_calls[k], or its model's class name at the outermost.
std::string Evaluator::Impl::layer_label(size_t k) {
  const std::string& path = layer_path(k);
  return path.empty() ? layer_calls[k].model->cls->decl->name : path;
}

// ---- raising and locating errors ------------------------------------------------------

void Evaluator::throw_interrupt() {
  interrupt_flag.store(false);
  bool timeout = timed_out.exchange(false);
  char limit[32];
  std::snprintf(limit, sizeof limit, "%g", timeout_s);
  LangError e(timeout ? "timed out after " + std::string(limit) + " s (nabla test --timeout)" : "interrupted");
  e.interrupted = true;
  e.timed_out = timeout;
  throw e;
}

void Evaluator::throw_step_budget() {
  fail("step budget of " + std::to_string(max_steps) + " exceeded");
}

void Evaluator::Impl::throw_stack_full() {
  fail("maximum recursion depth exceeded: the native stack is full (" + std::to_string(stack.size()) +
       " calls deep; deeply nested expressions take stack too)");
}

void Evaluator::throw_sandboxed(const char* what) {
  fail(std::string(what) + " is not available in sandbox mode (no files, sockets or sleeping)");
}

// A break or continue that reached a function or module boundary.
std::string stray_flow_message(Flow f) {
  return f == Flow::Break ? "'break' outside a loop" : "'continue' outside a loop";
}

void Evaluator::Impl::rethrow_located(const SourceSpan& span) {
  try {
    throw;
  } catch (LangError& e) {
    if (!e.located) locate(e, span);
    throw;
  } catch (Error& e) {
    LangError le(e.what());
    locate(le, span);
    throw le;
  } catch (std::bad_alloc&) {
    LangError le("out of memory");
    locate(le, span);
    throw le;
  } catch (std::exception& e) {
    LangError le(e.what());
    locate(le, span);
    throw le;
  }
}

// The truth of e's value v, an error in it located at e (an if's or a while's condition).
bool Evaluator::Impl::value_true(const Value& v, const Expr& e) {
  if (v.tag == Tag::Bool) return v.b;
  try {
    return truth_at(v, e.span);
  } catch (...) {
    rethrow_located(e.span);
  }
}

}  // namespace nabla::interp
