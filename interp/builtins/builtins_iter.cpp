// Python's iter() and next(): `next(iter(loader))`, the one batch a PyTorch user takes
// to look at shapes, or to overfit a single batch.
//
// Note [iter() walks a snapshot]
// A `for` loop here walks what an iterable gives as a list (a model's __iter__
// returns one: a DataLoader's batches, a Sequential's layers), so iter(x) takes that
// list once and next() hands its items out one at a time; when they are used up,
// next(it) is an error naming StopIteration, and next(it, default) returns default, as
// Python's. A `for` loop or list() over the iterator walks what is left and uses it up.
// A model with a __next__ method is its own iterator: next(m) calls m.__next__().
#include <string>
#include <vector>

#include "interp/builtins/builtins_internal.hpp"
#include "interp/eval/evaluator.hpp"

namespace nabla::interp {

namespace {

// The items are a list among the attrs, so the cycle collector sees them.
struct IteratorObj : ObjectObj {
  size_t next = 0;
  std::vector<Value>& items() { return attrs[0].second.as<ListObj>()->items; }
};

IteratorObj* as_iterator(const Value& v) {
  return v.tag == Tag::Object ? dynamic_cast<IteratorObj*>(v.as<ObjectObj>()) : nullptr;
}

Value iter_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("iter", a, {"object"}, 1);
  if (as_iterator(b[0])) return b[0];  // iter(it) is it, as Python's
  auto it = std::make_shared<IteratorObj>();
  it->type_name = "iterator";
  it->attrs.emplace_back("_items", make_list(ev.iterate(b[0])));
  IteratorObj* raw = it.get();
  it->describe = [raw] { return "<iterator, " + std::to_string(raw->items().size() - raw->next) + " items left>"; };
  return Value::object(Tag::Object, it);
}

Value next_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("next", a, {"iterator", "default"}, 1);
  const bool has_default = b.given[1];
  if (IteratorObj* it = as_iterator(b[0])) {
    if (it->next < it->items().size()) return it->items()[it->next++];
    if (has_default) return b[1];
    fail("next(): StopIteration: the iterator is used up (next(it, default) returns default instead)");
  }
  if (b[0].tag == Tag::Instance) {
    CallArgs none;
    return ev.call_method(b[0], "__next__", none);
  }
  fail(std::string("next(): '") + type_name(b[0]) +
       "' object is not an iterator (iter(x) makes one: next(iter(loader)))");
}

const BuiltinEntry kIterBuiltins[] = {
    {"iter", iter_builtin, "iter(object)",
     "An iterator over what a for loop over object walks (a list, a DataLoader's batches, ...), for next() "
     "(Note [iter() walks a snapshot]). Example: next(iter([1, 2, 3]))"},
    {"next", next_builtin, "next(iterator, default)",
     "The iterator's next item; when it is used up, default if given, else an error (StopIteration). "
     "Example: let it = iter([1, 2]); next(it)"},
};

}  // namespace

bool drain_iterator(const Value& v, std::vector<Value>& out) {
  IteratorObj* it = as_iterator(v);
  if (!it) return false;
  std::vector<Value>& items = it->items();
  out.assign(items.begin() + static_cast<std::ptrdiff_t>(it->next), items.end());
  it->next = items.size();
  return true;
}

const BuiltinLibrary kIterLibrary = {"iter", nullptr, kIterBuiltins, nullptr};

}  // namespace nabla::interp
