// compile()'s keywords (interp/builtins/graph_module.hpp: CompileOptions).
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/graph_module.hpp"

namespace nabla::interp {

namespace {

// The required parameters of fn's call (a function's, a model's forward), or none
// known (another callable).
std::vector<std::string> required_params(const Value& fn, std::string* name) {
  const lang::FnDecl* decl = nullptr;
  if (fn.tag == Tag::Func) {
    decl = fn.as<FuncObj>()->decl.get();
    *name = fn.as<FuncObj>()->qualname;
  } else if (fn.tag == Tag::Instance) {
    const auto* inst = fn.as<InstanceObj>();
    auto it = inst->cls->info->methods.find("forward");
    if (it != inst->cls->info->methods.end()) decl = it->second.get();
    *name = inst->cls->decl->name + ".forward";
  }
  std::vector<std::string> out;
  if (decl)
    for (const lang::Param& p : decl->params)
      if (!p.default_value && !p.variadic) out.push_back(p.name);
  return out;
}

// How a choice's value shows in a message: a str quoted, anything else by its type
// (mode=5 showed as "5", as if the str had been given).
std::string shown_choice(const Value& v) {
  if (v.tag != Tag::Str) return type_name(v);
  return std::string(1, '"').append(str(v)).append(1, '"');  // not "\"" + s: GCC 12's false -Wrestrict
}

CaptureMode capture_mode(const Value& v) {
  std::string mode = v.tag == Tag::Str ? str(v) : std::string();
  if (mode == "auto") return CaptureMode::automatic;
  if (mode == "trace") return CaptureMode::trace;
  if (mode == "script") return CaptureMode::script;
  fail("compile(): mode must be \"auto\" (trace, and lower an if or while on a tensor when the trace meets one), "
       "\"trace\" (run the function, unrolling its loops) or \"script\" (lower its if, for and while on tensors to "
       "graph nodes), got " + shown_choice(v));
}

graph::LoopSaving loop_saving(const Value& v) {
  std::string choice = v.tag == Tag::Str ? str(v) : std::string();
  if (choice == "auto") return graph::LoopSaving::costly;
  if (choice == "none") return graph::LoopSaving::every;
  if (choice == "full") return graph::LoopSaving::carries;
  fail("compile(): loop_checkpoint must be \"auto\" (a loop saves the results of costly ops per step for its "
       "backward, which recomputes cheap ones), \"none\" (it saves every value its backward reads) or \"full\" "
       "(it saves only the carry entering each step; the backward recomputes the step), got " + shown_choice(v));
}

// optimizer= and scaler=: an instance of a model (stdlib/_optim_graph.dsl checks which
// optimizers step inside a graph when it captures).
Value instance_of(const Value& v, const char* keyword, const char* expected) {
  bool fits = v.tag == Tag::Instance;
  if (fits && std::string(keyword) == "scaler") fits = v.as<InstanceObj>()->cls->decl->name == "GradScaler";
  if (!fits) fail(std::string("compile(): ") + keyword + " must be " + expected + ", got " + repr(v));
  return v;
}

}  // namespace

// torch.compile(f) takes no inputs (it compiles at the first call); nabla's records one
// call, and the capture's own error ("f() missing required argument 'x'") did not say
// that compile() wants examples.
void check_examples_given(const Value& fn, size_t given) {
  if (given > 0) return;
  std::string name;
  std::vector<std::string> required = required_params(fn, &name);
  if (required.empty()) return;
  std::string list;
  for (const std::string& r : required) list += (list.empty() ? "" : ", ") + r;
  fail("compile(): no example inputs: compile records one call of " + name + "(" + list +
       "), so give an example for each argument after it, as compile(" + (fn.tag == Tag::Func ? name : "model") +
       ", " + list + ")");
}

CompileOptions compile_options(const std::vector<std::pair<std::string, Value>>& keywords) {
  CompileOptions o;
  for (const auto& [k, v] : keywords) {
    if (k == "train") o.train = as_bool(v, "compile(): train");
    else if (k == "cuda_graph") o.cuda_graph = as_bool(v, "compile(): cuda_graph");
    else if (k == "mode") o.mode = capture_mode(v);
    else if (k == "loop_checkpoint") o.loop_saving = loop_saving(v);
    else if (k == "optimizer") o.optimizer = instance_of(v, "optimizer", "an optimizer (optim.Adam, optim.SGD, ...)");
    else if (k == "scaler") o.scaler = instance_of(v, "scaler", "an optim.GradScaler");
    else fail_unexpected_keyword("compile", k, {"train", "mode", "cuda_graph", "loop_checkpoint", "optimizer", "scaler"});
  }
  if (!o.optimizer.is_none() && !o.train)
    fail("compile(): optimizer= steps the optimizer inside a training step; add train=true (the function's first "
         "result is the loss): compile(loss_fn, x, y, train=true, optimizer=opt)");
  if (!o.scaler.is_none() && o.optimizer.is_none())
    fail("compile(): scaler= unscales the gradients for the optimizer's step inside the graph; give optimizer= too");
  return o;
}

}  // namespace nabla::interp
