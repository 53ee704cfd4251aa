// What a graph module holds: the guards, graphs and pass records of each capture, the
// pipeline, the log of captures. Shared by the two files that read it:
// builtins_graph.cpp captures and calls the module, graph_module_report.cpp describes,
// draws and exports it. Private to them; the rest of interp/ reaches a graph module
// through graph_module.hpp's operations only.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "graph/capture.hpp"
#include "graph/memory_plan.hpp"
#include "graph/pass_manager.hpp"
#include "graph/replay.hpp"
#include "interp/builtins/graph_module.hpp"
#include "interp/builtins/graph_step.hpp"
#include "interp/eval/capture_reads.hpp"

namespace nabla::interp {

// What one capture depended on.
struct Guards {
  std::vector<std::string> args;  // per argument: "f32[64, 784]" or repr of the value
  std::string training;           // a model's training flag ("" for functions)
  std::string step;               // the optimizer inside the graph: GraphStep::signature
  std::string autocast;           // the autocast region around the call: "off", "bf16", "bf16 (cpu lists)"
  ReadGuards reads;               // what the run read from outside the call (Note [What a capture read])
};

// How a function's result nests: a tensor (a leaf), or a tuple or list of results, so
// that a graph module returns what the function did: `(out, (h, c))`, `[a, b]`,
// `{"logits": y}`. A
// plain number, string or none among them (`return x, steps` where the loop counted
// steps on plain values) is a constant of the capture: the guards hold everything it
// could depend on, as a value read from a tensor is a capture error.
struct OutputTree {
  enum class Kind { tensor, tuple, list, dict, constant } kind = Kind::tensor;
  std::vector<OutputTree> items;
  std::vector<Value> keys;  // a dict's keys, one per item
  Value constant;
};

// Note [What a bound tensor was]
// A capture binds the model's parameters and the tensors the function closes over as
// graph inputs, live: a later call reads their values as they are then. But the graph
// was traced for their shape, dtype and device, and a training step differentiates
// only those that required grad. model.double(), p.requires_grad_(false) and p.data =
// t change these on the same tensor, which no identity guard sees: the step would
// still write .grad of a frozen parameter (and an optimizer step it), never set that
// of one unfrozen, or fail in the executor with a %free name. So each bound tensor's
// shape, dtype, device and requires_grad at capture is a guard, and a change
// captures again.
struct BoundMeta {
  Shape sizes;
  DType dtype;
  Device device;
  bool requires_grad;
};

struct CompiledGraph {
  Guards guards;
  graph::Graph captured, graph;  // as recorded, and after the pipeline
  std::vector<std::pair<std::string, Tensor>> params;  // live tensors bound by name
  std::vector<BoundMeta> bound;  // each of params as the capture saw it (Note [What a bound tensor was])
  std::vector<std::string> input_names;
  size_t forward_outputs = 1;    // outputs before the gradients (train mode)
  OutputTree output_tree;        // how the function's results nest (a tensor, or tuples and lists of them)
  std::vector<Tensor> grad_targets;  // train mode: the parameter of each gradient output
  // train mode: for each gradient output, the argument it is of (-1: grad_targets' tensor;
  // Note [Arguments that require grad in a training step], builtins_graph.cpp)
  std::vector<int> grad_args;
  // train mode: for each gradient output, the output holding its reach flag, or -1 where
  // it is always reached (Note [Gradients a lowered branch may not reach])
  std::vector<int> grad_reach;
  std::vector<Tensor> stepped;       // optimizer=: the parameters the step updates (Note [The step's zero_grad])
  // Note [Flags a compiled function sets] (graph/capture.cpp): each requires_grad the
  // function set, on argument `arg` (-1: on `tensor`, made before the call), set again
  // by every call before its run.
  struct FlagSet {
    int arg = -1;
    Tensor tensor;
    bool requires_grad = false;
  };
  std::vector<FlagSet> flag_sets;
  std::vector<graph::PassRecord> records;
  std::vector<graph::CaptureProblem> problems;  // what the capture could not record (graph_for throws them)
  graph::Replay replay;  // the buffers one call hands on to the next; on a GPU, the recorded CUDA graph
  std::vector<std::string> lowered;  // script mode: what each lowered statement became
};

// Declared in graph_module.hpp, which the command line and the REPL reach through.
struct GraphModule {
  Value fn, model;  // model: the instance when compiling a model, else none
  bool train = false;
  CaptureMode mode = CaptureMode::automatic;
  bool script = false;  // control flow on tensors lowers to cond, while_loop, scan (mode, or a traced branch)
  bool cuda_graph = true;  // on a GPU, replay each graph's runs as one CUDA graph launch (graph/replay.hpp)
  graph::LoopSaving loop_saving = graph::LoopSaving::costly;  // compile(loop_checkpoint=)
  std::string name;
  std::vector<std::string> arg_names;
  std::vector<std::string> pipeline;  // passes applied to every graph
  std::vector<CompiledGraph> graphs;
  size_t last_used = 0;
  std::vector<std::string> log;  // captures and re-captures, with reasons (Note [Captures at every call])
  size_t captures = 0;            // how many there were
  size_t log_dropped = 0;         // lines dropped from the log's middle, to keep it bounded
  std::string last_changed;       // what the last re-capture found changed ("variable 'step'")
  int same_changed = 0;           // in how many re-captures in a row
  std::string repeating;          // what explain() says when that is 3 or more
  std::unique_ptr<GraphStep> step;  // compile(optimizer=): the optimizer's step inside the graph
  bool ran_eagerly = false;  // a call ran the function itself (Note [Gradients through an inference graph])
};

// Adds a capture to gm.log: the call's place and why it captured
// (graph_module_report.cpp, Note [Captures at every call]).
void log_capture(GraphModule& gm, const std::string& where, const std::string& why);

// A number read from a tensor (item(), float(), ...): lowered where it only decides a
// condition (graph_module_report.cpp, as problems_text).
bool number_read(const std::string& what);
// The error of a capture that cannot be a graph: each problem at its line, then the
// hints that fit them.
std::string problems_text(const std::vector<graph::CaptureProblem>& problems);

// Note [Flags a compiled function sets] (graph/capture.cpp): sets cg's flags again, on
// this call's arguments; whether one of them now requires grad where it did not.
inline bool set_flags_again(const CompiledGraph& cg, const std::vector<Value>& args) {
  bool now_requires = false;
  for (const CompiledGraph::FlagSet& f : cg.flag_sets) {
    Tensor t = f.arg >= 0 ? args[static_cast<size_t>(f.arg)].t : f.tensor;
    now_requires |= f.arg >= 0 && f.requires_grad && !t.requires_grad();
    t.set_requires_grad(f.requires_grad);
  }
  return now_requires;
}

// What every pipeline run for gm is told: whether it is a training step (Note
// [Packed weights in a training step] in passes/fuse_epilogue.cpp).
inline graph::PipelineOptions pipeline_options(const GraphModule& gm) {
  graph::PipelineOptions opt;
  opt.training_step = gm.train;
  return opt;
}

// The memory plan of the graph in use and its loop bodies' plans, for gm.memory_plan()
// and gm.render(memory=true) (graph_module_report.cpp).
graph::MemoryPlan memory_plan_of(const GraphModule& gm, const std::string& what);
Value region_plan_list(const graph::Graph& g);

}  // namespace nabla::interp
