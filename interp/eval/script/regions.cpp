// Script mode's shared pieces: see regions.hpp.
#include "interp/eval/script/regions.hpp"

#include <algorithm>

#include "autograd/ops.hpp"
#include "autograd/trace.hpp"
#include "graph/control_flow.hpp"
#include "graph/control_flow_grad.hpp"
#include "graph/rewrite.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/eval/script/field_writes.hpp"

namespace nabla::interp::script {

// ---- variables ----------------------------------------------------------------------------

bool same_var(const Name& a, const Name& b) { return a.depth == b.depth && a.slot == b.slot; }

void add_var(const Name& n, Vars& out) {
  for (const Name* m : out)
    if (same_var(*m, n)) return;
  out.push_back(&n);
}

namespace {

void add_target(const Expr& target, Vars& out) {
  if (target.kind == ExprKind::Tuple || target.kind == ExprKind::List) {
    const auto& items = target.kind == ExprKind::Tuple ? static_cast<const TupleLit&>(target).items
                                                       : static_cast<const ListLit&>(target).items;
    for (const auto& item : items) add_target(*item, out);
    return;
  }
  if (target.kind != ExprKind::Name) return;  // x.f = ..., x[i] = ...: no variable changes
  auto& n = static_cast<const Name&>(target);
  if (n.slot < 0) return;  // a model's field written bare, not a variable
  add_var(n, out);
}

bool in_place_method(const std::string& name) { return name.size() > 1 && name.back() == '_'; }

// Methods and attributes whose result shares the receiver's memory, so a write into it
// writes the variable under it.
bool view_method(const std::string& name) {
  static const char* const views[] = {"select", "narrow", "view", "view_as", "transpose", "t", "permute", "unsqueeze",
                                      "squeeze", "diagonal", "expand", "expand_as", "as_strided", "unfold", "movedim",
                                      "swapaxes", "swapdims", "unflatten", "detach"};
  for (const char* v : views)
    if (name == v) return true;
  return false;
}

}  // namespace

const Expr& written_root(const Expr& e) {
  const Expr* x = &e;
  for (;;) {
    if (x->kind == ExprKind::Index) {
      x = static_cast<const Index&>(*x).object.get();
    } else if (x->kind == ExprKind::Attribute && (static_cast<const Attribute&>(*x).name == "T" ||
                                                   static_cast<const Attribute&>(*x).name == "mT" ||
                                                   static_cast<const Attribute&>(*x).name == "data")) {
      x = static_cast<const Attribute&>(*x).object.get();
    } else if (x->kind == ExprKind::Call && static_cast<const Call&>(*x).callee->kind == ExprKind::Attribute) {
      auto& m = static_cast<const Attribute&>(*static_cast<const Call&>(*x).callee);
      if (!in_place_method(m.name) && !view_method(m.name)) return *x;  // another method's result: not the receiver's memory
      x = m.object.get();
    } else {
      return *x;
    }
  }
}

// Note [Variables written in place inside a lowered region]: `out[...] = v`,
// `out[...] += v` and `out.op_(...)` (an in-place method, named with a trailing _).
const Expr* written_by(const Stmt& s) {
  const Expr* target = nullptr;
  if (s.kind == StmtKind::Assign) target = static_cast<const AssignStmt&>(s).target.get();
  if (s.kind == StmtKind::AugAssign) target = static_cast<const AugAssignStmt&>(s).target.get();
  if (target) return target->kind == ExprKind::Index ? target : nullptr;
  if (s.kind != StmtKind::Expr) return nullptr;
  const Expr& e = *static_cast<const ExprStmt&>(s).expr;
  if (e.kind != ExprKind::Call) return nullptr;
  const Expr& callee = *static_cast<const Call&>(e).callee;
  if (callee.kind != ExprKind::Attribute) return nullptr;
  auto& method = static_cast<const Attribute&>(callee);
  return in_place_method(method.name) ? method.object.get() : nullptr;
}

namespace {

// The variable under an index chain (out in out[i], out[:, i][j]), through views and
// in-place methods that return their receiver (out.select(0, i), acc.mul_(0.5) in
// acc.mul_(0.5).add_(x), out.T); none for a field (self.buf[i]: Note [Fields written
// inside a lowered loop], field_writes.cpp) or an expression.
const Name* indexed_variable(const Expr& e) {
  const Expr& x = written_root(e);
  if (x.kind != ExprKind::Name) return nullptr;
  auto& n = static_cast<const Name&>(x);
  return n.slot < 0 ? nullptr : &n;
}

void add_written(const Stmt& s, Vars& written) {
  if (const Expr* w = written_by(s))
    if (const Name* n = indexed_variable(*w)) add_var(*n, written);
}

// The variables the statements of b from `from` on assign, and those they write in
// place, nested blocks included.
void targets_in(const Block& b, Vars& out, Vars& written, size_t from) {
  for (size_t k = from; k < b.stmts.size(); ++k) {
    const Stmt& s = *b.stmts[k];
    add_written(s, written);
    switch (s.kind) {
      case StmtKind::Assign: add_target(*static_cast<const AssignStmt&>(s).target, out); break;
      case StmtKind::AugAssign: add_target(*static_cast<const AugAssignStmt&>(s).target, out); break;
      case StmtKind::If: {
        auto& i = static_cast<const IfStmt&>(s);
        for (const Block& blk : i.blocks) targets_in(blk, out, written, 0);
        if (i.else_block) targets_in(*i.else_block, out, written, 0);
        break;
      }
      case StmtKind::While: targets_in(static_cast<const WhileStmt&>(s).body, out, written, 0); break;
      case StmtKind::For: targets_in(static_cast<const ForStmt&>(s).body, out, written, 0); break;
      case StmtKind::Context: targets_in(static_cast<const ContextStmt&>(s).body, out, written, 0); break;
      default: break;
    }
  }
}

void pattern_locs(const Impl& im, const Pattern& p, std::vector<Loc>& out) {
  if (p.is_tuple()) {
    for (const Pattern& item : p.items) pattern_locs(im, item, out);
    return;
  }
  if (auto it = im.locs.find(&p); it != im.locs.end()) out.push_back(it->second);
}

// The variables that `let` and `for` declare in the statements of b from `from` on,
// nested blocks included: they live only inside what is being lowered.
void declared_in(const Impl& im, const Block& b, std::vector<Loc>& out, size_t from) {
  for (size_t k = from; k < b.stmts.size(); ++k) {
    const Stmt& s = *b.stmts[k];
    switch (s.kind) {
      case StmtKind::Let: pattern_locs(im, static_cast<const LetStmt&>(s).target, out); break;
      case StmtKind::If: {
        auto& i = static_cast<const IfStmt&>(s);
        for (const Block& blk : i.blocks) declared_in(im, blk, out, 0);
        if (i.else_block) declared_in(im, *i.else_block, out, 0);
        break;
      }
      case StmtKind::While: declared_in(im, static_cast<const WhileStmt&>(s).body, out, 0); break;
      case StmtKind::For: {
        auto& f = static_cast<const ForStmt&>(s);
        pattern_locs(im, f.target, out);
        declared_in(im, f.body, out, 0);
        break;
      }
      case StmtKind::Context: declared_in(im, static_cast<const ContextStmt&>(s).body, out, 0); break;
      default: break;
    }
  }
}

}  // namespace

bool declares(const Impl& im, const Block& b, const Name& v) {
  std::vector<Loc> locals;
  declared_in(im, b, locals, 0);
  return std::any_of(locals.begin(), locals.end(), [&](const Loc& l) { return l.depth == v.depth && l.slot == v.slot; });
}

bool assigned_by_name(const Block& b, const Name& v) {
  Vars found, written;
  targets_in(b, found, written, 0);
  return std::any_of(found.begin(), found.end(), [&](const Name* n) { return same_var(*n, v); });
}

void assigned_in(Impl& im, const Block& b, Vars& out, size_t from) {
  Vars found, written;
  targets_in(b, found, written, from);
  for (const Name* n : written)  // a tensor's only: a list's item assignment stays refused
    if (im.load(loc(*n)).tag == Tag::Tensor) {
      add_var(*n, found);
      add_var(*n, im.ev.script->written_in_place);
    }
  std::vector<Loc> locals;
  declared_in(im, b, locals, from);
  for (const Name* n : found) {
    bool local = false;
    for (const Loc& l : locals) local = local || (l.depth == n->depth && l.slot == n->slot);
    if (!local) add_var(*n, out);
  }
}

std::vector<Value> load_all(Impl& im, const Vars& vars) {
  std::vector<Value> out;
  for (const Name* n : vars) out.push_back(im.load(loc(*n)));
  return out;
}

void store_all(Impl& im, const Vars& vars, const std::vector<Value>& values) {
  for (size_t k = 0; k < vars.size(); ++k) im.store(loc(*vars[k]), values[k]);
}

bool same_value(const Value& a, const Value& b) {
  if (a.tag == Tag::Tensor || b.tag == Tag::Tensor) return a.tag == b.tag && a.t.impl() == b.t.impl();
  try {
    return values_equal(a, b);
  } catch (...) {
    return false;
  }
}

std::string names_text(const Vars& vars) {
  std::string s;
  for (const Name* n : vars) s += (s.empty() ? "" : ", ") + n->id;
  return s.empty() ? "nothing" : s;
}

bool traced(const Impl& im, const Value& v) { return v.tag == Tag::Tensor && im.ev.script->capture->traced(v.t); }

Value condition_value(Impl& im, const Expr& cond) {
  ConditionScope reading(im.ev.script);
  return im.eval(cond);
}

// Note [Counters carried as tensors]
// A while loop on a tensor condition often counts its trips or keeps a flag in a plain
// number (`i = i + 1`, `converged = false`), and an `if` on a tensor may count or flag
// what it did (`n = n + 1` in one branch), which a lowered node cannot carry or output:
// the number would be fixed at its value in the one run that was captured. So each
// plain number the blocks assign (int, float or bool) becomes a 0-dim tensor (i64, f64,
// bool) before the statement lowers, and is carried or output like its tensors; a
// number a block assigns to it is made a 0-dim tensor (inside the region: a constant
// of it). After the statement the variable holds that 0-dim tensor, with the value
// eager's number would have; one no block changed gets its number back. (A `for` over
// a range or rows unrolls instead, and keeps its numbers as numbers.)
Tensor scalar_of(const Value& v, DType dtype) { return tensor_from({v.as_double()}, {}, dtype); }

DType natural_dtype(const Value& v) { return v.tag == Tag::Float ? DType::f64 : v.tag == Tag::Int ? DType::i64 : DType::b8; }

Vars promote_counters(Impl& im, const Vars& vars) {
  Vars promoted;
  for (const Name* n : vars) {
    Value v = im.load(loc(*n));
    if (!v.is_num()) continue;
    im.store(loc(*n), Value::tensor(scalar_of(v, natural_dtype(v))));
    promoted.push_back(n);
  }
  return promoted;
}

// A number a block left in a promoted variable, as a 0-dim tensor (made inside the
// block's region).
void numbers_as_tensors(Impl& im, const Vars& promoted) {
  for (const Name* n : promoted) {
    Value v = im.load(loc(*n));
    if (v.is_num()) im.store(loc(*n), Value::tensor(scalar_of(v, natural_dtype(v))));
  }
}

// ---- regions ------------------------------------------------------------------------------

Region::Region(ScriptMode& script, const std::string& name)
    : script_(script), outer_(*script.capture), capture_(name, &outer_) {}

Region::~Region() {
  capture_.stop();
  close();
}

Tensor Region::bind(const Tensor& t, const std::string& name) {
  Tensor c = graph::unrecorded_copy(t);  // unknown to the enclosing capture: reads of it are reads of the input
  capture_.bind_input(c, name);
  return c;
}

void Region::start() {
  objects_.emplace();
  capture_.start();
  script_.capture = &capture_;
  ++script_.open_regions;
  open_ = true;
}

std::shared_ptr<graph::Graph> Region::finish(const TensorList& outputs) {
  std::shared_ptr<graph::Graph> g = capture_.finish_region(outputs);
  close();
  return g;
}

void Region::close() {
  objects_.reset();
  script_.capture = &outer_;
  if (open_) --script_.open_regions;
  open_ = false;
}

void add_operands(Operands& all, const Operands& more) {
  for (const auto& op : more) {
    bool seen = false;
    for (const auto& have : all) seen = seen || have.first == op.first;
    if (!seen) all.push_back(op);
  }
}

namespace {

std::string unused_name(const graph::Graph& r) {
  for (size_t k = 0;; ++k) {
    std::string name = "unused" + std::to_string(k);
    bool taken = false;
    for (const graph::Value& v : r.values) taken = taken || v.name == name;
    if (!taken) return name;
  }
}

}  // namespace

// Note [Variables written in place inside a lowered region]
// `out[:, i] = h`, `hist[k] = x.sum()` or `acc.add_(x)` in a lowered loop or branch
// writes into a tensor made before the statement, which the region cannot write: a
// region's writes are values of its own graph (Note [Functional writes]). So:
//  - assigned_in counts a variable written through an index or an in-place method as
//    assigned, when it holds a tensor: the loop carries it, a cond outputs it;
//  - the region works on its own copy of the tensor (Region::bind, as for carried
//    variables), so the writes become values of the copy;
//  - after the node, a variable the region wrote in place without assigning it gets
//    its own tensor back, and the node's result is copied into it (copy_, recorded in
//    the enclosing capture as any write is): views and aliases of the tensor see the
//    writes as in eager, and a write into the caller's argument or into part of a
//    parameter is refused as it is outside a region;
//  - a variable written in place and then assigned in the same region would need the
//    old tensor written at one step and the variable rebound: an error says so.
// The variable is found under index chains, views and in-place methods that return
// their receiver (out.select(0, i).copy_(h), r.mul_(m).add_(v)); a model's field
// (self.buf[i] = h) is carried alike (Note [Fields written inside a lowered loop],
// field_writes.cpp), so is a whole tensor that a function the body calls writes (Note
// [Tensors a lowered region's calls write], graph/capture_writes.cpp), and any other
// tensor reached other than through a variable is still refused. Other tensors on the variable's memory read in the region: Note
// [Aliases of a variable written in place].
bool wrote_in_place(Impl& im, Region& region, const Name& var, const Tensor& bound, const std::string& statement) {
  if (!region.capture().written_in_place(bound)) return false;
  Value now = im.load(loc(var));
  if (now.tag == Tag::Tensor && now.t.impl() == bound.impl()) return true;
  fail(statement + " lowers to a node that either writes into variable '" + var.id +
       "' in place or assigns it, but its body does both (a write, then an assignment): write into a copy "
       "(let y = " + var.id + ".clone()), or assign only");
}

bool written_in_place(const Impl& im, const Name& n) {
  for (const Name* m : im.ev.script->written_in_place)
    if (same_var(*m, n)) return true;
  return false;
}

void write_back(Impl& im, const Name& var, const Value& before) {
  Tensor result = im.load(loc(var)).t;
  im.store(loc(var), before);
  Tensor target = before.t;
  copy_(target, result);
}

void align_region(graph::Graph& r, size_t bound, const Operands& mine, const Operands& all) {
  std::vector<int> params = graph::region_params(r);
  std::vector<int> inputs(params.begin(), params.begin() + static_cast<long>(bound));
  for (const auto& [outer_id, t] : all) {
    int id = -1;
    for (size_t j = 0; j < mine.size(); ++j)
      if (mine[j].first == outer_id) id = params[bound + j];
    if (id < 0) id = r.add_input(unused_name(r), graph::ValueKind::input, {t.sizes(), t.dtype()});
    inputs.push_back(id);
  }
  for (int id : r.inputs)
    if (r.value(id).kind == graph::ValueKind::constant) inputs.push_back(id);
  r.inputs = std::move(inputs);
  r.compact({});
}

TensorList add_node(const ScriptMode& script, graph::NodeKind kind, Attrs attrs,
                    std::vector<std::shared_ptr<graph::Graph>> regions, const Operands& operands,
                    const std::vector<TensorMeta>& metas, const std::string& origin) {
  graph::Node n = graph::Node::of_kind(kind);
  n.attrs = std::move(attrs);
  n.regions = std::move(regions);
  n.origin = origin;
  TensorList ins;
  for (const auto& [id, t] : operands) ins.push_back(t);
  graph::QuietRaises quiet(!script.live);  // Note [A failing side of a lowered if]: values no call takes here
  graph::CarriesFor carries = script.open_regions > 0 ? graph::CarriesFor::none
                              : script.train          ? graph::CarriesFor::keep
                                                      : graph::CarriesFor::recompute;
  return graph::apply_control_flow(n, ins, metas, carries, script.loop_saving);
}

std::vector<TensorMeta> metas_of(const TensorList& ts) {
  std::vector<TensorMeta> out;
  for (const Tensor& t : ts) out.push_back({t.sizes(), t.dtype()});
  return out;
}

Tensor predicate(const Tensor& t) {
  if (t.numel() != 1)
    fail("the truth value of a tensor with " + std::to_string(t.numel()) +
         " elements is ambiguous (use .any() / .all() style reductions, e.g. (x > 0).sum() > 0)");
  Tensor p = t.dim() == 0 ? t : reshape(t, {});
  return p.dtype() == DType::b8 ? p : call(OpId::ne, {p, wrapped_scalar(0.0)})[0];
}

const char* flow_word(Flow f) {
  switch (f) {
    case Flow::Break: return "break";
    case Flow::Continue: return "continue";
    case Flow::Return: return "return";
    default: return "";
  }
}

// ---- tensor trees ----------------------------------------------------------------------------

// Note [Dicts of tensors carried by lowered control flow]
// A tree of tensors (what a cond yields, a loop carries) is a tensor, or a tuple, list
// or dict of trees: `state = {"h": h, "c": c}` reassigned in a step or a side is
// carried as its values' leaves, in its keys' order, and rebuilt after the node as a
// new dict of the same keys. Both sides (every step) must give the same keys in the
// same order; before, a dict there was a plain value, and one that changed a
// refusal ("branches differ only in tensors").
bool tensor_leaves(const Value& v, TensorList& out) {
  if (v.tag == Tag::Tensor) {
    out.push_back(v.t);
    return true;
  }
  if (v.tag == Tag::Dict) {
    for (const auto& entry : v.as<DictObj>()->entries)
      if (!tensor_leaves(entry.second, out)) return false;
    return true;
  }
  if (v.tag != Tag::Tuple && v.tag != Tag::List) return false;
  for (const Value& item : v.as<ListObj>()->items)
    if (!tensor_leaves(item, out)) return false;
  return true;
}

bool same_tree(const Value& a, const Value& b) {
  if (a.tag == Tag::Tensor || b.tag == Tag::Tensor)
    return a.tag == b.tag && a.t.sizes() == b.t.sizes() && a.t.dtype() == b.t.dtype();
  if (a.tag == Tag::Dict && b.tag == Tag::Dict) {
    const auto &x = a.as<DictObj>()->entries, &y = b.as<DictObj>()->entries;
    if (x.size() != y.size()) return false;
    for (size_t k = 0; k < x.size(); ++k)
      if (!same_value(x[k].first, y[k].first) || !same_tree(x[k].second, y[k].second)) return false;
    return true;
  }
  if (a.tag != b.tag || (a.tag != Tag::Tuple && a.tag != Tag::List)) return false;
  const auto &x = a.as<ListObj>()->items, &y = b.as<ListObj>()->items;
  if (x.size() != y.size()) return false;
  for (size_t k = 0; k < x.size(); ++k)
    if (!same_tree(x[k], y[k])) return false;
  return true;
}

Value rebuild(const Value& like, const TensorList& leaves, size_t& next) {
  if (like.tag == Tag::Tensor) return Value::tensor(leaves.at(next++));
  if (like.tag == Tag::Dict) {
    auto dict = std::make_shared<DictObj>();
    for (const auto& entry : like.as<DictObj>()->entries) dict->set(entry.first, rebuild(entry.second, leaves, next));
    return Value::object(Tag::Dict, std::move(dict));
  }
  std::vector<Value> items;
  for (const Value& item : like.as<ListObj>()->items) items.push_back(rebuild(item, leaves, next));
  return like.tag == Tag::Tuple ? make_tuple(std::move(items)) : make_list(std::move(items));
}

Value zeros_of_tree(const Value& like) {
  TensorList leaves, zs;
  tensor_leaves(like, leaves);
  for (const Tensor& t : leaves) zs.push_back(zeros(t.sizes(), t.dtype(), t.device()));
  size_t next = 0;
  return rebuild(like, zs, next);
}

std::string type_text(const Value& v) {
  if (v.tag == Tag::Tensor) return graph::meta_str({v.t.sizes(), v.t.dtype()});
  if (v.tag == Tag::Dict) {
    std::string s;
    for (const auto& entry : v.as<DictObj>()->entries) s += (s.empty() ? "" : ", ") + repr(entry.first) + ": " + type_text(entry.second);
    return "{" + s + "}";
  }
  if (v.tag != Tag::Tuple && v.tag != Tag::List) return repr(v);
  std::string s;
  for (const Value& item : v.as<ListObj>()->items) s += (s.empty() ? "" : ", ") + type_text(item);
  if (v.tag == Tag::Tuple) return "(" + s + (v.as<ListObj>()->items.size() == 1 ? ",)" : ")");
  return "[" + s + "]";
}

}  // namespace nabla::interp::script
