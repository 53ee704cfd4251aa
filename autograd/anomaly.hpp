// Anomaly mode (`detect_anomaly { }`, AnomalyGuard): the first NaN or Inf, forward or
// backward, stops the program with the op, the DSL line and a statistics line of what
// the op read. dispatch.cpp calls the forward check after each kernel, the engine the
// backward one after each rule; both only while anomaly_enabled(). See
// Note [Anomaly rule] in anomaly.cpp.
#pragma once
#include "autograd/node.hpp"
#include "autograd/op_table.hpp"

namespace nabla {

// Throws when a floating output of `def` holds a NaN or Inf although none of its
// inputs and attributes did.
void check_forward_anomaly(const OpDef& def, const TensorList& inputs, const Attrs& attrs, const TensorList& outs);

// Throws when a gradient that `node`'s backward rule returned holds a NaN or Inf,
// naming the forward line and describing `grads` (what the rule was given) and the
// tensors it saved.
void check_backward_anomaly(const Node& node, const TensorList& grads, const TensorList& results);

// "f32[3] min=0 max=2 mean=0.6667 nan=0 inf=0" (min/max/mean of the finite values).
std::string describe_values(const Tensor& t);

// While it lives, anomaly mode is off, so the ops of a backward rule are not checked
// one by one: the engine checks the rule's results as a whole and blames the forward op.
class ForwardAnomalyPause {
 public:
  ForwardAnomalyPause();
  ~ForwardAnomalyPause();
  ForwardAnomalyPause(const ForwardAnomalyPause&) = delete;
  ForwardAnomalyPause& operator=(const ForwardAnomalyPause&) = delete;

 private:
  bool previous_;
};

}  // namespace nabla
