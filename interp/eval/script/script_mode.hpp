// compile(f, x, mode="script"): while the function runs under a capture, the
// evaluator lowers the language's own control flow on tensors to the graph's cond,
// while_loop and scan nodes (graph/control_flow.hpp) instead of tracing it
// (interp/eval/script/). This is the state it shares with the
// compile builtin.
#pragma once
#include <string>
#include <vector>

#include "autograd/trace.hpp"
#include "graph/capture.hpp"
#include "graph/control_flow_grad.hpp"
#include "interp/eval/evaluator.hpp"

namespace nabla::lang {
struct Block;
struct Name;
struct Stmt;
}

namespace nabla::interp {

namespace script {
struct RowWrites;
}

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
  // Whether the region captured now is one the example's own run takes (every
  // enclosing lowered side taken): a failing side there is eager's error, elsewhere a
  // raise node (Note [A failing side of a lowered if], interp/eval/script/raising.cpp).
  bool live = true;
  // The errors of sides that fail, by the id keep_raised gave, until the raise node of
  // each holds its own copy (interp/eval/script/raising.cpp): freed with the capture.
  std::vector<LangError> raised;
  // If and while conditions under evaluation: inside one, item(), float(), int() and
  // bool() of a traced tensor stay tensors (Note [Numbers read for a condition]).
  int conditions = 0;
  FunctionReturns returns;  // saved and replaced by each call's body
  // The variables some lowered statement writes in place (assigned_in finds them): a
  // cond's sides work on copies of these (Note [Variables written in place inside a
  // lowered region], interp/eval/script/regions.cpp).
  std::vector<const lang::Name*> written_in_place;
  // Note [Rows written at a step's index] (interp/eval/script/row_writes.cpp): the
  // statements a scan's step keeps the values of instead of writing them, and whether
  // the scan is being lowered again without them.
  script::RowWrites* row_writes = nullptr;
  bool no_row_writes = false;
  // Note [Tensors a lowered region's calls write] (graph/capture_writes.cpp): the
  // tensors a loop's body wrote through the layers it calls, found by lowering it once,
  // carried as fields when it is lowered again (per body block).
  struct CalledWrite {
    const lang::Block* body;
    Tensor tensor;
    std::string origin;  // the call that wrote it
  };
  std::vector<CalledWrite> called_writes;
};

// The evaluator's hook for `target = v` (an index target): true when the running scan
// step keeps v as a row of its stacked output instead (Note [Rows written at a step's
// index]).
bool take_row_write(ScriptMode& s, const lang::Expr& target, const Value& v);

// Counts a condition under evaluation for its lifetime (Note [Numbers read for a
// condition]); nothing outside script mode.
class ConditionScope {
 public:
  explicit ConditionScope(ScriptMode* mode) : mode_(mode) {
    if (mode_) ++mode_->conditions;
  }
  ~ConditionScope() {
    if (mode_) --mode_->conditions;
  }
  ConditionScope(const ConditionScope&) = delete;
  ConditionScope& operator=(const ConditionScope&) = delete;

 private:
  ScriptMode* mode_;
};

// Note [Numbers read for a condition]
// `if loss.item() < tol`, `while float(err) > 1e-3`, `if bool(done)`: a number read
// from a tensor the function computed, only to decide a branch, is the same as a
// branch on the tensor. Inside an if or while condition in script mode (and in
// compile's automatic lowering, which captures again in script mode when a trace met
// such a read) item(), float(), int() and bool() of a traced one-element tensor give a
// 0-dim tensor of the number's kind (f64, i64 or bool; int() truncates, bool() is
// != 0) instead of reading it, so the condition is a traced tensor and lowers to a
// cond or while_loop. Anywhere else (a variable, a shape, a range() bound, a string)
// the read is a capture problem that says the number would be fixed, at its line.
// The number of x as a tensor when a condition reads it in script mode, or an undefined
// tensor when x must be read (`kind` is "item()", "float()", "int()" or "bool()").
Tensor condition_number(Evaluator& ev, const Tensor& x, const char* kind);

// Note [Gradient hooks inside a lowered region]
// A gradient hook (x.register_hook(f), or the one a module's backward hook puts on its
// output) registered while a lowered loop's step or a cond's side is captured sits on
// a tensor of that one run: the region's gradient is the VJP of its graph, which never
// calls it, so a training step's gradients went without it (a backward hook doubling a
// layer's gradient in an RNN's step did nothing). So it is a capture problem at its
// line: a for loop is then unrolled, as for any problem in its body, which runs the
// hooks per step as eager does; in a while or an if it is the capture's error.
inline void note_gradient_hook(const ScriptMode* s) {
  if (s && s->open_regions > 0)
    notify_untraced_effect("a gradient hook registered inside a lowered loop or branch (register_hook, a module's "
                           "backward hook) runs in eager's backward");
}

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
