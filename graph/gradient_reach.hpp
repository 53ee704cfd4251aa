// Which gradients a captured training step reaches in a given call.
//
// Note [Gradients a lowered branch may not reach]
// In eager, a parameter used only on the side of an `if` that a call did not take gets
// no gradient: its .grad stays none, and optimizer.step() leaves the parameter and its
// state (momentum, Adam's moments and step count, weight decay) alone. A lowered `if`
// is a cond whose backward is a cond of both sides' VJPs, and the side that does not
// use the parameter yields zeros for it: a captured step would see a zero gradient at
// every call, and momentum or weight decay would move the parameter where eager does
// not. (A loop that runs no step is the same case.)
//
// So the capture also computes, with table ops on the conds' predicates, one 0-dim f32
// flag per gradient that is 1 in a call where eager's backward would reach it: the
// autograd graph from the loss is walked once, each node's output slots holding when
// the loss's gradient reaches them (always, never, or a flag). An ordinary node passes
// its slots' reach on to every input; a cond passes on, to each operand, its outputs'
// reach through the side that carries the operand's gradient to them (then: pred != 0,
// else: pred == 0); a loop passes on, to each input, the reach of the outputs its body
// carries that input's gradient to over its steps (Note [Outputs a lowered region does
// not differentiate], graph/control_flow_carries.hpp), and none when it runs no step.
// A flag is needed only where some path goes through one side of a cond, so most
// steps compute none.
// The in-graph optimizer step skips a parameter whose flag is 0, as it skips every
// parameter on found_inf (stdlib/_optim_graph.dsl); a step that returns gradients sets
// .grad only where the flag is 1 (interp/builtins/builtins_graph.cpp).
//
// A branch inside a side or inside a loop's step is read where each call took it
// (Note [Branches inside a loop step], graph/control_flow_step_reach.hpp), also with
// scans between it and the capture's top level (`for t { for k { if p { ... } } }`,
// `if q { for t { if p { ... } } }`): each nested scan exports its step predicates
// stacked over its steps. A branch inside a while_loop nested in a step or a side
// (`while p { while q { if r { ... } } }`) is read through whether some iteration of
// that while took each side, which it carries (its trip count varies per call, so its
// per-iteration predicates cannot leave it stacked); before, it counted as using what
// it read, and a parameter only its untaken side used got zeros where eager's .grad
// stays none.
#pragma once
#include "autograd/engine.hpp"

namespace nabla::graph {

// For each target, where the gradient of `loss` may not reach it in a call: a 0-dim
// f32 tensor, 1 where it is reached (a constant 0 where it never is); undefined where
// it is reached whenever the loss is differentiated (most targets). Call before the
// backward frees the graph's saved values.
TensorList gradient_reach(const Tensor& loss, const TensorList& targets);

}  // namespace nabla::graph
