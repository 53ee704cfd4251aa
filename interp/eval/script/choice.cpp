// Script mode's lowering of a two-way choice to a cond node (regions.hpp declares
// lower_choice), and Note [A failing side of a lowered if].
#include <algorithm>

#include "autograd/ops.hpp"
#include "autograd/trace.hpp"
#include "graph/control_flow.hpp"
#include "graph/control_flow_grad.hpp"
#include "graph/executor.hpp"
#include "graph/rewrite.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/eval/script/field_writes.hpp"
#include "interp/eval/script/regions.hpp"

namespace nabla::interp::script {

// ---- a two-way choice ---------------------------------------------------------------------

namespace {

// Note [Returns on a tensor condition]: the hidden result variable is the function's result.
std::string var_text(const std::string& name) {
  return name == "(return)" ? "the function's result" : "variable '" + name + "'";
}

// What one side of a lowered choice left: its region, the variables' values, and
// where each variable's tensors start among the region's yields.
struct Branch {
  std::shared_ptr<graph::Graph> region;
  Operands operands;
  std::vector<Value> values;
  std::vector<size_t> first_yield, yield_count;
  std::vector<bool> in_place;  // per variable: the side wrote into its tensor in place
  Operands bound;              // the tensors it took copies of, its first inputs
  size_t field_yields = 0;     // where the fields' yields start (Note [Fields written inside a lowered loop])
  Fields found;                // Note [Tensors a lowered region's calls write]: to carry too, captured again
  int raises = -1;             // Note [A failing side of a lowered if]: the error it raises, or -1
  std::vector<graph::CaptureProblem> problems;  // a raising side's, the enclosing capture's
};


// A side's copies of the tensors of the variables written in place (Note [Variables
// written in place inside a lowered region]), bound first, in the order of `vars`: both
// sides bind the same ones, which the node's first operands after the predicate feed.
Operands bind_written(Impl& im, Region& region, const Vars& vars, const std::vector<Value>& before,
                      std::vector<Tensor>& copies, const Fields& fields, TensorList& field_copies) {
  Operands bound;
  copies.assign(vars.size(), Tensor());
  TensorList outers, held;
  std::vector<size_t> which;
  for (size_t k = 0; k < vars.size(); ++k) {
    if (before[k].tag != Tag::Tensor || !written_in_place(im, *vars[k])) continue;
    outers.push_back(before[k].t);
    held.push_back(region.bind(before[k].t, vars[k]->id));
    which.push_back(k);
    bound.emplace_back(im.ev.script->capture->value_id(before[k].t), before[k].t);
  }
  for (const Field& f : fields) {  // Note [Fields written inside a lowered loop]
    outers.push_back(f.tensor);
    held.push_back(region.bind(f.tensor, f.name));
    bound.emplace_back(im.ev.script->capture->value_id(f.tensor), f.tensor);
  }
  region.alias(outers, held);  // Note [Aliases of a variable written in place]
  field_copies.assign(held.begin() + static_cast<long>(which.size()), held.end());
  for (size_t j = 0; j < which.size(); ++j) {
    copies[which[j]] = held[j];
    im.store(loc(*vars[which[j]]), Value::tensor(held[j]));
  }
  return bound;
}

// Where a side that raised leaves its error: the branch of Note [A failing side of a
// lowered if], its region made once the other side's types are known.
Branch raising_branch(Impl& im, const Vars& vars, const std::vector<Value>& before, const LangError& e) {
  store_all(im, vars, before);
  Branch b;
  b.raises = keep_raised(*im.ev.script, e);
  return b;
}

Branch capture_side(Impl& im, const char* label, const Vars& vars, const std::vector<Value>& before,
                    const Vars& promoted, const Side& side, const Fields& fields, bool taken) {
  Region region(*im.ev.script, label);
  std::vector<Tensor> copies;
  TensorList field_copies;
  Operands bound = bind_written(im, region, vars, before, copies, fields, field_copies);
  region.start();
  Flow flow = Flow::Normal;
  try {
    LiveScope live(*im.ev.script, taken);
    flow = side();
  } catch (LangError& e) {
    if (!raises_later(*im.ev.script, e, taken)) throw;
    Branch b = raising_branch(im, vars, before, e);
    b.problems = region.capture().problems();  // a check that read a traced value (assert(x.max() < 0))
    return b;
  }
  if (flow != Flow::Normal)
    fail(std::string("a '") + flow_word(flow) + "' inside an if on a tensor condition cannot be lowered to a cond" +
         (flow == Flow::Return ? " here: it lowers in a function's body and in its loops, directly or inside other "
                                 "ifs and no_grad-style blocks; elsewhere, assign the result to a variable and return "
                                 "it after the statement"
                               : " here: it lowers when its if is in a loop's body, directly or inside other ifs and "
                                 "no_grad-style blocks"));
  numbers_as_tensors(im, promoted);  // Note [Counters carried as tensors]
  Branch b;
  b.values = load_all(im, vars);
  b.bound = bound;
  b.in_place.assign(vars.size(), false);
  for (size_t k = 0; k < vars.size(); ++k) {
    if (!copies[k].defined()) continue;
    b.in_place[k] = wrote_in_place(im, region, *vars[k], copies[k], "an if on a tensor condition");
    if (!b.in_place[k] && same_value(b.values[k], Value::tensor(copies[k]))) b.values[k] = before[k];  // untouched
  }
  TensorList yields;
  for (const Value& v : b.values) {
    TensorList leaves;
    b.first_yield.push_back(yields.size());
    b.yield_count.push_back(tensor_leaves(v, leaves) ? leaves.size() : 0);
    yields.insert(yields.end(), leaves.begin(), leaves.begin() + static_cast<long>(b.yield_count.back()));
  }
  b.field_yields = yields.size();
  yields.insert(yields.end(), field_copies.begin(), field_copies.end());
  Fields seen = fields;  // Note [Tensors a lowered region's calls write]
  if (adopt_called_writes(region.capture(), seen) > 0) b.found.assign(seen.begin() + static_cast<long>(fields.size()), seen.end());
  b.region = region.finish(yields);
  b.operands = region.capture().captured();
  store_all(im, vars, before);
  return b;
}

// Which variables a lowered choice outputs: those either side changed, each a tensor,
// or tuples and lists of tensors, nesting alike with leaves of one type in both; a
// plain value (a number, a string) must be the same in both.
std::vector<size_t> choice_outputs(const Vars& vars, const std::vector<Value>& before, const Branch& a, const Branch& b) {
  std::vector<size_t> outs;
  for (size_t k = 0; k < vars.size(); ++k) {
    const Value &x = a.values[k], &y = b.values[k];
    if (same_value(x, before[k]) && same_value(y, before[k])) continue;
    const std::string& name = vars[k]->id;
    TensorList unused;
    if (!tensor_leaves(x, unused) || !tensor_leaves(y, unused)) {
      if (same_value(x, y)) continue;
      fail("an if on a tensor condition lowers to a cond, whose branches differ only in tensors, but " + var_text(name) +
           " is " + type_text(x) + " after one branch and " + type_text(y) + " after the other");
    }
    if (!same_tree(x, y))
      fail("an if on a tensor condition lowers to a cond, whose branches yield the same types, but " + var_text(name) +
           " is " + type_text(x) + " after the then-branch and " + type_text(y) + " after the else-branch");
    const bool assigned_a = !a.in_place[k] && !same_value(x, before[k]);
    const bool assigned_b = !b.in_place[k] && !same_value(y, before[k]);
    if ((a.in_place[k] && assigned_b) || (b.in_place[k] && assigned_a))
      fail("an if on a tensor condition lowers to a cond, but " + var_text(name) + " is written in place in one "
           "branch and assigned in the other, so after it the variable would be its old tensor or a new one: "
           "assign it in both (" + name + " = ...), or write into it in both");
    outs.push_back(k);
  }
  return outs;
}

// Note [Returns inside a lowered loop] (exits.cpp): inside a loop step a (return) that
// is none means "not returned yet". When one side returned and the other did not, the
// variable gets zeros of the returned type before the choice (true: capture both
// sides again).
bool fill_result(Impl& im, const Vars& vars, const std::vector<Value>& before, const Branch& a, const Branch& b) {
  const FunctionReturns& fr = im.ev.script->returns;
  if (!fr.result || fr.steps == 0) return false;
  for (size_t k = 0; k < vars.size(); ++k) {
    if (!same_var(*vars[k], *fr.result) || !before[k].is_none()) continue;
    const Value& got = a.values[k].is_none() ? b.values[k] : a.values[k];
    TensorList leaves;
    if (!tensor_leaves(got, leaves) || !(a.values[k].is_none() || b.values[k].is_none())) return false;
    im.store(loc(*vars[k]), zeros_of_tree(got));
    return true;
  }
  return false;
}

// Keeps the yields of the variables in `outs` (regions yield every tensor variable).
void keep_yields(graph::Graph& r, const Branch& b, const std::vector<size_t>& outs) {
  std::vector<int> kept;
  for (size_t k : outs)
    for (size_t j = 0; j < b.yield_count[k]; ++j) kept.push_back(r.outputs[b.first_yield[k] + j]);
  kept.insert(kept.end(), r.outputs.begin() + static_cast<long>(b.field_yields), r.outputs.end());
  r.outputs = kept;
}

// Makes raising branch b's region (Note [A failing side of a lowered if]): the same
// bound inputs as a captured side, one raise node yielding zeros of `other`'s values'
// types, then the fields as they came in.
void raise_in_region(Impl& im, const char* label, const Vars& vars, const std::vector<Value>& before,
                     const Fields& fields, Branch& b, const Branch& other) {
  Region region(*im.ev.script, label);
  std::vector<Tensor> copies;
  TensorList field_copies;
  b.bound = bind_written(im, region, vars, before, copies, fields, field_copies);
  region.start();
  b.values = other.values;
  b.in_place = other.in_place;
  TensorList like;
  for (const Value& v : b.values) {
    TensorList leaves;
    b.first_yield.push_back(like.size());
    b.yield_count.push_back(tensor_leaves(v, leaves) ? leaves.size() : 0);
    like.insert(like.end(), leaves.begin(), leaves.begin() + static_cast<long>(b.yield_count.back()));
  }
  TensorList yields = raise_node(*im.ev.script, region.capture(), b.raises, like);
  b.field_yields = yields.size();
  yields.insert(yields.end(), field_copies.begin(), field_copies.end());
  b.region = region.finish(yields);
  b.operands = region.capture().captured();
  store_all(im, vars, before);
}

}  // namespace

Vars lower_choice(Impl& im, const Tensor& pred, const Vars& vars, const std::string& origin, const Side& then_side,
                  const Side& else_side, Fields* written_fields) {
  Fields fields = written_fields ? *written_fields : Fields{};
  Capture& outer = *im.ev.script->capture;
  const std::vector<Value> plain_before = load_all(im, vars);
  Vars promoted = promote_counters(im, vars);  // Note [Counters carried as tensors]
  std::vector<Value> before = load_all(im, vars);
  Branch then, other;
  auto capture_both = [&] {
    then = capture_side(im, "then", vars, before, promoted, then_side, fields, side_taken(pred, true));
    other = capture_side(im, "else", vars, before, promoted, else_side, fields, side_taken(pred, false));
    if (then.raises >= 0 && other.raises >= 0) throw raised_error(*im.ev.script, then.raises);  // the enclosing side raises
  };
  capture_both();
  bool again = fill_result(im, vars, before, then, other);
  for (const Branch* b : {&then, &other})  // Note [Tensors a lowered region's calls write]
    for (const Field& f : b->found)
      if (std::none_of(fields.begin(), fields.end(), [&](const Field& g) { return g.tensor.storage() == f.tensor.storage(); })) {
        fields.push_back(f);
        again = true;
      }
  if (again) {
    before = load_all(im, vars);
    capture_both();
  }
  if (written_fields) *written_fields = fields;
  for (const Branch* b : {&then, &other})
    for (const graph::CaptureProblem& p : b->problems) outer.add_problem(p);
  if (then.raises >= 0) raise_in_region(im, "then", vars, before, fields, then, other);
  if (other.raises >= 0) raise_in_region(im, "else", vars, before, fields, other, then);
  std::vector<size_t> outs = choice_outputs(vars, before, then, other);
  for (size_t v = 0; v < vars.size(); ++v)  // a number no branch changed stays a number
    if (plain_before[v].is_num() && std::find(outs.begin(), outs.end(), v) == outs.end())
      im.store(loc(*vars[v]), plain_before[v]);
  keep_yields(*then.region, then, outs);
  keep_yields(*other.region, other, outs);
  Operands operands = {{outer.value_id(pred), pred}};
  for (const auto& [id, t] : then.bound) {  // a copy (an op): the tensor is written after the node
    Tensor copy = clone_tensor(t);
    operands.emplace_back(outer.value_id(copy), copy);
  }
  Operands all;
  add_operands(all, then.operands);
  add_operands(all, other.operands);
  align_region(*then.region, then.bound.size(), then.operands, all);
  align_region(*other.region, other.bound.size(), other.operands, all);
  operands.insert(operands.end(), all.begin(), all.end());
  std::vector<TensorMeta> metas;
  Vars changed;
  for (size_t o : outs) {
    TensorList leaves;
    tensor_leaves(then.values[o], leaves);
    for (const Tensor& t : leaves) metas.push_back({t.sizes(), t.dtype()});
    changed.push_back(vars[o]);
  }
  for (const Field& f : fields) metas.push_back({f.tensor.sizes(), f.tensor.dtype()});
  TensorList results = add_node(*im.ev.script, graph::NodeKind::cond, {}, {then.region, other.region}, operands, metas, origin);
  size_t next = 0;
  for (size_t o : outs) {
    im.store(loc(*vars[o]), rebuild(then.values[o], results, next));
    if (then.in_place[o] || other.in_place[o]) write_back(im, *vars[o], before[o]);
  }
  for (const Field& f : fields) write_field(f, results[next++]);
  return changed;
}

}  // namespace nabla::interp::script
