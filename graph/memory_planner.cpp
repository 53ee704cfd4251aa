// The memory planner (plan_memory, graph/memory_plan.hpp): liveness of the
// top-level graph's values in execution order, safe in-place reuse for elementwise
// nodes, and slots assigned greedy by size. The `plan` pass (passes/plan.cpp) stores
// its plan on the graph for the executor, and the verifier checks a plan with the
// same liveness and in-place rule (see graph/memory_plan.hpp for what is planned, and
// docs/passes.md "The memory plan").
//
// Why greedy by size into shared slots (Pisarchyk and Lee, "Efficient Memory
// Management for Deep Neural Net Inference", 2020, the "shared objects" variant):
// taking the largest buffers first means a slot is sized by its first buffer and every
// later one fits, so the choice is only which free slot; best fit (the smallest free
// slot) keeps big slots for big buffers. Slots rather than free offsets keep the plan
// easy to check (a slot's buffers must not be live together) and to draw (a row per
// slot). In-place chains are planned as one unit, so their slot is shared by force.
#include <algorithm>

#include "graph/memory_plan.hpp"
#include "graph/rewrite.hpp"

namespace nabla::graph {

namespace {

// "%5" (appended, not "%" + name: GCC 12 warns falsely on that).
std::string value_ref(const Graph& g, int id) {
  std::string s = "%";
  return s.append(value_name(g, id));
}

}  // namespace

Liveness analyze_liveness(const Graph& g) {
  Liveness live;
  size_t count = g.values.size();
  int end = static_cast<int>(g.nodes.size());
  live.roots = storage_roots(g);
  live.first.assign(count, -1);
  live.last.assign(count, -1);
  live.bytes.assign(count, 0);
  auto read = [&](int v, int step) {
    size_t root = static_cast<size_t>(live.roots[static_cast<size_t>(v)]);
    live.last[static_cast<size_t>(v)] = std::max(live.last[static_cast<size_t>(v)], step);
    live.last[root] = std::max(live.last[root], step);  // a view keeps its root's buffer live
  };
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    int step = static_cast<int>(i);
    for (int v : g.nodes[i].inputs)
      if (v >= 0) read(v, step);
    for (int v : g.nodes[i].outputs) {
      live.first[static_cast<size_t>(v)] = step;
      live.last[static_cast<size_t>(v)] = std::max(live.last[static_cast<size_t>(v)], step);
    }
  }
  std::vector<bool> output_storage(count, false);
  for (int v : g.outputs) {
    read(v, end);
    output_storage[static_cast<size_t>(live.roots[static_cast<size_t>(v)])] = true;
  }
  live.planned.assign(count, false);
  for (size_t v = 0; v < count; ++v) {
    const Value& val = g.values[v];
    live.bytes[v] = shape_numel(val.meta.sizes) * static_cast<int64_t>(dtype_size(val.meta.dtype));
    live.planned[v] = val.kind == ValueKind::op && val.node >= 0 && live.first[v] >= 0 &&
                      live.roots[v] == static_cast<int>(v) && !output_storage[v] && live.bytes[v] > 0 &&
                      !is_view_node(g.nodes[static_cast<size_t>(val.node)]);
  }
  return live;
}

namespace {

// Why node n is not an elementwise node whose result could take over an input's
// buffer ("" when it is). A fused body with other ops (a view, a reduction) could
// read an element after the result overwrote it. The fused kernel
// (tensor/cpu/fused.cpp) writes the result's step straight into the output, block by
// block, so a step after it would read inputs already overwritten: the result must
// be the body's last step.
std::string not_elementwise(const Node& n) {
  if (n.outputs.size() != 1) return "it has " + std::to_string(n.outputs.size()) + " results";
  if (has_side_effect(n)) return side_effect(n);
  if (n.kind == NodeKind::fused) {
    if (!n.body) return "";
    for (const Node& b : n.body->nodes) {
      const OpDef* def = Graph::table_op(b);
      if (!def || !def->elementwise) return "its body has " + b.name() + ", which is not elementwise";
    }
    const Graph& body = *n.body;
    if (body.nodes.empty() || body.outputs.size() != 1 || body.nodes.back().outputs.size() != 1 ||
        body.outputs[0] != body.nodes.back().outputs[0])
      return "its body's result is not its last step";
    return "";
  }
  const OpDef* def = Graph::table_op(n);
  if (!def || !def->elementwise) return n.name() + " is not elementwise";
  return "";
}

std::string kind_text(const Graph& g, const Liveness& live, int v) {
  const Value& val = g.value(v);
  std::string name = value_ref(g, v);
  switch (val.kind) {
    case ValueKind::input: return name + " is a graph input";
    case ValueKind::param: return name + " is a parameter";
    case ValueKind::constant: return name + " is a constant";
    default: break;
  }
  int root = live.roots[static_cast<size_t>(v)];
  if (root != v) return name + " is a view of " + value_ref(g, root);
  if (live.last[static_cast<size_t>(v)] >= static_cast<int>(g.nodes.size())) return name + " is a graph output";
  if (!live.planned[static_cast<size_t>(v)]) return name + " has no buffer of its own";
  return "";
}

}  // namespace

std::string in_place_refusal(const Graph& g, const Liveness& live, int node, size_t input) {
  const Node& n = g.nodes[static_cast<size_t>(node)];
  if (std::string why = not_elementwise(n); !why.empty()) return why;
  int out = n.outputs[0];
  if (!live.planned[static_cast<size_t>(out)]) return "its result is a graph output";
  int v = n.inputs[input];
  if (v < 0) return "input " + std::to_string(input) + " is absent";
  if (std::string why = kind_text(g, live, v); !why.empty()) return why;
  std::string name = value_ref(g, v);
  const TensorMeta& a = g.value(v).meta;
  const TensorMeta& r = g.value(out).meta;
  if (a.dtype != r.dtype || a.sizes != r.sizes) return name + " is " + meta_str(a) + ", the result " + meta_str(r);
  int last = live.last[static_cast<size_t>(v)];
  if (last > node)
    return name + " is read later (by " + g.nodes[static_cast<size_t>(last)].name() + " at step " +
           std::to_string(last) + ")";
  for (int w : n.inputs)
    if (w >= 0 && w != v && live.roots[static_cast<size_t>(w)] == v)
      return name + " is also read through its view " + value_ref(g, w);
  return "";
}

namespace {

// Buffers planned together: an in-place chain shares one slot from the first
// buffer's definition to the last one's last use.
struct Unit {
  std::vector<int> buffers;  // indices into MemoryPlan::buffers
  int first = 0, last = 0;
  int64_t bytes = 0;
};

int64_t align_up(int64_t bytes) { return (bytes + kPlanAlignment - 1) / kPlanAlignment * kPlanAlignment; }

// The input whose buffer node i's result takes over, or -1; records the refusals.
int in_place_input(const Graph& g, const Liveness& live, int i, std::vector<std::string>* refusals) {
  const Node& n = g.nodes[static_cast<size_t>(i)];
  if (!not_elementwise(n).empty() && n.kind != NodeKind::fused) return -1;  // not a candidate: no note
  std::string reasons;
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    std::string why = in_place_refusal(g, live, i, k);
    if (why.empty()) return n.inputs[k];
    if (reasons.find(why) == std::string::npos) reasons += (reasons.empty() ? "" : "; ") + why;
  }
  if (refusals) refusals->push_back(describe_node(g, n) + ": not in place: " + reasons);
  return -1;
}

// The buffers in definition order, their in-place sources, and the units.
std::vector<Unit> make_units(const Graph& g, const Liveness& live, MemoryPlan& p, std::vector<std::string>* refusals) {
  std::vector<int> unit_of(g.values.size(), -1);
  std::vector<Unit> units;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    bool any_planned = std::any_of(n.outputs.begin(), n.outputs.end(),
                                   [&](int v) { return live.planned[static_cast<size_t>(v)]; });
    int source = any_planned ? in_place_input(g, live, static_cast<int>(i), refusals) : -1;
    for (int v : n.outputs) {
      if (!live.planned[static_cast<size_t>(v)]) continue;
      PlannedBuffer b;
      b.value = v;
      b.bytes = live.bytes[static_cast<size_t>(v)];
      b.first_step = live.first[static_cast<size_t>(v)];
      b.last_step = live.last[static_cast<size_t>(v)];
      b.in_place_of = source;  // (only a node with one result has one)
      int u = b.in_place_of >= 0 ? unit_of[static_cast<size_t>(b.in_place_of)] : -1;
      if (u < 0) {
        u = static_cast<int>(units.size());
        units.push_back({{}, b.first_step, b.last_step, b.bytes});
      }
      unit_of[static_cast<size_t>(v)] = u;
      units[static_cast<size_t>(u)].buffers.push_back(static_cast<int>(p.buffers.size()));
      units[static_cast<size_t>(u)].last = std::max(units[static_cast<size_t>(u)].last, b.last_step);
      p.buffers.push_back(b);
    }
  }
  return units;
}

bool overlaps(const Unit& a, const Unit& b) { return a.first <= b.last && b.first <= a.last; }

// Greedy by size: units largest first (earlier first among equals), each into the
// smallest slot none of whose units is live at the same time, or a new slot.
void assign_slots(const std::vector<Unit>& units, MemoryPlan& p) {
  std::vector<size_t> order(units.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return units[a].bytes != units[b].bytes ? units[a].bytes > units[b].bytes : units[a].first < units[b].first;
  });
  std::vector<std::vector<size_t>> slot_units;
  for (size_t u : order) {
    int best = -1;
    for (size_t s = 0; s < slot_units.size(); ++s) {
      bool free = std::none_of(slot_units[s].begin(), slot_units[s].end(),
                               [&](size_t o) { return overlaps(units[o], units[u]); });
      if (free && (best < 0 || p.slots[s].bytes < p.slots[static_cast<size_t>(best)].bytes)) best = static_cast<int>(s);
    }
    if (best < 0) {
      best = static_cast<int>(p.slots.size());
      p.slots.push_back({0, align_up(units[u].bytes)});
      slot_units.emplace_back();
    }
    slot_units[static_cast<size_t>(best)].push_back(u);
    for (int b : units[u].buffers) p.buffers[static_cast<size_t>(b)].slot = best;
  }
}

}  // namespace

MemoryPlan plan_memory(const Graph& g, std::vector<std::string>* refusals) {
  Liveness live = analyze_liveness(g);
  MemoryPlan p;
  assign_slots(make_units(g, live, p, refusals), p);
  std::sort(p.buffers.begin(), p.buffers.end(), [](auto& a, auto& b) { return a.value < b.value; });
  int64_t offset = 0;
  for (PlanSlot& s : p.slots) {
    s.offset = offset;
    offset += s.bytes;
  }
  p.arena_bytes = offset;
  finish_plan(p, g.values.size());
  return p;
}

}  // namespace nabla::graph
