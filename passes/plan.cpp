// The memory-planning pass `plan`: stores plan_memory's plan (graph/memory_planner.cpp)
// on the graph, where the executor finds it, and on each control-flow region (the
// pass manager runs it in regions too): a scan's body is planned once, and its arena
// serves every iteration (graph/control_flow_exec.cpp). It must run last: the
// verifier checks each plan against its graph after every later pass
// (graph/memory_plan.hpp).
#include "graph/memory_plan.hpp"
#include "passes/passes.hpp"

namespace nabla::graph {

namespace {

// A new plan, or 0 changes when the graph already carries this very plan (so a
// second run changes nothing). A graph without intermediates gets no plan at all.
PassResult run_plan(Graph& g, const PassContext& ctx) {
  std::vector<std::string> refusals;
  MemoryPlan p = plan_memory(g, ctx.explain ? &refusals : nullptr);
  PassResult r;
  if (p.buffers.empty()) {
    r.changes = g.plan ? 1 : 0;
    g.plan = nullptr;
  } else if (!g.plan || !(*g.plan == p)) {
    r.changes = static_cast<int>(p.buffers.size());
    g.plan = std::make_shared<const MemoryPlan>(p);
  }
  r.notes.push_back(plan_summary(p));
  for (std::string& line : refusals) r.notes.push_back(std::move(line));
  return r;
}

}  // namespace

PassInfo plan_pass() {
  return {"plan",
          "memory planning: liveness, buffer reuse in an arena and safe in-place; the executor uses the plan (run last)",
          {},
          run_plan,
          /*retypes=*/false,
          /*top_level_only=*/false};  // a loop body gets a plan of its own, its arena kept across iterations
}

}  // namespace nabla::graph
