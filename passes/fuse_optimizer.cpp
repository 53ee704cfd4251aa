// The fuse_optimizer pass: a training step with its optimizer inside (compile(...,
// optimizer=opt), Note [The optimizer inside the graph] in interp/builtins/
// graph_step.cpp) has one adam_step_ or sgd_step_ row per parameter; the rows of one
// parameter group become one node.
//
// Note [A group's steps in one kernel]
// A run of consecutive rows of one kind, reading one hyper tensor and one found_inf
// (a parameter group's, as stdlib/_optim_graph.dsl records them) with the same flag,
// becomes one custom node `optimizer_steps` at the last row's place, whose body is the
// rows (fuse_nodes). Its kernel (graph/fused_kernels.cpp) runs the group as one
// multi-tensor update, the eager optimizers' own (tensor/optim.hpp's OptimizerRows):
// on a GPU two launches per 16 parameters instead of two per parameter, which in a
// replayed CUDA graph are two nodes instead of dozens. The rows are bit-equal to it;
// where the kernel cannot take the tensors (strided, mixed dtypes) the node runs its
// body. Only consecutive rows merge, so no write moves past another node's read: the
// node writes what its rows wrote (graph/rewrite.hpp's written_inputs), at the last
// one's place, and nothing between them read it.
#include "graph/rewrite.hpp"
#include "passes/passes.hpp"

namespace nabla::graph {

namespace {

bool optimizer_row(const Node& n) {
  return Graph::table_op(n) && (n.op == OpId::adam_step_ || n.op == OpId::sgd_step_);
}

// The inputs a row shares with its group: hyper and found_inf (their slots per row).
std::pair<int, int> group_inputs(const Node& n) {
  return n.op == OpId::adam_step_ ? std::pair<int, int>{n.inputs[5], n.inputs[6]}
                                  : std::pair<int, int>{n.inputs[4], n.inputs[5]};
}

bool same_group(const Node& a, const Node& b) {
  const char* flag = a.op == OpId::adam_step_ ? "decoupled" : "nesterov";
  return a.op == b.op && group_inputs(a) == group_inputs(b) && a.attrs.b(flag) == b.attrs.b(flag);
}

PassResult run_fuse_optimizer(Graph& g, const PassContext& ctx) {
  PassResult r;
  std::vector<std::vector<int>> runs;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (!optimizer_row(n)) continue;
    bool extends = !runs.empty() && runs.back().back() == static_cast<int>(i) - 1 &&
                   same_group(g.nodes[static_cast<size_t>(runs.back().back())], n);
    if (extends) runs.back().push_back(static_cast<int>(i));
    else runs.push_back({static_cast<int>(i)});
  }
  std::vector<bool> dead(g.nodes.size(), false);
  for (const std::vector<int>& members : runs) {
    if (members.size() < 2) {
      if (ctx.explain)
        r.notes.push_back(describe_node(g, g.nodes[static_cast<size_t>(members[0])]) +
                          ": one row of its group here; it stays a row");
      continue;
    }
    fuse_nodes(g, members, Node::named(kOptimizerSteps), dead, true);
    ++r.changes;
  }
  if (r.changes) g.compact(dead);
  return r;
}

}  // namespace

PassInfo fuse_optimizer_pass() {
  return {"fuse_optimizer",
          "a parameter group's optimizer steps (adam_step_, sgd_step_ rows in a row) become one multi-tensor node",
          {},
          run_fuse_optimizer};
}

}  // namespace nabla::graph
