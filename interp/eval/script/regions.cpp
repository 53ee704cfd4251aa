// Script mode's shared pieces: see regions.hpp.
#include "interp/eval/script/regions.hpp"

#include "autograd/ops.hpp"
#include "autograd/trace.hpp"
#include "graph/control_flow.hpp"
#include "graph/control_flow_grad.hpp"

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

}  // namespace

void assigned_in(const Block& b, Vars& out, size_t from) {
  for (size_t k = from; k < b.stmts.size(); ++k) {
    const Stmt& s = *b.stmts[k];
    switch (s.kind) {
      case StmtKind::Assign: add_target(*static_cast<const AssignStmt&>(s).target, out); break;
      case StmtKind::AugAssign: add_target(*static_cast<const AugAssignStmt&>(s).target, out); break;
      case StmtKind::If: {
        auto& i = static_cast<const IfStmt&>(s);
        for (const Block& blk : i.blocks) assigned_in(blk, out);
        if (i.else_block) assigned_in(*i.else_block, out);
        break;
      }
      case StmtKind::While: assigned_in(static_cast<const WhileStmt&>(s).body, out); break;
      case StmtKind::For: assigned_in(static_cast<const ForStmt&>(s).body, out); break;
      case StmtKind::Context: assigned_in(static_cast<const ContextStmt&>(s).body, out); break;
      default: break;
    }
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

// ---- a two-way choice ---------------------------------------------------------------------

namespace {

// What one side of a lowered choice left: its region and the variables' values.
struct Branch {
  std::shared_ptr<graph::Graph> region;
  Operands operands;
  std::vector<Value> values;
};

Branch capture_side(Impl& im, const char* label, const Vars& vars, const std::vector<Value>& before,
                    const Vars& promoted, const Side& side) {
  Region region(*im.ev.script, label);
  region.start();
  Flow flow = side();
  if (flow != Flow::Normal)
    fail(std::string("a '") + flow_word(flow) + "' inside an if on a tensor condition cannot be lowered to a cond" +
         (flow == Flow::Return ? ": assign a variable in both branches and return it after the if"
                               : " here: it lowers when its if is in a loop's body, directly or inside other ifs, "
                                 "not inside a context block such as no_grad { }"));
  numbers_as_tensors(im, promoted);  // Note [Counters carried as tensors]
  Branch b;
  b.values = load_all(im, vars);
  TensorList yields;
  for (const Value& v : b.values)
    if (v.tag == Tag::Tensor) yields.push_back(v.t);
  b.region = region.finish(yields);
  b.operands = region.capture().captured();
  store_all(im, vars, before);
  return b;
}

// Which variables a lowered choice outputs: those either side changed, each a tensor
// of one type in both; a plain value (a number, a string) must be the same in both.
std::vector<size_t> choice_outputs(const Vars& vars, const std::vector<Value>& before, const Branch& a, const Branch& b) {
  std::vector<size_t> outs;
  for (size_t k = 0; k < vars.size(); ++k) {
    const Value &x = a.values[k], &y = b.values[k];
    if (same_value(x, before[k]) && same_value(y, before[k])) continue;
    const std::string& name = vars[k]->id;
    if (x.tag != Tag::Tensor || y.tag != Tag::Tensor) {
      if (same_value(x, y)) continue;
      fail("an if on a tensor condition lowers to a cond, whose branches differ only in tensors, but variable '" + name +
           "' is " + repr(x) + " after one branch and " + repr(y) + " after the other");
    }
    if (x.t.sizes() != y.t.sizes() || x.t.dtype() != y.t.dtype())
      fail("an if on a tensor condition lowers to a cond, whose branches yield the same types, but variable '" + name +
           "' is " + graph::meta_str({x.t.sizes(), x.t.dtype()}) + " after the then-branch and " +
           graph::meta_str({y.t.sizes(), y.t.dtype()}) + " after the else-branch");
    outs.push_back(k);
  }
  return outs;
}

// Keeps the yields of the variables in `outs` (regions yield every tensor variable).
void keep_yields(graph::Graph& r, const std::vector<Value>& values, const std::vector<size_t>& outs) {
  std::vector<int> kept;
  size_t tensor_index = 0;
  for (size_t k = 0; k < values.size(); ++k) {
    if (values[k].tag != Tag::Tensor) continue;
    if (std::find(outs.begin(), outs.end(), k) != outs.end()) kept.push_back(r.outputs[tensor_index]);
    ++tensor_index;
  }
  r.outputs = kept;
}

}  // namespace

Vars lower_choice(Impl& im, const Tensor& pred, const Vars& vars, const std::string& origin, const Side& then_side,
                  const Side& else_side) {
  Capture& outer = *im.ev.script->capture;
  const std::vector<Value> plain_before = load_all(im, vars);
  Vars promoted = promote_counters(im, vars);  // Note [Counters carried as tensors]
  std::vector<Value> before = load_all(im, vars);
  Branch then = capture_side(im, "then", vars, before, promoted, then_side);
  Branch other = capture_side(im, "else", vars, before, promoted, else_side);
  std::vector<size_t> outs = choice_outputs(vars, before, then, other);
  for (size_t v = 0; v < vars.size(); ++v)  // a number no branch changed stays a number
    if (plain_before[v].is_num() && std::find(outs.begin(), outs.end(), v) == outs.end())
      im.store(loc(*vars[v]), plain_before[v]);
  keep_yields(*then.region, then.values, outs);
  keep_yields(*other.region, other.values, outs);
  Operands operands = {{outer.value_id(pred), pred}};
  Operands all;
  add_operands(all, then.operands);
  add_operands(all, other.operands);
  align_region(*then.region, 0, then.operands, all);
  align_region(*other.region, 0, other.operands, all);
  operands.insert(operands.end(), all.begin(), all.end());
  std::vector<TensorMeta> metas;
  Vars changed;
  for (size_t o : outs) {
    metas.push_back({then.values[o].t.sizes(), then.values[o].t.dtype()});
    changed.push_back(vars[o]);
  }
  TensorList results = add_node(*im.ev.script, graph::NodeKind::cond, {}, {then.region, other.region}, operands, metas, origin);
  for (size_t o = 0; o < outs.size(); ++o) im.store(loc(*changed[o]), Value::tensor(results[o]));
  return changed;
}

}  // namespace nabla::interp::script
