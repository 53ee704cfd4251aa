// Script mode (interp/eval/script_mode.hpp): while compile(..., mode="script")
// captures, an `if`/`elif` or `while` whose condition is a traced tensor becomes a
// cond or while_loop node, and a `for` over a range or a tensor a scan
// (graph/control_flow.hpp). A statement lowers in three steps:
//  1. The variables its blocks assign (assigned_in) are what the node carries or
//     outputs: each region yields their values at the end of its block.
//  2. Each block runs once, on real values, under a region capture (a graph::Capture
//     with the enclosing one as parent): a loop's carried tensors and the first row
//     are bound as region inputs, and whatever else the block reads becomes an
//     operand of the node.
//  3. The variables go back to their values before the statement, the node joins the
//     enclosing capture, and the executor runs it on the real operands: its results
//     are the variables' new values, so the program goes on with what eager gives.
// A `for` that cannot lower (its body breaks or returns, changes a variable that is
// not a tensor, or uses the row as a number) runs as usual, unrolled by tracing, and
// the note says why. An `if` or `while` on a tensor that cannot lower is an error.
#include "autograd/ops.hpp"
#include "autograd/trace.hpp"
#include "graph/control_flow.hpp"
#include "graph/control_flow_grad.hpp"
#include "interp/eval/evaluator_impl.hpp"
#include "interp/eval/script_mode.hpp"
#include "tensor/cpu/copy.hpp"

namespace nabla::interp {

namespace {

using graph::Capture;
using Operands = std::vector<std::pair<int, Tensor>>;  // outer value id and tensor, per operand

// ---- the variables a block assigns ------------------------------------------------------

bool same_var(const Name& a, const Name& b) { return a.depth == b.depth && a.slot == b.slot; }

void add_var(const Expr& target, std::vector<const Name*>& out) {
  if (target.kind == ExprKind::Tuple || target.kind == ExprKind::List) {
    const auto& items = target.kind == ExprKind::Tuple ? static_cast<const TupleLit&>(target).items
                                                       : static_cast<const ListLit&>(target).items;
    for (const auto& item : items) add_var(*item, out);
    return;
  }
  if (target.kind != ExprKind::Name) return;  // x.f = ..., x[i] = ...: no variable changes
  auto& n = static_cast<const Name&>(target);
  if (n.slot < 0) return;  // a model's field written bare, not a variable
  for (const Name* m : out)
    if (same_var(*m, n)) return;
  out.push_back(&n);
}

// The variables that `b` assigns (`x = ...`, `x += ...`, `a, b = ...`, in nested
// blocks too), each once, in order. A `let` declares a variable of its block, which
// does not outlive it, and a `fn` body runs in another frame: neither counts.
void assigned_in(const Block& b, std::vector<const Name*>& out) {
  for (const auto& s : b.stmts) {
    switch (s->kind) {
      case StmtKind::Assign: add_var(*static_cast<const AssignStmt&>(*s).target, out); break;
      case StmtKind::AugAssign: add_var(*static_cast<const AugAssignStmt&>(*s).target, out); break;
      case StmtKind::If: {
        auto& i = static_cast<const IfStmt&>(*s);
        for (const Block& blk : i.blocks) assigned_in(blk, out);
        if (i.else_block) assigned_in(*i.else_block, out);
        break;
      }
      case StmtKind::While: assigned_in(static_cast<const WhileStmt&>(*s).body, out); break;
      case StmtKind::For: assigned_in(static_cast<const ForStmt&>(*s).body, out); break;
      case StmtKind::Context: assigned_in(static_cast<const ContextStmt&>(*s).body, out); break;
      default: break;
    }
  }
}

Loc loc(const Name& n) { return Loc{n.depth, n.slot}; }

std::vector<Value> load_all(Evaluator::Impl& im, const std::vector<const Name*>& vars) {
  std::vector<Value> out;
  for (const Name* n : vars) out.push_back(im.load(loc(*n)));
  return out;
}

void store_all(Evaluator::Impl& im, const std::vector<const Name*>& vars, const std::vector<Value>& values) {
  for (size_t k = 0; k < vars.size(); ++k) im.store(loc(*vars[k]), values[k]);
}

// Whether a variable holds the same thing: the same tensor, or equal plain values.
bool same_value(const Value& a, const Value& b) {
  if (a.tag == Tag::Tensor || b.tag == Tag::Tensor) return a.tag == b.tag && a.t.impl() == b.t.impl();
  try {
    return values_equal(a, b);
  } catch (...) {
    return false;
  }
}

std::string names_text(const std::vector<const Name*>& vars) {
  std::string s;
  for (const Name* n : vars) s += (s.empty() ? "" : ", ") + n->id;
  return s.empty() ? "nothing" : s;
}

// ---- regions ----------------------------------------------------------------------------


// One block run under a region capture, installed as the script's capture (and the
// thread's op observer) from start() until finish() or destruction.
class Region {
 public:
  Region(ScriptMode& script, const std::string& name) : script_(script), outer_(*script.capture), capture_(name, &outer_) {}
  ~Region() {
    capture_.stop();
    close();
  }
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;

  // Binds a fresh copy of t as the next region input and returns it.
  Tensor bind(const Tensor& t, const std::string& name) {
    Tensor c = graph::unrecorded_copy(t);  // unknown to the enclosing capture: reads of it are reads of the input
    capture_.bind_input(c, name);
    return c;
  }
  void start() {
    capture_.start();
    script_.capture = &capture_;
    ++script_.open_regions;
    open_ = true;
  }
  std::shared_ptr<graph::Graph> finish(const TensorList& outputs) {
    std::shared_ptr<graph::Graph> g = capture_.finish_region(outputs);
    close();
    return g;
  }
  Capture& capture() { return capture_; }
  Capture& outer() { return outer_; }

 private:
  void close() {
    script_.capture = &outer_;
    if (open_) --script_.open_regions;
    open_ = false;
  }

  ScriptMode& script_;
  Capture& outer_;
  Capture capture_;
  bool open_ = false;
};

void add_operands(Operands& all, const Operands& more) {
  for (const auto& op : more) {
    bool seen = false;
    for (const auto& have : all) seen = seen || have.first == op.first;
    if (!seen) all.push_back(op);
  }
}

std::string unused_name(const graph::Graph& r) {
  for (size_t k = 0;; ++k) {
    std::string name = "unused" + std::to_string(k);
    bool taken = false;
    for (const graph::Value& v : r.values) taken = taken || v.name == name;
    if (!taken) return name;
  }
}

// Makes region r take the `bound` inputs it bound itself, then exactly `all`, in
// that order: the regions of one node take the same operands (See Note
// [Control-flow regions]), so an operand that r does not read is an unused input.
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

// Adds the node to the enclosing capture (the thread's observer) and returns its
// results on real values: the values that the statement leaves in its variables.
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

// A tensor condition as the bool[] a cond or while_loop reads (recorded ops).
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

// Makes the plain numbers among vars 0-dim tensors; the names of those it changed.
std::vector<const Name*> promote_counters(Evaluator::Impl& im, const std::vector<const Name*>& vars) {
  std::vector<const Name*> promoted;
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
void numbers_as_tensors(Evaluator::Impl& im, const std::vector<const Name*>& promoted) {
  for (const Name* n : promoted) {
    Value v = im.load(loc(*n));
    if (v.is_num()) im.store(loc(*n), Value::tensor(scalar_of(v, natural_dtype(v))));
  }
}

// ---- if -----------------------------------------------------------------------------------

// What one branch of a lowered `if` left: its region and the variables' values.
struct Branch {
  std::shared_ptr<graph::Graph> region;
  Operands operands;
  std::vector<Value> values;
};

// Which variables a lowered `if` outputs: those either branch changed, each a tensor
// of one type in both; a plain value (a number, a string) must be the same in both.
std::vector<size_t> if_outputs(const std::vector<const Name*>& vars, const std::vector<Value>& before,
                               const Branch& a, const Branch& b) {
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

template <class Body>
Branch capture_branch(Evaluator::Impl& im, const char* label, const std::vector<const Name*>& vars,
                      const std::vector<Value>& before, const std::vector<const Name*>& promoted, Body&& body) {
  Region region(*im.ev.script, label);
  region.start();
  Flow flow = body();
  if (flow != Flow::Normal)
    fail(std::string("a '") + flow_word(flow) + "' inside an if on a tensor condition cannot be lowered to a cond: "
         "assign a variable in both branches and " + flow_word(flow) + " after the if");
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

Flow lower_if(Evaluator::Impl& im, const IfStmt& i, size_t k, const Tensor& condition) {
  std::vector<const Name*> vars;
  assigned_in(i.blocks[k], vars);
  for (size_t j = k + 1; j < i.blocks.size(); ++j) assigned_in(i.blocks[j], vars);
  if (i.else_block) assigned_in(*i.else_block, vars);
  Capture& outer = *im.ev.script->capture;
  Tensor pred = predicate(condition);
  const std::vector<Value> plain_before = load_all(im, vars);
  std::vector<const Name*> promoted = promote_counters(im, vars);  // Note [Counters carried as tensors]
  std::vector<Value> before = load_all(im, vars);
  Branch then = capture_branch(im, "then", vars, before, promoted, [&] { return im.exec_block(i.blocks[k]); });
  Branch other = capture_branch(im, "else", vars, before, promoted, [&] { return im.script_if(i, k + 1); });
  std::vector<size_t> outs = if_outputs(vars, before, then, other);
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
  std::vector<const Name*> changed;
  for (size_t o : outs) {
    metas.push_back({then.values[o].t.sizes(), then.values[o].t.dtype()});
    changed.push_back(vars[o]);
  }
  std::string origin = k == 0 ? i.span.where() : i.conds[k]->span.where();
  TensorList results = add_node(*im.ev.script, graph::NodeKind::cond, {}, {then.region, other.region}, operands, metas, origin);
  for (size_t o = 0; o < outs.size(); ++o) im.store(loc(*vars[outs[o]]), Value::tensor(results[o]));
  im.ev.script->notes.push_back(origin + (k == 0 ? ": if" : ": elif") + " on a tensor -> cond (outputs: " +
                                names_text(changed) + ")");
  return Flow::Normal;
}

// ---- loops --------------------------------------------------------------------------------

// The variables a loop carries: those its body assigns that hold tensors before it.
// A plain value the body changes cannot be carried: "" or why not.
struct Carried {
  std::vector<const Name*> vars;
  TensorList values;  // before the loop
};

Carried carried_of(Evaluator::Impl& im, const Block& body, const Name* except = nullptr) {
  std::vector<const Name*> vars;
  assigned_in(body, vars);
  Carried c;
  for (const Name* n : vars) {
    if (except && same_var(*n, *except)) continue;
    Value v = im.load(loc(*n));
    if (v.tag != Tag::Tensor) continue;  // checked after the body ran: it must not change
    c.vars.push_back(n);
    c.values.push_back(v.t);
  }
  return c;
}

// The plain variables the body changed ("" when none did): a lowered loop carries tensors only.
std::string changed_plain(const std::vector<const Name*>& vars, const std::vector<Value>& before,
                          const std::vector<Value>& after) {
  for (size_t k = 0; k < vars.size(); ++k)
    if (before[k].tag != Tag::Tensor && !same_value(before[k], after[k]))
      return "variable '" + vars[k]->id + "' is " + repr(before[k]) + " before the body and " + repr(after[k]) +
             " after it (a lowered loop carries tensors only)";
  return "";
}

// Checks each carried tensor keeps its type; returns its value after the body.
TensorList carried_after(Evaluator::Impl& im, const Carried& c, const char* loop) {
  TensorList out;
  for (size_t k = 0; k < c.vars.size(); ++k) {
    Value v = im.load(loc(*c.vars[k]));
    const Tensor& was = c.values[k];
    if (v.is_num() && was.dim() == 0) v = Value::tensor(scalar_of(v, was.dtype()));  // Note [Counters carried as tensors]
    if (v.tag != Tag::Tensor || v.t.sizes() != was.sizes() || v.t.dtype() != was.dtype())
      fail(std::string("a ") + loop + " lowers to a loop node, whose carried values keep their types, but variable '" +
           c.vars[k]->id + "' is " + graph::meta_str({was.sizes(), was.dtype()}) + " before the body and " +
           (v.tag == Tag::Tensor ? graph::meta_str({v.t.sizes(), v.t.dtype()}) : repr(v)) + " after it");
    out.push_back(v.t);
  }
  return out;
}

Operands carried_operands(Capture& outer, const TensorList& values) {
  Operands ops;
  for (const Tensor& t : values) ops.emplace_back(outer.value_id(t), t);
  return ops;
}

void store_results(Evaluator::Impl& im, const std::vector<const Name*>& vars, const TensorList& results) {
  for (size_t k = 0; k < vars.size(); ++k) im.store(loc(*vars[k]), Value::tensor(results[k]));
}

}  // namespace

// ---- the evaluator's entry points ------------------------------------------------------

Flow Evaluator::Impl::script_if(const IfStmt& i, size_t k) {
  if (k == i.conds.size()) return i.else_block ? exec_block(*i.else_block) : Flow::Normal;
  const Expr& cond = *i.conds[k];
  Value c = eval(cond);
  if (c.tag != Tag::Tensor || !ev.script->capture->traced(c.t))
    return value_true(c, cond) ? exec_block(i.blocks[k]) : script_if(i, k + 1);
  return lower_if(*this, i, k, c.t);
}

Flow Evaluator::Impl::script_while(const WhileStmt& w) {
  std::vector<const Name*> vars;
  assigned_in(w.body, vars);
  // The condition, captured as a region first, on the variables as they are and again
  // once the numbers are tensors: a loop on a plain condition runs as usual, its
  // numbers staying numbers (`while i < 3` unrolls as before).
  auto capture_condition = [&](const Carried& c, std::unique_ptr<Region>& region) {
    region = std::make_unique<Region>(*ev.script, "cond");
    for (size_t k = 0; k < c.vars.size(); ++k) store(loc(*c.vars[k]), Value::tensor(region->bind(c.values[k], c.vars[k]->id)));
    region->start();
    return eval(*w.cond);
  };
  const std::vector<Value> plain_before = load_all(*this, vars);
  std::unique_ptr<Region> cond_region;
  Value first = capture_condition(carried_of(*this, w.body), cond_region);
  if (first.tag != Tag::Tensor || !cond_region->capture().traced(first.t)) {
    cond_region.reset();
    store_all(*this, vars, plain_before);
    return exec_while_from(w, value_true(first, *w.cond));
  }
  cond_region.reset();
  store_all(*this, vars, plain_before);
  std::vector<const Name*> counters = promote_counters(*this, vars);  // Note [Counters carried as tensors]
  std::vector<Value> before = load_all(*this, vars);
  Carried c = carried_of(*this, w.body);
  Capture& outer = *ev.script->capture;
  first = capture_condition(c, cond_region);
  std::shared_ptr<graph::Graph> cond_graph = cond_region->finish({predicate(first.t)});
  Operands invariants = cond_region->capture().captured();
  store_all(*this, vars, before);
  Region body(*ev.script, "body");
  for (size_t k = 0; k < c.vars.size(); ++k) store(loc(*c.vars[k]), Value::tensor(body.bind(c.values[k], c.vars[k]->id)));
  body.start();
  Flow flow = exec_block(w.body);
  if (flow != Flow::Normal)
    fail(std::string("a '") + flow_word(flow) + "' inside a while loop on a tensor condition cannot be lowered to a "
         "while_loop: fold it into the loop's condition");
  if (std::string why = changed_plain(vars, before, load_all(*this, vars)); !why.empty())
    fail("a while loop on a tensor condition lowers to a while_loop, but " + why);
  std::shared_ptr<graph::Graph> body_graph = body.finish(carried_after(*this, c, "while loop on a tensor condition"));
  Operands all;
  add_operands(all, invariants);
  add_operands(all, body.capture().captured());
  align_region(*cond_graph, c.vars.size(), invariants, all);
  align_region(*body_graph, c.vars.size(), body.capture().captured(), all);
  store_all(*this, vars, before);
  Operands operands = carried_operands(outer, c.values);
  operands.insert(operands.end(), all.begin(), all.end());
  std::string origin = w.span.where();
  Attrs attrs;
  attrs.set("carried", static_cast<int64_t>(c.vars.size()));
  TensorList results = add_node(*ev.script, graph::NodeKind::while_loop, attrs, {cond_graph, body_graph}, operands,
                                metas_of(c.values), origin);
  store_results(*this, c.vars, results);
  std::string trips;  // a training step's loop stacks its carries over the recorded trip count
  if (results.size() > c.vars.size()) trips = ", trip count " + std::to_string(results.back().size(0)) + " recorded for gradients";
  std::string counted = counters.empty() ? "" : "; " + names_text(counters) + " carried as 0-dim tensors";
  ev.script->notes.push_back(origin + ": while on a tensor -> while_loop (carries: " + names_text(c.vars) + trips +
                             counted + ")");
  return Flow::Normal;
}

namespace {

// The scanned tensor of a `for`: the iterable's rows (a range as i64 values).
Tensor scanned_of(const Value& it) {
  if (it.tag == Tag::Tensor) return it.t.dim() >= 1 ? it.t : Tensor();
  if (it.tag != Tag::Range) return Tensor();
  auto& r = *it.as<RangeObj>();
  std::vector<double> xs;
  for (int64_t k = 0; k < r.size(); ++k) xs.push_back(static_cast<double>(r.at(k)));
  return tensor_from(xs, {static_cast<int64_t>(xs.size())}, DType::i64);
}

// ---- lists a loop appends to --------------------------------------------------------------

// The lists a loop body appends one value to per step: its top-level statements
// `name.append(value)` on a variable. The scan stacks the values as a step output,
// and the list gets the stack's rows.
struct Appended {
  std::vector<const Name*> vars;
  std::vector<size_t> sizes;  // each list's length before the loop
};

const Name* appended_list(const Stmt& s) {
  if (s.kind != StmtKind::Expr) return nullptr;
  const Expr& e = *static_cast<const ExprStmt&>(s).expr;
  if (e.kind != ExprKind::Call) return nullptr;
  auto& call = static_cast<const Call&>(e);
  if (call.callee->kind != ExprKind::Attribute || call.args.size() != 1) return nullptr;
  auto& attr = static_cast<const Attribute&>(*call.callee);
  if (attr.name != "append" || attr.object->kind != ExprKind::Name) return nullptr;
  auto& n = static_cast<const Name&>(*attr.object);
  return n.slot < 0 ? nullptr : &n;
}

Appended appended_in(Evaluator::Impl& im, const Block& body) {
  Appended a;
  for (const auto& s : body.stmts) {
    const Name* n = appended_list(*s);
    if (!n) continue;
    bool seen = false;
    for (const Name* m : a.vars) seen = seen || same_var(*m, *n);
    Value v = im.load(loc(*n));
    if (seen || v.tag != Tag::List) continue;
    a.vars.push_back(n);
    a.sizes.push_back(v.as<ListObj>()->items.size());
  }
  return a;
}

std::vector<Value>& items_of(Evaluator::Impl& im, const Name& n) { return im.load(loc(n)).as<ListObj>()->items; }

// What one step appended (a tensor per list), or "" and why not in `why`; the lists
// go back to their lengths before the loop either way.
TensorList take_appended(Evaluator::Impl& im, const Appended& a, std::string& why) {
  TensorList rows;
  for (size_t k = 0; k < a.vars.size(); ++k) {
    std::vector<Value>& items = items_of(im, *a.vars[k]);
    if (why.empty() && (items.size() != a.sizes[k] + 1 || items.back().tag != Tag::Tensor))
      why = "its body appends to list '" + a.vars[k]->id + "' other than one tensor per step";
    if (why.empty()) rows.push_back(items.back().t);
    if (items.size() > a.sizes[k]) items.resize(a.sizes[k]);
  }
  return rows;
}

// The stacked step outputs' rows go into the lists (one unbind per list, recorded: a
// graph of the same size for any number of steps, its gradient one stack).
void extend_lists(Evaluator::Impl& im, const Appended& a, const TensorList& stacks) {
  for (size_t k = 0; k < a.vars.size(); ++k) {
    std::vector<Value>& items = items_of(im, *a.vars[k]);
    for (const Tensor& row : unbind(stacks[k], 0)) items.push_back(Value::tensor(row));
  }
}

}  // namespace

// A `for` over a range or a tensor's rows: a scan, unless the body cannot be one
// (then nullopt: the caller runs the loop as usual and tracing unrolls it).
std::optional<Flow> Evaluator::Impl::script_for(const ForStmt& f, const Value& it) {
  Tensor xs = scanned_of(it);
  std::string origin = f.span.where();
  if (!xs.defined() || f.target.is_tuple() || xs.size(0) == 0) return std::nullopt;
  std::vector<const Name*> vars;
  assigned_in(f.body, vars);
  std::vector<Value> before = load_all(*this, vars);
  Value target_before = load(loc_of(&f.target));
  Carried c = carried_of(*this, f.body);
  Appended lists = appended_in(*this, f.body);
  Capture& outer = *ev.script->capture;
  std::string why;
  std::shared_ptr<graph::Graph> body_graph;
  Operands invariants;
  std::vector<TensorMeta> metas = metas_of(c.values);
  {
    Region body(*ev.script, "body");
    for (size_t k = 0; k < c.vars.size(); ++k) store(loc(*c.vars[k]), Value::tensor(body.bind(c.values[k], c.vars[k]->id)));
    store(loc_of(&f.target), Value::tensor(body.bind(graph::row_view(xs, 0), f.target.name)));
    body.start();
    try {
      Flow flow = exec_block(f.body);
      if (flow != Flow::Normal) why = std::string("its body may '") + flow_word(flow) + "'";
      if (why.empty() && !body.capture().problems().empty())
        why = "its body reads the row's value (" + body.capture().problems()[0].what + ")";
      if (why.empty()) why = changed_plain(vars, before, load_all(*this, vars));
      TensorList rows = take_appended(*this, lists, why);
      if (why.empty()) {
        TensorList yields = carried_after(*this, c, "for loop");
        yields.insert(yields.end(), rows.begin(), rows.end());
        body_graph = body.finish(yields);
        for (const Tensor& r : rows) metas.push_back(graph::stacked_meta({r.sizes(), r.dtype()}, xs.size(0)));
      }
    } catch (const std::exception& e) {
      take_appended(*this, lists, why);
      why = std::string("its body fails with the row as a tensor (") + e.what() + ")";
    }
    if (body_graph) invariants = body.capture().captured();
  }
  store_all(*this, vars, before);
  store(loc_of(&f.target), target_before);
  if (!body_graph) {
    ev.script->notes.push_back(origin + ": for unrolled: " + why);
    return std::nullopt;
  }
  align_region(*body_graph, c.vars.size() + 1, invariants, invariants);
  Operands operands = carried_operands(outer, c.values);
  operands.emplace_back(outer.value_id(xs), xs);
  operands.insert(operands.end(), invariants.begin(), invariants.end());
  Attrs attrs;
  attrs.set("carried", static_cast<int64_t>(c.vars.size()));
  attrs.set("scanned", int64_t{1});
  attrs.set("length", xs.size(0));
  TensorList results = add_node(*ev.script, graph::NodeKind::scan, attrs, {body_graph}, operands, metas, origin);
  store_results(*this, c.vars, results);
  extend_lists(*this, lists, TensorList(results.begin() + static_cast<long>(c.vars.size()),
                                        results.begin() + static_cast<long>(c.vars.size() + lists.vars.size())));
  ev.script->notes.push_back(origin + ": for over " + std::to_string(xs.size(0)) + " rows -> scan (carries: " +
                             names_text(c.vars) + (lists.vars.empty() ? "" : "; stacks: " + names_text(lists.vars)) + ")");
  return Flow::Normal;
}

}  // namespace nabla::interp
