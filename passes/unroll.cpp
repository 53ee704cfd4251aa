// Unrolling short scans: a scan whose steps hold few nodes in all becomes its steps,
// one copy of the body per row, in the enclosing graph.
//
// Note [When a scan unrolls]
// A scan runs its body once per step through the executor, which costs per step (the
// body's run, a copy of each carry and each row's output) and hides the steps from
// each other: fusion and memory planning see one step, and nothing crosses steps. A
// few steps of a small body cost less unrolled; many steps of any body cost more
// (compile time and IR grow with the length: the LSTM step at length 256 compiles 15x
// faster rolled). So a scan unrolls when length x body nodes <= kUnrollBudget and its
// body holds only table ops (a nested loop or fused body stays rolled, and so does a
// scan of no steps). Each scan gets a note either way, with the count that decided.
// `gm.render(path, "unroll")` draws the graph before and after.
#include <map>

#include "graph/control_flow.hpp"
#include "graph/rewrite.hpp"
#include "passes/passes.hpp"

namespace nabla::graph {

namespace {

constexpr int64_t kUnrollBudget = 64;

// Why scan n stays rolled, or "" when it unrolls.
std::string keeps_rolled(const Node& n) {
  ControlLayout l = control_layout(n);
  const Graph& body = *n.regions[0];
  int64_t nodes = static_cast<int64_t>(body.nodes.size());
  std::string count = std::to_string(l.length) + " steps x " + std::to_string(nodes) + " body nodes = " +
                      std::to_string(l.length * nodes);
  if (l.length == 0) return "it has no steps";
  for (const Node& b : body.nodes)
    if (!Graph::table_op(b)) return "its body holds " + b.name() + ", which is unrolled only as a table op";
  if (l.length * nodes > kUnrollBudget)
    return count + " nodes unrolled, over the budget of " + std::to_string(kUnrollBudget);
  return "";
}

class Unroll {
 public:
  explicit Unroll(Graph& g) : g_(g) {}

  PassResult run() {
    std::vector<Node> before = std::move(g_.nodes);
    g_.nodes.clear();
    std::vector<bool> dead;
    for (Node& n : before) {
      for (int& v : n.inputs)
        if (v >= 0) v = resolve(v);
      if (n.kind != NodeKind::scan) {
        g_.nodes.push_back(std::move(n));
        continue;
      }
      std::string why = keeps_rolled(n);
      r_.notes.push_back(note(n, why));
      if (!why.empty()) {
        g_.nodes.push_back(std::move(n));
        continue;
      }
      unroll(n);
      ++r_.changes;
    }
    for (int& v : g_.outputs) v = resolve(v);
    if (r_.changes) g_.compact(std::vector<bool>(g_.nodes.size(), false));
    return std::move(r_);
  }

 private:
  int resolve(int v) const {
    auto it = replaced_.find(v);
    return it == replaced_.end() ? v : it->second;
  }

  std::string note(const Node& n, const std::string& why) const {
    ControlLayout l = control_layout(n);
    std::string where = "scan" + (n.origin.empty() ? std::string() : " at " + n.origin);
    if (!why.empty()) return "kept the " + where + " rolled: " + why;
    return "unrolled the " + where + " (" + std::to_string(l.length) + " steps x " +
           std::to_string(n.regions[0]->nodes.size()) + " body nodes, within the budget of " +
           std::to_string(kUnrollBudget) + "): the steps fuse and plan together, without the loop's per-step runs";
  }

  int add(OpId op, std::vector<int> inputs, Attrs attrs, const TensorMeta& meta, const std::string& origin) {
    int k = g_.add_node(op, std::move(inputs), std::move(attrs), {meta}, origin);
    return g_.nodes[static_cast<size_t>(k)].outputs[0];
  }

  // The steps of scan n, appended to the graph; n's outputs are replaced by theirs.
  void unroll(const Node& n) {
    ControlLayout l = control_layout(n);
    const Graph& body = *n.regions[0];
    std::vector<int> params = region_params(body);
    std::vector<int> uses = body.use_counts();
    std::map<int, int> constants;  // body constant -> the enclosing graph's copy
    std::vector<int> carry(n.inputs.begin(), n.inputs.begin() + static_cast<long>(l.carried));
    std::vector<std::vector<int>> ys(body.outputs.size() - l.carried, std::vector<int>(l.length));
    std::vector<std::vector<int>> entering(l.carried, std::vector<int>(l.length));
    for (int64_t i = 0; i < l.length; ++i) {
      int64_t step = l.reverse ? l.length - 1 - i : i;
      std::map<int, int> outer;  // body value -> enclosing value, for this step
      for (size_t k = 0; k < l.carried; ++k) {
        outer[params[k]] = carry[k];
        entering[k][static_cast<size_t>(step)] = carry[k];
      }
      for (size_t k = 0; k < l.scanned; ++k) {
        int row = params[l.carried + k];
        if (uses[static_cast<size_t>(row)] == 0) continue;  // a loop counter the body never reads
        outer[row] = add(OpId::select, {n.inputs[l.carried + k]}, Attrs{{"dim", int64_t{0}}, {"index", step}},
                         body.value(row).meta, n.origin);
      }
      for (size_t k = l.carried + l.scanned; k < params.size(); ++k) outer[params[k]] = n.inputs[k];
      for (const Node& b : body.nodes) copy_node(body, b, outer, constants);
      for (size_t k = 0; k < l.carried; ++k) carry[k] = outer_value(body, body.outputs[k], outer, constants);
      for (size_t j = 0; j < ys.size(); ++j)
        ys[j][static_cast<size_t>(step)] = outer_value(body, body.outputs[l.carried + j], outer, constants);
    }
    for (size_t k = 0; k < l.carried; ++k) replaced_[n.outputs[k]] = carry[k];
    for (size_t j = 0; j < ys.size(); ++j) replaced_[n.outputs[l.carried + j]] = stacked(n, ys[j], l.carried + j);
    if (l.stacks_carries)
      for (size_t k = 0; k < l.carried; ++k)
        replaced_[n.outputs[l.carried + ys.size() + k]] = stacked(n, entering[k], l.carried + ys.size() + k);
  }

  int stacked(const Node& n, const std::vector<int>& rows, size_t output) {
    return add(OpId::stack, rows, Attrs{{"dim", int64_t{0}}}, g_.value(n.outputs[output]).meta, n.origin);
  }

  void copy_node(const Graph& body, const Node& b, std::map<int, int>& outer, std::map<int, int>& constants) {
    std::vector<int> ins;
    for (int v : b.inputs) ins.push_back(v < 0 ? -1 : outer_value(body, v, outer, constants));
    std::vector<TensorMeta> metas;
    for (int v : b.outputs) metas.push_back(body.value(v).meta);
    int k = g_.add_node(b.operation(), ins, b.attrs, metas, b.origin);
    for (size_t j = 0; j < b.outputs.size(); ++j) outer[b.outputs[j]] = g_.nodes[static_cast<size_t>(k)].outputs[j];
  }

  int outer_value(const Graph& body, int v, std::map<int, int>& outer, std::map<int, int>& constants) {
    auto it = outer.find(v);
    if (it != outer.end()) return it->second;
    auto c = constants.find(v);
    if (c != constants.end()) return c->second;
    const Value& value = body.value(v);  // a body constant: one copy in the enclosing graph
    int id = g_.add_constant(body.constants.at(value.name));
    g_.value(id).wrapped = value.wrapped;
    return constants[v] = id;
  }

  Graph& g_;
  PassResult r_;
  std::map<int, int> replaced_;  // scan output -> the unrolled steps' value
};

PassResult run_unroll(Graph& g, const PassContext&) { return Unroll(g).run(); }

}  // namespace

PassInfo unroll_pass() {
  return {"unroll", "unroll short scans (steps x body nodes within a budget) into their steps; a note per scan says why",
          {}, run_unroll};
}

}  // namespace nabla::graph
