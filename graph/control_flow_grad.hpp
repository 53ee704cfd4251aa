// Gradients through cond, while_loop and scan (graph/control_flow.hpp).
//
// Note [Control-flow gradients]
// apply_control_flow runs a control-flow node on real tensors as one eager op: it
// reports the node to the capture that observes this thread (so graph capture records
// it) and, where an input needs a gradient, gives its outputs a ControlFlowBackward
// autograd node. That node's backward is again a control-flow node, run through
// apply_control_flow, so a capture records it too and grad of grad goes through it:
//   - cond(pred, ops...): a cond on the same pred whose regions are the vector-Jacobian
//     products (VJPs) of then and else;
//   - scan: a reverse scan over the steps. The forward scan also stacks the carry that
//     entered each step and the values its step's backward reads (extra outputs, added
//     where a gradient is wanted: graph/control_flow_split.hpp); the reverse body takes
//     the step's VJP from those: gradients of the carry are carried backwards, those
//     of invariants are summed in carried accumulators, those of the rows are
//     stacked. A backward that is itself differentiated (create_graph), or one of a
//     scan that saved nothing, recomputes the step from the carry that entered it;
//   - while_loop: differentiable over its recorded trip count. Where a gradient is
//     wanted it runs with attribute trips=N (the count of this run) and stacks the
//     carries as a scan does; the executor refuses a later run with another count,
//     naming the loop's DSL line. Its backward is the reverse scan of its body.
// A region's VJP is traced: a capture of its own records the region's ops replayed as
// eager ops (replay_eager) and the ops that backward runs for them, so VJP regions
// are made of table ops and control-flow nodes, as every region is.
#pragma once
#include <string>
#include <vector>

#include "graph/control_flow_step_reach.hpp"
#include "graph/ir.hpp"

namespace nabla {
struct Node;  // autograd/node.hpp
}

namespace nabla::graph {

// How a control-flow node is differentiated (where grad mode is on and an input
// needs a gradient):
//   keep:      a scan stacks the carry entering each step as extra outputs, a
//              while_loop records its trip count (trips=N): a training step;
//   recompute: the node stays as it is; the backward of a scan first reruns it
//              stacking the carries, and a while_loop has no gradient (its trip count
//              was not recorded: an error naming its line): a graph that only calls
//              grad() inside;
//   none:      not differentiable (a node nested in a region, whose gradient comes
//              from its region's traced VJP).
enum class CarriesFor { keep, recompute, none };

// What a scan that keeps its carries also saves of each step for its backward (the
// user's choice: compile(..., loop_checkpoint=)):
//   costly:  the results of costly ops (matmuls, reductions, ...) the backward reads;
//            it recomputes elementwise ops and views ("auto", the default);
//   every:   every forward value the backward reads: no recomputation, the most
//            memory ("none": no checkpointing);
//   carries: nothing but the carry entering each step; the backward recomputes the
//            whole step from it, the least memory ("full" checkpointing).
enum class LoopSaving { costly, every, carries };

// Runs control-flow node n (verified) on `inputs`: its outputs, recorded by the
// observing capture and, where needed, differentiable (Note [Control-flow gradients]).
// A scan or while_loop that keeps its carries returns extra outputs after the node's
// own (the stacked carries, and a scan's saved values); callers read the first ones.
TensorList apply_control_flow(Node n, const TensorList& inputs, std::vector<TensorMeta> metas,
                              CarriesFor carries = CarriesFor::keep, LoopSaving saving = LoopSaving::costly);

// The control-flow node behind autograd node n (a CondBackward, ScanBackward or
// WhileLoopBackward), with its saved first input in *first_input (a cond's
// predicate); null where n is another node (Note [Gradients a lowered branch may not
// reach], graph/gradient_reach.hpp).
const Node* control_flow_forward(const nabla::Node& n, Tensor* first_input);
// Which of its inputs reach which of its outputs, for such a node (node_carries of
// the node as the program made it, Note [Outputs a lowered region does not
// differentiate]); null where n is another node.
const std::vector<std::vector<bool>>* control_flow_carries(const nabla::Node& n);
// For a cond's backward whose sides hold conds of their own, or a loop's whose body
// holds one-sided conds (its step predicates in trees[0]): their predicates' values in
// the call and where they are (Note [Branches inside a loop step]); else null.
const CondPredicates* control_flow_cond_predicates(const nabla::Node& n);

// A copy of t made outside the op table (no capture records it; wrapped numbers stay
// wrapped): a region input that a capture binds, or a region constant replayed.
Tensor unrecorded_copy(const Tensor& t);

}  // namespace nabla::graph
