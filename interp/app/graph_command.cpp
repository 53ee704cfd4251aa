// Graph mode for the command line (`nabla graph FILE --entry NAME`) and the REPL
// (`:graph expr`, `:passes`): Interpreter::graph finds what to compile from a
// GraphRequest (interp/interpreter.hpp says how), then captures, optimizes, prints and
// renders it with the very functions behind compile(), gm.optimize(), gm.ir() and
// gm.render() (interp/builtins/graph_module.hpp), so the three interfaces cannot drift apart.
#include <algorithm>
#include <cctype>

#include "graph/pass_manager.hpp"
#include "interp/builtins/graph_module.hpp"
#include "lang/parser.hpp"
#include "tensor/random.hpp"

namespace nabla {

// ---- --inputs specs -----------------------------------------------------------------

namespace {

// A cursor over an --inputs spec; errors quote the spec and where reading stopped.
struct SpecReader {
  const std::string& text;
  size_t pos = 0;

  [[noreturn]] void fail(const std::string& what) const {
    std::string rest = "the end";
    if (pos < text.size()) rest = std::string(1, '\'').append(text, pos).append(1, '\'');
    throw Error("bad --inputs '" + text + "': " + what + " at " + rest + " (inputs read dtype[sizes],...: f32[64,784],i64[64])");
  }
  void skip_space() {
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
  }
  bool eat(char c) {
    skip_space();
    if (pos < text.size() && text[pos] == c) return ++pos, true;
    return false;
  }
  // item := dtype '[' [size (',' size)*] ']'
  InputSpec item() {
    skip_space();
    size_t start = pos;
    while (pos < text.size() && std::isalnum(static_cast<unsigned char>(text[pos]))) ++pos;
    InputSpec spec;
    std::string name = text.substr(start, pos - start);
    if (name.empty()) fail("expected a dtype");
    if (!dtype_from_name(name, &spec.dtype))
      throw Error("bad --inputs '" + text + "': unknown dtype '" + name + "' (f32, f64, f16, bf16, i64, i32, i16, i8, u8 or bool)");
    if (!eat('[')) fail("expected '['");
    if (eat(']')) return spec;
    do spec.shape.push_back(size());
    while (eat(','));
    if (!eat(']')) fail("expected ',' or ']'");
    return spec;
  }
  int64_t size() {
    skip_space();
    size_t start = pos;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) ++pos;
    if (pos == start) fail("expected a size (a whole number)");
    // more digits than any real size: named as such, at the number (it read "expected a
    // size" at the ']' after it)
    if (pos - start > 12) {
      pos = start;
      fail("a size has at most 12 digits");
    }
    return std::stoll(text.substr(start, pos - start));
  }
};

}  // namespace

// spec := item (',' item)*
std::vector<InputSpec> parse_input_spec(const std::string& spec) {
  SpecReader r{spec};
  std::vector<InputSpec> items;
  do items.push_back(r.item());
  while (r.eat(','));
  r.skip_space();
  if (r.pos != spec.size()) r.fail("expected ',' between inputs");
  return items;
}

std::vector<Tensor> example_inputs(const std::vector<InputSpec>& specs) {
  std::vector<Tensor> out;
  for (const InputSpec& s : specs) {
    if (is_floating(s.dtype)) out.push_back(randn(s.shape, s.dtype));
    else if (s.dtype == DType::b8) out.push_back(randint(0, 2, s.shape, s.dtype));
    else out.push_back(randint(0, 10, s.shape, s.dtype));
  }
  return out;
}

std::string describe_passes() {
  std::string s = "pass           needs          what it does\n";
  char buf[96];
  for (const graph::PassInfo& p : graph::all_passes()) {
    std::string needs;
    for (const std::string& r : p.requires_) needs += (needs.empty() ? "" : ",") + r;
    std::snprintf(buf, sizeof buf, "%-14s %-14s ", p.name.c_str(), needs.empty() ? "-" : needs.c_str());
    s += buf + p.summary + "\n";
  }
  std::string pipeline;
  for (const std::string& n : graph::default_pipeline()) pipeline += (pipeline.empty() ? "" : ",") + n;
  return s + "default pipeline: " + pipeline + "\n";
}

namespace interp {

namespace {

// The text of `span` within `text` (spans count lines and columns from 1; the end is
// exclusive), preceded by the newlines and spaces that put it where it was, so that
// an error in it points at the column the user typed.
std::string span_text_in_place(const std::string& text, const lang::SourceSpan& span) {
  auto offset = [&](uint32_t line, uint32_t col) {
    size_t pos = 0;
    for (uint32_t l = 1; l < line && pos != std::string::npos; ++l) pos = text.find('\n', pos) + 1;
    return std::min(text.size(), pos + col - 1);
  };
  size_t a = offset(span.line, span.col), b = offset(span.end_line, span.end_col);
  return std::string(span.line - 1, '\n') + std::string(span.col - 1, ' ') + text.substr(a, b - a);
}

bool compilable(const Value& v) { return v.tag == Tag::Func || v.tag == Tag::Instance; }

// What the request names: the value, and the example arguments when it was a call.
struct Entry {
  Value value;
  bool called = false;
  std::vector<Value> call_args;
  std::string name;  // the entry when it is a plain name ("" otherwise)
  lang::SourceSpan site;  // the entry's expression: error traces end there
};

Entry resolve_entry(Evaluator& ev, const GraphRequest& req) {
  auto file = std::make_shared<lang::SourceFile>(lang::SourceFile{req.source_name, req.entry});
  lang::ParseResult parsed = lang::parse(file);
  if (!parsed.program) throw Error(parsed.error.value_or("syntax error"));
  auto& stmts = parsed.program->stmts;
  if (stmts.size() != 1 || stmts[0]->kind != lang::StmtKind::Expr)
    throw Error("graph: expected an expression (a name, a call f(x, y) or a graph module), got '" + req.entry + "'");
  const lang::Expr& e = *static_cast<const lang::ExprStmt&>(*stmts[0]).expr;
  Entry entry;
  entry.site = e.span;
  if (e.kind == lang::ExprKind::Name) entry.name = static_cast<const lang::Name&>(e).id;
  if (e.kind == lang::ExprKind::Call) {
    const auto& call = static_cast<const lang::Call&>(e);
    Value callee = ev.eval_source(span_text_in_place(req.entry, call.callee->span), req.source_name, ev.main_module, true);
    if (compilable(callee)) {
      for (const lang::Arg& a : call.args) {
        if (!a.name.empty() || a.splat)
          throw Error("graph: the example inputs of '" + req.entry + "' must be positional arguments");
        entry.call_args.push_back(
            ev.eval_source(span_text_in_place(req.entry, a.value->span), req.source_name, ev.main_module, true));
      }
      entry.value = callee;
      entry.called = true;
      return entry;
    }
  }
  entry.value = ev.eval_source(req.entry, req.source_name, ev.main_module, true);
  return entry;
}

// How many arguments fn needs (-1: not known).
int required_args(const Value& fn) {
  std::shared_ptr<lang::FnDecl> decl;
  if (fn.tag == Tag::Func) decl = fn.as<FuncObj>()->decl;
  if (fn.tag == Tag::Instance)
    for (auto& m : fn.as<InstanceObj>()->cls->decl->methods)
      if (m->name == "forward") decl = m;
  if (!decl) return -1;
  int n = 0;
  for (const lang::Param& p : decl->params) n += !p.default_value && !p.variadic;
  return n;
}

// The example inputs for a model or function that was named, not called.
std::vector<Value> examples_for(Evaluator& ev, const Entry& entry, const GraphRequest& req) {
  std::vector<Value> out;
  if (!req.inputs.empty()) {
    for (Tensor& t : example_inputs(parse_input_spec(req.inputs))) out.push_back(Value::tensor(t));
    return out;
  }
  const Value* given = entry.name.empty() ? nullptr : ev.main_module->get(entry.name + "_inputs");
  if (given && (given->tag == Tag::List || given->tag == Tag::Tuple)) return given->as<ListObj>()->items;
  if (given && given->tag == Tag::Tensor) return {*given};
  if (given)
    throw Error("graph: " + entry.name + "_inputs should be a list or tuple of example inputs, got " +
                type_name(*given));
  int needed = required_args(entry.value);
  // A call of an expression that is not a (dotted) name needs its brackets: the hint
  // for `fn(x) = x` was `fn(x) = x(x)`, which calls x.
  bool dotted = std::all_of(req.entry.begin(), req.entry.end(),
                            [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; });
  std::string call = dotted ? req.entry + "(x)" : "(" + req.entry + ")(x)";
  if (needed != 0)
    throw Error("graph: '" + req.entry + "' needs example inputs: call it with them, " + call + ", define " +
                (entry.name.empty() ? std::string("NAME") : entry.name) +
                "_inputs (a list of tensors), or give nabla graph --inputs (such as f32[64,784])");
  return out;
}

// --entry Gate, a model class: a model of it when its constructor needs no arguments
// (what the user meant), else the error says how to make one.
Value model_of_class(Evaluator& ev, const Value& cls, const GraphRequest& req) {
  const lang::ModelDecl& decl = *cls.as<ModelClassObj>()->decl;
  std::string needed;
  for (const lang::Param& p : decl.params)
    if (!p.default_value && !p.variadic) needed += (needed.empty() ? "" : ", ") + p.name;
  if (!needed.empty())
    throw Error("graph: '" + req.entry + "' is a model class, not a model, and its constructor needs (" + needed +
                "): construct one in --entry, such as --entry '" + decl.name + "(...)', or name a model that the file makes (let net = " +
                decl.name + "(...))");
  CallArgs none;
  return ev.call_value(cls, none);
}

std::shared_ptr<GraphModule> module_for(Evaluator& ev, const Entry& entry, const GraphRequest& req) {
  Evaluator::CallSiteScope site(ev, &entry.site);
  if (entry.called) {
    if (!req.inputs.empty()) throw Error("graph: '" + req.entry + "' is a call, its arguments are the inputs; drop --inputs");
    return compile_graph(ev, entry.value, entry.call_args, CompileOptions{.train = req.train});
  }
  if (auto gm = graph_module_of(entry.value)) {
    if (!req.inputs.empty() || req.train)
      throw Error("graph: '" + req.entry + "' is already a graph module; --inputs and --train apply to a model or a function");
    return gm;
  }
  if (entry.value.tag == Tag::ModelClass) {
    Entry made = entry;
    made.value = model_of_class(ev, entry.value, req);
    return compile_graph(ev, made.value, examples_for(ev, made, req), CompileOptions{.train = req.train});
  }
  if (!compilable(entry.value))
    throw Error("graph: '" + req.entry + "' is not a model, a function or a graph module (its type is " +
                type_name(entry.value) + ")");
  return compile_graph(ev, entry.value, examples_for(ev, entry, req), CompileOptions{.train = req.train});
}

// --out m.onnx: an ONNX model instead of a drawing.
bool writes_onnx(const std::string& out) { return out.size() > 5 && out.compare(out.size() - 5, 5, ".onnx") == 0; }

}  // namespace

GraphResult run_graph_request(Evaluator& ev, const GraphRequest& req) {
  if (!req.before_after.empty() && req.out.empty()) throw Error("graph: before_after needs an output path");
  Entry entry = resolve_entry(ev, req);
  std::shared_ptr<GraphModule> gm = module_for(ev, entry, req);
  bool given_module = !entry.called && graph_module_of(entry.value);
  if (!req.passes.empty() && (req.reoptimize || !given_module)) optimize_graph(*gm, req.passes, req.explain);
  GraphResult r;
  r.heading = graph_heading(*gm);
  r.report = graph_pass_report(*gm);
  r.ir = graph_ir(*gm, false);
  if (req.explain) r.explain = explain_graph(*gm);
  if (req.cost) r.cost = graph_cost_table(*gm);
  if (writes_onnx(req.out)) {
    if (!req.before_after.empty()) throw Error("graph: before_after draws a drawing; --out " + req.out + " is an ONNX model");
    export_graph_onnx(*gm, req.out);
  } else if (!req.out.empty()) {
    render_graph(*gm, req.out, req.before_after);
  }
  return r;
}

}  // namespace interp

}  // namespace nabla
