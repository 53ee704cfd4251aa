#include "graph/capture.hpp"

#include <algorithm>

#include "autograd/grad_mode.hpp"
#include "tensor/allocator.hpp"
#include "tensor/cpu/copy.hpp"

namespace nabla::graph {

namespace {

bool same_layout(const Tensor& a, const Tensor& b) {
  return a.storage() == b.storage() && a.dtype() == b.dtype() && a.sizes() == b.sizes() &&
         a.strides() == b.strides() && a.offset() == b.offset();
}

}  // namespace

Capture::Capture(std::string graph_name) { graph_.name = std::move(graph_name); }

Capture::Capture(std::string graph_name, Capture* parent) : Capture(std::move(graph_name)) { parent_ = parent; }

Capture::~Capture() {
  stop();
  restore_aliased();
  restore_outer_writes();
  restore_writes();
}

void Capture::start() {
  if (active_) return;
  start_serial_ = new_tensor_serial();
  differentiated_ = parent_ && grad_enabled();
  previous_ = set_op_observer(this);
  active_ = true;
}

void Capture::stop() {
  if (!active_) return;
  set_op_observer(previous_);
  active_ = false;
}

int Capture::remember(const Tensor& t, int id) {
  ids_[t.impl()] = id;
  if (auto w = written_.find(t.storage().get()); w != written_.end()) bound_at_[t.impl()] = w->second.version;
  on_storage_[t.storage().get()].push_back(alive_.size());
  alive_.push_back(t);
  return id;
}

int Capture::bind_input(const Tensor& t, const std::string& name) {
  return remember(t, graph_.add_input(name, ValueKind::input, {t.sizes(), t.dtype()}));
}

int Capture::bind_param(const Tensor& t, const std::string& name) {
  if (int id = known(t); id >= 0) return id;  // a parameter shared by two modules
  return remember(t, graph_.add_input(name, ValueKind::param, {t.sizes(), t.dtype()}));
}

int Capture::known(const Tensor& t) const {
  auto it = ids_.find(t.impl());
  if (it != ids_.end() && current(t)) return it->second;
  // An alias: a detached tensor or a saved output unpacked by a backward rule
  // shares storage and layout with a value we know. (After a functional write only
  // the ids taken since count: Note [Functional writes].)
  auto users = on_storage_.find(t.storage().get());
  if (users == on_storage_.end()) return -1;
  for (size_t k : users->second)
    if (same_layout(alive_[k], t) && current(alive_[k])) return ids_.at(alive_[k].impl());
  return -1;
}

int Capture::value_of(const Tensor& t) {
  if (!t.defined()) return -1;
  if (!dynamic_.empty()) check_dynamic_read(t);  // Note [A view taken with a tensor index]
  if (int id = known(t); id >= 0) return remember(t, id);
  if (written_.count(t.storage().get())) {  // Note [Functional writes]
    if (auto a = aliased_.find(t.storage().get()); a != aliased_.end()) a->second.read = true;
    return remember(t, regenerate(t));
  }
  if (parent_ && t.impl()->serial < start_serial_) {
    if (shadowed_.count(t.storage().get()))  // Note [Aliases of a variable written in place]
      problems_.push_back({"a lowered loop or branch reads a tensor that shares memory with a view that it writes "
                           "in place through a variable (v = x[0], then v[i] = ... and x read in the body), which a "
                           "graph does not replay: read it through that variable, or write into the whole tensor",
                           current_origin()});
    return capture_from_parent(t);
  }
  // A tensor that existed before the capture (a weight or buffer the function closes
  // over) is bound live, so updates to it reach the graph; one made during the
  // capture (a wrapped number, zeros() in the body) is a constant.
  if (t.impl()->serial < start_serial_) {
    free_params_.push_back(t);
    std::string name = "free";
    name += std::to_string(free_params_.size() - 1);  // (not "free" + ...: a GCC 12 false warning)
    return bind_param(t, name);
  }
  for (auto [first, end] : region_serials_)
    if (t.impl()->serial >= first && t.impl()->serial < end)
      problems_.push_back({"a value made inside a lowered branch or loop body is read after it, other than through a "
                           "variable that the branch or loop assigns (a list it appended to?)",
                           current_origin()});
  // Captured by value (a raw copy, not an op, so it is not traced): later changes to
  // the tensor do not reach the graph.
  Tensor copy = empty(t.sizes(), t.dtype());
  copy_into(copy, t);
  copy.impl()->wrapped_number = t.impl()->wrapped_number;
  return remember(t, graph_.add_constant(copy));
}

// Note [A capture's growth]
// A capture keeps every op it records, with its output tensor: compile() of a function
// whose loop runs 10^7 steps op by op (a `for` over range(10**7) with a tensor carry)
// grew by about 4 KB a step until the system's out-of-memory killer ended the process.
// At each power of two from 2^16 ops the capture asks the allocator for room to double
// (Note [Host memory budget]), so such a loop is an out-of-memory error at the user's
// line, and `nabla --max-memory` bounds a capture too.
namespace {
constexpr size_t kCapturedOpBytes = 4096;  // measured: ~3.9 KB a recorded x = x + 1
void check_capture_growth(size_t ops) {
  if (ops < (size_t{1} << 16) || (ops & (ops - 1)) != 0) return;
  CpuAllocator::instance().check_host_request(
      ops, kCapturedOpBytes,
      "a graph of " + std::to_string(ops) + " recorded ops about to double (a loop of many steps recorded op by op?)");
}
}  // namespace

void Capture::on_op(const OpDef& def, const TensorList& inputs, const Attrs& attrs, const TensorList& outputs) {
  check_capture_growth(graph_.nodes.size());  // Note [A capture's growth]
  std::vector<size_t> writes = region_written_inputs(def, inputs, attrs);  // Note [Tensors a lowered region's calls write]
  std::vector<std::pair<Tensor, int>> rebound;  // (the written memory's base, its new value)
  std::vector<int> ins;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Tensor& t = inputs[k];
    bool written = t.defined() && std::find(writes.begin(), writes.end(), k) != writes.end();
    if (written && written_.count(t.storage().get())) {
      int fresh = fresh_written_input(t, def.name);  // -1: a part of it, a problem
      ins.push_back(fresh >= 0 ? fresh : value_of(t));
      if (fresh >= 0) rebound.emplace_back(written_.at(t.storage().get()).base, fresh);
      continue;
    }
    if (written && adoptable(t))
      note_outer_write(t, def.name);
    ins.push_back(value_of(t));
  }
  std::vector<TensorMeta> metas;
  for (const Tensor& t : outputs) metas.push_back({t.sizes(), t.dtype()});
  int n = graph_.add_node(def.id, ins, attrs, metas, current_origin());
  for (const auto& [base, id] : rebound) rebind_written(base, id);
  for (size_t k = 0; k < outputs.size(); ++k) remember(outputs[k], graph_.nodes[static_cast<size_t>(n)].outputs[k]);
  if (differentiated_ && !writing_ && def.backward && !grad_enabled()) stop_gradients(outputs, n);
}

// Note [No-grad blocks inside a lowered region]
// A lowered branch's or loop's gradient comes from replaying its region's ops with
// gradients on (graph/control_flow_grad.cpp), so an op the body ran under no_grad (a
// `no_grad { acc = acc + h }` in the loop, an optimizer-like update) would pass its
// gradient on where eager's does not. In a region traced with gradients on, the
// outputs of a differentiable op run with them off are therefore taken through a
// `detach` node (Note [Detach in a graph], autograd/ops/views.cpp). The ops that make
// an in-place write's new value (value_after_write, regenerate) are the exception:
// they run without gradients because eager's autograd records the write itself, and
// the region's replay must differentiate them (WritingScope). The top level needs
// none: its gradients are eager autograd's own.
void Capture::stop_gradients(const TensorList& outputs, int node) {
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (!is_floating(outputs[k].dtype())) continue;
    int id = graph_.nodes[static_cast<size_t>(node)].outputs[k];
    int d = graph_.add_node(OpId::detach, {id}, {}, {graph_.value(id).meta}, current_origin());
    remember(outputs[k], graph_.nodes[static_cast<size_t>(d)].outputs[0]);
  }
}

std::string Capture::describe(int id) const {
  const Value& v = graph_.value(id);
  std::string s(1, '%');  // appended piecewise: GCC 12 warns falsely on "%" + string
  if (v.kind != ValueKind::op) return s.append(v.name);
  const Node& n = graph_.nodes[static_cast<size_t>(v.node)];
  s.append(std::to_string(id)).append(" (made by ").append(n.name());
  if (!n.origin.empty()) s.append(" at ").append(n.origin);
  return s.append(")");
}

// Whether value id is the same at every call: a constant, or made by table ops that
// draw no random numbers from constants alone (the positions an index assignment
// computes from a constant index, which it reads on the host).
bool Capture::fixed(int id) const {
  std::vector<int> todo{id};
  std::unordered_map<int, bool> seen;
  while (!todo.empty()) {
    int v = todo.back();
    todo.pop_back();
    if (v < 0 || seen.count(v)) continue;
    seen[v] = true;
    const Value& val = graph_.value(v);
    if (val.kind == ValueKind::constant) continue;
    if (val.kind != ValueKind::op) return false;
    const Node& n = graph_.nodes[static_cast<size_t>(val.node)];
    if (n.kind != NodeKind::table || draws_random_numbers(n.op)) return false;
    todo.insert(todo.end(), n.inputs.begin(), n.inputs.end());
  }
  return true;
}

int Capture::offset_base(int id) const {
  for (;;) {
    const Value& v = graph_.value(id);
    if (v.kind != ValueKind::op) return id;
    const Node& n = graph_.nodes[static_cast<size_t>(v.node)];
    if (n.kind != NodeKind::table || (n.op != OpId::add && n.op != OpId::sub) || n.inputs.size() != 2) return id;
    const bool first = fixed(n.inputs[0]), second = fixed(n.inputs[1]);
    if (second && !first) id = n.inputs[0];                           // t + k, t - k
    else if (first && !second && n.op == OpId::add) id = n.inputs[1];  // k + t
    else return id;
  }
}

bool Capture::fixed_distance(const Tensor& start, const Tensor& stop) {
  const int a = value_of(start), b = value_of(stop);
  return a >= 0 && b >= 0 && offset_base(a) == offset_base(b);
}

void Capture::on_value_read(const Tensor& t, const std::string& what) {
  // A region reading a value of an enclosing capture it was not given (the function's
  // input, a loop's index, in the message of a side that fails: fail(f"row {t}")) reads
  // the enclosing capture's value: that capture says whether it varies per call.
  const Capture* owner = this;
  int id = known_or_base(t);
  while (id < 0 && owner->parent_ && t.impl()->serial < owner->start_serial_) {
    owner = owner->parent_;
    id = owner->known_or_base(t);
  }
  // Fixed values are the same at every call, so reading them is fine; anything else
  // varies per call.
  if (id < 0 || owner->fixed(id)) return;
  problems_.push_back({what + " reads the value of " + owner->describe(id) +
                           ", which a graph cannot replay (it would be baked in as a constant)",
                       current_origin()});
}

// Note [Capturing writes]
// A capture runs the function once, eagerly, to record it, and the graph then runs
// every call, the first included. A write into a tensor that existed before the
// capture (a copy_ into a parameter, a training batch_norm's running statistics, an
// optimizer step: the rows of Note [Rows that write their inputs]) would therefore
// happen once more than the calls: compile() itself would step the optimizer. So the
// capture keeps each such tensor's contents before its first write and puts them back
// when it ends (also when it fails); compiling changes nothing, and each call writes
// once, as eager would.
void Capture::keep_before_write(const Tensor& t) {
  if (parent_) return parent_->keep_before_write(t);  // the outermost capture restores
  Tensor old = t;
  if (t.impl()->serial >= start_serial_) {  // made by the capture's own run: a view of an older tensor counts
    old = base_of(t);
    if (!old.defined() || old.impl()->serial >= start_serial_) return;
  }
  for (const auto& [kept, before] : overwritten_)
    if (same_layout(kept, old)) return;
  Tensor before = empty(old.sizes(), old.dtype(), old.device());
  copy_into(before, old);
  overwritten_.emplace_back(old, before);
}

// In reverse order: where two kept views overlap, the earliest contents win.
void Capture::restore_writes() {
  for (auto it = overwritten_.rbegin(); it != overwritten_.rend(); ++it) copy_into(it->first, it->second);
  overwritten_.clear();
}

void Capture::before_write(const Tensor& t) {
  keep_before_write(t);
  if (adoptable(t) && !written_.count(t.storage().get())) keep_outer_before(t);  // Note [Tensors a lowered region's calls write]
}

// Note [Untraced effects]
// Some builtins change state that no op of the table writes: backward() fills the
// leaves' .grad, `p.grad = ...` and zero_grad() assign it, a fused optimizer step
// updates parameters in place. A graph made from a function that does these would
// run without them, silently wrong, so each is a capture problem that names it and
// its line (autograd/trace.hpp's notify_untraced_effect). A training step compiles as
// compile(loss_fn, x, y, train=true), whose graph returns the gradients and whose
// call sets .grad; the optimizer step stays outside.
void Capture::on_untraced_effect(const std::string& what) {
  CaptureProblem p{what + ", which a graph does not replay", current_origin()};
  for (const CaptureProblem& seen : problems_)
    if (seen.what == p.what && seen.origin == p.origin) return;  // once per line (zero_grad: each parameter)
  problems_.push_back(std::move(p));
}

// Note [Flags changed inside a lowered region]
// A lowered branch or loop body runs once, at capture, and a flag it sets on a tensor
// made before it (`w.requires_grad = false` on one side of an if) is set then, whichever
// side a call takes, and never again: the node records no op for it. As a container or
// a model's mode changed there (Note [Objects changed inside a lowered region]), it is
// a problem at its line. Outside any region: Note [Flags a compiled function sets].
//
// Note [Flags a compiled function sets]
// `x.requires_grad = true` (or x.requires_grad_()) at a compiled function's top level,
// on an argument or another tensor made before the call, is an effect on the caller's
// tensor that no op records: it was set at capture only, so a later call's argument
// kept requires_grad false where eager sets it, and a training step then handed the
// argument's gradient to backward() from a tensor that did not require it (an error).
// So the top-level capture lists each change (the flag is only notified when it
// changes, so the new value is the opposite of the old), and each call sets it again
// on that call's argument, or on the same tensor where the graph binds it live (a
// parameter, a tensor the function closes over), before the graph runs
// (interp/builtins/builtins_graph.cpp), as eager's run would; an inference graph's
// call whose argument now requires grad runs eagerly (Note [Gradients through an
// inference graph]), so backward() of its result reaches the argument.
void Capture::on_flag_change(const Tensor& t, const std::string& what) {
  if (!parent_) {
    if (t.impl()->serial < start_serial_) flag_changes_.push_back({t, !t.requires_grad()});
    return;
  }
  if (t.impl()->serial >= start_serial_) return;
  problems_.push_back({what + " of a tensor made before the lowered branch or loop, which the node does not replay " +
                           "(it is set once, at capture, whichever side or trip a call takes): set it before the " +
                           "statement",
                       current_origin()});
}

// A region input for a tensor of the enclosing graph, named as the parent names it
// when it has a name the region does not use yet ("w", "fc1.weight"), else "in<k>".
int Capture::capture_from_parent(const Tensor& t) {
  int outer = parent_->value_of(t);
  std::string name = parent_->graph_.value(outer).name;
  for (const Value& v : graph_.values)
    if (!name.empty() && v.name == name) name.clear();
  if (name.empty()) name = "in" + std::to_string(captured_.size());
  int id = graph_.add_input(name, ValueKind::input, {t.sizes(), t.dtype()});
  graph_.value(id).wrapped = parent_->graph_.value(outer).wrapped;
  captured_.emplace_back(outer, t);
  return remember(t, id);
}

bool Capture::fixed_values(const Tensor& t) const {
  int id = known_or_base(t);
  return id >= 0 && fixed(id);
}

bool Capture::traced(const Tensor& t) const {
  int id = known_or_base(t);
  if (id < 0) return parent_ && t.impl()->serial < start_serial_ && parent_->traced(t);
  return graph_.value(id).kind != ValueKind::constant;
}

std::shared_ptr<Graph> Capture::finish_region(const TensorList& outputs) {
  restore_aliased();  // Note [Aliases of a variable written in place]
  restore_outer_writes();  // Note [Tensors a lowered region's calls write]: a problem unless adopted
  for (const OuterWrite& w : outer_writes_) problems_.push_back(w.problem);
  outer_writes_.clear();
  finish_graph(outputs);
  auto g = std::make_shared<Graph>(graph_);
  for (const CaptureProblem& p : problems_) {  // a while's condition and body may both report one
    bool seen = false;
    for (const CaptureProblem& q : parent_->problems_) seen = seen || (q.what == p.what && q.origin == p.origin);
    if (!seen) parent_->problems_.push_back(p);
  }
  parent_->region_serials_.emplace_back(start_serial_, new_tensor_serial());
  return g;
}

int Capture::add_region_node(Node head, std::vector<int> inputs, Attrs attrs,
                             std::vector<std::shared_ptr<Graph>> regions, const TensorList& outputs,
                             const std::string& origin) {
  std::vector<TensorMeta> metas;
  for (const Tensor& t : outputs) metas.push_back({t.sizes(), t.dtype()});
  int n = graph_.add_node(std::move(head), std::move(inputs), std::move(attrs), metas, origin);
  graph_.nodes[static_cast<size_t>(n)].regions = std::move(regions);
  for (size_t k = 0; k < outputs.size(); ++k) remember(outputs[k], graph_.nodes[static_cast<size_t>(n)].outputs[k]);
  return n;
}

Graph Capture::finish(const TensorList& outputs) {
  finish_graph(outputs);
  UnobservedScope quiet;  // the verifier's stand-in ops are not an enclosing capture's
  verify(graph_, "capture");  // (a region is verified with the graph that holds it)
  return graph_;
}

void Capture::finish_graph(const TensorList& outputs) {
  // Mapped while still observing: a view read anew after an in-place write into its
  // base is a gather the graph records (Note [Functional writes]).
  for (const Tensor& t : outputs) {
    if (!t.defined()) throw Error("compile: the function returned an undefined tensor");
    graph_.outputs.push_back(value_of(t));
  }
  stop();
  restore_writes();
  graph_.compact({});  // canonical numbering: inputs first, then outputs in node order
}

}  // namespace nabla::graph
