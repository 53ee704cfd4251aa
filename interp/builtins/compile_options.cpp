// compile()'s keywords (interp/builtins/graph_module.hpp: CompileOptions).
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/graph_module.hpp"

namespace nabla::interp {

namespace {

CaptureMode capture_mode(const Value& v) {
  std::string mode = str(v);
  if (mode == "auto") return CaptureMode::automatic;
  if (mode == "trace") return CaptureMode::trace;
  if (mode == "script") return CaptureMode::script;
  fail("compile(): mode must be \"auto\" (trace, and lower an if or while on a tensor when the trace meets one), "
       "\"trace\" (run the function, unrolling its loops) or \"script\" (lower its if, for and while on tensors to "
       "graph nodes), got \"" + mode + "\"");
}

graph::LoopSaving loop_saving(const Value& v) {
  std::string choice = str(v);
  if (choice == "auto") return graph::LoopSaving::costly;
  if (choice == "none") return graph::LoopSaving::every;
  if (choice == "full") return graph::LoopSaving::carries;
  fail("compile(): loop_checkpoint must be \"auto\" (a loop saves the results of costly ops per step for its "
       "backward, which recomputes cheap ones), \"none\" (it saves every value its backward reads) or \"full\" "
       "(it saves only the carry entering each step; the backward recomputes the step), got \"" + choice + "\"");
}

}  // namespace

CompileOptions compile_options(const std::vector<std::pair<std::string, Value>>& keywords) {
  CompileOptions o;
  for (const auto& [k, v] : keywords) {
    if (k == "train") o.train = as_bool(v, "compile(): train");
    else if (k == "cuda_graph") o.cuda_graph = as_bool(v, "compile(): cuda_graph");
    else if (k == "mode") o.mode = capture_mode(v);
    else if (k == "loop_checkpoint") o.loop_saving = loop_saving(v);
    else fail_unexpected_keyword("compile", k, {"train", "mode", "cuda_graph", "loop_checkpoint"});
  }
  return o;
}

}  // namespace nabla::interp
