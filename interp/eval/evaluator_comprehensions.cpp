// Comprehensions: [x * 2 for x in xs if x > 0] and {k: v for (k, v) in pairs}. The
// resolver gives their loop variables a scope of their own
// (Evaluator::Impl::resolve_comprehension); here the clauses run left to right as
// nested loops and filters, and the element is made at the innermost point. Also
// Evaluator::iterate, the items of any iterable as a list (each_item's slow path),
// Impl::unpack, the values a tuple pattern binds, Impl::unpack_into, a dict
// display's {**m}, and Impl::index_container_fast, a list's, tuple's or dict's item.
#include "autograd/ops.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/eval/evaluator_impl.hpp"
#include "lang/utf8_text.hpp"
#include "tensor/allocator.hpp"

namespace nabla::interp {

Value Evaluator::Impl::eval_comprehension(const Comprehension& c) {
  if (c.value) {
    auto dict = std::make_shared<DictObj>();
    run_clauses(c, 0, [&] {
      Value key = eval(*c.element);
      check_dict_key(key);
      dict->set(key, eval(*c.value));
    });
    return Value::object(Tag::Dict, std::move(dict));
  }
  std::vector<Value> items;
  run_clauses(c, 0, [&] { items.push_back(eval(*c.element)); });
  return make_list(std::move(items));
}

// Clause k and those after it: a loop binds its target to each item in turn, a filter
// goes on only where its condition is true; past the last clause, `emit` makes the
// element. Recursion is one level per clause, as many as the source wrote.
void Evaluator::Impl::run_clauses(const Comprehension& c, size_t k, const std::function<void()>& emit) {
  if (k == c.clauses.size()) return emit();
  const ComprehensionClause& clause = c.clauses[k];
  if (clause.is_filter()) {
    if (truth_at(eval(*clause.expr), clause.expr->span)) run_clauses(c, k + 1, emit);
    return;
  }
  each_item(eval(*clause.expr), [&](Value v) {
    ev.check_interrupt();
    ev.count_step();
    bind_pattern(clause.target, std::move(v));
    run_clauses(c, k + 1, emit);
    return true;
  });
}

// Why `let (a, b) = v` failed when v has the wrong number of items. A tensor unpacks
// along its first dimension, which surprises a PyTorch user who wrote
// `let (g,) = grad(out, x)`: torch.autograd.grad returns a tuple, nabla's grad returns
// one tensor when `inputs` is one tensor; the message says so.
static std::string unpack_count_message(const Value& v, size_t found, size_t n) {
  std::string msg = "cannot unpack " + std::to_string(found) + " values into " + std::to_string(n) + " names";
  if (v.tag != Tag::Tensor) return msg;
  msg += " (a tensor of shape " + v.t.shape_str() + " unpacks along its first dimension";
  if (n == 1) msg += "; grad(outputs, x) with one tensor x returns its gradient, not a tuple: write grad(outputs, [x])";
  return msg + ")";
}

// The n values a tuple pattern binds (`let (a, b) = v`, `for k, v in ...`).
std::vector<Value> Evaluator::Impl::unpack(const Value& v, size_t n) {
  std::vector<Value> items;
  if (v.tag == Tag::List || v.tag == Tag::Tuple) items = v.as<ListObj>()->items;
  else if (v.tag == Tag::Tensor || v.tag == Tag::Range || v.tag == Tag::Dict) items = ev.iterate(v);
  else if (v.tag == Tag::Instance && v.as<InstanceObj>()->cls->info->methods.count("__iter__"))
    items = ev.iterate(v);  // a model's __iter__ (a PackedSequence unpacks as PyTorch's namedtuple)
  else fail(std::string("cannot unpack ") + type_name(v) + " into " + std::to_string(n) + " names");
  if (items.size() != n) fail(unpack_count_message(v, items.size(), n));
  return items;
}

std::vector<Value> Evaluator::iterate(const Value& v) {
  switch (v.tag) {
    case Tag::List:
    case Tag::Tuple: return v.as<ListObj>()->items;
    case Tag::Range: {
      auto* r = v.as<RangeObj>();
      std::vector<Value> out;
      int64_t n = r->size();
      // Note [Host memory budget]: list(range(10**12)) fails here, before it grows.
      CpuAllocator::instance().check_host_request(static_cast<size_t>(n), sizeof(Value), "a list of a range");
      out.reserve(static_cast<size_t>(n));
      for (int64_t k = 0; k < n; ++k) out.push_back(Value::integer(r->at(k)));
      return out;
    }
    case Tag::Dict: {
      std::vector<Value> out;
      for (auto& [k, x] : v.as<DictObj>()->entries) out.push_back(k);
      return out;
    }
    case Tag::Str: {
      std::vector<Value> out;
      for (std::string& c : utf8_chars(v.as<StrObj>()->s)) out.push_back(make_str(std::move(c)));  // characters
      return out;
    }
    case Tag::Tensor: {
      if (v.t.dim() == 0) fail("iteration over a 0-d tensor");
      std::vector<Value> out;
      for (int64_t k = 0; k < v.t.size(0); ++k) out.push_back(Value::tensor(select(v.t, 0, k)));
      return out;
    }
    case Tag::Instance:  // a model with an __iter__ method (nn.Sequential, nn.ModuleList): what it returns
      if (v.as<InstanceObj>()->cls->info->methods.count("__iter__")) return iterate(model_items(v));
      [[fallthrough]];
    case Tag::Object: {  // an iterator from iter(): what it has left (Note [iter() walks a snapshot])
      std::vector<Value> rest;
      if (drain_iterator(v, rest)) return rest;
      [[fallthrough]];
    }
    default: fail(std::string("'") + type_name(v) + "' object is not iterable");
  }
}

// {**m, k: v}: m's items in its order, a later key replacing an earlier one, as
// Python's dict display (torch.func's functional_call(model, {**params, **buffers}, x)).
void Evaluator::Impl::unpack_into(DictObj& out, const Value& mapping) {
  if (mapping.tag != Tag::Dict)
    fail(std::string("'**' in a dict unpacks a dict, got ") + type_name(mapping) +
         (mapping.tag == Tag::List || mapping.tag == Tag::Tuple ? " (a list of (key, value) pairs is dict(pairs))" : ""));
  // a copy first: {**d} may be assigned over d, and the entries must not move under us
  const std::vector<std::pair<Value, Value>> entries = mapping.as<DictObj>()->entries;
  for (const auto& [key, value] : entries) out.set(key, value);
}

// Note [Container subscripts without a vector]
// d["lr"], xs[k] and t[0] are most of the subscripts library code runs (an optimizer's
// step reads its state and groups with them), and index_value takes its items as a
// vector, one allocation each. A single int or key into a list, tuple or dict that
// holds it is read here directly; every other case, and every failing one (a key not
// in the dict, an index out of range), goes the general way after it, which raises
// the same errors as before: the item is evaluated once either way.
std::optional<Value> Evaluator::Impl::index_container_fast(const Index& ix, const Value& obj) {
  if (obj.tag != Tag::Dict && obj.tag != Tag::List && obj.tag != Tag::Tuple) return std::nullopt;
  if (ix.items.size() != 1) return std::nullopt;
  const Expr& item = *ix.items[0];
  if (item.kind == ExprKind::Slice || item.kind == ExprKind::Ellipsis) return std::nullopt;
  Value key = eval(item);
  call_site = &ix.span;
  if (obj.tag == Tag::Dict) {
    if (Value* v = obj.as<DictObj>()->find(key)) return *v;
  } else if (key.tag == Tag::Int) {
    const std::vector<Value>& items = obj.as<ListObj>()->items;
    int64_t n = static_cast<int64_t>(items.size());
    if (key.i >= -n && key.i < n) return items[static_cast<size_t>(key.i < 0 ? key.i + n : key.i)];
  }
  std::vector<Value> idx;
  idx.push_back(std::move(key));
  return index_value(ev, obj, idx);  // its error (and any case not read above)
}

}  // namespace nabla::interp
