// Comprehensions: [x * 2 for x in xs if x > 0] and {k: v for (k, v) in pairs}. The
// resolver gives their loop variables a scope of their own
// (Evaluator::Impl::resolve_comprehension); here the clauses run left to right as
// nested loops and filters, and the element is made at the innermost point.
#include "interp/eval/evaluator_impl.hpp"

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
    if (truthy(eval(*clause.expr))) run_clauses(c, k + 1, emit);
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

}  // namespace nabla::interp
