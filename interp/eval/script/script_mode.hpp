// compile(f, x, mode="script"): while the function runs under a capture, the
// evaluator lowers the language's own control flow on tensors to the graph's cond,
// while_loop and scan nodes (graph/control_flow.hpp) instead of tracing it
// (interp/eval/script/). This is the state it shares with the
// compile builtin.
#pragma once
#include <string>
#include <vector>

#include "graph/capture.hpp"
#include "graph/control_flow_grad.hpp"
#include "interp/eval/evaluator.hpp"

namespace nabla::lang {
struct Name;
struct Stmt;
}

namespace nabla::interp {

// The function whose body script mode is running (Note [Returns inside a lowered loop],
// interp/eval/script/exits.cpp): its hidden result variable and returned flag (null
// when it has none), and how many of its loop steps are under way.
struct FunctionReturns {
  const lang::Name* result = nullptr;
  const lang::Name* returned = nullptr;
  int steps = 0;
  const lang::Stmt* last_return = nullptr;  // the return statement run last, where a refusal points
};

struct ScriptMode {
  graph::Capture* capture = nullptr;  // the innermost capture: the function's, or a region's
  // What each lowered statement became, for gm.explain():
  // "gate.dsl:4:3: if on a tensor -> cond (outputs: y)".
  std::vector<std::string> notes;
  // compile(train=true): lowered nodes of the function's own capture keep what their
  // gradient needs (graph::CarriesFor::keep), else they recompute it; nodes nested in
  // a region get theirs when the region's gradient is traced.
  bool train = false;
  // compile(loop_checkpoint=): what a lowered loop saves of each step for its backward.
  graph::LoopSaving loop_saving = graph::LoopSaving::costly;
  int open_regions = 0;  // region captures under way (0: nodes join the function's capture)
  FunctionReturns returns;  // saved and replaced by each call's body
};

// Sets ev.script for its lifetime.
class ScriptScope {
 public:
  ScriptScope(Evaluator& ev, ScriptMode* mode) : ev_(ev), saved_(ev.script) { ev.script = mode; }
  ~ScriptScope() { ev_.script = saved_; }
  ScriptScope(const ScriptScope&) = delete;
  ScriptScope& operator=(const ScriptScope&) = delete;

 private:
  Evaluator& ev_;
  ScriptMode* saved_;
};

}  // namespace nabla::interp
