// Where a branch inside a loop step or inside another branch reaches its inputs'
// gradients.
//
// Note [Branches inside a loop step]
// A parameter that a loop's step uses only on one side of an `if` on a tensor (a gate
// in an RNN cell, or the statements after a lowered `break`, which run in a cond on the
// break flag) gets no gradient in eager when no step took that side; its .grad stays
// none and the optimizer leaves it and its state alone. Note [Gradients a lowered
// branch may not reach] read the scan as one node, which reaches each input from its
// outputs whenever it runs a step, so such a parameter got zeros (momentum and Adam's
// step count moved it); an `if` nested in an `if` was read the same way.
// So a scan in a training capture also yields, as step outputs after its own, the
// predicate of each cond of its body that passes an input's gradient on through one
// side only (a [length] bool output each), and after the run walks of the body from
// its outputs, chained along its steps (Note [Reach along a loop's steps],
// control_flow_step_reach.cpp), give, per step, where each input is reached: through
// each cond's side where that step took it (the stacked predicate's row), through
// other nodes as node_carries says. An invariant or scanned input is reached in a
// call where some step reaches it (a 0-dim flag: the steps' maximum); a carry's
// initial value where the first step reaches it.
// A cond inside a side of such a cond yields its predicate as an output of the outer
// cond (the other side yields false), and a cond of the capture itself yields those of
// the conds in its sides, so branches nested at any depth are read as eager takes
// them. A while_loop, which yields no step outputs, carries each predicate instead:
// the carries it stacks for its backward (with its recorded trip count) hold each
// iteration's. A scan inside a step or a side exports its own step predicates the
// same way (stacked over its steps, then over the outer loop's: [outer, inner] flags),
// and its body's steps are chained the same way, from its outputs' reach where the
// node's are, each param's flags reduced over the inner steps. A while_loop inside a step or a side runs a count of iterations that varies per
// call, so its per-iteration predicates cannot leave it stacked: it carries instead,
// for each predicate of its body, whether some iteration took each side ([..., 2] f32,
// the maximum over its iterations; a predicate that is already such a pair, from a
// while nested deeper, by the maximum alone), and yields them after its carries. Its
// body is walked with those pairs as each cond's sides, each output reached where the
// node's are. As each reach is a maximum of products of side flags, reading a side as
// taken where some iteration took it can only reach more than eager (two conds one
// after the other, each side taken in another iteration, read as taken together),
// never less: such a case is the old zero gradient, not a missing one.
#pragma once
#include <array>
#include <vector>

#include "graph/control_flow_carries.hpp"
#include "tensor/tensor.hpp"

namespace nabla::graph {

// When the gradient reaches a value: always, never, or where `flag` (f32, 0 or 1; one
// per step for a step's values) is 1.
struct BranchReach {
  bool always = false;
  Tensor flag;
  bool never() const { return !always && !flag.defined(); }
};
// Reached by either (the flags' maximum) or by both (their product).
BranchReach either(const BranchReach& a, const BranchReach& b);
BranchReach both(const BranchReach& a, const BranchReach& b);
// The sides of a cond on `pred` as reaches: then where pred != 0, else where it is 0.
std::array<BranchReach, 2> sides_taken(const Tensor& pred);

// A cond whose predicate a scan yields, at `node` in its region's nodes: its predicate
// at `slot` of the yielded ones, and the conds of its sides that it yields too.
// A scan there instead (`loop`): its step predicates, `count` of them stacked over its
// steps, at slots slot.. of the yielded ones, and its body's conds in sides[0] (their
// slots counting from its own first).
struct PredTree {
  size_t node = 0;
  size_t slot = 0;
  std::vector<PredTree> sides[2];
  bool loop = false;
  size_t count = 0;
  // A while_loop there instead (`ever`): at slots slot.. (count of them), for each
  // predicate its body exports, whether some iteration took each side ([..., 2] f32:
  // then, else), its body's conds in sides[0] (slots counting from its own first).
  bool ever = false;
};

// Adds the predicates described above to scan n's body as step outputs after its own
// (their stacked types to `metas`, how many to *count; the false a side yields for
// another's predicate made on `device`); returns the conds' trees
// (none: nothing added).
std::vector<PredTree> add_step_predicates(Node& n, std::vector<TensorMeta>& metas, size_t* count, Device device);

// A cond's exported predicates: the trees of each side, and the values in a call.
struct CondPredicates {
  std::array<std::vector<PredTree>, 2> trees;
  TensorList values;
};

// The same for cond n's sides: the predicates of the conds inside them, as outputs of
// n after its own (types to `metas`, how many to *count); the trees of each side.
std::array<std::vector<PredTree>, 2> add_cond_predicates(Node& n, std::vector<TensorMeta>& metas, size_t* count,
                                                         Device device);

// The reach of each operand of cond n (after its predicate) from its outputs' reach
// `out`: through each side where `pred` took it, the sides' conds as `preds` (the
// values of add_cond_predicates's outputs) say; with no trees, a nested node counts
// as using every input that reaches its outputs.
std::vector<BranchReach> cond_operand_reach(const Node& n, const Tensor& pred,
                                            const std::array<std::vector<PredTree>, 2>& trees, const TensorList& preds,
                                            const std::vector<BranchReach>& out);

// The same for a while_loop n (yielding no step outputs): each predicate becomes a
// carry after n's own (its input a false added to `ins`, its type to `metas`, a row
// of no reach to `carries`), so that the carries it stacks for its backward hold them;
// how many to *count.
std::vector<PredTree> add_while_predicates(Node& n, TensorList& ins, std::vector<TensorMeta>& metas,
                                           CarryTable& carries, size_t* count);
// Each iteration's values of those predicates ([trips] each): from the while_loop's
// outputs `outs`, the predicates carried at `first`, `carried` carries in all.
TensorList while_step_predicates(const TensorList& outs, size_t first, size_t count, size_t carried);

// The reach of each input of loop n (a scan, or a while_loop with its recorded trip
// count, of the capture's top level) from its outputs' reach `out`: where some step
// reaches an invariant's or a row's gradient, where the first step reaches a carry's
// initial value (Note [Reach along a loop's steps]). `preds` are its body's predicates
// per step (add_step_predicates's outputs, or while_step_predicates).
std::vector<BranchReach> loop_input_reach(const Node& n, const std::vector<PredTree>& trees, const TensorList& preds,
                                          const std::vector<BranchReach>& out);

}  // namespace nabla::graph
