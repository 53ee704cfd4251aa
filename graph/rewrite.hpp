// What the rewriting passes share: which nodes act outside the graph (so that no
// pass drops, merges or runs them ahead of time), replacing one value by another
// while walking the nodes in order, and how notes name a node.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "graph/ir.hpp"

namespace nabla::graph {

// Why a node has an effect outside the graph, or "" when it has none: batch_norm in
// training mode updates its running statistics in place (when it has them), dropout
// draws from the random generator (even with training=false it is left alone, to
// keep one rule), copy_ (a captured in-place write) changes a parameter or buffer,
// and a collective talks to the other ranks (folded, it would run at compile time;
// merged or dropped, the sharding would change: the reshard pass places each gather).
// A node with regions (cond, while_loop, scan) has the effects of the nodes they hold.
std::string side_effect(const Node& n);
// Whether n is a `raise` node: the error of a lowered if's side that fails (Note [A
// failing side of a lowered if], interp/eval/script/raising.cpp).
bool is_raise(const Node& n);
// While one is alive on this thread, a raise node's kernel yields its zeros instead of
// throwing: a run on values only a trace or an untaken side's capture holds (a VJP
// traced on example values, a cond run inside a side no call of the example takes)
// may take a failing side that no real call takes there.
class QuietRaises {
 public:
  explicit QuietRaises(bool on = true);
  ~QuietRaises();
  QuietRaises(const QuietRaises&) = delete;
  QuietRaises& operator=(const QuietRaises&) = delete;
  static bool active();

 private:
  bool on_;
};
// The ops that call the process group (autograd/ops/dist.cpp).
bool is_collective(OpId op);
inline bool has_side_effect(const Node& n) { return !side_effect(n).empty(); }

// Note [Writes in the graph]
// copy_ and batch_norm in training mode write into an input's storage (a parameter or
// buffer) while the graph runs, so one value holds other data after such a write, and
// so does every view of it. A pass that merges two reads of it (cse), or replaces a
// later result by the value itself (simplify), or reads it at compile time (fold)
// must look at where the writes are.

// The inputs (by position) that node n writes into: copy_'s destination, the running
// statistics of a training batch_norm.
std::vector<size_t> written_inputs(const Node& n);

// Whether n is a view row (view, reshape, transpose, ...): its outputs alias input 0.
bool is_view_node(const Node& n);

// For each value, the value whose storage it may share: the outputs of view rows
// (view, reshape, transpose, ...) follow their input 0, any other value is its own.
std::vector<int> storage_roots(const Graph& g);

// Per value: whether some node writes into its storage (through roots).
std::vector<bool> written_storage(const Graph& g, const std::vector<int>& roots);

// The custom node of a convolution's weight and bias gradients in one call (Note [The
// bias gradient with the weight gradient] in passes/fuse_epilogue.cpp).
inline constexpr const char* kWeightBiasGradient = "conv2d_backward_weight_bias";

// The custom node of a parameter group's optimizer rows in one kernel (Note [A
// group's steps in one kernel] in passes/fuse_optimizer.cpp); its body is the rows.
inline constexpr const char* kOptimizerSteps = "optimizer_steps";
bool is_optimizer_steps(const Node& n);

// The nodes that know oneDNN's channel-blocked layout (Note [Blocked activations
// between convolutions] in passes/block_layout.cpp): the one-call weight and bias
// gradient; whether n can read input `slot` in the layout; whether it can write its
// outputs in it; whether a value of `sizes` can hold it ([N, C, H, W], C a multiple
// of 16, none empty).
bool is_weight_bias_gradient(const Node& n);
// The input slots of such a node whose body computes its output gradient by
// max_pool2d_backward (Note [The pool's gradient inside the first layer's weight
// gradient] in passes/fuse_epilogue.cpp): that op's gradient and indices; {-1, -1}
// for any other node.
std::pair<int64_t, int64_t> pool_gradient_slots(const Node& n);
// The input slot of node n (with a body) that is its body's input `body_value`, or -1
// (a value the body makes itself).
int64_t body_input_slot(const Node& n, int body_value);
bool fits_channel_blocks(const Shape& sizes);
// Whether a pooled convolution (conv2d_<act>_max_pool2d) pools by the plain 2x2 pool
// (the kernels' rule, cpu::is_plain_2x2): the one whose indices nChw16c holds as
// window codes (Note [Window codes] in tensor/cpu/kernels.hpp).
bool pools_plain_2x2(const Node& pooled_conv);
// Whether value v is made by such a node: in nChw16c, the indices it makes are window
// codes.
bool made_by_plain_2x2_pool(const Graph& g, int v);
bool reads_blocked_layout(const Node& n, size_t slot);
bool writes_blocked_layout(const Node& n);
// Whether every input of n has the shape of its first output: an elementwise op
// (threshold_backward) runs over blocked memory only then, not when it broadcasts.
bool operands_share_shape(const Graph& g, const Node& n);

// How a value is written after '%': its name, or its number.
std::string value_name(const Graph& g, int id);

// "%5 = batch_norm at mlp.dsl:5:3" (without " at ..." when the node has no origin),
// the start of a PassResult note.
std::string describe_node(const Graph& g, const Node& n);

// Replaces values while a pass walks the nodes in order: after replace(old, new)
// every later read of `old` reads `new`. The pass calls forward_inputs(n) on each node
// before it looks at it, and finish(g) once at the end for the graph's outputs; the
// nodes that defined replaced values are then dead and go with Graph::compact.
class ValueForwarding {
 public:
  void replace(int old_value, int new_value);
  int resolve(int value) const;
  void forward_inputs(Node& n) const;
  void finish(Graph& g) const;

 private:
  std::vector<int> to_;  // value id -> its replacement, -1 for none
};

// Takes the constants for which drop(value id) holds out of the signature and out of
// g.constants; returns how many. The pass calls Graph::compact afterwards, which
// drops their values.
int remove_constants(Graph& g, const std::function<bool(int)>& drop);

// Replaces the nodes `members` (indices in execution order; the last is the root,
// whose outputs the others only feed) by one node that computes what `head` says
// (Node::of_kind(NodeKind::fused), Node::epilogue_of(...)) with a body of them, in
// the root's place: its inputs are the values the members read from outside, its
// outputs the root's, `absorbed` lists each member's op and DSL line. The other
// members are marked in `dead` (Graph::compact drops them). The caller checks that
// no value a non-root member defines is used outside the members. With
// `every_output`, the node's outputs are every member's, in member order (members
// that share inputs, not a chain), and the caller checks that the others' inputs are
// defined before the root's place and their outputs not read before it.
void fuse_nodes(Graph& g, const std::vector<int>& members, const Node& head, std::vector<bool>& dead,
                bool every_output = false);

// How many live node inputs and graph outputs use each value, ignoring dead nodes.
std::vector<int> live_use_counts(const Graph& g, const std::vector<bool>& dead_nodes);

}  // namespace nabla::graph
