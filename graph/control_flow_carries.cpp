// Note [Outputs a lowered region does not differentiate] (graph/control_flow_carries.hpp).
#include "graph/control_flow_carries.hpp"

#include "autograd/op_table.hpp"
#include "graph/control_flow.hpp"

namespace nabla::graph {

CarryTable region_carries(const Graph& region) {
  std::vector<int> params = region_params(region);
  CarryTable carries(params.size(), std::vector<bool>(region.outputs.size(), false));
  for (size_t k = 0; k < params.size(); ++k) {
    std::vector<bool> carried(region.values.size(), false);
    carried[static_cast<size_t>(params[k])] = true;
    for (const Node& n : region.nodes) {
      std::vector<bool> from(n.inputs.size(), false);
      bool from_input = false;
      for (size_t i = 0; i < n.inputs.size(); ++i)
        from_input |= from[i] = n.inputs[i] >= 0 && carried[static_cast<size_t>(n.inputs[i])];
      if (!from_input) continue;
      const OpDef* def = Graph::table_op(n);
      if (def && !def->backward) continue;
      CarryTable nested = is_control_flow(n) ? node_carries(n) : CarryTable();
      for (size_t o = 0; o < n.outputs.size(); ++o) {
        bool nondiff = def && o < 32 && ((def->nondiff_outputs >> o) & 1u);
        if (!nested.empty() && o < nested[0].size()) {
          nondiff = true;  // a nested node's output: from the inputs that reach it
          for (size_t i = 0; i < from.size() && i < nested.size(); ++i) nondiff &= !(from[i] && nested[i][o]);
        }
        if (!nondiff && is_floating(region.value(n.outputs[o]).meta.dtype))
          carried[static_cast<size_t>(n.outputs[o])] = true;
      }
    }
    for (size_t j = 0; j < region.outputs.size(); ++j) carries[k][j] = carried[static_cast<size_t>(region.outputs[j])];
  }
  return carries;
}

namespace {

// A cond: its predicate carries nothing; operand k reaches output j through either side.
CarryTable cond_carries(const Node& n) {
  CarryTable then_side = region_carries(*n.regions[0]), else_side = region_carries(*n.regions[1]);
  size_t outs = n.regions[0]->outputs.size();
  CarryTable t(1 + then_side.size(), std::vector<bool>(outs, false));
  for (size_t k = 0; k < then_side.size(); ++k)
    for (size_t j = 0; j < outs; ++j) t[k + 1][j] = then_side[k][j] || (k < else_side.size() && else_side[k][j]);
  return t;
}

// A loop whose body maps inputs (carries first) to outputs (next carries first):
// what input k reaches over any number of steps; with `may_skip`, a carry also
// reaches its own output unchanged (no step ran).
CarryTable loop_carries(const Graph& body, size_t carried, bool may_skip) {
  CarryTable step = region_carries(body);
  CarryTable t = step;
  for (size_t k = 0; k < t.size(); ++k) {
    if (may_skip && k < carried && k < t[k].size()) t[k][k] = true;
    for (bool grew = true; grew;) {  // a carry it reaches feeds the next step's outputs
      grew = false;
      for (size_t c = 0; c < carried && c < step.size() && c < t[k].size(); ++c) {
        if (!t[k][c]) continue;
        for (size_t j = 0; j < t[k].size(); ++j)
          if (step[c][j] && !t[k][j]) t[k][j] = grew = true;
      }
    }
  }
  return t;
}

}  // namespace

CarryTable node_carries(const Node& n) {
  if (n.kind == NodeKind::cond) return cond_carries(n);
  ControlLayout l = control_layout(n);
  if (n.kind == NodeKind::scan) {
    if (l.length > 0) return loop_carries(*n.regions[0], l.carried, false);
    CarryTable t = region_carries(*n.regions[0]);  // no step: each carry comes out as it went in
    for (size_t k = 0; k < t.size(); ++k)
      for (size_t j = 0; j < t[k].size(); ++j) t[k][j] = k == j && k < l.carried;
    return t;
  }
  bool may_skip = !(n.attrs.has("trips") && n.attrs.i("trips") > 0);
  return loop_carries(*n.regions[1], l.carried, may_skip);
}

}  // namespace nabla::graph
