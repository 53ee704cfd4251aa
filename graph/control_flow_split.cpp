// Splitting a step's VJP region into what the forward saves and what the backward
// computes (See graph/control_flow_split.hpp). A value is primal when it is a carry,
// row or invariant input, a constant, or made by a node whose inputs are all primal;
// the other nodes read a cotangent and stay in the backward, with the cheap primal
// nodes they read (elementwise ops, views: recomputed). The primal values the
// backward then reads are saved: the forward computes them (the `cse` pass merges
// what repeats the body's own ops) and yields them.
#include "graph/control_flow_split.hpp"

#include "graph/control_flow.hpp"

namespace nabla::graph {

namespace {

// Copies node n of `from` into `to`, its inputs mapped by `map` (to's ids); maps its outputs.
void copy_node(Graph& to, const Graph& from, const Node& n, std::vector<int>& map) {
  std::vector<int> inputs;
  for (int id : n.inputs) {
    int to_id = id < 0 ? -1 : map[static_cast<size_t>(id)];
    if (id >= 0 && to_id < 0) throw Error("splitting a loop step's gradient: " + n.name() + " reads a value neither side has");
    inputs.push_back(to_id);
  }
  std::vector<TensorMeta> metas;
  for (int id : n.outputs) metas.push_back(from.value(id).meta);
  int k = to.add_node(n.operation(), inputs, n.attrs, metas, n.origin);
  Node& copy = to.nodes[static_cast<size_t>(k)];
  copy.regions = n.regions;
  copy.body = n.body;
  copy.absorbed = n.absorbed;
  for (size_t j = 0; j < n.outputs.size(); ++j) map[static_cast<size_t>(n.outputs[j])] = copy.outputs[j];
}

// Maps the constants of `from` that `to` needs, as `to`'s own constants.
void map_constants(Graph& to, const Graph& from, std::vector<int>& map) {
  for (int id : from.inputs)
    if (from.value(id).kind == ValueKind::constant) map[static_cast<size_t>(id)] = to.add_constant(from.constants.at(from.value(id).name));
}

// An op the backward recomputes rather than reads saved: elementwise or a view (never
// a draw: Note [Random draws in a differentiated region], control_flow_grad.cpp).
bool cheap_to_recompute(const Node& n) {
  const OpDef* def = Graph::table_op(n);
  return def && (def->elementwise || def->view) && !draws_random_numbers(n.op);
}

bool is_draw(const Node& n) { return n.kind == NodeKind::table && draws_random_numbers(n.op); }

bool draws_inside(const Node& n) {
  if (is_draw(n)) return true;
  for (const auto& r : n.regions)
    if (r)
      for (const Node& inner : r->nodes)
        if (draws_inside(inner)) return true;
  return false;
}

// The body's draws, in order: the VJP's trace replayed the body's nodes in order, so
// its k-th draw is the body's k-th.
std::vector<const Node*> draws_of(const Graph& g) {
  std::vector<const Node*> out;
  for (const Node& n : g.nodes)
    if (is_draw(n)) out.push_back(&n);
  return out;
}

// Maps the VJP's draw n onto the body's draw `own` instead of copying it into the
// forward, where it would draw again: the saved values are the body's own numbers.
void map_draw(const Node& n, const Node* own, std::vector<int>& map) {
  if (!own || own->op != n.op || own->outputs.size() != n.outputs.size())
    throw Error("splitting a loop step's gradient: its draws do not match the body's");
  for (size_t j = 0; j < n.outputs.size(); ++j) map[static_cast<size_t>(n.outputs[j])] = own->outputs[j];
}

}  // namespace

SplitStep split_step(const Graph& body, const Graph& vjp, const StepLayout& l, bool recompute_cheap) {
  std::vector<int> params = region_params(vjp);
  size_t primal_from = l.front, primal_to = l.front + l.carry + l.rows, inv_from = primal_to + l.back;
  std::vector<bool> primal(vjp.values.size(), false), primal_node(vjp.nodes.size(), true);
  for (size_t k = 0; k < params.size(); ++k)
    primal[static_cast<size_t>(params[k])] = (k >= primal_from && k < primal_to) || k >= inv_from;
  for (int id : vjp.inputs)
    if (vjp.value(id).kind == ValueKind::constant) primal[static_cast<size_t>(id)] = true;
  for (size_t i = 0; i < vjp.nodes.size(); ++i) {
    for (int id : vjp.nodes[i].inputs)
      if (id >= 0 && !primal[static_cast<size_t>(id)]) primal_node[i] = false;
    for (int id : vjp.nodes[i].outputs) primal[static_cast<size_t>(id)] = primal_node[i];
  }
  // The backward runs the nodes that read a cotangent, and recomputes the cheap primal
  // nodes (elementwise ops, views) they read rather than saving their results: it
  // saves what the expensive ones (matmuls, reductions, ...) made, as PyTorch's
  // min-cut partitioner of AOTAutograd prefers (unless told to save them all).
  std::vector<bool> in_backward(vjp.nodes.size()), read_by_backward(vjp.values.size(), false);
  for (int id : vjp.outputs) read_by_backward[static_cast<size_t>(id)] = true;
  for (size_t i = vjp.nodes.size(); i-- > 0;) {
    const Node& n = vjp.nodes[i];
    bool wanted = false;
    for (int id : n.outputs) wanted = wanted || read_by_backward[static_cast<size_t>(id)];
    in_backward[i] = !primal_node[i] || (recompute_cheap && wanted && cheap_to_recompute(n));
    if (in_backward[i])
      for (int id : n.inputs)
        if (id >= 0) read_by_backward[static_cast<size_t>(id)] = true;
  }
  // Saved: primal op values made in the forward that the backward reads.
  std::vector<bool> is_saved(vjp.values.size(), false);
  for (size_t i = 0; i < vjp.nodes.size(); ++i)
    if (!in_backward[i])
      for (int id : vjp.nodes[i].outputs) is_saved[static_cast<size_t>(id)] = read_by_backward[static_cast<size_t>(id)];
  std::vector<int> saved;
  for (size_t id = 0; id < is_saved.size(); ++id)
    if (is_saved[id]) saved.push_back(static_cast<int>(id));

  // The primal nodes the saved values need (the forward computes only those).
  std::vector<bool> needed(is_saved), feeds_saved(vjp.nodes.size(), false);
  for (size_t i = vjp.nodes.size(); i-- > 0;) {
    const Node& n = vjp.nodes[i];
    // (a cheap node the backward recomputes may also feed a saved value here)
    for (int id : n.outputs) feeds_saved[i] = feeds_saved[i] || (primal_node[i] && needed[static_cast<size_t>(id)]);
    if (feeds_saved[i])
      for (int id : n.inputs)
        if (id >= 0) needed[static_cast<size_t>(id)] = true;
  }

  SplitStep s;
  // The forward: the body, then the primal nodes, yielding the saved values too.
  s.forward = std::make_shared<Graph>(body);
  std::vector<int> fmap(vjp.values.size(), -1), body_params = region_params(body);
  for (size_t k = 0; k < l.carry + l.rows; ++k) fmap[static_cast<size_t>(params[primal_from + k])] = body_params[k];
  for (size_t k = 0; k < l.invariants; ++k)
    fmap[static_cast<size_t>(params[inv_from + k])] = body_params[l.carry + l.rows + k];
  map_constants(*s.forward, vjp, fmap);
  std::vector<const Node*> own_draws = draws_of(body);
  size_t next_draw = 0;
  for (size_t i = 0; i < vjp.nodes.size(); ++i) {
    const Node& n = vjp.nodes[i];
    if (is_draw(n)) {
      map_draw(n, next_draw < own_draws.size() ? own_draws[next_draw] : nullptr, fmap);
      ++next_draw;
    } else if (feeds_saved[i]) {
      if (draws_inside(n))
        throw Error("gradient of a loop step: its " + n.name() + (n.origin.empty() ? "" : " (" + n.origin + ")") +
                    " draws random numbers inside a nested branch or loop, which the step's backward cannot reuse "
                    "(Note [Random draws in a differentiated region]): draw them outside the nested statement");
      copy_node(*s.forward, vjp, n, fmap);
    }
  }
  for (int id : saved) {
    s.forward->outputs.push_back(fmap[static_cast<size_t>(id)]);
    s.saved.push_back(vjp.value(id).meta);
  }
  // The backward: the nodes that read a cotangent, the saved rows bound after the rows.
  s.backward = std::make_shared<Graph>();
  s.backward->name = vjp.name;
  Graph& b = *s.backward;
  std::vector<int> bmap(vjp.values.size(), -1);
  auto bind = [&](size_t k) {
    const Value& v = vjp.value(params[k]);
    bmap[static_cast<size_t>(params[k])] = b.add_input(v.name, ValueKind::input, v.meta);
  };
  for (size_t k = 0; k < primal_to; ++k) bind(k);
  for (size_t j = 0; j < saved.size(); ++j)
    bmap[static_cast<size_t>(saved[j])] = b.add_input("saved" + std::to_string(j), ValueKind::input, s.saved[j]);
  for (size_t k = primal_to; k < params.size(); ++k) bind(k);
  map_constants(b, vjp, bmap);
  for (size_t i = 0; i < vjp.nodes.size(); ++i)
    if (in_backward[i]) copy_node(b, vjp, vjp.nodes[i], bmap);
  for (int id : vjp.outputs) b.outputs.push_back(bmap[static_cast<size_t>(id)]);
  b.compact({});  // constants only the forward reads go
  return s;
}

}  // namespace nabla::graph
