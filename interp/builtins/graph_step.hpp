// The optimizer step (and the GradScaler) inside a compiled training step:
// compile(loss_fn, x, y, train=true, optimizer=opt, scaler=scaler). Internal to
// interp/builtins: builtins_graph.cpp's capture and call use it (Note [The optimizer
// inside the graph] in graph_step.cpp).
#pragma once
#include <string>
#include <vector>

#include "autograd/op_table.hpp"
#include "interp/eval/evaluator.hpp"

namespace nabla::interp {

class GraphStep {
 public:
  // opt: an optimizer of stdlib/optim.dsl (checked); scaler: an optim.GradScaler or none.
  GraphStep(Evaluator& ev, Value optimizer, Value scaler);

  // Before each capture: checks that the optimizer can step inside a graph and makes
  // its state (step counts as tensors beside the parameters) and the hyperparameter
  // tensors, one per parameter group.
  void prepare(Evaluator& ev);
  // While capturing: the loss to differentiate (loss * scale with a scaler).
  Tensor loss_to_differentiate(Evaluator& ev, const Tensor& loss);
  // While capturing, with the gradient of each target (undefined where the loss does
  // not reach it) and its reach flag (undefined where always reached; Note [Gradients
  // a lowered branch may not reach]): the scaler's unscale and Inf/NaN check, one
  // optimizer row per parameter, skipped in a call that does not reach it, the scale's
  // update. Recorded as graph nodes.
  void record(Evaluator& ev, const TensorList& targets, const TensorList& grads, const TensorList& reach);
  // Before each call: the groups' current hyperparameters (lr, betas, eps, weight
  // decay, momentum, dampening, alpha, lr_decay, momentum_decay) into their tensors (those that changed), so a
  // scheduler's changes reach a graph that reads them.
  void refresh(Evaluator& ev);
  // What a captured step depends on besides its inputs: the optimizer's flags
  // (maximize, nesterov, centered, amsgrad, whether it has momentum or weight decay),
  // the groups' parameters, and which tensors hold the state. Another value captures
  // again (load_state_dict, add_param_group, momentum turned on).
  std::string signature(Evaluator& ev) const;
  // "optim.Adam (1 group, 8 parameters) and optim.GradScaler step inside the graph",
  // as of the last capture (print(gm) and gm.explain() show it).
  const std::string& description() const { return description_; }

 private:
  std::string describe(Evaluator& ev) const;

  Value optimizer_, scaler_;
  TensorList hypers_;  // per group: its row's hyperparameters (f64) on its parameters' device
  std::vector<std::vector<double>> hyper_values_;  // what hypers_ hold
  std::string description_;
};

}  // namespace nabla::interp
