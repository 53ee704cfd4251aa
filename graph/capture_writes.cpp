// In-place writes during a capture (graph/capture.hpp): into a parameter or a buffer
// the function closes over, a copy node; into a tensor the capture's own run made,
// an out-of-place value (Note [Functional writes]); into a caller's tensor, a problem.
#include <algorithm>

#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "graph/capture.hpp"
#include "graph/rewrite.hpp"
#include "tensor/cpu/copy.hpp"

namespace nabla::graph {

namespace {

bool same_layout(const Tensor& a, const Tensor& b) {
  return a.storage() == b.storage() && a.dtype() == b.dtype() && a.sizes() == b.sizes() &&
         a.strides() == b.strides() && a.offset() == b.offset();
}

// Whether t is all of its storage, contiguous from its start.
bool whole_storage(const Tensor& t) {
  return t.is_contiguous() && t.offset() == 0 &&
         t.storage()->nbytes == static_cast<size_t>(t.numel()) * dtype_size(t.dtype());
}

// The storage index of each element of t, in t's row-major order.
std::vector<int64_t> element_positions(const Tensor& t) {
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(t.numel()));
  if (t.numel() == 0) return out;
  std::vector<int64_t> idx(t.sizes().size(), 0);
  for (int64_t n = 0; n < t.numel(); ++n) {
    int64_t pos = t.offset();
    for (size_t d = 0; d < idx.size(); ++d) pos += idx[d] * t.strides()[d];
    out.push_back(pos);
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < t.sizes()[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

Tensor index_constant(const std::vector<int64_t>& positions, const Device& device) {
  std::vector<double> v(positions.begin(), positions.end());
  return to_device(tensor_from(v, {static_cast<int64_t>(v.size())}, DType::i64), device);
}

// src as the destination would hold it after copy_: its dtype, device and shape.
Tensor as_written(const Tensor& src, const Tensor& dst) {
  Tensor v = to_device(to_dtype(src, dst.dtype()), dst.device());
  if (v.sizes() != dst.sizes()) v = contiguous(expand(v, IntList(dst.sizes().begin(), dst.sizes().end())));
  return v;
}

// The capture observes the ops of a write's value or a view read anew even where it was
// stopped (outputs mapped after the run), so they are recorded as nodes.
class ObservedBy {
 public:
  explicit ObservedBy(OpObserver* capture) : saved_(set_op_observer(capture)) {}
  ~ObservedBy() { set_op_observer(saved_); }
  ObservedBy(const ObservedBy&) = delete;
  ObservedBy& operator=(const ObservedBy&) = delete;

 private:
  OpObserver* saved_;
};

}  // namespace

// Note [Functional writes]
// PyTorch's torch.compile functionalizes: an in-place op on a tensor made inside the
// function becomes the out-of-place op, and the tensor (and every view of the same
// base) is rebound to the result. A capture does the same at the one place every
// in-place write passes (copy_: x.add_(y) is x.copy_(add(x, y)), x[i] = v, masked_fill_,
// clamp_, zero_, writes through views):
//  - the base of the written storage is the whole contiguous tensor that owns it (an
//    op's output, zeros() in the body), known to the capture or the destination itself;
//  - the write makes the base's new value out of place: src cast and broadcast when it
//    covers the base, else index_select over cat(base, src) with a constant pick of
//    which one each element comes from; the base is rebound to it and the storage's
//    write count goes up;
//  - every other tensor on that storage (views made before the write, aliases) holds
//    an id taken at an older count: the next read regenerates it from the base (a
//    gather of its elements), so a view sees the write as in eager;
//  - gradients are eager's: a training capture records the backward that eager's
//    autograd runs (CopyBackward, or eager's own refusal of a write into a view of a
//    tensor that requires grad), so these forward values never change them.
// A write into a parameter or closed-over buffer stays a copy node (Note [Writes into
// tensors the graph has not made], Note [A write into part of a parameter]); into a
// caller's argument, or from inside a lowered region into a tensor made outside it
// other than through a variable it carries, it is a problem that says so.
bool Capture::current(const Tensor& t) const {
  auto w = written_.find(t.storage().get());
  if (w == written_.end()) return true;
  auto at = bound_at_.find(t.impl());
  return at != bound_at_.end() && at->second == w->second.version;
}

int Capture::known_or_base(const Tensor& t) const {
  if (int id = known(t); id >= 0) return id;
  auto w = written_.find(t.storage().get());
  return w == written_.end() ? -1 : known(w->second.base);
}

Tensor Capture::base_of(const Tensor& dst) const {
  if (auto w = written_.find(dst.storage().get()); w != written_.end()) return w->second.base;
  if (auto users = on_storage_.find(dst.storage().get()); users != on_storage_.end())
    for (size_t k : users->second)
      if (whole_storage(alive_[k]) && alive_[k].dtype() == dst.dtype() && known(alive_[k]) >= 0) return alive_[k];
  return Tensor();
}

// Whether writes into `base` may become values: it is one the capture's run made, or a
// lowered region's own copy of a variable it carries.
bool Capture::functional_base(const Tensor& base) const {
  int id = known(base);
  if (id < 0) return base.impl()->serial >= start_serial_;
  ValueKind kind = graph_.value(id).kind;
  if (kind == ValueKind::op || kind == ValueKind::constant) return true;
  if (kind != ValueKind::input || !parent_) return false;
  for (const auto& [outer, t] : captured_)
    if (t.storage() == base.storage()) return false;  // the enclosing graph's tensor itself
  return true;
}

// The whole of `base` after src is written into dst (a view of it), made by ops the
// capture records.
Tensor Capture::value_after_write(const Tensor& dst, const Tensor& src, const Tensor& base) {
  NoGradGuard quiet;  // the graph's ops: eager's autograd records the write itself
  WritingScope writing(*this);
  ObservedBy observed(this);
  if (same_layout(dst, base)) return as_written(src, base);
  int64_t n = base.numel();
  std::vector<int64_t> pick(static_cast<size_t>(n));
  for (int64_t p = 0; p < n; ++p) pick[static_cast<size_t>(p)] = p;
  std::vector<int64_t> at = element_positions(dst);
  for (size_t k = 0; k < at.size(); ++k) pick[static_cast<size_t>(at[k])] = n + static_cast<int64_t>(k);
  Tensor both = cat({reshape(base, {-1}), reshape(as_written(src, dst), {-1})}, 0);
  return reshape(index_select(both, 0, index_constant(pick, base.device())),
                 IntList(base.sizes().begin(), base.sizes().end()));
}

void Capture::write_functionally(const Tensor& dst, const Tensor& src, const Tensor& base) {
  rebind_written(base, value_of(value_after_write(dst, src, base)));
}

void Capture::rebind_written(const Tensor& base, int id) {
  Written& w = written_[base.storage().get()];
  w.base = base;
  ++w.version;
  for (auto& [outer, a] : aliased_)  // Note [Aliases of a variable written in place]
    if (a.copy.storage() == base.storage()) {
      Written& o = written_[outer];
      o.base = base;
      ++o.version;
    }
  remember(base, id);
}

// Note [Aliases of a variable written in place]
// A lowered region works on its own copy of a variable it writes in place (Note
// [Variables written in place inside a lowered region], interp/eval/script/regions.cpp),
// but other tensors may share the variable's memory: `let a = out` or `let v = out[0]`
// made before the loop, read inside it. In eager they see each step's writes; read as
// operands of the node they would hold the values from before it, silently. So the
// region treats the outer memory as written, with the copy as its base: a read of any
// tensor on it gathers its elements from the copy's current value (regenerate), a
// write through it is a write into the copy, and each write into the copy makes the
// earlier reads stale, as for the copy's own views. Positions in the outer memory are
// positions in the copy when the variable's tensor is all of it (zeros(), an op's
// result). Two variables on one memory, both written in place (`out` and `v = out[1]`),
// are bound whole ones first: the later one holds a view of the first one's copy, so
// each sees the other's writes (its own copy is an input the region does not read).
// A variable that is a view of a memory no variable holds whole has a copy of its own
// elements only: another tensor on that memory read in the region is a problem that
// says so, and so are two such views that overlap. A region inside another inherits
// the enclosing region's aliases of the tensor it copies.
void Capture::alias_storages(const TensorList& outers, TensorList& copies) {
  for (int whole = 1; whole >= 0; --whole)
    for (size_t k = 0; k < outers.size(); ++k)
      if (whole_storage(outers[k]) == (whole == 1)) copies[k] = alias_storage(outers[k], copies[k]);
}

Tensor Capture::alias_storage(const Tensor& outer, const Tensor& copy) {
  const Storage* mem = outer.storage().get();
  alias_outers_.push_back(outer);
  if (auto a = aliased_.find(mem); a != aliased_.end()) {
    if (a->second.copy.dtype() == outer.dtype())
      return make_view(a->second.copy, outer.sizes(), outer.strides(), outer.offset());
    problems_.push_back({"a lowered loop or branch writes in place into two variables that view one memory as "
                         "different dtypes, which a graph does not replay",
                         current_origin()});
    return copy;
  }
  std::vector<const Storage*> keys{mem};
  if (parent_)
    for (const auto& [s, a] : parent_->aliased_)
      if (a.copy.storage().get() == mem) keys.push_back(s);
  if (!whole_storage(outer)) {
    std::vector<int64_t> mine = element_positions(outer);
    std::sort(mine.begin(), mine.end());
    for (const Tensor& other : shadowed_[mem]) {
      std::vector<int64_t> theirs = element_positions(other);
      for (int64_t p : theirs)
        if (std::binary_search(mine.begin(), mine.end(), p)) {
          problems_.push_back({"a lowered loop or branch writes in place into two variables that are overlapping "
                               "views of one tensor (v = x[0:2], w = x[1:3], made before it), which a graph does "
                               "not replay: write through one of them, or through x",
                               current_origin()});
          break;
        }
    }
    for (const Storage* s : keys) shadowed_[s].push_back(outer);
    return copy;
  }
  for (const Storage* s : keys) {
    Tensor whole = outer;
    if (s != mem) whole = parent_->aliased_.at(s).outer;
    Tensor before = empty(whole.sizes(), whole.dtype(), whole.device());
    copy_into(before, whole);
    aliased_[s] = Alias{copy, whole, before, false};
    written_[s].base = copy;
  }
  Written& own = written_[copy.storage().get()];  // a view of the copy (another variable's) reads it anew
  own.base = copy;
  bound_at_[copy.impl()] = own.version;
  return copy;
}

// The region's run wrote into the outer memory itself where it wrote through an alias
// (the eager write is the real one; the graph's goes into the copy): the enclosing
// capture, and the node run on the real operands, must see the memory as it was.
void Capture::restore_aliased() {
  for (auto& [s, a] : aliased_)
    if (a.before.defined()) {
      copy_into(a.outer, a.before);
      a.before = Tensor();
    }
}

bool Capture::alias_read(const Tensor& copy) const {
  for (const auto& [s, a] : aliased_)
    if (a.copy.storage() == copy.storage() && a.read) return true;
  return false;
}

// Note [A view taken with a tensor index]
// `x[i]` with a 0-dim tensor i is a view in eager, but a capture takes it as
// select(index_select(x, at)) so that the graph replays it for any i (Note [An index a
// graph replays], interp/values/advanced_indexing.cpp): a copy. Where the difference
// shows, the capture says so rather than differ silently: a write into it (`x[i][j] =
// v`, `x[i].zero_()`) would not reach x, and a read of it after a write into x would
// not see the write. Reads before, and writes through x itself (`x[i, j] = v`), are
// what most programs do, and replay exactly.
void Capture::dynamic_view(const Tensor& gathered, const Tensor& of, const Tensor& view,
                           std::function<void(const Tensor&)> write_through) {
  dynamic_[gathered.storage().get()] = DynamicView{of, writes_into(of), false, view, std::move(write_through)};
}

// Note [A write through a view taken with a tensor index]
// `out[t].copy_(h)`, `self.buf[t].add_(h)`, `y[t:t+2].zero_()` with t traced: a write
// that covers all of what x[t] gave is, as in eager, a write into x at x[t]'s positions:
// the indexing code hands over how to make it (put_indexed with the same positions, by
// ops, Note [An index a graph replays]), and it runs here, recorded, so that x's value
// (and its eager memory) takes the write; the taken copy takes it too, as a functional
// write, and stays current. A write into part of it (x[t][1:3] = v) is still a problem.
// With gradients, eager refuses a write into a view of a tensor that requires grad, and
// so does this for x itself and for a parameter a region's copy x stands for. (A region's
// copy of another variable does not require grad, and the variable's own flag may come
// from a node whose outputs all require grad once an operand does: there the write is
// made, as PyTorch makes it, where eager refuses.)
bool Capture::wrote_through(DynamicView& d, const Tensor& dst, const Tensor& src, const std::string& what) {
  if (!d.write_through || !d.view.defined() || !same_layout(dst, d.view)) return false;
  bool needs_grad = d.of.requires_grad();
  for (const auto& [mem, a] : aliased_)
    needs_grad = needs_grad || (a.copy.storage() == d.of.storage() && a.outer.requires_grad() && a.outer.is_leaf());
  if (grad_enabled() && needs_grad)
    throw Error(what + ": in-place writes into a view of a tensor that requires grad are not supported; clone() it first");
  ObservedBy observed(this);
  d.write_through(src);
  d.version = writes_into(d.of);
  return true;
}

uint64_t Capture::writes_into(const Tensor& t) const {
  auto w = written_.find(t.storage().get());
  return w == written_.end() ? 0 : w->second.version;
}

void Capture::check_dynamic_read(const Tensor& t) {
  auto d = dynamic_.find(t.storage().get());
  if (d == dynamic_.end() || d->second.reported || writes_into(d->second.of) == d->second.version) return;
  d->second.reported = true;
  problems_.push_back({"a part of a tensor taken with a tensor index (r = x[i], i a 0-dim tensor) is read after a write "
                       "into that tensor: in eager r is a view and sees the write, in a graph it is a copy taken for "
                       "any i: take x[i] again after the write, or r = x[i].clone() before it for the old values",
                       current_origin()});
}

// Note [A write into part of a parameter]
// `self.buf[i] = v`, `self.mask[:, :k].fill_(0)`: a write into part of a parameter or a
// buffer is the copy node of its whole new value (the value made as for a functional
// write), so the graph writes the live tensor at every call, as eager does; the views
// of it taken before are read anew from it after (its storage counts as written).
void Capture::write_into_param(const Tensor& dst, const Tensor& src, const Tensor& base, int param) {
  Tensor value = value_after_write(dst, src, base);
  graph_.add_node(Node::of_kind(NodeKind::copy), {param, value_of(value)}, {}, {}, current_origin());
  Written& w = written_[base.storage().get()];
  w.base = base;
  ++w.version;
  remember(base, param);
}

// A tensor on a written storage whose id predates the last write: its elements
// gathered from the base's value now.
int Capture::regenerate(const Tensor& t) {
  const Tensor& base = written_.at(t.storage().get()).base;
  if (t.dtype() != base.dtype()) {
    problems_.push_back({"a view of another dtype is read after an in-place write into its base, which a graph "
                         "does not replay",
                         current_origin()});
    return value_of(base);
  }
  NoGradGuard quiet;
  WritingScope writing(*this);
  ObservedBy observed(this);
  Tensor flat = reshape(base, {-1});
  Tensor got = index_select(flat, 0, index_constant(element_positions(t), base.device()));
  return value_of(reshape(got, IntList(t.sizes().begin(), t.sizes().end())));
}

std::string Capture::refusal(const Tensor& dst, const Tensor& base, const std::string& what) const {
  const Capture& top = root();  // a region's write into the caller's tensor is one too
  Tensor whole = base.defined() ? base : parent_ && whole_storage(dst) ? dst : Tensor();
  int id = whole.defined() ? top.known(whole) : -1;
  if (id >= 0 && top.graph_.value(id).kind == ValueKind::input)
    return what + " writes into the argument " + top.describe(id) + " in place, which would change the caller's " +
           "tensor: a graph does not replay that (write into a clone() of it, or return the new value)";
  if (parent_)
    return what + " writes into a tensor the graph did not make (" + dst.shape_str() + " " + dtype_name(dst.dtype()) +
           ") in place, which a graph does not replay: a lowered branch or loop body writes in place only into " +
           "tensors made inside it, its variables, the fields it names itself (self.buf[i] = ...) and whole " +
           "tensors that the layers and functions it calls write (BatchNorm's running statistics), and this write " +
           "is none of those (part of a tensor made before the branch or loop, reached through a method's result " +
           "or written inside a function the body calls): write through a variable or a field the body names " +
           "(let b = self.slot() before it, then b[i] = v), or assign the new value to a variable (y = ...)";
  return what + " writes into a tensor the graph did not make (" + dst.shape_str() + " " + dtype_name(dst.dtype()) +
         ") in place, which a graph does not replay: assign the new value to a variable instead (y = ...)";
}

// Note [Writes into tensors the graph has not made]
// An in-place write whose destination is not a value an op made (x.copy_(y), the
// random fills' normal_()) used to be left out when the destination was a constant
// of the capture or a tensor it had not read: the graph kept the contents of the one
// capture run, so `let y = zeros([4]); y.normal_()` drew once for every call. Now:
//  - a tensor the function made (zeros() in the body, an op's result, a view of one)
//    takes the write as a value (Note [Functional writes]);
//  - a tensor that existed before the capture and that no region owns (a buffer the
//    function closes over) is bound as a parameter, and a write of its whole is a copy
//    node, as a parameter's is, and so is a write of part of it (Note [A write into
//    part of a parameter]);
//  - a constant written into a tensor the graph has not read yet changes nothing it
//    holds (the first read takes the contents then);
//  - anything else (a caller's argument, a view with no whole tensor known, an outer
//    tensor written inside a lowered region) is a capture problem that names the write.
void Capture::on_inplace(const Tensor& dst, const Tensor& src, const std::string& what) {
  if (auto d = dynamic_.find(dst.storage().get()); d != dynamic_.end() && !wrote_through(d->second, dst, src, what)) {
    problems_.push_back({what + " writes into a part of a tensor taken with a tensor index (x[i][1:3] = v, "
                                "i a 0-dim tensor): in eager that is a view of x, in a graph a copy taken for any i, so "
                                "the write would not reach x: index x once (x[i, 1:3] = v, x[i] = ...)",
                         current_origin()});
    return;
  }
  keep_before_write(dst);
  int id = known(dst);  // the tensor itself or one with its exact layout
  if (id >= 0 && graph_.value(id).kind == ValueKind::param) {
    graph_.add_node(Node::of_kind(NodeKind::copy), {id, value_of(src)}, {}, {}, current_origin());
    return;
  }
  Tensor base = base_of(dst);
  if (int whole = base.defined() && !parent_ ? known(base) : -1; whole >= 0 && graph_.value(whole).kind == ValueKind::param) {
    write_into_param(dst, src, base, whole);
    return;
  }
  bool unread = !base.defined() && !on_storage_.count(dst.storage().get());
  if (unread && whole_storage(dst)) base = dst;
  if (base.defined() && functional_base(base)) {
    int from = known(src);
    bool traced_source = from >= 0 && graph_.value(from).kind != ValueKind::constant;
    if (unread && !traced_source) return;  // a constant into a tensor no op has read
    write_functionally(dst, src, base);
    return;
  }
  if (unread && dst.impl()->serial < start_serial_ && !parent_) {
    graph_.add_node(Node::of_kind(NodeKind::copy), {value_of(dst), value_of(src)}, {}, {}, current_origin());
    return;
  }
  if (adoptable(dst)) {  // Note [Tensors a lowered region's calls write]
    keep_outer_before(dst);
    note_outer_write(dst, what);
    return;
  }
  problems_.push_back({refusal(dst, base, what), current_origin()});
}

// Note [Tensors a lowered region's calls write]
// A lowered branch or loop body that calls a layer writing its own buffers (BatchNorm
// in training mode: num_batches_tracked.add_(1) inside no_grad, and the batch_norm op
// writing running_mean and running_var, its updated inputs) writes tensors its body
// never names, so Note [Fields written inside a lowered loop] cannot find them by the
// statements' form. They are found by running the body instead:
//  - in a region capture, an in-place write (or an op's write of its updated input)
//    into a tensor made before the region, all of its memory, that is not the
//    caller's argument, is recorded as an outer write (with its contents before, put
//    back when the region ends: the run is a probe) instead of a problem;
//  - the lowering (interp/eval/script/field_writes.cpp) then lowers the statement
//    again with each such tensor as a field: carried (a cond's sides take and yield
//    it), and written back once after the node, so the untaken side of a cond leaves
//    it as eager does and a loop's steps accumulate as eager's;
//  - an outer write nobody adopts becomes the region's problem when it finishes;
//  - inside the region that carries it, an op's write of its updated input whose memory
//    the region holds as a value (the carried copy, or any tensor written functionally)
//    goes into a fresh copy of the current value (x + 0), which then stands for that
//    memory: the value the region yields sees the write, and a replay of the region
//    for its gradient writes a copy of its own, not the buffer.
// Writes into part of an outer tensor, or into a view of one, stay refused.
bool Capture::adoptable(const Tensor& t) const {
  if (!parent_ || !t.defined() || !whole_storage(t) || t.impl()->serial >= start_serial_) return false;
  const Capture& top = root();
  int id = top.known(t);
  return id < 0 || top.graph_.value(id).kind != ValueKind::input;  // a caller's tensor stays refused
}

void Capture::keep_outer_before(const Tensor& t) {
  for (const auto& [kept, before] : outer_before_)
    if (kept.storage() == t.storage()) return;
  Tensor before = empty(t.sizes(), t.dtype(), t.device());
  copy_into(before, t);
  outer_before_.emplace_back(t, before);
}

// `what` names the write ("copy_", "batch_norm"); the problem's text is for a write
// that no lowering adopts.
void Capture::note_outer_write(const Tensor& t, const std::string& what) {
  for (const OuterWrite& w : outer_writes_)
    if (w.tensor.storage() == t.storage()) return;
  outer_writes_.push_back({t,
                           {what + " writes into a tensor made before the lowered branch or loop (" + t.shape_str() +
                                " " + dtype_name(t.dtype()) + ") in place, which the node does not carry, so a graph " +
                                "would not replay it",
                            current_origin()}});
}

void Capture::restore_outer_writes() {
  for (auto it = outer_before_.rbegin(); it != outer_before_.rend(); ++it) copy_into(it->first, it->second);
  outer_before_.clear();
}

void Capture::adopt_outer_write(const Tensor& t) {
  outer_writes_.erase(std::remove_if(outer_writes_.begin(), outer_writes_.end(),
                                     [&](const OuterWrite& w) { return w.tensor.storage() == t.storage(); }),
                      outer_writes_.end());
}

std::string Capture::name_of(const Tensor& t) const {
  const Capture& top = root();
  int id = top.known(t);
  return id < 0 || top.graph_.value(id).kind != ValueKind::param ? "" : top.graph_.value(id).name;
}

// The inputs an op of a region capture writes (graph/rewrite.hpp's written_inputs:
// batch_norm's running statistics only in training mode).
std::vector<size_t> Capture::region_written_inputs(const OpDef& def, const TensorList& inputs, const Attrs& attrs) const {
  if (!parent_ || def.updated_inputs == 0) return {};
  Node n = Node::of(def.id);
  n.attrs = attrs;
  for (const Tensor& t : inputs) n.inputs.push_back(t.defined() ? 0 : -1);
  return written_inputs(n);
}

int Capture::fresh_written_input(const Tensor& t, const std::string& what) {
  const Tensor& base = written_.at(t.storage().get()).base;
  if (!same_layout(t, base) && !(whole_storage(t) && t.sizes() == base.sizes() && t.dtype() == base.dtype())) {
    problems_.push_back({what + " writes in place into a part (" + t.shape_str() + " " + dtype_name(t.dtype()) +
                             ") of a tensor that the lowered branch or loop writes too, which a graph does not " +
                             "replay: give it a tensor of its own (its running statistics not views of one buffer)",
                         current_origin()});
    return -1;
  }
  NoGradGuard quiet;
  WritingScope writing(*this);
  ObservedBy observed(this);
  Tensor fresh = t + wrapped_scalar(0.0);
  return value_of(fresh);
}

}  // namespace nabla::graph
