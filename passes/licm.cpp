// Loop-invariant code motion: a node of a scan's or while_loop's body whose inputs
// are all invariant operands (See Note [Control-flow regions] in
// graph/control_flow.hpp), the body's own constants, or results of nodes moved
// already computes the same value at every iteration. It moves out, just before the
// loop, and the body reads its result as a new invariant operand (a while_loop's cond
// region takes it too, unused: the regions of a node take the same operands). Only
// table ops without effects move. Loops inside regions are handled where they are,
// since the pass manager runs every pass in regions too.
#include <algorithm>
#include <map>

#include "graph/control_flow.hpp"
#include "graph/rewrite.hpp"
#include "passes/passes.hpp"

namespace nabla::graph {

namespace {

bool is_loop(const Node& n) { return n.kind == NodeKind::scan || n.kind == NodeKind::while_loop; }

// The body region's index in the node, and its first invariant parameter.
size_t body_region(const Node& n) { return n.kind == NodeKind::scan ? 0 : 1; }
size_t first_invariant(const Node& n) {
  ControlLayout l = control_layout(n);
  return l.carried + l.scanned;
}

// Which body nodes are invariant (in body order, so a node's invariant inputs are
// marked before it).
std::vector<bool> invariant_nodes(const Graph& body, size_t first) {
  std::vector<bool> value(body.values.size(), false), node(body.nodes.size(), false);
  std::vector<int> params = region_params(body);
  for (size_t k = first; k < params.size(); ++k) value[static_cast<size_t>(params[k])] = true;
  for (int id : body.inputs)
    if (body.value(id).kind == ValueKind::constant) value[static_cast<size_t>(id)] = true;
  for (size_t i = 0; i < body.nodes.size(); ++i) {
    const Node& n = body.nodes[i];
    if (!Graph::table_op(n) || has_side_effect(n) || n.outputs.empty()) continue;
    bool all = true;
    for (int v : n.inputs) all = all && (v < 0 || value[static_cast<size_t>(v)]);
    if (!all) continue;
    node[i] = true;
    for (int v : n.outputs) value[static_cast<size_t>(v)] = true;
  }
  return node;
}

class Licm {
 public:
  Licm(Graph& g, const PassContext& ctx) : g_(g), ctx_(ctx) {}

  PassResult run() {
    for (size_t i = 0; i < g_.nodes.size(); ++i)
      if (is_loop(g_.nodes[i])) i += hoist_from(i);
    if (r_.changes) g_.compact({});
    return std::move(r_);
  }

 private:
  // Moves the invariant nodes of loop `index`'s body before it; returns how many.
  size_t hoist_from(size_t index) {
    Node& loop = g_.nodes[index];
    size_t first = first_invariant(loop);
    auto body = std::make_shared<Graph>(*loop.regions[body_region(loop)]);
    std::vector<bool> moving = invariant_nodes(*body, first);
    size_t count = static_cast<size_t>(std::count(moving.begin(), moving.end(), true));
    if (count == 0) return 0;
    std::vector<int> params = region_params(*body);
    std::map<int, int> outer;  // body value -> enclosing graph value
    for (size_t k = first; k < params.size(); ++k) outer[params[k]] = loop.inputs[k];
    std::vector<int> loop_inputs = loop.inputs;
    std::string origin = loop.origin;
    size_t old_size = g_.nodes.size();
    for (size_t i = 0; i < body->nodes.size(); ++i)
      if (moving[i]) move_node(*body, body->nodes[i], outer);
    std::vector<int> added = read_as_operands(*body, moving, outer, loop_inputs);
    // Put the moved nodes just before the loop.
    std::vector<Node> order(g_.nodes.begin(), g_.nodes.begin() + static_cast<long>(index));
    order.insert(order.end(), g_.nodes.begin() + static_cast<long>(old_size), g_.nodes.end());
    order.insert(order.end(), g_.nodes.begin() + static_cast<long>(index), g_.nodes.begin() + static_cast<long>(old_size));
    g_.nodes = std::move(order);
    Node& moved_loop = g_.nodes[index + count];
    moved_loop.inputs = loop_inputs;
    moved_loop.regions[body_region(moved_loop)] = body;
    if (moved_loop.kind == NodeKind::while_loop) take_unused(moved_loop, added);
    r_.changes += static_cast<int>(count);
    if (ctx_.explain)
      r_.notes.push_back("moved " + std::to_string(count) + " loop-invariant node" + (count == 1 ? "" : "s") +
                         " out of the " + moved_loop.name() + (origin.empty() ? "" : " at " + origin));
    return count;
  }

  // A copy of body node n in the enclosing graph (appended; the caller reorders).
  void move_node(const Graph& body, const Node& n, std::map<int, int>& outer) {
    std::vector<int> ins;
    for (int v : n.inputs) ins.push_back(v < 0 ? -1 : outer_value(body, v, outer));
    std::vector<TensorMeta> metas;
    for (int v : n.outputs) metas.push_back(body.value(v).meta);
    int added = g_.add_node(n.operation(), ins, n.attrs, metas, n.origin);
    for (size_t k = 0; k < n.outputs.size(); ++k) outer[n.outputs[k]] = g_.nodes[static_cast<size_t>(added)].outputs[k];
  }

  int outer_value(const Graph& body, int v, std::map<int, int>& outer) {
    auto it = outer.find(v);
    if (it != outer.end()) return it->second;
    const Value& c = body.value(v);  // a body constant: the enclosing graph's own copy
    int id = g_.add_constant(body.constants.at(c.name));
    return outer[v] = id;
  }

  // The body reads each moved result that stays in use as a new invariant input; the
  // moved nodes go. Returns the new inputs' types, in order.
  std::vector<int> read_as_operands(Graph& body, const std::vector<bool>& moving, const std::map<int, int>& outer,
                                    std::vector<int>& loop_inputs) {
    std::map<int, int> replaced;  // moved body value -> new body input
    std::vector<int> added;
    auto input_for = [&](int v) {
      auto it = replaced.find(v);
      if (it != replaced.end()) return it->second;
      int id = body.add_input("hoisted" + std::to_string(replaced.size()) + "_" + std::to_string(v), ValueKind::input,
                              body.value(v).meta);
      loop_inputs.push_back(outer.at(v));
      added.push_back(outer.at(v));
      return replaced[v] = id;
    };
    auto moved_value = [&](int v) {  // v < 0: an absent optional input (batch_norm_backward's none)
      return v >= 0 && body.value(v).kind == ValueKind::op && moving[static_cast<size_t>(body.value(v).node)];
    };
    for (size_t i = 0; i < body.nodes.size(); ++i) {
      if (moving[i]) continue;
      for (int& v : body.nodes[i].inputs)
        if (moved_value(v)) v = input_for(v);
    }
    for (int& v : body.outputs)
      if (moved_value(v)) v = input_for(v);
    // The new inputs go after the other parameters and before the constants.
    std::vector<int> inputs;
    for (int id : body.inputs)
      if (body.value(id).kind != ValueKind::constant) inputs.push_back(id);
    for (int id : body.inputs)
      if (body.value(id).kind == ValueKind::constant) inputs.push_back(id);
    body.inputs = std::move(inputs);
    body.compact(moving);
    remove_constants(body, [&](int id) {
      for (const Node& n : body.nodes)
        for (int v : n.inputs)
          if (v == id) return false;
      return std::find(body.outputs.begin(), body.outputs.end(), id) == body.outputs.end();
    });
    body.compact({});
    return added;
  }

  // A while_loop's cond region takes the new operands too, unused.
  void take_unused(Node& loop, const std::vector<int>& added) {
    auto cond = std::make_shared<Graph>(*loop.regions[0]);
    std::vector<int> inputs = region_params(*cond);
    for (int v : added) inputs.push_back(cond->add_input("hoisted_unused" + std::to_string(v), ValueKind::input, g_.value(v).meta));
    for (int id : cond->inputs)
      if (cond->value(id).kind == ValueKind::constant) inputs.push_back(id);
    cond->inputs = std::move(inputs);
    cond->compact({});
    loop.regions[0] = cond;
  }

  Graph& g_;
  const PassContext& ctx_;
  PassResult r_;
};

PassResult run_licm(Graph& g, const PassContext& ctx) { return Licm(g, ctx).run(); }

}  // namespace

PassInfo licm_pass() {
  return {"licm", "loop-invariant code motion: move loop body nodes that read only invariant operands before the loop",
          {}, run_licm};
}

}  // namespace nabla::graph
