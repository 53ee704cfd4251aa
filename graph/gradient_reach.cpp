// Note [Gradients a lowered branch may not reach] (graph/gradient_reach.hpp).
#include "graph/gradient_reach.hpp"

#include <unordered_map>

#include "autograd/grad_mode.hpp"
#include "autograd/node.hpp"
#include "autograd/op_table.hpp"
#include "autograd/ops.hpp"
#include "graph/control_flow.hpp"
#include "graph/control_flow_carries.hpp"
#include "graph/control_flow_grad.hpp"
#include "graph/control_flow_step_reach.hpp"
#include "graph/ir.hpp"

namespace nabla::graph {

namespace {

// When the loss's gradient reaches a slot: always, never, or where a 0-dim flag is 1.
using Reach = BranchReach;

const Reach kAlways{true, Tensor()};

// The reach each next edge of cond backward `node` gets, its outputs reaching as `out`:
// each side walked from them where taken, with the predicates of the conds inside it
// where the capture exported them (Note [Branches inside a loop step]).
std::vector<Reach> cond_edges(const nabla::Node& node, const Node& cond, const Tensor& pred, const std::vector<Reach>& out) {
  static const CondPredicates none;
  const CondPredicates* nested = control_flow_cond_predicates(node);
  const CondPredicates& preds = nested ? *nested : none;
  std::vector<Reach> operands = cond_operand_reach(cond, pred, preds.trees, preds.values, out);
  std::vector<Reach> edges(node.next_edges.size());
  for (const Reach& r : out)
    if (!edges.empty()) edges[0] = either(edges[0], r);  // the predicate (it carries no gradient)
  for (size_t i = 1; i < edges.size() && i - 1 < operands.size(); ++i) edges[i] = operands[i - 1];
  return edges;
}

// The reach each input of a loop gets: its outputs' where it carries a gradient to
// them (Note [Outputs a lowered region does not differentiate]), and all of those the
// capture added for the backward.
std::vector<Reach> loop_edges(const CarryTable& carries, const std::vector<Reach>& out, size_t inputs) {
  std::vector<Reach> edges(inputs);
  for (size_t k = 0; k < inputs; ++k)
    for (size_t j = 0; j < out.size(); ++j)
      if (k >= carries.size() || j >= carries[k].size() || carries[k][j]) edges[k] = either(edges[k], out[j]);
  return edges;
}

// Whether a loop node runs no step (then no gradient goes through it).
bool runs_no_step(const Node& loop) {
  if (loop.kind == NodeKind::scan) return control_layout(loop).length == 0;
  return loop.attrs.has("trips") && loop.attrs.i("trips") == 0;
}

class ReachWalk {
 public:
  // The slots reached from root edge `root` (the loss's), each node once its inputs'
  // contributions are all in (the nodes in topological order, as the engine runs them).
  explicit ReachWalk(const Edge& root) {
    count_inputs(root.fn.get());
    deliver(root, kAlways);
    std::vector<nabla::Node*> ready{root.fn.get()};
    while (!ready.empty()) {
      nabla::Node* n = ready.back();
      ready.pop_back();
      std::vector<Reach> edges = edges_of(*n, slots_[n]);
      for (size_t i = 0; i < n->next_edges.size(); ++i) {
        const Edge& e = n->next_edges[i];
        if (!e.valid()) continue;
        deliver(e, edges[i]);
        if (--pending_[e.fn.get()] == 0) ready.push_back(e.fn.get());
      }
    }
  }

  Reach at(const Edge& e) const {
    auto it = slots_.find(e.fn.get());
    return it == slots_.end() || e.input_nr >= it->second.size() ? Reach{} : it->second[e.input_nr];
  }

 private:
  void count_inputs(nabla::Node* root) {
    std::vector<nabla::Node*> stack{root};
    pending_[root] = 0;
    while (!stack.empty()) {
      nabla::Node* n = stack.back();
      stack.pop_back();
      for (const Edge& e : n->next_edges) {
        if (!e.valid()) continue;
        auto [it, fresh] = pending_.try_emplace(e.fn.get(), 0);
        ++it->second;
        if (fresh) stack.push_back(e.fn.get());
      }
    }
  }

  void deliver(const Edge& e, const Reach& r) {
    std::vector<Reach>& slots = slots_[e.fn.get()];
    if (slots.size() <= e.input_nr) slots.resize(e.input_nr + 1);
    slots[e.input_nr] = either(slots[e.input_nr], r);
  }

  static std::vector<Reach> edges_of(const nabla::Node& n, const std::vector<Reach>& out) {
    Tensor first_input;
    const Node* forward = control_flow_forward(n, &first_input);
    if (forward && forward->kind == NodeKind::cond && first_input.defined()) return cond_edges(n, *forward, first_input, out);
    Reach any;
    for (const Reach& r : out) any = either(any, r);
    if (forward && runs_no_step(*forward)) any = {};
    const CarryTable* carries = control_flow_carries(n);
    if (!forward || !carries || any.never()) return std::vector<Reach>(n.next_edges.size(), any);
    std::vector<Reach> edges = loop_edges(*carries, out, n.next_edges.size());
    if (const CondPredicates* steps = control_flow_cond_predicates(n)) {  // Note [Reach along a loop's steps]
      std::vector<Reach> reach = loop_input_reach(*forward, steps->trees[0], steps->values, out);
      for (size_t k = 0; k < edges.size() && k < reach.size(); ++k) edges[k] = both(edges[k], reach[k]);
    }
    return edges;
  }

  std::unordered_map<nabla::Node*, size_t> pending_;
  std::unordered_map<nabla::Node*, std::vector<Reach>> slots_;
};

}  // namespace

TensorList gradient_reach(const Tensor& loss, const TensorList& targets) {
  TensorList flags(targets.size());
  if (!loss.requires_grad()) return flags;
  NoGradGuard no_grad;
  ReachWalk walk(gradient_edge(loss));
  for (size_t k = 0; k < targets.size(); ++k) {
    Reach r = walk.at(gradient_edge(targets[k]));
    if (!r.always) flags[k] = r.flag.defined() ? r.flag : zeros({}, DType::f32, loss.device());
  }
  return flags;
}

}  // namespace nabla::graph
