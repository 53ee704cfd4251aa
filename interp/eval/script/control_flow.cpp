// Script mode (interp/eval/script/script_mode.hpp): while compile(..., mode="script")
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
// A `break` or `continue` on a tensor condition lowers too (exits.cpp). A `for`
// that cannot lower (its body returns, changes a variable that is not a tensor, or
// uses the row as a number) runs as usual, unrolled by tracing, and the note says
// why; so does a `while` on a plain condition, until its condition or its break
// flag becomes a traced tensor, when its remaining trips lower. An `if` or `while` on
// a tensor that cannot lower is an error.
#include "autograd/ops.hpp"
#include "graph/control_flow.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/eval/script/exits.hpp"
#include "interp/eval/script/field_writes.hpp"
#include "interp/eval/script/regions.hpp"
#include "interp/eval/script/row_writes.hpp"

namespace nabla::interp {

namespace script {

namespace {

// ---- if -----------------------------------------------------------------------------------

Flow lower_if(Impl& im, const IfStmt& i, size_t k, const Tensor& condition) {
  Vars vars;
  for (size_t j = k; j < i.blocks.size(); ++j) assigned_in(im, i.blocks[j], vars);
  if (i.else_block) assigned_in(im, *i.else_block, vars);
  Fields fields;  // Note [Fields written inside a lowered loop]
  for (size_t j = k; j < i.blocks.size(); ++j) add_fields_written_in(im, i.blocks[j], fields);
  if (i.else_block) add_fields_written_in(im, *i.else_block, fields);
  std::string origin = k == 0 ? i.span.where() : i.conds[k]->span.where();
  Vars outputs = lower_choice(
      im, predicate(condition), vars, origin, [&] { return im.exec_block(i.blocks[k]); },
      [&] { return im.script_if(i, k + 1); }, &fields);
  std::string written = fields.empty() ? "" : "; writes " + field_names(fields);
  im.ev.script->notes.push_back(origin + (k == 0 ? ": if" : ": elif") + " on a tensor -> cond (outputs: " +
                                names_text(outputs) + written + ")");
  return Flow::Normal;
}

// ---- loops --------------------------------------------------------------------------------

// The variables a loop carries: those its body assigns that hold tensors, or tuples
// and lists of tensors, before it; the node carries their tensors in order.
struct Carried {
  Vars vars;
  std::vector<Value> trees;  // each variable's value before the loop
  TensorList values;         // their tensors, in order, then the fields'
  Fields fields;             // Note [Fields written inside a lowered loop]
  TensorList field_copies;   // the region's copies of the fields' tensors (bind_carried)
};

size_t var_leaves(const Carried& c) { return c.values.size() - c.fields.size(); }

void carry_fields(Carried& c, Fields fields) {
  for (const Field& f : fields) c.values.push_back(f.tensor);
  c.fields = std::move(fields);
}

// What a loop carries, for gm.explain(): "h, self.buf".
std::string carried_text(const Carried& c) {
  if (c.fields.empty()) return names_text(c.vars);
  return c.vars.empty() ? field_names(c.fields) : names_text(c.vars) + ", " + field_names(c.fields);
}

// `vars`: what the body assigns, and the loop's break flag.
Carried carried_of(Impl& im, const Vars& vars, const Name* except = nullptr) {
  Carried c;
  for (const Name* n : vars) {
    if (except && same_var(*n, *except)) continue;
    Value v = im.load(loc(*n));
    TensorList leaves;
    if (!tensor_leaves(v, leaves)) continue;  // checked after the body ran: it must not change
    c.vars.push_back(n);
    c.trees.push_back(v);
    c.values.insert(c.values.end(), leaves.begin(), leaves.end());
  }
  return c;
}

Vars loop_vars(Impl& im, const Block& body, const Name* flag) {
  Vars vars;
  assigned_in(im, body, vars);
  if (flag) add_var(*flag, vars);
  add_return_vars(im, body, vars);  // Note [Returns inside a lowered loop]
  return vars;
}

// The plain variables the body changed ("" when none did): a lowered loop carries tensors only.
std::string changed_plain(const Vars& vars, const std::vector<Value>& before, const std::vector<Value>& after) {
  TensorList unused;
  for (size_t k = 0; k < vars.size(); ++k)
    if (!tensor_leaves(before[k], unused) && !same_value(before[k], after[k]))
      return "variable '" + vars[k]->id + "' is " + repr(before[k]) + " before the body and " + repr(after[k]) +
             " after it (a lowered loop carries tensors only)";
  return "";
}

// Checks each carried variable keeps its types; returns its tensors after the body.
TensorList carried_after(Impl& im, const Carried& c, const char* loop) {
  TensorList out;
  for (size_t k = 0; k < c.vars.size(); ++k) {
    Value v = im.load(loc(*c.vars[k]));
    const Value& was = c.trees[k];
    if (v.is_num() && was.tag == Tag::Tensor && was.t.dim() == 0)
      v = Value::tensor(scalar_of(v, was.t.dtype()));  // Note [Counters carried as tensors]
    if (!same_tree(v, was))
      fail(std::string("a ") + loop + " lowers to a loop node, whose carried values keep their types, but variable '" +
           c.vars[k]->id + "' is " + type_text(was) + " before the body and " + type_text(v) + " after it");
    tensor_leaves(v, out);
  }
  out.insert(out.end(), c.field_copies.begin(), c.field_copies.end());
  return out;
}

Operands carried_operands(Capture& outer, const TensorList& values) {
  Operands ops;
  for (const Tensor& t : values) ops.emplace_back(outer.value_id(t), t);
  return ops;
}

// The loop's results (its carried tensors first) back into the variables, nested as before.
void store_results(Impl& im, const Carried& c, const TensorList& results) {
  size_t next = 0;
  for (size_t k = 0; k < c.vars.size(); ++k) im.store(loc(*c.vars[k]), rebuild(c.trees[k], results, next));
}

// Each carried tensor as a region input; a variable holding several is named name.0, name.1, ...
// Returns the region's copies, in order.
TensorList bind_carried(Impl& im, Region& region, Carried& c) {
  TensorList copies, outers, held;
  std::vector<size_t> written;  // the variables written in place, by their tensor's position
  size_t next = 0;
  for (size_t k = 0; k < c.vars.size(); ++k) {
    TensorList leaves;
    tensor_leaves(c.trees[k], leaves);
    if (c.trees[k].tag == Tag::Tensor && written_in_place(im, *c.vars[k])) written.push_back(next);
    for (size_t j = 0; j < leaves.size(); ++j) {
      std::string name = c.vars[k]->id;
      if (c.trees[k].tag != Tag::Tensor) name.append(".").append(std::to_string(j));  // not "." + s: GCC 12's false -Wrestrict
      copies.push_back(region.bind(c.values[next++], name));
    }
  }
  for (const Field& f : c.fields) {  // Note [Fields written inside a lowered loop]
    written.push_back(next);
    copies.push_back(region.bind(c.values[next++], f.name));
  }
  for (size_t at : written) {
    outers.push_back(c.values[at]);
    held.push_back(copies[at]);
  }
  region.alias(outers, held);  // Note [Aliases of a variable written in place]
  for (size_t j = 0; j < written.size(); ++j) copies[written[j]] = held[j];
  c.field_copies.assign(copies.begin() + static_cast<long>(var_leaves(c)), copies.end());
  next = 0;
  for (size_t k = 0; k < c.vars.size(); ++k) im.store(loc(*c.vars[k]), rebuild(c.trees[k], copies, next));
  return copies;
}

// Which carried variables the body wrote in place (Note [Variables written in place
// inside a lowered region]), given the region's copies of their tensors.
std::vector<bool> written_in_body(Impl& im, Region& body, const Carried& c, const TensorList& copies,
                                  const std::string& statement) {
  std::vector<bool> in_place(c.vars.size(), false);
  size_t next = 0;
  for (size_t k = 0; k < c.vars.size(); ++k) {
    TensorList leaves;
    tensor_leaves(c.trees[k], leaves);
    if (c.trees[k].tag == Tag::Tensor) in_place[k] = wrote_in_place(im, body, *c.vars[k], copies[next], statement);
    if (!in_place[k] && c.trees[k].tag == Tag::Tensor && body.capture().alias_read(copies[next]))
      fail(statement + " lowers to a node that carries variable '" + c.vars[k]->id + "', and its body reads a tensor "
           "made before it that shares memory with the variable's (a = " + c.vars[k]->id + ", v = " + c.vars[k]->id +
           "[0]), which holds the tensor from before the loop at every step: read it through the variable, or "
           "clone() it before the loop");
    next += leaves.size();
  }
  return in_place;
}

// The node takes a copy (an op) of each tensor the body writes in place: the tensor
// itself is written after it (write_back), and a training step's node keeps its inputs
// for the backward.
void copy_written(Carried& c, const std::vector<bool>& in_place) {
  size_t next = 0;
  for (size_t k = 0; k < c.vars.size(); ++k) {
    TensorList leaves;
    tensor_leaves(c.trees[k], leaves);
    if (in_place[k]) c.values[next] = clone_tensor(c.values[next]);
    next += leaves.size();
  }
  for (size_t j = var_leaves(c); j < c.values.size(); ++j) c.values[j] = clone_tensor(c.values[j]);
}

// The loop's results back into its variables, and into the tensors of those it wrote in place.
void store_loop_results(Impl& im, const Carried& c, const TensorList& results, const std::vector<bool>& in_place) {
  store_results(im, c, results);
  for (size_t k = 0; k < c.vars.size(); ++k)
    if (in_place[k]) write_back(im, *c.vars[k], c.trees[k]);
  for (size_t j = 0; j < c.fields.size(); ++j) write_field(c.fields[j], results[var_leaves(c) + j]);
}

// ---- while --------------------------------------------------------------------------------

// The condition of a while loop, captured as a region on the carried values (`copies`:
// the region's tensors for them, bind_carried).
Value capture_condition(Impl& im, const WhileStmt& w, Carried& c, std::unique_ptr<Region>& region,
                        TensorList* copies = nullptr) {
  region = std::make_unique<Region>(*im.ev.script, "cond");
  TensorList bound = bind_carried(im, *region, c);
  if (copies) *copies = std::move(bound);
  region->start();
  return condition_value(im, *w.cond);
}

// Note [Writes in a while loop's condition]
// A while_loop node's condition yields one thing, whether to go on; it carries nothing
// out. A write it makes in place (a BatchNorm called in it moving its running
// statistics, a function it calls doing buf.add_(1), h.add_(1) on a carried variable)
// would be dropped at every trip: the statistics stayed where they were while eager's
// moved once per test, and a condition that waits for its own write never ended (the
// capture hung). Carrying it would need the condition's writes as carries of the node,
// so the loop is refused instead, naming what the condition wrote and where.
std::string condition_writes(const Carried& c, const TensorList& copies, Region& region) {
  const graph::Capture& capture = region.capture();
  for (const auto& w : capture.outer_writes()) {
    std::string name = capture.name_of(w.tensor);
    if (name.empty() || name.rfind("free", 0) == 0)
      name = "a tensor made before the loop (" + w.tensor.shape_str() + " " + dtype_name(w.tensor.dtype()) + ")";
    return name + (w.problem.origin.empty() ? "" : ", by " + w.problem.origin + ",");
  }
  size_t next = 0;
  for (size_t k = 0; k < c.vars.size(); ++k) {
    TensorList leaves;
    tensor_leaves(c.trees[k], leaves);
    for (size_t j = 0; j < leaves.size(); ++j, ++next)
      if (capture.written_in_place(copies[next])) return "variable '" + c.vars[k]->id + "'";
  }
  for (const Field& f : c.fields)
    if (capture.written_in_place(copies[next++])) return f.name;
  return "";
}

// A plain condition is evaluated in a probe region too, which puts back what its run
// wrote into tensors made before it (Note [Tensors a lowered region's calls write]):
// one that wrote (a function it calls doing buf.add_(1)) runs again outside the region,
// where the write is recorded as eager makes it.
bool wrote_outside(Region& probe) { return !probe.capture().outer_writes().empty(); }

void refuse_condition_writes(const WhileStmt& w, const Carried& c, const TensorList& copies, Region& region) {
  std::string what = condition_writes(c, copies, region);
  if (what.empty()) return;
  fail("the condition of a while loop on a tensor (" + w.cond->span.where() + ") writes " + what +
       " in place, which a while_loop node's condition cannot carry (it yields only whether to go on), so a graph "
       "would drop the write at every trip: make the write in the loop's body, or test a value the body computes");
}

bool loop_is_broken(Impl& im, const Name* flag) { return flag && traced(im, im.load(loc(*flag))); }

// The loop's remaining trips as a while_loop node; `again`: lower it again, carrying
// the tensors its calls wrote (Note [Tensors a lowered region's calls write]).
Flow lower_while_try(Impl& im, const WhileStmt& w, const Name* flag, bool& again) {
  Vars vars = loop_vars(im, w.body, flag);
  const std::vector<Value> plain_before = load_all(im, vars);
  Vars counters = promote_counters(im, vars);  // Note [Counters carried as tensors]
  std::vector<Value> before = load_all(im, vars);
  Carried c = carried_of(im, vars);
  carry_fields(c, fields_written_in(im, w.body));
  Capture& outer = *im.ev.script->capture;
  std::unique_ptr<Region> cond_region;
  TensorList cond_copies;
  Value first = capture_condition(im, w, c, cond_region, &cond_copies);
  Tensor go;
  if (traced(im, first)) {
    go = predicate(first.t);
  } else if (!im.value_true(first, *w.cond)) {  // a plain condition, with the flag traced: no more trips
    bool wrote = wrote_outside(*cond_region);
    cond_region.reset();
    store_all(im, vars, plain_before);
    if (wrote) condition_value(im, *w.cond);  // Note [Writes in a while loop's condition]
    return Flow::Normal;
  }
  refuse_condition_writes(w, c, cond_copies, *cond_region);  // Note [Writes in a while loop's condition]
  if (flag) {  // Note [Break and continue on a tensor condition]
    Tensor running = not_broken(im, *flag);
    go = go.defined() ? binary_op(BinaryOp::BitAnd, Value::tensor(running), Value::tensor(go)).t : running;
  }
  std::shared_ptr<graph::Graph> cond_graph = cond_region->finish({go});
  Operands invariants = cond_region->capture().captured();
  store_all(im, vars, before);
  Region body(*im.ev.script, "body");
  TensorList copies = bind_carried(im, body, c);
  body.start();
  // Note [A failing side of a lowered if]: a body the example's run does not enter
  // raises the program's error only in a call that runs it.
  const bool enters = !go.defined() || side_taken(go, true);
  Flow flow = Flow::Normal;
  int raises = -1;
  try {
    LiveScope live(*im.ev.script, enters);
    flow = run_lowered_step(im, w.body, flag);
  } catch (LangError& e) {
    if (!raises_later(*im.ev.script, e, enters) || !body.capture().problems().empty()) throw;
    raises = keep_raised(*im.ev.script, e);
    store_all(im, vars, before);
  }
  if (raises < 0 && remember_called_writes(im, body.capture(), w.body, c.fields)) {  // Note [Tensors a lowered region's calls write]
    store_all(im, vars, plain_before);
    again = true;  // once the body's region has closed
    return Flow::Normal;
  }
  if (flow != Flow::Normal)
    fail(std::string("a '") + flow_word(flow) + "' inside a while loop on a tensor condition cannot be lowered to a "
         "while_loop: assign the result to a variable and return it after the loop");
  if (std::string why = changed_plain(vars, before, load_all(im, vars)); !why.empty())
    fail("a while loop on a tensor condition lowers to a while_loop, but " + why);
  std::vector<bool> in_place(c.vars.size(), false);
  TensorList yields;
  if (raises >= 0) {
    yields = raise_node(*im.ev.script, body.capture(), raises, TensorList(c.values.begin(), c.values.begin() + static_cast<long>(var_leaves(c))));
    yields.insert(yields.end(), c.field_copies.begin(), c.field_copies.end());
  } else {
    in_place = written_in_body(im, body, c, copies, "a while loop on a tensor condition");
    yields = carried_after(im, c, "while loop on a tensor condition");
  }
  std::shared_ptr<graph::Graph> body_graph = body.finish(yields);
  Operands all;
  add_operands(all, invariants);
  add_operands(all, body.capture().captured());
  align_region(*cond_graph, c.values.size(), invariants, all);
  align_region(*body_graph, c.values.size(), body.capture().captured(), all);
  store_all(im, vars, before);
  copy_written(c, in_place);
  Operands operands = carried_operands(outer, c.values);
  operands.insert(operands.end(), all.begin(), all.end());
  std::string origin = w.span.where();
  Attrs attrs;
  attrs.set("carried", static_cast<int64_t>(c.values.size()));
  TensorList results = add_node(*im.ev.script, graph::NodeKind::while_loop, attrs, {cond_graph, body_graph}, operands,
                                metas_of(c.values), origin);
  store_loop_results(im, c, results, in_place);
  std::string trips;  // a training step's loop stacks its carries over the recorded trip count
  if (results.size() > c.values.size()) trips = ", trip count " + std::to_string(results.back().size(0)) + " recorded for gradients";
  if (flag) counters.erase(std::remove(counters.begin(), counters.end(), flag), counters.end());
  std::string counted = counters.empty() ? "" : "; " + names_text(counters) + " carried as 0-dim tensors";
  std::string breaks = flag ? "; a break sets (break), which ends the loop" : "";
  im.ev.script->notes.push_back(origin + ": while on a tensor -> while_loop (carries: " + carried_text(c) + trips +
                                counted + breaks + ")");
  return Flow::Normal;
}

Flow lower_while_once(Impl& im, const WhileStmt& w, const Name* flag) {
  for (;;) {
    bool again = false;
    Flow f = lower_while_try(im, w, flag, again);
    if (!again) return f;
  }
}

Flow lower_while(Impl& im, const WhileStmt& w, const Name* flag) {
  return lower_returning(im, loop_vars(im, w.body, flag), [&] { return lower_while_once(im, w, flag); });
}

// A while loop on a plain condition runs as usual until its condition or its break
// flag becomes a traced tensor (an `if` on a tensor in its body changed them); its
// remaining trips then lower.
Flow unrolled_while(Impl& im, const WhileStmt& w, bool go, const Name* flag) {
  while (go) {
    im.ev.check_interrupt();
    im.ev.count_step();
    Flow f = run_unrolled_step(im, w.body, flag);
    if (f == Flow::Break) return Flow::Normal;
    if (f == Flow::Return) return f;
    if (loop_is_broken(im, flag)) return lower_while(im, w, flag);
    Value c = condition_value(im, *w.cond);
    if (traced(im, c)) return lower_while(im, w, flag);
    go = im.value_true(c, *w.cond);
  }
  return Flow::Normal;
}

}  // namespace

}  // namespace script

using namespace script;

// Note [Numbers read for a condition] (interp/eval/script/script_mode.hpp)
Tensor condition_number(Evaluator& ev, const Tensor& x, const char* kind) {
  ScriptMode* mode = ev.script;
  if (!mode || mode->conditions == 0 || x.numel() != 1 || !mode->capture->traced(x)) return Tensor();
  Tensor v = detach(x.dim() == 0 ? x : reshape(x, {}));
  const std::string k = kind;
  bool as_bool = k == "bool()" || (k == "item()" && v.dtype() == DType::b8);
  if (as_bool) return v.dtype() == DType::b8 ? v : call(OpId::ne, {v, wrapped_scalar(0.0)})[0];
  bool as_float = k == "float()" || (k == "item()" && is_floating(v.dtype()));
  if (as_float) return to_dtype(v, DType::f64);
  return to_dtype(v, DType::i64);  // int() truncates toward zero, as the cast does
}

// ---- the evaluator's entry points ------------------------------------------------------

Flow Evaluator::Impl::script_if(const IfStmt& i, size_t k) {
  if (k == i.conds.size()) return i.else_block ? exec_block(*i.else_block) : Flow::Normal;
  const Expr& cond = *i.conds[k];
  Value c = condition_value(*this, cond);  // Note [Numbers read for a condition]
  if (!traced(*this, c)) return value_true(c, cond) ? exec_block(i.blocks[k]) : script_if(i, k + 1);
  return lower_if(*this, i, k, c.t);
}

Value Evaluator::Impl::script_conditional(const Conditional& c) {
  Value v = condition_value(*this, *c.cond);  // Note [Numbers read for a condition]
  if (!traced(*this, v)) return value_true(v, *c.cond) ? eval(*c.then_value) : eval(*c.else_value);
  return lower_conditional(
      *this, predicate(v.t), c.cond->span.where(), [&] { return eval(*c.then_value); },
      [&] { return eval(*c.else_value); });  // Note [A conditional expression on a tensor]
}

Flow Evaluator::Impl::script_while(const WhileStmt& w) {
  const Name* flag = break_flag(w.body);
  if (flag) store(loc(*flag), Value::boolean(false));
  // The condition, captured as a region first, on the variables as they are: a loop
  // on a plain condition runs as usual, its numbers staying numbers (`while i < 3`
  // unrolls as before).
  Vars vars = loop_vars(*this, w.body, flag);
  const std::vector<Value> before = load_all(*this, vars);
  std::unique_ptr<Region> cond_region;
  Carried probe = carried_of(*this, vars);
  Value first = capture_condition(*this, w, probe, cond_region);
  bool lowers = first.tag == Tag::Tensor && cond_region->capture().traced(first.t);
  bool wrote = wrote_outside(*cond_region);
  cond_region.reset();
  store_all(*this, vars, before);
  if (!lowers && wrote) first = condition_value(*this, *w.cond);  // Note [Writes in a while loop's condition]
  return lowers ? lower_while(*this, w, flag) : unrolled_while(*this, w, value_true(first, *w.cond), flag);
}

Flow Evaluator::Impl::script_step(const Block& body) { return run_unrolled_step(*this, body, break_flag(body)); }

Flow Evaluator::Impl::script_body(const Block& body) {
  return run_function_body(*this, body, result_var(body), returned_flag(body));
}

namespace script {
namespace {

// The scanned tensor of a `for`: the iterable's rows (a range as i64 values). A range
// longer than the step budget has left fails as its steps would, before its 8 bytes a
// step are made (range(10**9) held 8 GB before its first step was counted).
Tensor scanned_of(Impl& im, const Value& it) {
  if (it.tag == Tag::Tensor) return it.t.dim() >= 1 ? it.t : Tensor();
  if (it.tag != Tag::Range) return Tensor();
  auto& r = *it.as<RangeObj>();
  const Evaluator& ev = im.ev;
  if (ev.max_steps && static_cast<uint64_t>(r.size()) > ev.max_steps - std::min(ev.steps, ev.max_steps))
    im.ev.throw_step_budget();
  Tensor xs = empty({r.size()}, DType::i64);
  int64_t* at = xs.data<int64_t>();
  for (int64_t k = 0; k < r.size(); ++k) at[k] = r.at(k);
  return xs;
}

// ---- lists a loop appends to --------------------------------------------------------------

// The lists a loop body appends one value to per step: its top-level statements
// `name.append(value)` on a variable. The scan stacks the values as a step output,
// and the list gets the stack's rows.
struct Appended {
  Vars vars;
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

Appended appended_in(Impl& im, const Block& body) {
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

std::vector<Value>& items_of(Impl& im, const Name& n) { return im.load(loc(n)).as<ListObj>()->items; }

// What one step appended (a tensor per list), or "" and why not in `why`; the lists
// go back to their lengths before the loop either way.
TensorList take_appended(Impl& im, const Appended& a, std::string& why) {
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
void extend_lists(Impl& im, const Appended& a, const TensorList& stacks) {
  for (size_t k = 0; k < a.vars.size(); ++k) {
    std::vector<Value>& items = items_of(im, *a.vars[k]);
    for (const Tensor& row : unbind(stacks[k], 0)) items.push_back(Value::tensor(row));
  }
}

// A scan's step: the body, or with a break flag a cond on the flag, whose else-branch
// is the body (Note [Break and continue on a tensor condition]).
Flow scan_step(Impl& im, const ForStmt& f, const Name* flag, const Vars& vars) {
  if (!flag) return run_lowered_step(im, f.body, nullptr);
  Fields fields = fields_written_in(im, f.body);
  lower_choice(
      im, im.load(loc(*flag)).t, vars, f.span.where(), [] { return Flow::Normal; },
      [&] { return run_lowered_step(im, f.body, flag); }, &fields);
  return Flow::Normal;
}

}  // namespace
}  // namespace script

namespace script {
namespace {

// A `for` over a range or a tensor's rows: a scan, unless the body cannot be one
// (then nullopt: the caller runs the loop as usual and tracing unrolls it).
std::optional<Flow> lower_for(Impl& im, const ForStmt& f, const Value& it) {
  const Name* flag = im.break_flag(f.body);
  return lower_returning(im, loop_vars(im, f.body, flag), [&] { return im.script_for_once(f, it); });
}

}  // namespace
}  // namespace script

std::optional<Flow> Evaluator::Impl::script_for(const ForStmt& f, const Value& it) { return lower_for(*this, f, it); }

std::optional<Flow> Evaluator::Impl::script_for_once(const ForStmt& f, const Value& it) {
  const Name* flag = break_flag(f.body);
  if (flag) store(loc(*flag), Value::boolean(false));
  Tensor xs = scanned_of(*this, it);
  std::string origin = f.span.where();
  if (!xs.defined() || f.target.is_tuple() || xs.size(0) == 0) return std::nullopt;
  Vars vars = loop_vars(*this, f.body, flag);
  Fields fields = fields_written_in(*this, f.body);  // Note [Fields written inside a lowered loop]
  RowWrites rows_kept = flag ? RowWrites{} : row_writes_in(*this, f, vars, fields);  // Note [Rows written at a step's index]
  vars = without(vars, rows_kept.vars);
  if (flag) store(loc(*flag), Value::tensor(scalar_of(Value::boolean(false), DType::b8)));  // carried
  std::vector<Value> before = load_all(*this, vars);
  Value target_before = load(loc_of(&f.target));
  Carried c = carried_of(*this, vars);
  carry_fields(c, fields);
  Appended lists = appended_in(*this, f.body);
  Capture& outer = *ev.script->capture;
  std::string why = flag && !lists.vars.empty() ? "its body appends to a list and may break" : "";
  std::shared_ptr<graph::Graph> body_graph;
  Operands invariants;
  std::vector<TensorMeta> metas = metas_of(c.values);
  std::vector<bool> in_place;
  bool retry = false;  // the step read a tensor it writes rows of: lowered again, carrying it
  bool rediscovered = false;  // the step's calls wrote tensors it does not carry: lowered again, carrying them
  if (why.empty()) {
    Region body(*ev.script, "body");
    RowWritesScope keeping(*ev.script, rows_kept.names.empty() ? nullptr : &rows_kept);
    TensorList copies = bind_carried(*this, body, c);
    store(loc_of(&f.target), Value::tensor(body.bind(graph::row_view(xs, 0), f.target.name)));
    body.start();
    for (const Name* list : lists.vars) allow_appends_in_region(load(loc(*list)).as<ListObj>());
    try {
      Flow flow = scan_step(*this, f, flag, vars);
      rediscovered = remember_called_writes(*this, body.capture(), f.body, c.fields);  // Note [Tensors a lowered region's calls write]
      if (rediscovered) why = "lowered again";
      if (why.empty() && flow != Flow::Normal) why = std::string("its body may '") + flow_word(flow) + "'";
      if (why.empty() && !body.capture().problems().empty())
        why = "its body cannot be captured as one step (" + body.capture().problems()[0].what + ")";
      if (why.empty()) why = changed_plain(vars, before, load_all(*this, vars));
      retry = why.empty() && !rows_kept.names.empty() && !rows_written(body, rows_kept, xs).empty();
      if (retry) why = "lowered again";
      if (why.empty()) in_place = written_in_body(*this, body, c, copies, "a for loop over a range or rows");
      TensorList rows = take_appended(*this, lists, why);
      if (why.empty()) {
        TensorList yields = carried_after(*this, c, "for loop");
        TensorList kept = row_yields(rows_kept);
        yields.insert(yields.end(), rows.begin(), rows.end());
        yields.insert(yields.end(), kept.begin(), kept.end());
        body_graph = body.finish(yields);
        for (const Tensor& r : rows) metas.push_back(graph::stacked_meta({r.sizes(), r.dtype()}, xs.size(0)));
        for (const Tensor& r : kept) metas.push_back(graph::stacked_meta({r.sizes(), r.dtype()}, xs.size(0)));
      }
    } catch (const ResultTypeFound&) {  // lowered again by lower_for, with (return) set
      take_appended(*this, lists, why);
      store(loc_of(&f.target), target_before);
      throw;
    } catch (const std::exception& e) {
      take_appended(*this, lists, why);
      why = std::string("its body fails with the row as a tensor (") + e.what() + ")";
    }
    if (body_graph) invariants = body.capture().captured();
  }
  store_all(*this, vars, before);
  store(loc_of(&f.target), target_before);
  if (retry) {
    NoRowWritesScope carrying(*ev.script);
    return script_for_once(f, it);
  }
  if (rediscovered) return script_for_once(f, it);
  if (!body_graph) {
    if (flag) store(loc(*flag), Value::boolean(false));  // the loop runs as usual
    ev.script->notes.push_back(origin + ": for unrolled: " + why);
    return std::nullopt;
  }
  align_region(*body_graph, c.values.size() + 1, invariants, invariants);
  copy_written(c, in_place);
  Operands operands = carried_operands(outer, c.values);
  operands.emplace_back(outer.value_id(xs), xs);
  operands.insert(operands.end(), invariants.begin(), invariants.end());
  Attrs attrs;
  attrs.set("carried", static_cast<int64_t>(c.values.size()));
  attrs.set("scanned", int64_t{1});
  attrs.set("length", xs.size(0));
  TensorList results = add_node(*ev.script, graph::NodeKind::scan, attrs, {body_graph}, operands, metas, origin);
  store_loop_results(*this, c, results, in_place);
  const long lists_at = static_cast<long>(c.values.size()), rows_at = lists_at + static_cast<long>(lists.vars.size());
  extend_lists(*this, lists, TensorList(results.begin() + lists_at, results.begin() + rows_at));
  write_rows(rows_kept, TensorList(results.begin() + rows_at, results.end()), xs);
  ev.script->notes.push_back(origin + ": for over " + std::to_string(xs.size(0)) + " rows -> scan (carries: " +
                             carried_text(c) + (lists.vars.empty() ? "" : "; stacks: " + names_text(lists.vars)) +
                             (rows_kept.names.empty() ? "" : "; rows written: " + rows_text(rows_kept)) +
                             (flag ? "; a break sets (break), and each later step passes its carries through" : "") + ")");
  return Flow::Normal;
}

}  // namespace nabla::interp
