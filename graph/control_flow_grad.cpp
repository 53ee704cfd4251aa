// Control-flow nodes as differentiable eager ops (See Note [Control-flow gradients]
// in graph/control_flow_grad.hpp).
#include "graph/control_flow_grad.hpp"

#include "autograd/engine.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/node.hpp"
#include "autograd/ops.hpp"
#include "autograd/trace.hpp"
#include "graph/capture.hpp"
#include "graph/control_flow.hpp"
#include "graph/control_flow_carries.hpp"
#include "graph/control_flow_step_reach.hpp"
#include "graph/control_flow_split.hpp"
#include "graph/executor.hpp"
#include "graph/rewrite.hpp"
#include "tensor/cpu/copy.hpp"

namespace nabla::graph {

Tensor unrecorded_copy(const Tensor& t) {
  Tensor c = empty(t.sizes(), t.dtype(), t.device());
  copy_into(c, t);
  c.impl()->wrapped_number = t.impl()->wrapped_number;
  return c;
}

namespace {

bool any_requires_grad(const TensorList& ts) {
  for (const Tensor& t : ts)
    if (t.defined() && t.requires_grad()) return true;
  return false;
}

TensorList part(const TensorList& ts, size_t from, size_t count) {
  return TensorList(ts.begin() + static_cast<long>(from), ts.begin() + static_cast<long>(from + count));
}

TensorMeta meta_of(const Tensor& t) { return {t.sizes(), t.dtype()}; }

TensorMeta row_meta(const Tensor& t) { return {Shape(t.sizes().begin() + 1, t.sizes().end()), t.dtype()}; }

// Row 0 of t, or zeros of a row's type when t has none (a loop of length 0): an
// example value for tracing a loop body.
Tensor example_row(const Tensor& t) {
  return t.size(0) == 0 ? zeros(row_meta(t).sizes, t.dtype(), t.device()) : row_view(t, 0);
}


// Runs n with no observer: its regions' ops are the node's, not the capture's.
TensorList run_unobserved(const Node& n, const TensorList& ins, const std::vector<TensorMeta>& metas) {
  Device device = ins.empty() ? cpu_device() : ins[0].device();
  TensorList outs;
  for (const TensorMeta& m : metas) outs.push_back(empty(m.sizes, m.dtype, device));
  UnobservedScope quiet;
  run_control_flow(n, ins, outs);
  return outs;
}

// Makes a loop node keep the carries its backward reads (a no-op where it does).
void keep_carries(Node& n, const TensorList& ins, std::vector<TensorMeta>& metas) {
  ControlLayout l = control_layout(n);
  if (l.stacks_carries || n.kind == NodeKind::cond) return;
  int64_t length = l.length;
  if (n.kind == NodeKind::while_loop) {
    UnobservedScope quiet;  // a run to count, not the program's ops
    length = while_trips(n, ins);
    n.attrs.set("trips", length);
  } else {
    n.attrs.set("stack_carries", true);
  }
  for (size_t k = 0; k < l.carried; ++k) metas.push_back(stacked_meta(meta_of(ins[k]), length));
}

void record(const Node& n, const TensorList& ins, const TensorList& outs) {
  auto* capture = dynamic_cast<Capture*>(op_observer());
  if (!capture) return;
  std::vector<int> ids;
  for (const Tensor& t : ins) ids.push_back(capture->value_id(t));
  capture->add_region_node(Node::of_kind(n.kind), ids, n.attrs, n.regions, outs, n.origin);
}

// ---- tracing a region's vector-Jacobian product -------------------------------------------

// Note [Random draws in a differentiated region]
// A region's VJP replays the region's forward ops (replay_eager) to take their
// gradients. A random draw replayed would draw again: other numbers than the forward
// drew (a dropout mask the forward did not apply, noise the loss never saw), and the
// generator moved past where eager leaves it. So a backward never draws:
//   - a cond that draws outputs its sides' draws after its own outputs (the other
//     side's as zeros), and its VJP regions read them (with_draws_as_outputs);
//   - a scan's split step saves the body's own draws, which its backward reads as
//     rows (split_step maps the VJP's draws onto the body's); a scan whose body draws
//     saves its step's values even under loop_checkpoint="full";
//   - a VJP that would have to draw again (a while_loop's body, a branch or loop
//     nested in a differentiated region, a scan's backward differentiated again, a
//     grad() inside an inference graph) is an error naming the node: the loss and its
//     gradients would silently disagree.
// How replay_eager treats the region's draws: `fresh` draws anew (a trace whose draws
// split_step maps onto the body's own), else it takes `values` in order (a cond's
// draws), else a draw is an error.
struct Draws {
  bool fresh = false;
  const TensorList* values = nullptr;
  size_t next = 0;
  std::string node;  // the control-flow node, for the error
};

// The first node that draws random numbers in n (n itself, or inside its regions);
// null when none does.
const Node* first_draw(const Node& n) {
  if (n.kind == NodeKind::table) return draws_random_numbers(n.op) ? &n : nullptr;
  for (const auto& r : n.regions)
    if (r)
      for (const Node& inner : r->nodes)
        if (const Node* d = first_draw(inner)) return d;
  return nullptr;
}

bool draws_random(const Node& n) { return first_draw(n) != nullptr; }

[[noreturn]] void redraw_error(const Node& n, const Draws& d) {
  throw Error("gradient of the " + d.node + ": its " + n.name() + " node" + (n.origin.empty() ? "" : " (" + n.origin + ")") +
              " draws random numbers, which the backward would draw again instead of reusing the forward's (Note "
              "[Random draws in a differentiated region]): draw them outside the lowered loop or branch and pass "
              "them in" + (d.node.rfind("while_loop", 0) == 0 ? ", or write the loop as a for over range(n)" : ""));
}

// Replays random draw n from the forward's values (Note [Random draws in a
// differentiated region]). Dropout's output is rebuilt as x * (mask * scale), its
// backward's own formula, so the gradient still reaches x.
TensorList replayed_draw(const Node& n, const TensorList& ins, Draws& d) {
  if (d.fresh) return call(n.op, ins, n.attrs);
  if (!d.values || d.next + n.outputs.size() > d.values->size()) redraw_error(n, d);
  TensorList got(d.values->begin() + static_cast<long>(d.next),
                 d.values->begin() + static_cast<long>(d.next + n.outputs.size()));
  d.next += n.outputs.size();
  if (n.op != OpId::dropout) return got;
  double p = n.attrs.f("p");
  bool active = n.attrs.b("training") && p > 0.0;
  double scale = !active ? 1.0 : p < 1.0 ? 1.0 / (1.0 - p) : 0.0;
  return {ins[0] * (got[1] * scale), got[1]};
}

// Runs region g on `params` as eager ops (table ops through the op table, control-flow
// nodes through apply_control_flow), so autograd and an observing capture see them.
TensorList replay_eager(const Graph& g, const TensorList& params, Draws& draws) {
  QuietRaises quiet;  // the trace's example values may take a failing side no call takes here
  std::vector<Tensor> v(g.values.size());
  std::vector<int> ids = region_params(g);
  for (size_t k = 0; k < ids.size(); ++k) v[static_cast<size_t>(ids[k])] = params[k];
  for (int id : g.inputs)
    if (g.value(id).kind == ValueKind::constant) v[static_cast<size_t>(id)] = unrecorded_copy(g.constants.at(g.value(id).name));
  for (const Node& n : g.nodes) {
    TensorList ins;
    for (int id : n.inputs) ins.push_back(id < 0 ? Tensor() : v[static_cast<size_t>(id)]);
    TensorList outs;
    if (is_control_flow(n)) {
      if (!draws.fresh && draws_random(n)) redraw_error(n, draws);  // running it again would draw again
      std::vector<TensorMeta> metas;
      for (int id : n.outputs) metas.push_back(g.value(id).meta);
      outs = apply_control_flow(n, ins, metas);
    } else if (n.kind == NodeKind::table && draws_random_numbers(n.op)) {
      outs = replayed_draw(n, ins, draws);
    } else if (n.kind == NodeKind::table) {
      outs = call(n.op, ins, n.attrs);
    } else if (is_raise(n)) {  // Note [A failing side of a lowered if]: its side's backward never runs
      Device device = params.empty() ? cpu_device() : params[0].device();
      for (int id : n.outputs) outs.push_back(zeros(g.value(id).meta.sizes, g.value(id).meta.dtype, device));
    } else {
      throw Error("gradient of a control-flow region: its " + n.name() + " node" +
                  (n.origin.empty() ? "" : " (" + n.origin + ")") +
                  " is not an op-table op; take gradients before the passes that make such nodes");
    }
    for (size_t k = 0; k < n.outputs.size(); ++k) v[static_cast<size_t>(n.outputs[k])] = outs[k];
  }
  TensorList out;
  for (int id : g.outputs) out.push_back(v[static_cast<size_t>(id)]);
  return out;
}

// The gradients of region g's params, where want[k], given cotangents of its outputs
// (undefined: none), taken on `params` (the trace's bound inputs): zeros where no
// output depends on a wanted param, undefined where not wanted.
TensorList region_vjp(const Graph& g, const TensorList& params, const TensorList& cotangents, const std::vector<bool>& want,
                      Draws& draws) {
  GradModeGuard on(true);
  for (size_t k = 0; k < params.size(); ++k)
    if (want[k]) Tensor(params[k]).set_requires_grad(true);
  TensorList outs = replay_eager(g, params, draws);
  TensorList grads(params.size()), roots, root_grads, leaves;
  for (size_t j = 0; j < outs.size(); ++j) {
    if (!cotangents[j].defined()) continue;
    bool identity = false;  // the region yields a param as it came in: its cotangent is the param's
    for (size_t k = 0; k < params.size(); ++k)
      if (want[k] && outs[j].impl() == params[k].impl()) {
        grads[k] = grads[k].defined() ? add(grads[k], cotangents[j]) : cotangents[j];
        identity = true;
      }
    if (!identity && outs[j].requires_grad()) {
      roots.push_back(outs[j]);
      root_grads.push_back(cotangents[j]);
    }
  }
  for (size_t k = 0; k < params.size(); ++k)
    if (want[k]) leaves.push_back(params[k]);
  TensorList got = roots.empty() ? TensorList(leaves.size()) : grad(roots, leaves, root_grads, false, false, true);
  for (size_t k = 0, w = 0; k < params.size(); ++k) {
    if (!want[k]) continue;
    const Tensor& g_k = got[w++];
    if (g_k.defined()) grads[k] = grads[k].defined() ? add(grads[k], g_k) : g_k;
    if (!grads[k].defined()) grads[k] = zeros_like(params[k]);
  }
  return grads;
}

// A capture that traces one VJP region: bind its inputs, start, run, finish.
class VjpTrace {
 public:
  explicit VjpTrace(const std::string& name) : capture_(name) {}
  // Binds a copy of `example` as the next region input (its values only guide the trace).
  Tensor input(const Tensor& example) {
    Tensor c = unrecorded_copy(example);
    capture_.bind_input(c, "in" + std::to_string(count_++));
    return c;
  }
  TensorList inputs(const TensorList& examples) {
    TensorList out;
    for (const Tensor& t : examples) out.push_back(input(t));
    return out;
  }
  void start() { capture_.start(); }
  std::shared_ptr<Graph> finish(const TensorList& yields) {
    Graph g = capture_.finish(yields);
    if (!capture_.problems().empty()) throw Error("gradient of a control-flow region: " + capture_.problems()[0].what);
    return std::make_shared<Graph>(std::move(g));
  }

 private:
  Capture capture_;
  size_t count_ = 0;
};

std::vector<bool> floating(const TensorList& ts) {
  std::vector<bool> out;
  for (const Tensor& t : ts) out.push_back(is_floating(t.dtype()));
  return out;
}

template <class T>
std::vector<T> picked(const std::vector<T>& xs, const std::vector<bool>& keep) {
  std::vector<T> out;
  for (size_t k = 0; k < xs.size(); ++k)
    if (keep[k]) out.push_back(xs[k]);
  return out;
}

struct StepOperands {
  TensorList g_carry, acc, stacks, xs, g_ys, g_stacks, invs;
};
struct StepMasks {
  std::vector<bool> float_carry, float_ys, want_x, want_inv;
};

// The reverse scan's body: takes (g_carry..., acc..., carry_in..., x rows...,
// g_y rows..., g_stack rows..., invariants...) and yields (the cotangent of the carry
// that entered the step..., acc + this step's invariant gradients..., the rows'
// gradients...), recomputing the step from the carry that entered it.
// `o` holds example values: one step's rows, not the stacks.
std::shared_ptr<Graph> trace_step_vjp(const Graph& body, const StepOperands& o, const StepMasks& w, size_t c, size_t m,
                                      Draws& draws) {
  VjpTrace trace("dbody");
  TensorList g_carry = trace.inputs(o.g_carry), acc = trace.inputs(o.acc), carry = trace.inputs(o.stacks);
  TensorList x = trace.inputs(o.xs), g_y = trace.inputs(o.g_ys), g_stack = trace.inputs(o.g_stacks);
  TensorList invs = trace.inputs(o.invs);
  trace.start();
  TensorList params = carry;
  params.insert(params.end(), x.begin(), x.end());
  params.insert(params.end(), invs.begin(), invs.end());
  std::vector<bool> want = w.float_carry;
  want.insert(want.end(), w.want_x.begin(), w.want_x.end());
  want.insert(want.end(), w.want_inv.begin(), w.want_inv.end());
  TensorList cots;
  for (size_t k = 0, f = 0; k < c; ++k) cots.push_back(w.float_carry[k] ? g_carry[f++] : Tensor());
  for (size_t j = 0, f = 0; j < w.float_ys.size(); ++j) cots.push_back(w.float_ys[j] ? g_y[f++] : Tensor());
  TensorList grads = region_vjp(body, params, cots, want, draws), yields;
  for (size_t k = 0, f = 0; k < c; ++k)
    if (w.float_carry[k]) yields.push_back(add(grads[k], g_stack[f++]));
  for (size_t k = 0, a = 0; k < w.want_inv.size(); ++k)
    if (w.want_inv[k]) yields.push_back(add(acc[a++], grads[c + m + k]));
  for (size_t k = 0; k < m; ++k)
    if (w.want_x[k]) yields.push_back(grads[c + k]);
  return trace.finish(yields);
}

TensorList rows_of(const TensorList& ts) {
  TensorList out;
  for (const Tensor& t : ts) out.push_back(example_row(t));
  return out;
}

// What a scan's backward reads of its forward when the forward saved its step's values.
struct SavedStep {
  SplitStep split;
  StepMasks masks;
};

// Traces the step's VJP on the forward's example values and splits it
// (graph/control_flow_split.hpp): scan n's body becomes one that also yields the
// values the backward reads (but those of cheap ops, with `recompute_cheap`), and
// `metas` gets their stacked types.
std::shared_ptr<SavedStep> save_step(Node& n, const TensorList& ins, std::vector<TensorMeta>& metas,
                                     bool recompute_cheap) {
  ControlLayout l = control_layout(n);
  const Graph& body = *n.regions[0];
  size_t c = l.carried, m = l.scanned;
  TensorList init = part(ins, 0, c), xs = part(ins, c, m), invs = part(ins, c + m, l.invariants);
  auto wanted = [](const Tensor& t) { return t.requires_grad() && is_floating(t.dtype()); };
  auto saved = std::make_shared<SavedStep>();
  StepMasks& w = saved->masks;
  w.float_carry = floating(init);
  StepOperands o;
  for (size_t k = 0; k < c; ++k)
    if (w.float_carry[k]) o.g_carry.push_back(zeros_like(init[k]));
  for (size_t j = c; j < body.outputs.size(); ++j) {
    const TensorMeta& y = body.value(body.outputs[j]).meta;
    w.float_ys.push_back(is_floating(y.dtype));
    if (w.float_ys.back()) o.g_ys.push_back(zeros(y.sizes, y.dtype, init.empty() ? cpu_device() : init[0].device()));
  }
  for (const Tensor& x : xs) w.want_x.push_back(wanted(x));
  for (const Tensor& v : invs) {
    w.want_inv.push_back(wanted(v));
    if (w.want_inv.back()) o.acc.push_back(zeros_like(v));
  }
  o.stacks = init;
  o.xs = rows_of(xs);
  o.g_stacks = o.g_carry;
  o.invs = invs;
  Draws fresh{true};  // split_step maps them onto the body's own
  std::shared_ptr<Graph> vjp = trace_step_vjp(body, o, w, c, m, fresh);
  StepLayout layout{o.g_carry.size() + o.acc.size(), c, m, o.g_ys.size() + o.g_stacks.size(), l.invariants};
  saved->split = split_step(body, *vjp, layout, recompute_cheap);
  n.regions[0] = saved->split.forward;
  for (const TensorMeta& meta : saved->split.saved) metas.push_back(stacked_meta(meta, l.length));
  return saved;
}

// ---- the backward nodes -------------------------------------------------------------------

// The gradient of a defined output slot, zeros where it got none.
Tensor cotangent(const TensorList& grads, size_t k, const Tensor& output) {
  return grads[k].defined() ? grads[k] : zeros_like(output);
}

std::string origin_suffix(const Node& n) { return n.origin.empty() ? "" : " (" + n.origin + ")"; }

// Inside the autograd node's class, Node names its base (nabla::Node).
using IrNode = graph::Node;

class ControlFlowBackward : public nabla::Node {
 public:
  ControlFlowBackward(IrNode forward, std::shared_ptr<SavedStep> saved, std::vector<size_t> draws, CarryTable carries)
      : fwd_(std::move(forward)), saved_(std::move(saved)), draws_(std::move(draws)), carries_(std::move(carries)) {}
  // Keeps the inputs and outputs, once the outputs have this node as their grad_fn
  // (a saved output gets it back on unpack: grad of grad reaches the stacked carries).
  void save(const TensorList& ins, const TensorList& outs) {
    for (const Tensor& t : ins) ins_.emplace_back(t, false);
    for (const Tensor& t : outs) outs_.emplace_back(t, true);
  }
  std::string name() const override {
    switch (fwd_.kind) {
      case NodeKind::cond: return "CondBackward";
      case NodeKind::while_loop: return "WhileLoopBackward";
      default: return "ScanBackward";
    }
  }
  void release_saved() override {
    ins_.clear();
    outs_.clear();
  }
  const IrNode& forward() const { return fwd_; }
  const CarryTable& carries() const { return carries_; }
  const CondPredicates& cond_predicates() const { return cond_preds_; }
  void set_cond_predicates(CondPredicates p) { cond_preds_ = std::move(p); }
  Tensor first_input() const { return ins_.empty() ? Tensor() : ins_[0].peek(); }
  TensorList apply(TensorList&& grads) override {
    if (ins_.empty()) throw Error(name() + ": its saved values were freed by an earlier backward (retain_graph)");
    TensorList ins, outs;
    for (size_t k = 0; k < ins_.size(); ++k) ins.push_back(ins_[k].unpack(shared_from_this(), "control flow", static_cast<int>(k)));
    for (size_t k = 0; k < outs_.size(); ++k) outs.push_back(outs_[k].unpack(shared_from_this(), "control flow", static_cast<int>(k)));
    return fwd_.kind == NodeKind::cond ? cond_backward(ins, outs, grads) : loop_backward(ins, outs, grads);
  }

 private:
  // Whether input `input` gets a gradient: it needs one and is floating.
  bool wants(size_t input) const {
    return input < next_edges.size() && next_edges[input].valid() && is_floating(ins_[input].peek().dtype());
  }

  // cond(pred, ops..., cotangents...) whose regions are the VJPs of then and else.
  // The cond's own outputs come first, then its sides' draws (Note [Random draws in
  // a differentiated region]), which the VJP regions read instead of drawing.
  TensorList cond_backward(const TensorList& ins, const TensorList& all_outs, const TensorList& grads) {
    size_t drawn = 0;
    for (size_t d : draws_) drawn += d;
    TensorList outs = part(all_outs, 0, all_outs.size() - drawn), draws = part(all_outs, outs.size(), drawn);
    TensorList ops = part(ins, 1, ins.size() - 1), cots;
    std::vector<bool> want, float_outs = floating(outs);
    for (size_t k = 0; k < ops.size(); ++k) want.push_back(wants(k + 1));
    for (size_t j = 0; j < outs.size(); ++j)
      if (float_outs[j]) cots.push_back(cotangent(grads, j, outs[j]));
    std::vector<std::shared_ptr<Graph>> regions;
    size_t first_draw = 0;
    for (const auto& region : fwd_.regions) {
      VjpTrace trace("d" + region_labels(fwd_.kind)[regions.size()]);
      TensorList p = trace.inputs(ops), c = trace.inputs(cots), d = trace.inputs(draws), all_cots;
      trace.start();
      for (size_t j = 0, f = 0; j < outs.size(); ++j) all_cots.push_back(float_outs[j] ? c[f++] : Tensor());
      all_cots.resize(all_outs.size());  // none for the draws the region yields after its own outputs
      size_t mine = regions.size() < draws_.size() ? draws_[regions.size()] : 0;
      TensorList own = part(d, first_draw, mine);
      first_draw += mine;
      Draws replayed{false, &own, 0, "cond" + origin_suffix(fwd_)};
      regions.push_back(trace.finish(picked(region_vjp(*region, p, all_cots, want, replayed), want)));
    }
    IrNode n = IrNode::of_kind(NodeKind::cond);
    n.regions = regions;
    n.origin = fwd_.origin;
    TensorList bins = {ins[0]};
    bins.insert(bins.end(), ops.begin(), ops.end());
    bins.insert(bins.end(), cots.begin(), cots.end());
    bins.insert(bins.end(), draws.begin(), draws.end());
    std::vector<TensorMeta> metas;
    for (const Tensor& t : picked(ops, want)) metas.push_back(meta_of(t));
    TensorList got = apply_control_flow(n, bins, metas);
    TensorList result(ins.size());
    for (size_t k = 0, w = 0; k < ops.size(); ++k)
      if (want[k]) result[k + 1] = got[w++];
    return result;
  }

  // A reverse scan over the steps (See Note [Control-flow gradients]).
  TensorList loop_backward(const TensorList& ins, const TensorList& outs, const TensorList& grads) {
    ControlLayout l = control_layout(fwd_);
    if (fwd_.kind == NodeKind::while_loop && !l.stacks_carries)
      throw Error("no gradient through the while loop" + origin_suffix(fwd_) +
                  ": its trip count was not recorded (compile(..., train=true, mode=\"script\") records it; a graph "
                  "compiled for inference that takes gradients inside cannot differentiate a while on a tensor: write "
                  "it as a for over range(n))");
    const Graph& body = *fwd_.regions[fwd_.kind == NodeKind::scan ? 0 : 1];
    // A first-order backward reads the values the forward saved; one that is itself
    // differentiated (create_graph) recomputes the step, the saved values being plain
    // step outputs then.
    bool use_saved = saved_ && !grad_enabled();
    if (!use_saved && !l.stacks_carries)  // running the loop again would draw again
      for (const auto& region : fwd_.regions)
        for (const IrNode& inner : region->nodes)
          if (draws_random(inner)) redraw_error(inner, Draws{false, nullptr, 0, fwd_.name() + origin_suffix(fwd_)});
    size_t c = l.carried, m = l.scanned, b = use_saved ? saved_->split.saved.size() : 0;
    size_t ys = outs.size() - (l.stacks_carries ? 2 * c : c) - b;
    int64_t length = fwd_.kind == NodeKind::scan ? l.length : fwd_.attrs.i("trips");
    TensorList init = part(ins, 0, c), xs = part(ins, c, m), invs = part(ins, c + m, l.invariants);
    TensorList finals = part(outs, 0, c), ys_out = part(outs, c, ys), saved_rows = part(outs, c + ys, b);
    TensorList stacks = l.stacks_carries ? part(outs, c + ys + b, c) : recomputed_carries(ins, outs);
    std::vector<bool> float_carry = floating(init), float_ys = floating(ys_out), want_x, want_inv;
    for (size_t k = 0; k < m; ++k) want_x.push_back(use_saved ? saved_->masks.want_x[k] : wants(c + k));
    for (size_t k = 0; k < l.invariants; ++k)
      want_inv.push_back(use_saved ? saved_->masks.want_inv[k] : wants(c + m + k));
    // Real operands of the reverse scan.
    TensorList g_final, acc0, g_ys, g_stacks;
    for (size_t k = 0; k < c; ++k)
      if (float_carry[k]) {
        g_final.push_back(cotangent(grads, k, finals[k]));
        g_stacks.push_back(l.stacks_carries ? cotangent(grads, c + ys + b + k, stacks[k]) : zeros_like(stacks[k]));
      }
    for (size_t j = 0; j < ys; ++j)
      if (float_ys[j]) g_ys.push_back(cotangent(grads, c + j, ys_out[j]));
    for (const Tensor& t : picked(invs, want_inv)) acc0.push_back(zeros_like(t));
    Draws none{false, nullptr, 0, fwd_.name() + origin_suffix(fwd_)};
    std::shared_ptr<Graph> vjp_body =
        use_saved ? saved_->split.backward
                  : trace_step_vjp(body, {g_final, acc0, rows_of(stacks), rows_of(xs), rows_of(g_ys), rows_of(g_stacks), invs},
                                   {float_carry, float_ys, want_x, want_inv}, c, m, none);
    IrNode n = IrNode::of_kind(NodeKind::scan);
    n.regions = {vjp_body};
    n.origin = fwd_.origin;
    n.attrs.set("carried", static_cast<int64_t>(g_final.size() + acc0.size()));
    n.attrs.set("scanned", static_cast<int64_t>(stacks.size() + xs.size() + b + g_ys.size() + g_stacks.size()));
    n.attrs.set("length", length);
    n.attrs.set("reverse", !l.reverse);
    TensorList bins;
    for (const TensorList* group : {&g_final, &acc0, &stacks, &xs, &saved_rows, &g_ys, &g_stacks, &invs})
      bins.insert(bins.end(), group->begin(), group->end());
    std::vector<TensorMeta> metas;
    for (const Tensor& t : g_final) metas.push_back(meta_of(t));
    for (const Tensor& t : acc0) metas.push_back(meta_of(t));
    for (const Tensor& t : picked(xs, want_x)) metas.push_back(meta_of(t));
    TensorList got = apply_control_flow(n, bins, metas);
    TensorList result(ins.size());
    size_t at = 0;
    for (size_t k = 0; k < c; ++k)
      if (float_carry[k]) {
        if (wants(k)) result[k] = got[at];
        ++at;
      }
    for (size_t k = 0; k < l.invariants; ++k)
      if (want_inv[k]) {
        if (wants(c + m + k)) result[c + m + k] = got[at];
        ++at;
      }
    for (size_t k = 0; k < m; ++k)
      if (want_x[k]) {
        if (wants(c + k)) result[c + k] = got[at];
        ++at;
      }
    return result;
  }

  // The carries entering each step of a scan that did not keep them: the scan runs
  // again, stacking them (CarriesFor::recompute).
  TensorList recomputed_carries(const TensorList& ins, const TensorList& outs) {
    IrNode again = fwd_;
    again.attrs.set("stack_carries", true);
    std::vector<TensorMeta> metas;
    for (const Tensor& t : outs) metas.push_back(meta_of(t));
    size_t c = control_layout(fwd_).carried;
    for (size_t k = 0; k < c; ++k) metas.push_back(stacked_meta(meta_of(ins[k]), fwd_.attrs.i("length")));
    TensorList all = apply_control_flow(again, ins, metas, CarriesFor::recompute);
    return part(all, outs.size(), c);
  }

  IrNode fwd_;
  std::shared_ptr<SavedStep> saved_;  // a scan that saved its step's values (null: recompute them)
  std::vector<size_t> draws_;  // a cond: how many draw outputs each side adds (with_draws_as_outputs)
  CarryTable carries_;  // node_carries of the node as the program made it
  CondPredicates cond_preds_;  // a cond's: the predicates of the conds in its sides
  std::vector<SavedTensor> ins_, outs_;
};

// Whether output k of a node whose inputs are `ins` requires grad: an input that does
// reaches it (Note [Outputs a lowered region does not differentiate]); the outputs a
// capture adds for the backward (stacked carries, saved values, draws) always do.
bool output_differentiable(const CarryTable& carries, const TensorList& ins, size_t k) {
  if (carries.empty() || k >= carries[0].size()) return true;
  for (size_t i = 0; i < ins.size() && i < carries.size(); ++i)
    if (ins[i].requires_grad() && carries[i][k]) return true;
  return false;
}

// Gives the floating outputs that an input's gradient reaches a ControlFlowBackward node.
void attach_backward(const Node& n, const TensorList& ins, TensorList& outs, std::shared_ptr<SavedStep> saved,
                     std::vector<size_t> draws, CarryTable carries, CondPredicates preds) {
  auto node = std::make_shared<ControlFlowBackward>(n, std::move(saved), std::move(draws), carries);
  node->set_cond_predicates(std::move(preds));
  node->next_edges.resize(ins.size());
  for (size_t k = 0; k < ins.size(); ++k)
    if (ins[k].requires_grad()) node->next_edges[k] = gradient_edge(ins[k]);
  for (size_t k = 0; k < outs.size(); ++k) {
    node->output_metas.push_back({outs[k].sizes(), outs[k].dtype(), outs[k].device()});
    if (!is_floating(outs[k].dtype()) || !output_differentiable(carries, ins, k)) continue;
    AutogradMeta& meta = outs[k].impl()->autograd_meta();
    meta.requires_grad = true;
    meta.grad_fn = node;
    meta.output_nr = static_cast<uint32_t>(k);
  }
  node->save(ins, outs);
}

// Note [Random draws in a differentiated region]: each side of cond n also yields the
// values of its own random draws and zeros for the other side's, as outputs after the
// node's own (`metas` gets their types). Returns how many each side adds.
std::vector<size_t> with_draws_as_outputs(Node& n, std::vector<TensorMeta>& metas, Device device) {
  std::vector<std::vector<int>> drawn(n.regions.size());
  size_t total = 0;
  for (size_t r = 0; r < n.regions.size(); ++r) {
    for (const Node& inner : n.regions[r]->nodes)
      if (inner.kind == NodeKind::table && draws_random_numbers(inner.op))
        drawn[r].insert(drawn[r].end(), inner.outputs.begin(), inner.outputs.end());
    total += drawn[r].size();
  }
  if (total == 0) return {};
  std::vector<size_t> counts;
  for (size_t r = 0; r < n.regions.size(); ++r) {
    auto g = std::make_shared<Graph>(*n.regions[r]);
    for (size_t q = 0; q < drawn.size(); ++q)
      for (int id : drawn[q]) {
        const TensorMeta& m = n.regions[q]->value(id).meta;
        g->outputs.push_back(q == r ? id : g->add_constant(zeros(m.sizes, m.dtype, device)));
        if (r == 0) metas.push_back(m);
      }
    n.regions[r] = g;
    counts.push_back(drawn[r].size());
  }
  return counts;
}

}  // namespace

const Node* control_flow_forward(const nabla::Node& n, Tensor* first_input) {
  auto* backward = dynamic_cast<const ControlFlowBackward*>(&n);
  if (!backward) return nullptr;
  *first_input = backward->first_input();
  return &backward->forward();
}

const CarryTable* control_flow_carries(const nabla::Node& n) {
  auto* backward = dynamic_cast<const ControlFlowBackward*>(&n);
  return backward && !backward->carries().empty() ? &backward->carries() : nullptr;
}

const CondPredicates* control_flow_cond_predicates(const nabla::Node& n) {
  auto* backward = dynamic_cast<const ControlFlowBackward*>(&n);
  return backward && !backward->cond_predicates().values.empty() ? &backward->cond_predicates() : nullptr;
}


TensorList apply_control_flow(Node n, const TensorList& given, std::vector<TensorMeta> metas, CarriesFor carries,
                              LoopSaving saving) {
  TensorList ins = given;  // a while_loop's carried predicates join them
  bool differentiable = carries != CarriesFor::none && grad_enabled() && any_requires_grad(ins);
  n.inputs.resize(ins.size());  // its value ids are the capture's (record); control_layout counts them
  CarryTable reaches = differentiable ? node_carries(n) : CarryTable();
  // Note [Branches inside a loop step]: the predicates of the body's one-sided conds.
  const size_t own = metas.size();
  std::vector<PredTree> step_conds;
  size_t step_preds = 0;
  if (differentiable && carries == CarriesFor::keep && n.kind == NodeKind::scan)
    step_conds = add_step_predicates(n, metas, &step_preds, ins.back().device());
  if (differentiable && carries == CarriesFor::keep && n.kind == NodeKind::while_loop) {
    step_conds = add_while_predicates(n, ins, metas, reaches, &step_preds);
    n.inputs.resize(ins.size());
  }
  CondPredicates cond_preds;
  if (differentiable && n.kind == NodeKind::cond)
    cond_preds.trees = add_cond_predicates(n, metas, &step_preds, ins.back().device());
  std::shared_ptr<SavedStep> saved;
  std::vector<size_t> draws;
  if (differentiable && n.kind == NodeKind::cond) draws = with_draws_as_outputs(n, metas, ins.back().device());
  // A while_loop's backward recomputes its body (and counting its trips would draw too).
  if (differentiable && carries == CarriesFor::keep && n.kind == NodeKind::while_loop)
    if (const Node* d = first_draw(n)) redraw_error(*d, Draws{false, nullptr, 0, n.name() + origin_suffix(n)});
  if (differentiable && carries == CarriesFor::keep) {
    // A body that draws saves its step's values: recomputing them would draw again
    // (Note [Random draws in a differentiated region]).
    bool recomputes = saving == LoopSaving::carries && !draws_random(n);
    bool saves_step = n.kind == NodeKind::scan && !control_layout(n).stacks_carries && !recomputes;
    if (saves_step) saved = save_step(n, ins, metas, saving == LoopSaving::costly);
    keep_carries(n, ins, metas);
  }
  TensorList outs = run_unobserved(n, ins, metas);
  record(n, ins, outs);
  // Note [Reach along a loop's steps]: a loop's step predicates, read with its outputs' reach.
  if (n.kind == NodeKind::scan && !step_conds.empty()) {
    cond_preds.trees[0] = step_conds;
    cond_preds.values = part(outs, own, step_preds);
  }
  if (n.kind == NodeKind::while_loop && !step_conds.empty() && n.attrs.i("trips") > 0) {
    cond_preds.trees[0] = step_conds;
    cond_preds.values = while_step_predicates(outs, own, step_preds, control_layout(n).carried);
  }
  if (n.kind == NodeKind::cond && step_preds > 0) cond_preds.values = part(outs, own, step_preds);
  if (differentiable) attach_backward(n, ins, outs, saved, draws, std::move(reaches), std::move(cond_preds));
  return outs;
}

}  // namespace nabla::graph
