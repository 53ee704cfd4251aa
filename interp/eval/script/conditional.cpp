// Note [A conditional expression on a tensor]: `a if pred else b` lowered to a cond
// (regions.hpp declares it).
#include <algorithm>

#include "graph/control_flow.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/eval/script/field_writes.hpp"
#include "interp/eval/script/regions.hpp"

namespace nabla::interp::script {

// Note [A conditional expression on a tensor]
// `y = relu(x) if x.sum() > 0 else -x` is an if on a tensor written as an expression:
// in script mode it lowers to a cond as the statement does, each side's expression
// evaluated once under a region of its own, the node's outputs its value. Both sides
// must give a tensor, or tuples and lists of tensors, nested alike with leaves of one
// type; plain numbers become 0-dim tensors (i64, f64 or bool), as a number an `if`
// assigns does. An expression cannot assign a variable; the tensors that the layers it
// calls write (BatchNorm's running statistics: Note [Tensors a lowered region's calls
// write], graph/capture_writes.cpp) are carried as an if's fields are, found by a first
// capture of the sides, and written after the node; a region refuses other writes into
// tensors made outside it, so nothing else leaves the sides.
Value lower_conditional(Impl& im, const Tensor& pred, const std::string& origin, const std::function<Value()>& then_value,
                        const std::function<Value()>& else_value) {
  struct ValueSide {
    std::shared_ptr<graph::Graph> region;
    Operands operands;
    Value value;
    Fields found;    // written by its calls, not carried yet
    int raises = -1;  // Note [A failing side of a lowered if]: the error it raises, or -1
  };
  Fields fields;
  auto open = [&](Region& region, TensorList& copies) {  // binds the fields' copies, then starts
    TensorList outers;
    for (const Field& f : fields) {
      outers.push_back(f.tensor);
      copies.push_back(region.bind(f.tensor, f.name));
    }
    region.alias(outers, copies);  // Note [Aliases of a variable written in place]
    region.start();
  };
  auto capture = [&](const char* label, const std::function<Value()>& side, bool taken) {
    Region region(*im.ev.script, label);
    TensorList copies;
    open(region, copies);
    ValueSide s;
    try {
      LiveScope live(*im.ev.script, taken);
      s.value = side();
    } catch (LangError& e) {
      if (!raises_later(*im.ev.script, e, taken) || !region.capture().problems().empty()) throw;
      s.raises = keep_raised(*im.ev.script, e);
      return s;
    }
    if (s.value.is_num()) s.value = Value::tensor(scalar_of(s.value, natural_dtype(s.value)));
    TensorList leaves;
    if (!tensor_leaves(s.value, leaves))
      fail("`a if cond else b` on a tensor condition lowers to a cond, whose " + std::string(label) +
           " side must give a tensor, a number, or tuples and lists of tensors; it gave " + type_text(s.value));
    Fields seen = fields;
    if (adopt_called_writes(region.capture(), seen) > 0) s.found.assign(seen.begin() + static_cast<long>(fields.size()), seen.end());
    leaves.insert(leaves.end(), copies.begin(), copies.end());
    s.region = region.finish(leaves);
    s.operands = region.capture().captured();
    return s;
  };
  // Note [A failing side of a lowered if]: side s raised; its region is a raise node
  // giving the other side's types.
  auto raising = [&](const char* label, ValueSide& s, const ValueSide& other) {
    Region region(*im.ev.script, label);
    TensorList copies, leaves;
    open(region, copies);
    tensor_leaves(other.value, leaves);
    size_t next = 0;
    s.value = rebuild(other.value, raise_node(*im.ev.script, region.capture(), s.raises, leaves), next);
    leaves.clear();
    tensor_leaves(s.value, leaves);
    leaves.insert(leaves.end(), copies.begin(), copies.end());
    s.region = region.finish(leaves);
    s.operands = region.capture().captured();
  };
  Capture& outer = *im.ev.script->capture;
  const bool then_taken = side_taken(pred, true);
  ValueSide a, b;
  auto capture_both = [&] {
    a = capture("then", then_value, then_taken);
    b = capture("else", else_value, !then_taken);
    if (a.raises >= 0 && b.raises >= 0) throw raised_error(*im.ev.script, a.raises);  // the enclosing side raises
  };
  capture_both();
  if (!a.found.empty() || !b.found.empty()) {
    for (const ValueSide* side : {&a, &b})
      for (const Field& f : side->found)
        if (std::none_of(fields.begin(), fields.end(), [&](const Field& g) { return g.tensor.storage() == f.tensor.storage(); }))
          fields.push_back(f);
    capture_both();
  }
  if (a.raises >= 0) raising("then", a, b);
  if (b.raises >= 0) raising("else", b, a);
  if (!same_tree(a.value, b.value))
    fail("`a if cond else b` on a tensor condition lowers to a cond, whose sides must give values of one type, but "
         "the then side gave " + type_text(a.value) + " and the else side " + type_text(b.value));
  Operands all, operands = {{outer.value_id(pred), pred}};
  for (const Field& f : fields) {  // a copy (an op): the tensor is written after the node
    Tensor copy = clone_tensor(f.tensor);
    operands.emplace_back(outer.value_id(copy), copy);
  }
  add_operands(all, a.operands);
  add_operands(all, b.operands);
  align_region(*a.region, fields.size(), a.operands, all);
  align_region(*b.region, fields.size(), b.operands, all);
  operands.insert(operands.end(), all.begin(), all.end());
  TensorList leaves;
  tensor_leaves(a.value, leaves);
  const size_t values = leaves.size();
  for (const Field& f : fields) leaves.push_back(f.tensor);
  TensorList results = add_node(*im.ev.script, graph::NodeKind::cond, {}, {a.region, b.region}, operands, metas_of(leaves), origin);
  im.ev.script->notes.push_back(origin + ": a if cond else b on a tensor -> cond" +
                                (fields.empty() ? "" : " (writes " + field_names(fields) + ")"));
  for (size_t j = 0; j < fields.size(); ++j) write_field(fields[j], results[values + j]);
  size_t next = 0;
  return rebuild(a.value, results, next);
}

}  // namespace nabla::interp::script
