// Graph modules: what the language's compile() returns (builtins_graph.cpp), and the
// operations its methods share with `nabla graph` and the REPL's `:graph`
// (graph_command.cpp), so that the command line and the REPL capture, optimize and
// draw exactly as `compile(...)`, `gm.optimize()`, `gm.render()` do. Internal to
// interp/: the REPL and main.cpp reach it through Interpreter::graph.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "graph/control_flow_grad.hpp"
#include "graph/ir.hpp"
#include "interp/eval/evaluator.hpp"
#include "interp/interpreter.hpp"

namespace nabla::interp {

struct GraphModule;

// How compile() treats the language's control flow on tensors: `automatic` traces and,
// when the trace meets an if or while on a tensor's value, captures again with it
// lowered; `trace` only traces (such a branch is an error); `script` always lowers
// (if/while to cond/while_loop, for over a range or a tensor to scan).
enum class CaptureMode { automatic, trace, script };

// compile()'s options (interp/builtins/compile_options.cpp reads them from its keywords).
struct CompileOptions {
  bool train = false;  // the graph is a training step: the loss and the parameters' gradients
  CaptureMode mode = CaptureMode::automatic;
  bool cuda_graph = true;  // on a GPU, replay the runs as CUDA graphs (graph/replay.hpp)
  // What a lowered loop of a training step saves of each step for its backward
  // (loop_checkpoint="auto" | "none" | "full"; graph::LoopSaving).
  graph::LoopSaving loop_saving = graph::LoopSaving::costly;
  // A training step with the optimizer's step (and a GradScaler's) inside the graph
  // (interp/builtins/graph_step.hpp); none: the caller steps after each call.
  Value optimizer, scaler;
};
// The options of a compile() call: its keywords (train, mode, cuda_graph, loop_checkpoint,
// optimizer, scaler).
CompileOptions compile_options(const std::vector<std::pair<std::string, Value>>& keywords);
// An error naming fn's arguments when compile() was given no example for them.
void check_examples_given(const Value& fn, size_t given);

// compile(fn, examples..., **options): runs fn (a function or a model instance) once
// under a capture with the example arguments and keeps the graph. Capture problems
// are nabla::Error (with the DSL lines where the capture saw them).
std::shared_ptr<GraphModule> compile_graph(Evaluator& ev, const Value& fn, const std::vector<Value>& examples,
                                           const CompileOptions& options);
// The language's value for gm: the object with __call__, optimize, ir, render, explain.
Value graph_module_value(std::shared_ptr<GraphModule> gm);
// The graph module behind a value that compile() returned; null for any other value.
std::shared_ptr<GraphModule> graph_module_of(const Value& v);

// gm.optimize(spec, explain): runs the pipeline ("default", "fold,cse,dce"; "" runs
// none) on every cached graph as captured, and keeps it for later captures. Returns
// the report (format_records) of the last graph.
std::string optimize_graph(GraphModule& gm, const std::string& spec, bool explain);
// The report of the passes that made the graph in use ("" when none ran).
std::string graph_pass_report(const GraphModule& gm);
// gm.ir(captured): the text form of the graph in use, after its passes or as captured.
std::string graph_ir(const GraphModule& gm, bool captured);
// gm.render(path, before_after): the graph in use (.svg, .png, .dot), or with
// `before_after` set the graph just before and after that pass of the pipeline.
void render_graph(const GraphModule& gm, const std::string& path, const std::string& before_after = "");
// What render_graph draws, as DOT text (gm.render() without a path shows it in a notebook).
std::string graph_drawing(const GraphModule& gm, const std::string& before_after = "");
// gm.render(path, memory=true): the memory plan of the graph in use, as DOT text.
std::string memory_plan_drawing(const GraphModule& gm);
// gm.export_onnx(path): the graph in use as an ONNX model. A training step, or a
// module captured for several input shapes, is an error.
void export_graph_onnx(const GraphModule& gm, const std::string& path);
// "graph module 'MLP' (inference): 12 nodes captured, 9 after passes" (the graph in use).
std::string graph_heading(const GraphModule& gm);
// print(gm): the graph in use's inputs (names, dtypes, shapes), outputs, node counts,
// the passes run on it and its guards, and how many graphs are cached.
std::string describe_graph_module(const GraphModule& gm);
// gm.explain(): the guards of each cached graph, its passes, and every capture with its reason.
std::string explain_graph(const GraphModule& gm);

// The graph in use (the last one called or captured), after its passes.
const graph::Graph& graph_in_use(const GraphModule& gm);
// Where the graph in use runs: the device of its parameters and constants (cuda:N if
// any is there), else the CPU.
Device graph_device(const GraphModule& gm);
// gm.cost(): the cost table of the graph in use (graph/cost.hpp) on the roofline of
// `device` (graph_device when null), headed by graph_heading. interp/builtins/graph_cost.cpp.
std::string graph_cost_table(const GraphModule& gm, const Device* device = nullptr);
// gm.cost(table=true, device=none): the table as a string, or with table=false a dict
// of the figures (docs/cost.md).
Value graph_cost_method(const GraphModule& gm, CallArgs& a);

// Interpreter::graph's work (graph_command.cpp), on the evaluator's thread; errors
// are thrown (LangError, nabla::Error) for Interpreter::graph to report.
GraphResult run_graph_request(Evaluator& ev, const GraphRequest& request);

}  // namespace nabla::interp
