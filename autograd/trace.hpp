// The seam that graph capture (passes/capture.*) plugs into: while an observer is set
// on this thread, every op-table call reports itself once it has run — the forward
// ops a model runs and the ops that backward rules run alike (docs/DESIGN.md seam 4).
// Calls made inside another op's shape rule, kernel or view are not reported: the
// outer op stands for them.
#pragma once
#include <string>

#include "autograd/op_table.hpp"

namespace nabla {

class OpObserver {
 public:
  virtual ~OpObserver() = default;
  // def ran on inputs with attrs (every attribute, defaults filled) and made outputs.
  virtual void on_op(const OpDef& def, const TensorList& inputs, const Attrs& attrs, const TensorList& outputs) = 0;
  // A tensor's values were read into the host program (item(), printing, a branch on
  // a tensor): a graph cannot replay that. `what` says how ("item()").
  virtual void on_value_read(const Tensor& t, const std::string& what) {}
  // dst is about to be overwritten in place with src (broadcast) outside the op table:
  // x.copy_(y), and x.add_(y) as x.copy_(add(x, y)); optimizer steps, buffer updates.
  virtual void on_inplace(const Tensor& dst, const Tensor& src, const std::string& what) {}
  // An op of the table is about to write into its input t (OpDef::updated_inputs: a
  // training batch_norm's running statistics, an optimizer step's parameter). Its
  // on_op follows once it has run.
  virtual void before_write(const Tensor& t) {}
  // A native builtin changed state that no op of the table writes: backward() filling
  // .grad, an assignment to .grad, a fused optimizer step updating parameters in place.
  // `what` says what and where it writes ("backward() writes the leaves' .grad").
  virtual void on_untraced_effect(const std::string& what) {}
  // A builtin is about to change a flag of t that no op records (`t.requires_grad =
  // false`, requires_grad_()): `what` names the change.
  virtual void on_flag_change(const Tensor& t, const std::string& what) {}
};

OpObserver* op_observer();
// Sets this thread's observer (nullptr: none); returns the previous one.
OpObserver* set_op_observer(OpObserver* observer);

// No observer for its lifetime (the previous one comes back after): ops that run on
// the side of a capture, not in the program it records (an executor run, a verifier's
// stand-ins).
class UnobservedScope {
 public:
  UnobservedScope() : saved_(set_op_observer(nullptr)) {}
  ~UnobservedScope() { set_op_observer(saved_); }
  UnobservedScope(const UnobservedScope&) = delete;
  UnobservedScope& operator=(const UnobservedScope&) = delete;

 private:
  OpObserver* saved_;
};

// Reports a value read or an in-place change to the observer, if there is one.
void notify_value_read(const Tensor& t, const std::string& what);
void notify_inplace(const Tensor& dst, const Tensor& src, const std::string& what);
void notify_untraced_effect(const std::string& what);
void notify_flag_change(const Tensor& t, const std::string& what);

}  // namespace nabla
