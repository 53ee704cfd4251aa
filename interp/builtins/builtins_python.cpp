// Python's builtins of the language: printing, conversions to str, bool and the
// containers, type tests, attributes by name, and iteration helpers (len, range,
// enumerate, zip, sorted, ...). The numeric ones are builtins_numbers.cpp's. The
// table at the end is this family's (Note [Builtin tables]).
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <set>

#include "autograd/trace.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/values/value_walk.hpp"
#include "lang/utf8_text.hpp"
#include "interp/eval/script/script_mode.hpp"
#include "lang/did_you_mean.hpp"
#include "lang/parser.hpp"

namespace nabla::interp {

namespace {

Value print_builtin(Evaluator& ev, CallArgs& a) {
  std::string sep = " ", end = "\n";
  bool flush = false;
  for (auto& [k, v] : a.kw) {
    if (k == "sep") sep = v.is_none() ? " " : str(v);
    else if (k == "end") end = v.is_none() ? "\n" : str(v);
    else if (k == "flush") flush = truthy(v);
    else fail_unexpected_keyword("print", k, {"sep", "end", "flush"});
  }
  std::string out;
  for (size_t k = 0; k < a.pos.size(); ++k) {
    if (k) out += sep;
    out += str(a.pos[k]);
  }
  ev.output(out + end);
  if (flush) std::cout.flush(), std::fflush(stdout);  // print(..., flush=true): a reader of a pipe sees it now
  return Value();
}

Value len_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("len", a, {"obj"}, 1);
  const Value& v = b[0];
  switch (v.tag) {
    case Tag::Str: return Value::integer(utf8_length(v.as<StrObj>()->s));  // characters, as Python's
    case Tag::List:
    case Tag::Tuple: return Value::integer(static_cast<int64_t>(v.as<ListObj>()->items.size()));
    case Tag::Dict: return Value::integer(static_cast<int64_t>(v.as<DictObj>()->entries.size()));
    case Tag::Range: return Value::integer(v.as<RangeObj>()->size());
    case Tag::Tensor:
      if (v.t.dim() == 0) fail("len() of a 0-d tensor");
      return Value::integer(v.t.size(0));
    case Tag::Instance:  // a model with a __len__ method (nn.Sequential)
      if (v.as<InstanceObj>()->cls->info->methods.count("__len__")) return Value::integer(ev.model_length(v));
      [[fallthrough]];
    default: fail(std::string("object of type '") + type_name(v) + "' has no len()");
  }
}

Value range_builtin(Evaluator&, CallArgs& a) {
  if (!a.kw.empty()) fail("range() takes no keyword arguments");
  auto r = std::make_shared<RangeObj>();
  if (a.pos.size() == 1) {
    r->stop = as_python_int(a.pos[0], "range()");
  } else if (a.pos.size() == 2 || a.pos.size() == 3) {
    r->start = as_python_int(a.pos[0], "range()");
    r->stop = as_python_int(a.pos[1], "range()");
    if (a.pos.size() == 3) r->step = as_python_int(a.pos[2], "range()");
    if (r->step == 0) fail("range() step must not be zero");
  } else {
    fail("range() takes 1 to 3 arguments but " + std::to_string(a.pos.size()) + " were given");
  }
  return Value::object(Tag::Range, r);
}

}  // namespace

// Also list.sort()'s work (container_methods.cpp).
Value sorted_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("sorted", a, {"iterable", "key", "reverse"}, 1);
  std::vector<Value> items = ev.iterate(b[0]);
  std::vector<Value> keys = items;
  if (b.has(1))
    for (auto& k : keys) {
      CallArgs ka;
      ka.pos.push_back(k);
      k = ev.call_value(b[1], ka);
    }
  std::vector<size_t> order(items.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  bool rev = b.has(2) && as_bool(b[2], "sorted(): reverse");  // reverse="no" was truthy: reversed
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    int c = compare_for_sort(keys[x], keys[y], "sorted()");
    return rev ? c > 0 : c < 0;
  });
  std::vector<Value> out;
  for (size_t k : order) out.push_back(items[k]);
  return make_list(std::move(out));
}

namespace {

// ord(c): the code point of a one-character string; chr(i): the inverse (as UTF-8).
Value ord_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("ord", a, {"c"}, 1);
  const int64_t c = b[0].tag == Tag::Str ? utf8_code_point(b[0].as<StrObj>()->s) : -1;
  if (c < 0) fail("ord() expected a string of one character, got " + repr(b[0]));
  return Value::integer(c);
}

Value chr_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("chr", a, {"i"}, 1);
  int64_t i = as_python_int(b[0], "chr()");
  if (i < 0 || i > 0x10FFFF || (i >= 0xD800 && i <= 0xDFFF))
    fail("chr() expected a code point in [0, 0x10FFFF] that is not a surrogate, got " + std::to_string(i));
  return make_str(utf8_encode(i));
}

// The characters of a str as one-character strs (list(s), tuple(s)), as Python's.
std::vector<Value> str_items(const Value& v) {
  std::vector<Value> out;
  for (std::string& c : utf8_chars(v.as<StrObj>()->s)) out.push_back(make_str(std::move(c)));
  return out;
}

Value str_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("str", a, {"x"}, 0);
  return make_str(b.given[0] ? str(b[0]) : "");
}

Value repr_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("repr", a, {"x"}, 1);
  return make_str(repr(b[0]));
}

Value bool_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("bool", a, {"x"}, 0);
  if (b.given[0] && b[0].tag == Tag::Tensor)  // Note [Numbers read for a condition]
    if (Tensor n = condition_number(ev, b[0].t, "bool()"); n.defined()) return Value::tensor(n);
  return Value::boolean(b.given[0] && ev.truth(b[0]));
}

Value list_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("list", a, {"iterable"}, 0);
  if (b.given[0] && b[0].tag == Tag::Str) return make_list(str_items(b[0]));
  return make_list(b.given[0] ? ev.iterate(b[0]) : std::vector<Value>{});
}

Value tuple_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("tuple", a, {"iterable"}, 0);
  if (b.given[0] && b[0].tag == Tag::Str) return make_tuple(str_items(b[0]));
  return make_tuple(b.given[0] ? ev.iterate(b[0]) : std::vector<Value>{});
}

// The entries of dict(x): a dict's own, or (key, value) pairs.
void add_pairs(Evaluator& ev, DictObj& d, const Value& x) {
  if (x.tag == Tag::Dict) {
    d = *x.as<DictObj>();
    return;
  }
  for (auto& item : ev.iterate(x)) {
    if ((item.tag != Tag::Tuple && item.tag != Tag::List) || item.as<ListObj>()->items.size() != 2)
      fail("dict() expects (key, value) pairs");
    check_dict_key(item.as<ListObj>()->items[0]);
    d.set(item.as<ListObj>()->items[0], item.as<ListObj>()->items[1]);
  }
}

Value dict_builtin(Evaluator& ev, CallArgs& a) {
  auto d = std::make_shared<DictObj>();
  if (a.pos.size() > 1) fail("dict() takes at most 1 positional argument");
  if (!a.pos.empty()) add_pairs(ev, *d, a.pos[0]);
  for (auto& [k, v] : a.kw) d->set(make_str(k), v);
  return Value::object(Tag::Dict, d);
}

// Note [type() without an allocation]
// `type(st["step"]) == "tensor"` runs at every optimizer step, for every parameter:
// type() made a new str each time (a malloc, its budget charge and a free). A str is
// immutable, so each kind's name is made once and shared, as string literals are
// (Note [Interned string literals]); a model's or an object's name varies and is made
// each time. The shared names live as long as the program (never freed, so no str
// outlives the memory budget's accounting at exit); several interpreters may run on
// threads of their own, so the first to make a name publishes it atomically.
Value type_name_value(const Value& v) {
  if (v.tag == Tag::Instance || v.tag == Tag::Object) return make_str(type_name(v));
  static std::atomic<const Value*> names[static_cast<size_t>(Tag::Object) + 1];
  std::atomic<const Value*>& slot = names[static_cast<size_t>(v.tag)];
  const Value* name = slot.load(std::memory_order_acquire);
  if (!name) {
    const Value* made = new Value(make_str(type_name(v)));
    const Value* expected = nullptr;
    if (slot.compare_exchange_strong(expected, made, std::memory_order_acq_rel)) {
      name = made;
    } else {
      delete made;
      name = expected;
    }
  }
  return *name;
}

Value type_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("type", a, {"x"}, 1);
  return type_name_value(b[0]);
}

Value enumerate_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("enumerate", a, {"iterable", "start"}, 1);
  int64_t k = b.has(1) ? as_python_int(b[1], "enumerate(): start") : 0;
  std::vector<Value> out;
  std::vector<Value> items = ev.iterate(b[0]);
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0 && __builtin_add_overflow(k, 1, &k)) fail("integer overflow in enumerate(): the index passed 2**63 - 1");
    out.push_back(make_tuple({Value::integer(k), std::move(items[i])}));
  }
  return make_list(std::move(out));
}

Value zip_builtin(Evaluator& ev, CallArgs& a) {
  if (!a.kw.empty()) fail("zip() takes no keyword arguments");
  std::vector<std::vector<Value>> seqs;
  size_t n = SIZE_MAX;
  for (auto& p : a.pos) {
    seqs.push_back(ev.iterate(p));
    n = std::min(n, seqs.back().size());
  }
  if (seqs.empty()) n = 0;
  std::vector<Value> out;
  for (size_t k = 0; k < n; ++k) {
    std::vector<Value> t;
    for (auto& s : seqs) t.push_back(s[k]);
    out.push_back(make_tuple(std::move(t)));
  }
  return make_list(std::move(out));
}

bool is_python_callable(const Value& v);

// filter(function, iterable): the items for which function(item) is truthy (with
// function none, the truthy items), as a list, as Python's filter does lazily;
// `filter(lambda p: p.requires_grad, model.parameters())` is how a fine-tuning script
// hands only the trainable parameters to its optimizer.
Value filter_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("filter", a, {"function", "iterable"}, 2);
  bool by_truth = b[0].tag == Tag::None;
  if (!by_truth && !is_python_callable(b[0]))
    fail(std::string("filter(): function must be callable or none, got ") + type_name(b[0]));
  std::vector<Value> out;
  for (auto& x : ev.iterate(b[1])) {
    CallArgs call;
    call.pos.push_back(x);
    if (by_truth ? ev.truth(x) : ev.truth(ev.call_value(b[0], call))) out.push_back(x);
  }
  return make_list(std::move(out));
}

// map(function, *iterables): function applied to the items at each position, as many as
// the shortest iterable has (Python's map, as a list).
Value map_builtin(Evaluator& ev, CallArgs& a) {
  if (!a.kw.empty()) fail("map() takes no keyword arguments");
  if (a.pos.size() < 2) fail("map() expects a function and at least one iterable");
  if (!is_python_callable(a.pos[0]))
    fail(std::string("map(): the first argument must be callable, got ") + type_name(a.pos[0]));
  std::vector<std::vector<Value>> seqs;
  size_t n = SIZE_MAX;
  for (size_t k = 1; k < a.pos.size(); ++k) {
    seqs.push_back(ev.iterate(a.pos[k]));
    n = std::min(n, seqs.back().size());
  }
  std::vector<Value> out;
  for (size_t k = 0; k < n; ++k) {
    CallArgs call;
    for (auto& s : seqs) call.pos.push_back(s[k]);
    out.push_back(ev.call_value(a.pos[0], call));
  }
  return make_list(std::move(out));
}

Value reversed_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("reversed", a, {"seq"}, 1);
  std::vector<Value> items = ev.iterate(b[0]);
  std::reverse(items.begin(), items.end());
  return make_list(std::move(items));
}

// any(iterable), or torch.any's reduction of a tensor (any(x, dim=1)).
Value any_builtin(Evaluator& ev, CallArgs& a) {
  if (!a.pos.empty() && a.pos[0].tag == Tag::Tensor) return op_functions().at("any")(ev, a);
  Bound b = bind("any", a, {"iterable"}, 1);
  for (auto& x : ev.iterate(b[0]))
    if (ev.truth(x)) return Value::boolean(true);
  return Value::boolean(false);
}

Value all_builtin(Evaluator& ev, CallArgs& a) {
  if (!a.pos.empty() && a.pos[0].tag == Tag::Tensor) return op_functions().at("all")(ev, a);
  Bound b = bind("all", a, {"iterable"}, 1);
  for (auto& x : ev.iterate(b[0]))
    if (!ev.truth(x)) return Value::boolean(false);
  return Value::boolean(true);
}

// The program's own error (LangError::raised: Note [A failing side of a lowered if]).
[[noreturn]] void raise_program_error(const std::string& message) {
  LangError e(message);
  e.raised = true;
  throw e;
}

Value assert_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("assert", a, {"cond", "msg"}, 1);
  // Told a capture as an assert, not as a branch: no cond node can stand for it, so the
  // error must not suggest lowering it.
  if (b[0].tag == Tag::Tensor) notify_value_read(b[0].t, "assert() on a tensor's value (check it outside the compiled function)");
  UnobservedScope told_once;
  if (!ev.truth(b[0])) raise_program_error("assertion failed" + (b.has(1) ? ": " + str(b[1]) : std::string()));
  return Value();
}

// fail(msg): an error whose message is msg itself, for checks whose text already says
// what was expected and what was found (the stdlib's constructors use it).
Value fail_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("fail", a, {"msg"}, 1);
  raise_program_error(str(b[0]));
}

// did_you_mean(name, candidates): the interpreter's own suggestion text, for libraries
// written in the language that look names up themselves (optimizer group keys).
Value did_you_mean_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("did_you_mean", a, {"name", "candidates"}, 2);
  if (b[0].tag != Tag::Str) fail(std::string("did_you_mean(): 'name' must be a str, got ") + type_name(b[0]));
  if (b[1].tag != Tag::List && b[1].tag != Tag::Tuple)
    fail(std::string("did_you_mean(): 'candidates' must be a list of str, got ") + type_name(b[1]));
  std::vector<std::string> candidates;
  for (const Value& c : b[1].as<ListObj>()->items) {
    if (c.tag != Tag::Str) fail(std::string("did_you_mean(): every candidate must be a str, got ") + type_name(c));
    candidates.push_back(c.as<StrObj>()->s);
  }
  return make_str(lang::did_you_mean(b[0].as<StrObj>()->s, candidates));
}

// A tuple of types is any of them, nested too, as Python's: PyTorch's init functions
// ask isinstance(m, (nn.Conv2d, nn.Linear)).
bool is_instance_of(const Value& obj, const Value& type, int depth = 0) {
  if (type.tag == Tag::ModelClass)
    return obj.tag == Tag::Instance && obj.as<InstanceObj>()->cls.get() == type.as<ModelClassObj>();
  if (type.tag == Tag::Str) return type_name(obj) == type.as<StrObj>()->s;
  if (type.tag == Tag::Native) {
    const std::string& n = type.as<NativeObj>()->name;
    return n == type_name(obj) || (n == "tensor" && obj.tag == Tag::Tensor);
  }
  if (type.tag == Tag::Tuple) {
    check_walk_depth("isinstance()", type, depth);
    const auto& items = type.as<ListObj>()->items;
    return std::any_of(items.begin(), items.end(), [&](const Value& t) { return is_instance_of(obj, t, depth + 1); });
  }
  fail(std::string("isinstance(): expected a model, a builtin type, a type name or a tuple of them, got ") +
       type_name(type));
}

Value isinstance_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("isinstance", a, {"obj", "type"}, 2);
  return Value::boolean(is_instance_of(b[0], b[1]));
}

// getattr/setattr by name, as Python's; nn.Sequential names its layers "0", "1", ...
// (PyTorch's state_dict keys) with setattr(self, "0", layer).
Value getattr_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("getattr", a, {"obj", "name", "default"}, 2);
  if (b[1].tag != Tag::Str) fail(std::string("getattr(): name must be a str, got ") + type_name(b[1]));
  if (!b.given[2]) return ev.get_attr(b[0], b[1].as<StrObj>()->s);  // a default of none counts
  if (ev.lacks_attr(b[0], b[1].as<StrObj>()->s)) return b[2];
  Evaluator::QuietLookup quiet(ev);
  try {
    return ev.get_attr(b[0], b[1].as<StrObj>()->s);
  } catch (LangError& e) {
    if (e.interrupted) throw;
    return b[2];
  }
}

// Python's hasattr: whether getattr(obj, name) finds something (a model's __getattr__
// hook included). An interrupt still stops the program.
Value hasattr_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("hasattr", a, {"obj", "name"}, 2);
  if (b[1].tag != Tag::Str) fail(std::string("hasattr(): name must be a str, got ") + type_name(b[1]));
  if (ev.lacks_attr(b[0], b[1].as<StrObj>()->s)) return Value::boolean(false);
  Evaluator::QuietLookup quiet(ev);
  try {
    ev.get_attr(b[0], b[1].as<StrObj>()->s);
    return Value::boolean(true);
  } catch (LangError& e) {
    if (e.interrupted) throw;
    return Value::boolean(false);
  }
}

// Python's callable: functions, builtins, bound methods, model and function classes,
// models (their forward) and objects with __call__.
bool is_python_callable(const Value& v) {
  switch (v.tag) {
    case Tag::Func:
    case Tag::Native:
    case Tag::Bound:
    case Tag::ModelClass:
    case Tag::FnClass:
    case Tag::Instance:
      return true;
    case Tag::Object:
      return v.as<ObjectObj>()->methods.count("__call__") > 0;
    default:
      return false;
  }
}

Value callable_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("callable", a, {"obj"}, 1);
  return Value::boolean(is_python_callable(b[0]));
}

Value setattr_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("setattr", a, {"obj", "name", "value"}, 3);
  if (b[1].tag != Tag::Str) fail(std::string("setattr(): name must be a str, got ") + type_name(b[1]));
  ev.set_attr(b[0], b[1].as<StrObj>()->s, b[2]);
  return Value();
}

// named_tuple(fields, values): field names live as long as the program (a tuple keeps a
// pointer to them, as torch.return_types' static names); each distinct list is kept once.
Value named_tuple_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("named_tuple", a, {"fields", "values"}, 2);
  if (b[0].tag != Tag::List && b[0].tag != Tag::Tuple)
    fail(std::string("named_tuple(): fields must be a list of str, got ") + type_name(b[0]));
  if (b[1].tag != Tag::List && b[1].tag != Tag::Tuple)
    fail(std::string("named_tuple(): values must be a list or tuple, got ") + type_name(b[1]));
  // Each field is read back as t.field, so it must be a name, once (Python's namedtuple
  // refuses the same): "a b", "1x" or "if" could never be read, and of two "a" fields
  // t.a read the first.
  std::vector<std::string> names;
  for (const Value& f : b[0].as<ListObj>()->items) {
    if (f.tag != Tag::Str) fail(std::string("named_tuple(): fields must be a list of str, got an item of ") + type_name(f));
    const std::string& name = f.as<StrObj>()->s;
    if (!lang::is_name(name) || name[0] == '_')
      fail("named_tuple(): field " + repr(f) +
           " is not a name (letters, digits and '_', not starting with a digit or '_', not a reserved word)");
    if (std::find(names.begin(), names.end(), name) != names.end())
      fail("named_tuple(): field " + repr(f) + " appears twice");
    names.push_back(name);
  }
  const std::vector<Value>& items = b[1].as<ListObj>()->items;
  if (names.size() != items.size())
    fail("named_tuple(): " + std::to_string(names.size()) + " fields for " + std::to_string(items.size()) + " values");
  static std::mutex lock;
  static std::set<std::vector<std::string>> kept;
  const std::vector<std::string>* interned;
  {
    std::lock_guard<std::mutex> hold(lock);
    interned = &*kept.insert(std::move(names)).first;
  }
  Value t = make_tuple(items);
  t.as<ListObj>()->field_names = interned;
  return t;
}

const BuiltinEntry kPythonBuiltins[] = {
    {"print", print_builtin, "print(*values, sep=\" \", end=\"\\n\", flush=false)",
     "Writes the values as str() shows them, sep between them and end after. Example: print(\"loss\", 0.5, sep=\": "
     "\")"},
    {"named_tuple", named_tuple_builtin, "named_tuple(fields, values)",
     "A tuple whose items are also read by name, as PyTorch's torch.return_types. Example: named_tuple([\"sign\", "
     "\"logabsdet\"], [1.0, 0.5]).logabsdet"},
    {"len", len_builtin, "len(obj)",
     "The number of items of a str, list, tuple, dict, range or tensor (its first dim). Example: len([1, 2, 3])"},
    {"ord", ord_builtin, "ord(c)", "The Unicode code point of a one-character str. Example: ord(\"é\")"},
    {"chr", chr_builtin, "chr(i)", "The one-character str of a Unicode code point. Example: chr(233)"},
    {"range", range_builtin, "range(stop) or range(start, stop, step=1)",
     "The ints from start (0) up to stop, not including it, by step. Example: for i in range(10) { print(i) }"},
    {"str", str_builtin, "str(x=\"\")", "x as print() shows it. Example: str(3.5)"},
    {"repr", repr_builtin, "repr(x)", "x as source text would write it (strings quoted). Example: repr(\"a\")"},
    {"bool", bool_builtin, "bool(x=false)", "Whether x is truthy (not none, false, 0, or empty). Example: bool([])"},
    {"list", list_builtin, "list(iterable=[])", "A new list of the items of iterable. Example: list(range(3))"},
    {"tuple", tuple_builtin, "tuple(iterable=())", "A tuple of the items of iterable. Example: tuple([1, 2])"},
    {"dict", dict_builtin, "dict(pairs_or_dict={}, **kwargs)",
     "A new dict from (key, value) pairs or another dict, then the keyword arguments. Example: dict(lr=0.1, "
     "momentum=0.9)"},
    {"type", type_builtin, "type(x)", "The name of x's type, as a str. Example: type(1.0)"},
    {"enumerate", enumerate_builtin, "enumerate(iterable, start=0)",
     "(index, item) pairs, the index counting from start. Example: for (i, x) in enumerate([\"a\", \"b\"]) { print(i, "
     "x) }"},
    {"zip", zip_builtin, "zip(*iterables)",
     "Tuples of the items at the same position, as many as the shortest has. Example: zip([1, 2], [\"a\", \"b\"])"},
    {"sorted", sorted_builtin, "sorted(iterable, key=none, reverse=false)",
     "A new sorted list; equal items keep their order. Example: sorted([\"pear\", \"fig\", \"apple\"], key=len)"},
    {"filter", filter_builtin, "filter(function, iterable)",
     "A list of the items for which function(item) is truthy (function none: the truthy items). "
     "Example: filter(fn(p) = p.requires_grad, [randn(2, requires_grad=true), randn(2)])"},
    {"map", map_builtin, "map(function, *iterables)",
     "A list of function applied to the items at each position, as many as the shortest iterable has. "
     "Example: map(fn(a, b) = a * b, [1, 2], [3, 4])"},
    {"reversed", reversed_builtin, "reversed(seq)",
     "A new list of the items in reverse order. Example: reversed([1, 2, 3])"},
    {"any", any_builtin, "any(iterable)",
     "Whether some item is truthy (of a tensor: whether some element is nonzero, along dim, as torch.any). "
     "Example: any([false, 0, \"x\"])"},
    {"all", all_builtin, "all(iterable)",
     "Whether every item is truthy (of a tensor: whether every element is nonzero, as torch.all). "
     "Example: all([true, 1, \"x\"])"},
    {"assert", assert_builtin, "assert(cond, msg=none)",
     "An error \"assertion failed: msg\" unless cond is truthy. Example: assert(randn(2, 3).ndim == 2, \"expected a "
     "matrix\")"},
    {"fail", fail_builtin, "fail(msg)",
     "An error with the message msg (assert's without the \"assertion failed\" prefix). "
     "Example: if randn(2, 3).ndim != 2 { fail(\"expected a matrix\") }"},
    {"did_you_mean", did_you_mean_builtin, "did_you_mean(name, candidates)",
     "The interpreter's suggestion for a mistyped name: \"; did you mean 'lr'?\" naming the closest candidates, "
     "or \"\" when none is close. Example: did_you_mean(\"learning_rat\", [\"lr\", \"learning_rate\"])"},
    {"isinstance", isinstance_builtin, "isinstance(obj, type)",
     "Whether obj is an instance of a model, of a builtin type (list, tensor, ...), of a type name, or of any in a "
     "tuple of them. "
     "Example: isinstance(nn.Linear(4, 2), nn.Linear)"},
    {"getattr", getattr_builtin, "getattr(obj, name, default)",
     "The attribute of obj called name; default, when given, if there is none. Example: getattr(nn.Linear(4, 2), "
     "\"bias\", none)"},
    {"hasattr", hasattr_builtin, "hasattr(obj, name)",
     "Whether obj has an attribute called name (getattr would find it). Example: hasattr(nn.Linear(4, 2), \"bias\")"},
    {"callable", callable_builtin, "callable(obj)",
     "Whether obj can be called: a function, a builtin, a method, a model or model class, an object with __call__. "
     "Example: callable(relu)"},
    {"setattr", setattr_builtin, "setattr(obj, name, value)",
     "Sets the attribute of obj called name. Example: setattr(nn.Linear(4, 2), \"bias\", none)"},
};

}  // namespace

const BuiltinLibrary kPythonLibrary = {"python", nullptr, kPythonBuiltins, nullptr};

}  // namespace nabla::interp
