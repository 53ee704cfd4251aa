// What a graph module shows of itself: print(gm), gm.explain(), gm.ir(), the memory
// plan, the drawings of gm.render() and the ONNX file of gm.export_onnx(), for the
// language, `nabla graph` and `:graph` alike (graph_module.hpp); and the error of a
// capture that cannot be a graph. Reads the module;
// capturing and calling it are builtins_graph.cpp's.
#include <algorithm>

#include "graph/onnx/export.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/graph_module_state.hpp"
#include "viz/graphviz.hpp"

namespace nabla::interp {

// A number read from a tensor (item(), float(), int(), bool()): lowered where it only
// decides a condition (Note [Numbers read for a condition]).
bool number_read(const std::string& what) {
  for (const char* kind : {"item()", "float()", "int()", "bool()"})
    if (what.rfind(kind, 0) == 0) return true;
  return false;
}

std::string problems_text(const std::vector<graph::CaptureProblem>& problems) {
  std::string s = "compile: the function cannot be captured as a graph:";
  bool branch = false, training = false, number = false;
  for (auto& p : problems) {
    s += "\n  " + (p.origin.empty() ? std::string() : p.origin + ": ") + p.what;
    number = number || number_read(p.what);
    branch = branch || p.what.rfind("a condition on its value", 0) == 0;
    training = training || p.what.find(".grad") != std::string::npos || p.what.rfind("opt.step()", 0) == 0;
  }
  if (branch)
    s += "\n  (compile(f, x) without mode=\"trace\", or with mode=\"script\", lowers an if or while on a tensor "
         "to a cond or while_loop node, and a for over a range or a tensor to a scan)";
  if (number)
    s += "\n  (a number read from a tensor the function computes can only decide an if or while directly, as in "
         "`if t.item() > 0`, which lowers to a cond; kept in a variable, or used as a shape, a range() bound or a "
         "string, it would be the captured run's number at every call: keep it a tensor)";
  if (training)
    s += "\n  (a training step compiles as compile(loss_fn, x, y, train=true): each call returns the loss and sets "
         "every parameter's .grad, as loss.backward() would, and opt.step() follows each call; with optimizer=opt "
         "the step is inside the graph too)";
  return s;
}

std::string explain_graph(const GraphModule& gm) {
  std::string s = "graph module '" + gm.name + "' (" + (gm.train ? "train" : "inference") + "), " +
                  std::to_string(gm.graphs.size()) + " graph" + (gm.graphs.size() == 1 ? "" : "s") + " cached\n";
  if (gm.step) s += gm.step->description() + "\n";
  for (size_t k = 0; k < gm.graphs.size(); ++k) {
    const CompiledGraph& cg = gm.graphs[k];
    s += "graph " + std::to_string(k + 1) + ": " + std::to_string(cg.captured.nodes.size()) + " nodes captured, " +
         std::to_string(cg.graph.nodes.size()) + " after passes\n  guards:";
    for (size_t a = 0; a < cg.guards.args.size(); ++a) s += "\n    " + gm.arg_names[a] + " == " + cg.guards.args[a];
    if (!cg.guards.training.empty()) s += "\n    training flags == " + cg.guards.training;
    s += "\n";
    if (!cg.lowered.empty()) s += "  lowered control flow:\n";
    for (size_t k = 0; k < cg.lowered.size();) {  // an unrolled loop lowers the same statement once per step
      size_t same = 1;
      while (k + same < cg.lowered.size() && cg.lowered[k + same] == cg.lowered[k]) ++same;
      s += "    " + cg.lowered[k] + (same > 1 ? " (" + std::to_string(same) + " times)" : "") + "\n";
      k += same;
    }
    if (!cg.records.empty()) s += "  passes:\n" + graph::format_records(cg.records);
    if (std::string replay = cg.replay.summary(); !replay.empty()) s += "  " + replay + "\n";
    for (const std::string& line : cg.replay.log) s += "    " + line + "\n";
  }
  s += "captures:\n";
  for (size_t k = 0; k < gm.log.size(); ++k) {
    s += "  " + gm.log[k] + "\n";
    if (k == 0 && gm.log_dropped > 0) s += "  (" + std::to_string(gm.log_dropped) + " captures between the first and the latest not shown)\n";
  }
  if (!gm.repeating.empty()) s += "  note: " + gm.repeating + "\n";  // Note [Captures at every call]
  return s;
}

// Note [Captures at every call]
// A number read from outside the call (a global, a field) is a constant of the graph
// and a guard (Note [What a capture read]), so one that changes at every call (a step
// counter, an epoch in a schedule) captures at every call: the cache holds kMaxGraphs
// graphs, the oldest dropped. The log says so once the same place changed in three
// re-captures in a row, with what to write instead, and keeps its first line and the
// latest kMaxLogLines, so a training loop of a million steps does not grow it.
namespace {

constexpr size_t kMaxLogLines = 32;
constexpr int kSameInARow = 3;

// "variable 'step'" from "variable 'step' the function read is 4, it was 3 (...)".
std::string changed_place(const std::string& why) {
  size_t end = why.find("' the function read ");
  if (end == std::string::npos) return "";
  return why.substr(0, end + 1);
}

}  // namespace

void log_capture(GraphModule& gm, const std::string& where, const std::string& why) {
  ++gm.captures;
  std::string line = "capture " + std::to_string(gm.captures) + (where.empty() ? "" : " at " + where) + ": " + why;
  std::string place = changed_place(why);
  gm.same_changed = !place.empty() && place == gm.last_changed ? gm.same_changed + 1 : 1;
  gm.last_changed = place;
  gm.repeating.clear();
  if (!place.empty() && gm.same_changed >= kSameInARow) {
    bool number = why.find("' the function read is ") != std::string::npos;
    gm.repeating = place + " changed at each of the last " + std::to_string(gm.same_changed) + " captures" +
                   (number ? ": a number read from outside the call is a constant of the graph, so one that changes "
                             "at every call (a step counter) captures at every call. Pass it as an argument, as a "
                             "tensor (tensor(step, dtype=f64)), or keep it in a tensor the function reads"
                           : ": the graph is captured again at every call");
  }
  gm.log.push_back(std::move(line));
  if (gm.log.size() > kMaxLogLines + 1) {
    gm.log.erase(gm.log.begin() + 1);
    ++gm.log_dropped;
  }
}

namespace {

// "x: f32[64, 784], y: i64[64]": the graph's values of `kind`, or its outputs.
std::string values_text(const graph::Graph& g, const std::vector<int>& ids, bool named) {
  std::string s;
  for (int id : ids) {
    const graph::Value& v = g.value(id);
    if (named && v.kind != graph::ValueKind::input) continue;
    s += (s.empty() ? "" : ", ") + (named ? v.name + ": " : std::string()) + graph::meta_str(v.meta);
  }
  return s.empty() ? "none" : s;
}

// "x == f32[64, 784], y == i64[64]": what a cached graph's arguments must be.
std::string arg_guards_text(const GraphModule& gm, const CompiledGraph& cg) {
  std::string s;
  for (size_t a = 0; a < cg.guards.args.size(); ++a)
    s += (s.empty() ? "" : ", ") + gm.arg_names[a] + " == " + cg.guards.args[a];
  return s;
}

std::string passes_text(const std::vector<graph::PassRecord>& records) {
  std::string s;
  for (const auto& r : records) s += (s.empty() ? "" : ", ") + r.name;
  return s.empty() ? "none (gm.optimize() runs the default pipeline)" : s;
}

}  // namespace

std::string describe_graph_module(const GraphModule& gm) {
  if (gm.graphs.empty()) return "graph module '" + gm.name + "' (nothing captured)";
  const CompiledGraph& cg = gm.graphs.at(gm.last_used);
  std::string guards = arg_guards_text(gm, cg);
  if (!cg.guards.training.empty()) guards += (guards.empty() ? "" : ", ") + std::string("training flags == ") + cg.guards.training;
  return "graph module '" + gm.name + "' (" + (gm.train ? "train" : "inference") + ")\n" +
         "  inputs:  " + values_text(cg.graph, cg.graph.inputs, true) + "\n" +
         "  outputs: " + values_text(cg.graph, cg.graph.outputs, false) + "\n" +
         "  nodes:   " + std::to_string(cg.captured.nodes.size()) + " captured, " +
         std::to_string(cg.graph.nodes.size()) + " after passes\n" +
         "  passes:  " + passes_text(cg.records) + "\n" +
         "  guards:  " + (guards.empty() ? "none" : guards) + "\n" +
         (gm.step ? "  " + gm.step->description() + "\n" : std::string()) +
         (cg.replay.summary().empty() ? std::string() : "  " + cg.replay.summary() + "\n") +
         "  graphs cached: " + std::to_string(gm.graphs.size());
}

std::string graph_heading(const GraphModule& gm) {
  const CompiledGraph& cg = gm.graphs.at(gm.last_used);
  return "graph module '" + gm.name + "' (" + (gm.train ? "train" : "inference") + "): " +
         std::to_string(cg.captured.nodes.size()) + " nodes captured, " + std::to_string(cg.graph.nodes.size()) +
         " after passes";
}

std::string graph_pass_report(const GraphModule& gm) {
  return graph::format_records(gm.graphs.at(gm.last_used).records);
}

const graph::Graph& graph_in_use(const GraphModule& gm) { return gm.graphs.at(gm.last_used).graph; }

Device graph_device(const GraphModule& gm) {
  const CompiledGraph& cg = gm.graphs.at(gm.last_used);
  for (const auto& [name, t] : cg.params)
    if (t.defined() && t.device().kind == DeviceKind::cuda) return t.device();
  for (const auto& [name, t] : cg.graph.constants)
    if (t.defined() && t.device().kind == DeviceKind::cuda) return t.device();
  return cpu_device();
}

std::string graph_ir(const GraphModule& gm, bool captured) {
  const CompiledGraph& cg = gm.graphs.at(gm.last_used);
  return graph::print_graph(captured ? cg.captured : cg.graph);
}

// The memory plan of the graph in use: the one the plan pass made, an empty one when
// the pipeline ran plan and the graph has no intermediates to plan, else an error
// that says how to get one.
graph::MemoryPlan memory_plan_of(const GraphModule& gm, const std::string& what) {
  const CompiledGraph& cg = gm.graphs.at(gm.last_used);
  if (cg.graph.plan) return *cg.graph.plan;
  if (std::find(gm.pipeline.begin(), gm.pipeline.end(), "plan") != gm.pipeline.end()) return graph::MemoryPlan{};
  fail("graph module: " + what + ": the graph has no memory plan; optimize it with a pipeline that ends in plan "
       "(\"default\" does)");
}

// memory_plan()["regions"]: one dict per planned loop body or branch (where,
// planned_bytes, naive_bytes, buffers); a scan's body is planned once for every step.
Value region_plan_list(const graph::Graph& g) {
  std::vector<Value> items;
  for (const auto& [where, p] : graph::region_plans(g)) {
    auto r = std::make_shared<DictObj>();
    r->set(make_str("where"), make_str(where));
    r->set(make_str("planned_bytes"), Value::integer(p.arena_bytes));
    r->set(make_str("naive_bytes"), Value::integer(p.naive_bytes));
    r->set(make_str("buffers"), Value::integer(static_cast<int64_t>(p.buffers.size())));
    items.push_back(Value::object(Tag::Dict, r));
  }
  return make_list(std::move(items));
}

std::string memory_plan_drawing(const GraphModule& gm) {
  const CompiledGraph& cg = gm.graphs.at(gm.last_used);
  graph::MemoryPlan p = memory_plan_of(gm, "render(memory=true)");
  return viz::memory_plan_dot(graph::plan_buffer_uses(cg.graph, p), graph::plan_step_labels(cg.graph),
                              "memory plan of " + gm.name);
}

std::string graph_drawing(const GraphModule& gm, const std::string& before_after) {
  const CompiledGraph& cg = gm.graphs.at(gm.last_used);
  if (before_after.empty()) return viz::graph_dot(cg.graph);
  graph::PipelineOptions opt = pipeline_options(gm);
  opt.snapshot_after = before_after;
  graph::Graph g = cg.captured;
  std::vector<std::string> passes = gm.pipeline;
  bool listed = false;
  for (auto& p : passes) listed |= p == before_after;
  if (!listed) passes = graph::parse_pipeline(before_after);  // a pass outside the pipeline: run it alone
  graph::PipelineResult r = graph::run_pipeline(g, passes, opt);
  return viz::diff_dot(r.before_snapshot, r.after_snapshot, before_after);
}

void render_graph(const GraphModule& gm, const std::string& path, const std::string& before_after) {
  viz::render(graph_drawing(gm, before_after), path);
}

// The input shapes of each cached graph, when they differ: "x == f32[2, 784]; x == f32[64, 784]".
std::string captured_shapes(const GraphModule& gm) {
  std::vector<std::string> seen;
  for (const CompiledGraph& cg : gm.graphs) {
    std::string s = arg_guards_text(gm, cg);
    if (std::find(seen.begin(), seen.end(), s) == seen.end()) seen.push_back(s);
  }
  std::string out;
  for (const std::string& s : seen) out += (out.empty() ? "" : "; ") + s;
  return seen.size() > 1 ? out : "";
}

void export_graph_onnx(const GraphModule& gm, const std::string& path) {
  if (gm.train)
    fail("export_onnx: graph module '" + gm.name + "' is a training step (compile(..., train=true)); ONNX export "
         "writes inference graphs: compile the model without train=true, or call export_onnx(model, inputs, path)");
  std::string shapes = captured_shapes(gm);
  if (!shapes.empty())
    fail("export_onnx: graph module '" + gm.name + "' was captured for several input shapes (" + shapes +
         "), a dynamic-shape graph; an ONNX export has static shapes: export one with "
         "export_onnx(model, example_inputs, path)");
  const CompiledGraph& cg = gm.graphs.at(gm.last_used);
  graph::export_onnx(cg.graph, cg.params, path);
}

}  // namespace nabla::interp
