// The executor: runs a graph with the op table's kernels, outside autograd. It
// allocates every node's outputs itself (from the types in the graph) and hands them
// to the kernel. A graph with a memory plan (Graph::plan, the `plan` pass) gets one
// arena per run (or the previous run's, see KeptBuffers), and each planned value is a
// view into it; other values (graph outputs among them, which the caller keeps) get
// their own buffers, freed right after their last use. Graph-level nodes have their kernels by kind (copy_ here; the
// fusion passes' fused and linear_<act>/conv2d_<act> in graph/fused_kernels.hpp); a
// custom op registers its kernel by name here.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "graph/ir.hpp"

namespace nabla::graph {

// Buffers that one graph's runs hand on to the next; see Note [Buffers kept between
// runs] in graph/executor.cpp. A graph module keeps one per graph.
struct KeptBuffers {
  Tensor arena;                                  // the memory plan's arena
  std::vector<std::pair<int, Tensor>> returned;  // value id -> the buffer a run returned it in
  std::map<int, Tensor> constants;               // value id -> its copy on the GPU, uploaded once
  size_t allocated = 0;  // buffers the last run allocated for these (0: it reused every one)
};

// args: one tensor per graph input that is not a constant (inputs and params, in
// the order of Graph::inputs); returns the graph's outputs. With `kept`, the run
// takes its arena and its outputs' buffers from there when nothing else holds them
// any more, and leaves its own there for the next run.
TensorList run_graph(const Graph& g, const TensorList& args, KeptBuffers* kept = nullptr);

// A graph-level op's kernel: fills `outputs`, allocated by the executor with the
// node's output types (contiguous). With a memory plan, a "fused" node's output may
// be the very memory of one of its inputs of the same shape and dtype (in place, see
// graph/memory_plan.hpp): its kernel must read element i of every input before it
// writes element i of an output, as an elementwise loop does.
using GraphOpFn = void (*)(const Node& node, const TensorList& inputs, TensorList& outputs);
// The kernel of the custom nodes named `name` (NodeKind::custom); copy_ and the fusion
// passes' nodes have theirs by kind.
void register_graph_op(const std::string& name, GraphOpFn fn);
bool has_graph_op(const std::string& name);

// Note [Loop polls]
// A while_loop or scan runs its iterations in C++ (graph/control_flow_exec.cpp), out of
// the interpreter's sight: a `while` on a tensor that never ends, lowered by
// compile(mode="script"), spun forever, deaf to Ctrl-C and to --max-steps. Each
// iteration therefore calls poll_loop_iteration(), which calls the poll of the
// innermost LoopPollScope of this thread (none: nothing). The interpreter sets one for
// each eval (interp/interpreter.cpp) that counts the iteration as a step and checks
// for an interrupt, as its own loops do; what it throws ends the run like any error
// of the graph (its buffers are freed as the stack unwinds).
using LoopPoll = void (*)(void* context);
class LoopPollScope {
 public:
  LoopPollScope(LoopPoll poll, void* context);
  ~LoopPollScope();
  LoopPollScope(const LoopPollScope&) = delete;
  LoopPollScope& operator=(const LoopPollScope&) = delete;

 private:
  LoopPoll saved_poll_;
  void* saved_context_;
};
void poll_loop_iteration();

}  // namespace nabla::graph
