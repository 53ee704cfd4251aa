// Note [Branches inside a loop step] (graph/control_flow_step_reach.hpp).
#include "graph/control_flow_step_reach.hpp"

#include <algorithm>
#include <array>
#include <memory>

#include "autograd/grad_mode.hpp"
#include "autograd/op_table.hpp"
#include "autograd/ops.hpp"
#include "graph/control_flow.hpp"

namespace nabla::graph {

BranchReach either(const BranchReach& a, const BranchReach& b) {
  if (a.always || b.never() || (a.flag.defined() && a.flag.is_same(b.flag))) return a;
  if (b.always || a.never()) return b;
  return {false, maximum(a.flag, b.flag)};
}

BranchReach both(const BranchReach& a, const BranchReach& b) {
  if (a.never() || b.never()) return {};
  if (a.always || (a.flag.defined() && a.flag.is_same(b.flag))) return b;
  if (b.always) return a;
  return {false, a.flag * b.flag};
}

std::array<BranchReach, 2> sides_taken(const Tensor& pred) {
  Tensor taken = to_dtype(ne(pred, zeros_like(pred)), DType::f32);
  return {BranchReach{false, taken}, BranchReach{false, ones_like(taken) - taken}};
}

namespace {

// Whether some operand of cond n reaches an output through one side only.
bool one_sided(const Node& n) {
  CarryTable t = region_carries(*n.regions[0]), e = region_carries(*n.regions[1]);
  for (size_t k = 0; k < t.size() && k < e.size(); ++k)
    if (t[k] != e[k]) return true;
  return false;
}

// Appends a value of type `meta` to node `index` of g as its next output.
int add_output(Graph& g, size_t index, const TensorMeta& meta) {
  Value v;
  v.id = static_cast<int>(g.values.size());
  v.meta = meta;
  v.node = static_cast<int>(index);
  v.output = static_cast<int>(g.nodes[index].outputs.size());
  g.values.push_back(v);
  g.nodes[index].outputs.push_back(v.id);
  return v.id;
}

void shift_slots(std::vector<PredTree>& trees, size_t by) {
  for (PredTree& t : trees) {
    t.slot += by;
    if (t.loop || t.ever) continue;  // its body's slots count from its own first
    shift_slots(t.sides[0], by);
    shift_slots(t.sides[1], by);
  }
}

std::vector<PredTree> export_predicates(Graph& g, std::vector<int>& exported, Device device);

// Cond c's sides with the predicates of their conds exported: each side yields them
// (the other side false) after its own outputs; their trees per side, slots counted
// from `base` in the order of the new outputs, whose types go to `metas`.
std::array<std::vector<PredTree>, 2> export_sides(Node& c, size_t base, std::vector<TensorMeta>& metas, Device device) {
  std::shared_ptr<Graph> side[2] = {std::make_shared<Graph>(*c.regions[0]), std::make_shared<Graph>(*c.regions[1])};
  std::vector<int> inner[2];
  std::array<std::vector<PredTree>, 2> trees;
  for (int s = 0; s < 2; ++s) trees[static_cast<size_t>(s)] = export_predicates(*side[s], inner[s], device);
  if (inner[0].empty() && inner[1].empty()) return trees;
  for (int s = 0; s < 2; ++s) {
    shift_slots(trees[static_cast<size_t>(s)], base + (s == 0 ? 0 : inner[0].size()));
    for (int q = 0; q < 2; ++q)
      for (int id : inner[q]) {
        const TensorMeta& m = side[q]->value(id).meta;
        side[s]->outputs.push_back(q == s ? id : side[s]->add_constant(zeros(m.sizes, m.dtype, device)));
      }
  }
  for (int q = 0; q < 2; ++q)
    for (int id : inner[q]) metas.push_back(side[q]->value(id).meta);
  c.regions = {side[0], side[1]};
  return trees;
}

// Which of the slots `trees` describe (from `base`) already hold a while_loop's pairs.
void mark_ever(const std::vector<PredTree>& trees, std::vector<bool>& ever, size_t base = 0) {
  for (const PredTree& t : trees) {
    if (t.ever)
      for (size_t k = 0; k < t.count; ++k) ever[base + t.slot + k] = true;
    else if (t.loop)
      mark_ever(t.sides[0], ever, base + t.slot);
    else
      for (const auto& side : t.sides) mark_ever(side, ever, base);
  }
}

int output_of(const Graph& g, int node) { return g.nodes[static_cast<size_t>(node)].outputs[0]; }

// In body: acc joined with what this iteration's predicate p says, the [..., 2] pair of
// whether each side was taken (Note [Branches inside a loop step]).
int ever_taken(Graph& body, int acc, int p, bool pair, Device device) {
  const TensorMeta pm = body.value(p).meta;
  const TensorMeta am = body.value(acc).meta;
  if (pair) return output_of(body, body.add_node(OpId::maximum, {acc, p}, {}, {am}));
  int zero = body.add_constant(zeros(pm.sizes, pm.dtype, device));
  int sides[2];
  for (int s = 0; s < 2; ++s) {
    const OpId test_op = s == 0 ? OpId::ne : OpId::eq;  // the then side: p != 0; the else side: p == 0
    int test = output_of(body, body.add_node(test_op, {p, zero}, {}, {{pm.sizes, DType::b8}}));
    sides[s] = output_of(body, body.add_node(OpId::to_dtype, {test}, {{"dtype", DType::f32}}, {{pm.sizes, DType::f32}}));
  }
  int both = output_of(body, body.add_node(OpId::stack, {sides[0], sides[1]}, {{"dim", int64_t{-1}}}, {am}));
  return output_of(body, body.add_node(OpId::maximum, {acc, both}, {}, {am}));
}

void insert_params(Graph& g, size_t at, const std::vector<TensorMeta>& metas);

// While_loop node i of g, nested in a region: carries, for each predicate its body
// exports, whether some iteration took each side, yielded after its own carries (their
// ids to `outs`); the body's trees (none: nothing added).
std::vector<PredTree> add_ever_taken(Graph& g, size_t i, std::vector<int>& outs, Device device) {
  const ControlLayout l = control_layout(g.nodes[i]);
  if (l.stacks_carries) return {};
  auto body = std::make_shared<Graph>(*g.nodes[i].regions[1]);
  std::vector<int> exported;
  std::vector<PredTree> trees = export_predicates(*body, exported, device);
  if (trees.empty()) return trees;
  std::vector<bool> pair(exported.size(), false);
  mark_ever(trees, pair);
  std::vector<TensorMeta> types;
  for (size_t k = 0; k < exported.size(); ++k) {
    TensorMeta m = body->value(exported[k]).meta;
    if (!pair[k]) m.sizes.push_back(2);
    types.push_back({m.sizes, DType::f32});
  }
  auto cond = std::make_shared<Graph>(*g.nodes[i].regions[0]);
  insert_params(*cond, l.carried, types);
  insert_params(*body, l.carried, types);
  std::vector<int> params = region_params(*body), next;
  for (size_t k = 0; k < exported.size(); ++k)
    next.push_back(ever_taken(*body, params[l.carried + k], exported[k], pair[k], device));
  body->outputs.insert(body->outputs.begin() + static_cast<long>(l.carried), next.begin(), next.end());
  for (size_t k = 0; k < types.size(); ++k) {
    int init = g.add_constant(zeros(types[k].sizes, types[k].dtype, device));
    g.nodes[i].inputs.insert(g.nodes[i].inputs.begin() + static_cast<long>(l.carried + k), init);
    int id = add_output(g, i, types[k]);
    std::vector<int>& o = g.nodes[i].outputs;
    o.pop_back();
    o.insert(o.begin() + static_cast<long>(l.carried + k), id);
    outs.push_back(id);
  }
  for (size_t k = 0; k < g.nodes[i].outputs.size(); ++k) g.value(g.nodes[i].outputs[k]).output = static_cast<int>(k);
  g.nodes[i].regions = {cond, body};
  g.nodes[i].attrs.set("carried", static_cast<int64_t>(l.carried + types.size()));
  return trees;
}

// The conds of region g whose predicates the walk needs (one-sided, or holding such a
// cond in a side): each one's predicate, then those of its sides' conds (export_sides),
// appended to `exported` (value ids of g); their trees, slots indexing `exported`.
std::vector<PredTree> export_predicates(Graph& g, std::vector<int>& exported, Device device) {
  std::vector<PredTree> trees;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].kind == NodeKind::while_loop) {  // a while nested here: the sides its iterations took
      std::vector<int> outs;
      PredTree t;
      t.sides[0] = add_ever_taken(g, i, outs, device);
      if (t.sides[0].empty()) continue;
      t.node = i;
      t.slot = exported.size();
      t.ever = true;
      t.count = outs.size();
      exported.insert(exported.end(), outs.begin(), outs.end());
      trees.push_back(std::move(t));
      continue;
    }
    if (g.nodes[i].kind == NodeKind::scan) {  // a scan nested here: its stacked step predicates
      Node trial = g.nodes[i];
      std::vector<TensorMeta> metas;
      PredTree t;
      t.sides[0] = add_step_predicates(trial, metas, &t.count, device);
      if (t.sides[0].empty()) continue;
      t.node = i;
      t.slot = exported.size();
      t.loop = true;
      g.nodes[i].regions = trial.regions;
      for (const TensorMeta& m : metas) exported.push_back(add_output(g, i, m));
      trees.push_back(std::move(t));
      continue;
    }
    if (g.nodes[i].kind != NodeKind::cond) continue;
    Node trial = g.nodes[i];
    std::vector<TensorMeta> metas;
    std::array<std::vector<PredTree>, 2> sides = export_sides(trial, exported.size() + 1, metas, device);
    if (metas.empty() && !one_sided(g.nodes[i])) continue;
    PredTree t;
    t.node = i;
    t.slot = exported.size();
    t.sides[0] = std::move(sides[0]);
    t.sides[1] = std::move(sides[1]);
    exported.push_back(g.nodes[i].inputs[0]);
    g.nodes[i].regions = trial.regions;
    for (const TensorMeta& m : metas) exported.push_back(add_output(g, i, m));
    trees.push_back(std::move(t));
  }
  return trees;
}

// How a loop runs its body: its carries, its steps (as many as its stacked predicates'
// last dim), in which order, and whether it stacks its carries (each step's is an output).
struct LoopSteps {
  size_t carried = 0;
  int64_t steps = 0;
  bool reverse = false;
  bool stacks_carries = false;
};

// Note [Reach along a loop's steps]: the reach of each param of a loop's body over all
// its steps, the node's outputs reached as `out` says.
std::vector<BranchReach> chain_steps(const Graph& body, const LoopSteps& loop, const std::vector<BranchReach>& out,
                                     const std::vector<PredTree>& trees, const TensorList& preds, bool pairs);

// The reach of region g's values per step, from its outputs' (`out`), its conds' sides
// taken as the stacked predicates `preds` say (`trees`).
class StepWalk {
 public:
  // `pairs`: preds hold, for each cond, whether some iteration took each side (a
  // while_loop's body, visit_while), not the side one step took.
  StepWalk(const Graph& g, const std::vector<BranchReach>& out, const std::vector<PredTree>& trees,
           const TensorList& preds, bool pairs = false)
      : g_(g), preds_(preds), pairs_(pairs), reach_(g.values.size()) {
    for (size_t j = 0; j < out.size() && j < g.outputs.size(); ++j) reach_input(g.outputs[j], out[j]);
    for (size_t i = g.nodes.size(); i-- > 0;) {
      const PredTree* tree = nullptr;
      for (const PredTree& t : trees)
        if (t.node == i) tree = &t;
      visit(g.nodes[i], tree);
    }
  }
  const BranchReach& at(int id) const { return reach_[static_cast<size_t>(id)]; }

 private:
  void reach_input(int id, const BranchReach& r) {
    if (id >= 0 && is_floating(g_.value(id).meta.dtype))
      reach_[static_cast<size_t>(id)] = either(reach_[static_cast<size_t>(id)], r);
  }

  // The sides a cond's predicate (or, with pairs_, its pair) says were taken.
  std::array<BranchReach, 2> taken(const Tensor& pred) const {
    if (!pairs_) return sides_taken(pred);
    return {BranchReach{false, select(pred, -1, 0)}, BranchReach{false, select(pred, -1, 1)}};
  }

  // A cond whose predicate is known: each side walked from its outputs' reach where taken.
  void visit_cond(const Node& n, const PredTree& tree, const std::vector<BranchReach>& outs) {
    const std::array<BranchReach, 2> side_taken = taken(preds_[tree.slot]);
    for (int s = 0; s < 2; ++s) {
      std::vector<BranchReach> side_out;
      for (const BranchReach& o : outs) side_out.push_back(both(o, side_taken[s]));
      const Graph& region = *n.regions[static_cast<size_t>(s)];
      StepWalk inner(region, side_out, tree.sides[s], preds_, pairs_);
      std::vector<int> params = region_params(region);
      for (size_t k = 0; k < params.size() && k + 1 < n.inputs.size(); ++k)
        reach_input(n.inputs[k + 1], inner.at(params[k]));
    }
  }

  // Reached where any of `outs` is.
  static BranchReach either_of(const std::vector<BranchReach>& outs) {
    BranchReach any;
    for (const BranchReach& o : outs) any = either(any, o);
    return any;
  }

  // The predicates a nested region's node yields (its slice of this walk's).
  TensorList preds_of(const PredTree& tree) const {
    auto first = preds_.begin() + static_cast<long>(tree.slot);
    return TensorList(first, first + static_cast<long>(tree.count));
  }

  // A scan whose step predicates are known: its body walked along its steps (Note
  // [Reach along a loop's steps]), each param's reach over them passed on to its input.
  void visit_scan(const Node& n, const PredTree& tree, const std::vector<BranchReach>& outs) {
    const ControlLayout l = control_layout(n);
    const Graph& body = *n.regions[0];
    LoopSteps loop{l.carried, l.length, l.reverse, l.stacks_carries};
    std::vector<BranchReach> reach = chain_steps(body, loop, outs, tree.sides[0], preds_of(tree), pairs_);
    std::vector<int> params = region_params(body);
    for (size_t k = 0; k < params.size() && k < n.inputs.size() && k < reach.size(); ++k) reach_input(n.inputs[k], reach[k]);
  }

  // A while_loop that carried whether its iterations took each side: its body walked
  // with those pairs, each output reached where the node's are.
  void visit_while(const Node& n, const PredTree& tree, const std::vector<BranchReach>& outs) {
    const BranchReach any = either_of(outs);
    const Graph& body = *n.regions[1];
    StepWalk inner(body, std::vector<BranchReach>(body.outputs.size(), any), tree.sides[0], preds_of(tree), true);
    std::vector<int> params = region_params(body);
    const size_t carried = control_layout(n).carried;
    for (size_t k = 0; k < params.size() && k < n.inputs.size(); ++k)
      reach_input(n.inputs[k], k < carried ? any : inner.at(params[k]));
  }

  void visit(const Node& n, const PredTree* tree) {
    std::vector<BranchReach> outs;
    bool any = false;
    for (int id : n.outputs) {
      outs.push_back(reach_[static_cast<size_t>(id)]);
      any |= !outs.back().never();
    }
    if (!any) return;
    if (const OpDef* def = Graph::table_op(n)) {
      if (!def->backward) return;
      BranchReach r;
      for (size_t o = 0; o < outs.size(); ++o)
        if (!(o < 32 && ((def->nondiff_outputs >> o) & 1u))) r = either(r, outs[o]);
      for (int id : n.inputs) reach_input(id, r);
      return;
    }
    if (tree && tree->ever) return visit_while(n, *tree, outs);
    if (tree && tree->loop) return visit_scan(n, *tree, outs);
    if (tree) return visit_cond(n, *tree, outs);
    CarryTable t = is_control_flow(n) ? node_carries(n) : CarryTable();
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      BranchReach r;
      for (size_t o = 0; o < outs.size(); ++o)
        if (t.empty() || k >= t.size() || o >= t[k].size() || t[k][o]) r = either(r, outs[o]);
      reach_input(n.inputs[k], r);
    }
  }

  const Graph& g_;
  const TensorList& preds_;
  bool pairs_ = false;
  std::vector<BranchReach> reach_;
};

// Note [Reach along a loop's steps]
// Note [Branches inside a loop step] first read a loop's outputs as reached at every
// step. Not so where a step overwrites a carry on the side it takes: in
// `for t { if p { h = b(h) }; if q { h = c(x[t]) } }` with p taken only at the first
// step and q only at the second, the loss does not depend on b, nor on h's initial
// value; eager's .grad of b stays none, where that reading gave zeros. So a loop's body
// is walked once from its outputs other than its carries (reached at each step where
// the node's are), and once from each carry's output alone, each walk's flags per step
// ([..., steps]); then the steps are chained from the last one run to the first: a
// step's carry outputs are reached where the next step's carry params are (the last
// step's where the node's outputs are), and each param where one of the step's reached
// outputs reaches it. An invariant or scanned input is reached where some step reaches
// it, a carry's initial value where the first step's param is. Reach is linear in the
// outputs' (a maximum of products of flags), so the walks compose, and the chain is
// ops on the flags (recorded by the capture, as the walks are: they read the call's
// predicates), log2(steps) rounds of them (chained_outputs). It runs where the reach
// walk from the loss (graph/gradient_reach.cpp) meets the loop, from the reach of the
// loop's outputs there: an output the loss does not read reaches nothing (the flags
// made at the loop's run read every output as reached). A while_loop nested in a step
// or a side keeps only whether some iteration took each side, not in which order:
// there the old reading stays (more reach, never less).

IntList sizes_of(const Tensor& t) { return IntList(t.sizes().begin(), t.sizes().end()); }

// A per-step flag's sizes without its last dim (its steps).
IntList without_last(IntList t) {
  if (!t.empty()) t.pop_back();
  return t;
}

// `s` broadcast with `t`, aligned at their last dims.
void broadcast_into(IntList& s, const IntList& t) {
  if (t.size() > s.size()) s.insert(s.begin(), t.size() - s.size(), 1);
  for (size_t i = 0; i < t.size(); ++i) {
    int64_t& d = s[s.size() - t.size() + i];
    d = std::max(d, t[i]);
  }
}

// A reach as a tensor of `shape` (f32): its flag, or ones where always, zeros where never.
Tensor as_tensor(const BranchReach& r, const IntList& shape, Device device) {
  if (r.flag.defined()) return expand(r.flag, shape);
  return r.always ? ones(shape, DType::f32, device) : zeros(shape, DType::f32, device);
}

// Where x > 0, as 0/1 f32 flags (a product of flags summed: reached through some path);
// `column`: x is a matmul's [..., n, 1] result, its last dim dropped.
Tensor as_flags(const Tensor& x, bool column = false) {
  Tensor flags = to_dtype(gt(x, zeros({}, x.dtype(), x.device())), DType::f32);
  return column ? squeeze(flags, {-1}) : flags;
}

// `t`'s sizes with dim `dim` (negative: from the end) of size `size`.
IntList resized(const Tensor& t, int64_t dim, int64_t size) {
  IntList s = sizes_of(t);
  s[static_cast<size_t>(static_cast<int64_t>(s.size()) + dim)] = size;
  return s;
}

// Where each step's carry outputs are reached ([outer..., steps, carried]), the steps
// in the order they run: step t's where step t + 1's carry params are (the last
// step's: `last`, the node's), or where `each` says (carries stacked at every step).
// A step's carry params are reached where b_t | A_t r (r: its outputs' reach, A_t
// which carry output reaches which param, b_t what its other outputs reach): maps that
// compose as (A1, b1) after (A2, b2) = (A1 A2, b1 | A1 b2), so each step's map composed
// with all the later ones takes log2(steps) rounds of doubling, a few ops each, where
// one step after the other took a few ops per step.
Tensor chained_outputs(const Tensor& m, const Tensor& y, const Tensor& last, const Tensor& each, size_t carried) {
  const int64_t c = static_cast<int64_t>(carried), steps = y.size(-2);
  const Tensor each_cell = unsqueeze(unsqueeze(each, -1), -1);  // [outer..., 1, 1]
  Tensor a = slice(m, -2, 0, c);                                // [outer..., steps, carried, carried]
  Tensor b = maximum(slice(y, -1, 0, c), each_cell * as_flags(sum(a, {-1})));
  const Tensor index = arange(c, DType::i64, a.device());
  const Tensor eye = to_dtype(eq(unsqueeze(index, 1), unsqueeze(index, 0)), DType::f32);
  for (int64_t shift = 1; shift < steps; shift *= 2) {  // the map `shift` steps later (none past the end)
    Tensor a_later = cat({slice(a, -3, shift, steps), expand(eye, resized(a, -3, shift))}, -3);
    Tensor b_later = cat({slice(b, -2, shift, steps), zeros(resized(b, -2, shift), DType::f32, b.device())}, -2);
    b = maximum(b, as_flags(matmul(a, unsqueeze(b_later, -1)), true));
    a = as_flags(matmul(a, a_later));
  }
  IntList column = sizes_of(b);  // [outer..., steps, carried, 1]: the node's carry outputs at every step
  column.push_back(1);
  const Tensor r_in = maximum(b, as_flags(matmul(a, expand(unsqueeze(unsqueeze(last, -2), -1), column)), true));
  const Tensor later = cat({slice(r_in, -2, 1, steps), unsqueeze(last, -2)}, -2);
  return maximum(later, each_cell);
}

// A value reached at every step where `r` says (the flags gain a last dim, the steps).
BranchReach each_step(const BranchReach& r) { return r.flag.defined() ? BranchReach{false, unsqueeze(r.flag, -1)} : r; }

// Each param's reach per step (flags [..., steps]), body's outputs reached as `out`.
std::vector<BranchReach> param_reach(const Graph& body, const std::vector<BranchReach>& out,
                                     const std::vector<PredTree>& trees, const TensorList& preds, bool pairs) {
  StepWalk walk(body, out, trees, preds, pairs);
  std::vector<BranchReach> reach;
  for (int id : region_params(body)) reach.push_back(walk.at(id));
  return reach;
}

std::vector<BranchReach> chain_steps(const Graph& body, const LoopSteps& loop, const std::vector<BranchReach>& out,
                                     const std::vector<PredTree>& trees, const TensorList& preds, bool pairs) {
  const size_t carried = loop.carried, outputs = body.outputs.size();
  auto out_at = [&](size_t j) { return j < out.size() ? out[j] : BranchReach{}; };
  std::vector<BranchReach> rest(outputs);
  for (size_t j = carried; j < outputs; ++j) rest[j] = each_step(out_at(j));
  std::vector<std::vector<BranchReach>> walks{param_reach(body, rest, trees, preds, pairs)};
  for (size_t j = 0; j < carried; ++j) {
    std::vector<BranchReach> alone(outputs);
    alone[j] = BranchReach{true, {}};
    walks.push_back(param_reach(body, alone, trees, preds, pairs));
  }
  BranchReach stacked;  // each step's carries are outputs too: reached where any output is
  if (loop.stacks_carries)
    for (const BranchReach& o : out) stacked = either(stacked, o);
  IntList outer;
  for (const auto& walk : walks)
    for (const BranchReach& r : walk)
      if (r.flag.defined()) broadcast_into(outer, without_last(sizes_of(r.flag)));
  for (size_t j = 0; j < carried; ++j)
    if (out_at(j).flag.defined()) broadcast_into(outer, sizes_of(out_at(j).flag));
  if (stacked.flag.defined()) broadcast_into(outer, sizes_of(stacked.flag));
  IntList full = outer;
  full.push_back(loop.steps);
  const Device device = preds.empty() ? cpu_device() : preds[0].device();
  const size_t params = walks[0].size();
  // Y [outer..., steps, params]: reached from the outputs other than the carries;
  // M [outer..., steps, params, carried]: M[.., t, k, j] where carry j's output reaches k.
  TensorList from_rest, from_carry;
  for (const BranchReach& r : walks[0]) from_rest.push_back(as_tensor(r, full, device));
  for (size_t j = 0; j < carried; ++j) {
    TensorList row;
    for (const BranchReach& r : walks[1 + j]) row.push_back(as_tensor(r, full, device));
    from_carry.push_back(stack(row, -1));
  }
  Tensor y = stack(from_rest, -1), m = carried ? stack(from_carry, -1) : Tensor();
  if (loop.reverse) {  // run from the last row to the first: flipped, the chain's order
    y = flip(y, {-2});
    if (carried) m = flip(m, {-3});
  }
  TensorList finals;  // the carries' outputs at the last step: the node's
  for (size_t j = 0; j < carried; ++j) finals.push_back(as_tensor(out_at(j), outer, device));
  const Tensor last = carried ? stack(finals, -1) : Tensor();  // [outer..., carried]
  const Tensor each = as_tensor(stacked, outer, device);
  Tensor in = y;  // [outer..., steps, params]: where each step reaches each param
  Tensor first;   // the carries' params at the first step run
  if (carried && loop.steps > 0) {
    const Tensor outs = chained_outputs(m, y, last, each, carried);  // [outer..., steps, carried]
    in = maximum(y, as_flags(matmul(m, unsqueeze(outs, -1)), true));  // a step's params from its reached outputs
    first = maximum(slice(select(in, -2, 0), -1, 0, static_cast<int64_t>(carried)), unsqueeze(each, -1));
  } else if (carried) {
    first = last;
  }
  IntList per_param = outer;
  per_param.push_back(static_cast<int64_t>(params));
  const Tensor ever = loop.steps > 0 ? as_flags(sum(in, {-2})) : zeros(per_param, DType::f32, device);
  std::vector<BranchReach> reach;
  for (size_t k = 0; k < params; ++k) {
    if (k < carried) {
      reach.push_back({false, select(first, -1, static_cast<int64_t>(k))});
      continue;
    }
    bool never = true;  // no walk reaches it: known without the flags
    for (const auto& walk : walks) never = never && walk[k].never();
    reach.push_back(never ? BranchReach{} : BranchReach{false, select(ever, -1, static_cast<int64_t>(k))});
  }
  return reach;
}

}  // namespace

std::array<std::vector<PredTree>, 2> add_cond_predicates(Node& n, std::vector<TensorMeta>& metas, size_t* count,
                                                         Device device) {
  size_t before = metas.size();
  std::array<std::vector<PredTree>, 2> trees = export_sides(n, 0, metas, device);
  *count = metas.size() - before;
  return trees;
}

std::vector<BranchReach> cond_operand_reach(const Node& n, const Tensor& pred,
                                            const std::array<std::vector<PredTree>, 2>& trees, const TensorList& preds,
                                            const std::vector<BranchReach>& out) {
  NoGradGuard no_grad;
  const std::array<BranchReach, 2> side_taken = sides_taken(pred);
  std::vector<BranchReach> operands;
  for (int s = 0; s < 2; ++s) {
    std::vector<BranchReach> side_out;
    for (const BranchReach& o : out) side_out.push_back(both(o, side_taken[s]));
    const Graph& region = *n.regions[static_cast<size_t>(s)];
    StepWalk walk(region, side_out, trees[static_cast<size_t>(s)], preds);
    std::vector<int> params = region_params(region);
    if (operands.size() < params.size()) operands.resize(params.size());
    for (size_t k = 0; k < params.size(); ++k) operands[k] = either(operands[k], walk.at(params[k]));
  }
  return operands;
}

namespace {

// Inserts `metas.size()` inputs into region g as its params number `at`.. (after its
// first `at` params): a while_loop's new carries.
void insert_params(Graph& g, size_t at, const std::vector<TensorMeta>& metas) {
  std::vector<int> params = region_params(g);
  auto pos = at < params.size()
                 ? std::find(g.inputs.begin(), g.inputs.end(), params[at])
                 : (params.empty() ? g.inputs.begin() : std::find(g.inputs.begin(), g.inputs.end(), params.back()) + 1);
  size_t index = static_cast<size_t>(pos - g.inputs.begin());
  for (size_t j = 0; j < metas.size(); ++j) {
    int id = g.add_input("(taken" + std::to_string(j) + ")", ValueKind::input, metas[j]);
    g.inputs.pop_back();
    g.inputs.insert(g.inputs.begin() + static_cast<long>(index + j), id);
  }
}

}  // namespace

std::vector<PredTree> add_while_predicates(Node& n, TensorList& ins, std::vector<TensorMeta>& metas,
                                           CarryTable& carries, size_t* count) {
  ControlLayout l = control_layout(n);
  *count = 0;
  if (l.stacks_carries || ins.empty()) return {};
  auto body = std::make_shared<Graph>(*n.regions[1]);
  std::vector<int> exported;
  std::vector<PredTree> trees = export_predicates(*body, exported, ins.back().device());
  if (trees.empty()) return trees;
  std::vector<TensorMeta> types;
  for (int id : exported) types.push_back(body->value(id).meta);
  auto cond = std::make_shared<Graph>(*n.regions[0]);
  insert_params(*cond, l.carried, types);
  insert_params(*body, l.carried, types);
  body->outputs.insert(body->outputs.begin() + static_cast<long>(l.carried), exported.begin(), exported.end());
  n.regions = {cond, body};
  n.attrs.set("carried", static_cast<int64_t>(l.carried + exported.size()));
  for (size_t j = 0; j < types.size(); ++j) {
    const long at = static_cast<long>(l.carried + j);
    ins.insert(ins.begin() + at, zeros(types[j].sizes, types[j].dtype, ins.back().device()));
    metas.insert(metas.begin() + at, types[j]);
    if (carries.empty()) continue;
    carries.insert(carries.begin() + at, std::vector<bool>(carries[0].size(), false));
  }
  *count = exported.size();
  return trees;
}

TensorList while_step_predicates(const TensorList& outs, size_t first, size_t count, size_t carried) {
  TensorList preds;
  for (size_t j = 0; j < count; ++j) {
    // The value each iteration yields: the carry entering the next one, the last one's final.
    const Tensor& stacked = outs[carried + first + j];
    const int64_t trips = stacked.size(0);
    preds.push_back(cat({slice(stacked, 0, 1, trips), unsqueeze(outs[first + j], 0)}, 0));
  }
  return preds;
}

std::vector<PredTree> add_step_predicates(Node& n, std::vector<TensorMeta>& metas, size_t* count, Device device) {
  auto body = std::make_shared<Graph>(*n.regions[0]);
  std::vector<int> exported;
  std::vector<PredTree> trees = export_predicates(*body, exported, device);
  *count = exported.size();
  if (trees.empty()) return trees;
  int64_t length = control_layout(n).length;
  for (int id : exported) {
    body->outputs.push_back(id);
    metas.push_back(stacked_meta(body->value(id).meta, length));
  }
  n.regions[0] = body;
  return trees;
}

std::vector<BranchReach> loop_input_reach(const Node& n, const std::vector<PredTree>& trees, const TensorList& preds,
                                          const std::vector<BranchReach>& out) {
  NoGradGuard no_grad;
  const ControlLayout l = control_layout(n);
  const int64_t steps = n.kind == NodeKind::scan ? l.length : n.attrs.i("trips");
  const Graph& body = *n.regions.back();
  // The outputs it adds for its backward (each step's carries, saved step values): a
  // grad of grad reads them, and then every step's values count as reached.
  BranchReach saved;
  for (size_t j = body.outputs.size(); j < out.size(); ++j) saved = either(saved, out[j]);
  std::vector<BranchReach> given(out.begin(), out.begin() + static_cast<long>(std::min(out.size(), body.outputs.size())));
  if (!saved.never())
    for (BranchReach& r : given) r = either(r, saved);
  LoopSteps loop{l.carried, steps, l.reverse, !saved.never()};
  return chain_steps(body, loop, given, trees, preds, false);
}

}  // namespace nabla::graph
