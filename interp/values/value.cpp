#include "interp/values/value.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <cstdlib>
#include <unordered_set>

#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "autograd/trace.hpp"
#include "tensor/allocator.hpp"
#include "interp/models/module_walk.hpp"
#include "interp/values/value_walk.hpp"
#include "lang/stack_depth.hpp"
#include "tensor/error.hpp"

namespace nabla::interp {

// ---- the memory budget's charges (Note [Host memory budget] in tensor/allocator.cpp) ----

namespace {

// Charges under this many bytes are summed per thread and passed to the allocator
// (one atomic add) when the sum reaches it, up or down.
constexpr int64_t kBatchBytes = int64_t(64) << 10;
thread_local int64_t t_unpassed = 0;

// Counts `n` bytes of a str or list about to be made, which meet the budget first:
// every big one, and a small one when its thread's batch is passed on.
void charge(size_t n, const char* what) {
  auto& a = CpuAllocator::instance();
  auto bytes = static_cast<int64_t>(n);
  if (bytes < kBatchBytes && (t_unpassed += bytes) < kBatchBytes) return;
  if (bytes < kBatchBytes) a.add_host(std::exchange(t_unpassed, 0) - bytes);  // those made before: alive
  a.check_host_budget(n, what);  // this one fails here, uncounted, or is counted
  a.add_host(bytes);
}

void refund(size_t n) noexcept {
  auto bytes = static_cast<int64_t>(n);
  if (bytes >= kBatchBytes) return CpuAllocator::instance().add_host(-bytes);
  if ((t_unpassed -= bytes) <= -kBatchBytes) CpuAllocator::instance().add_host(std::exchange(t_unpassed, 0));
}

}  // namespace

StrObj::StrObj(std::string v) : s(std::move(v)) { charge(s.size(), "a str"); }
StrObj::~StrObj() { refund(s.size()); }

ListObj::~ListObj() { refund(charged_bytes); }

void ListObj::charge_items() {
  size_t bytes = items.capacity() * sizeof(Value);
  if (bytes <= charged_bytes) return;
  charge(bytes - charged_bytes, "a list");
  charged_bytes = bytes;
}

void ListObj::reserve_items(size_t extra) {
  size_t need = items.size() + extra;
  if (need <= items.capacity()) return;
  size_t grown = std::max(need, 2 * items.capacity());  // as push_back would grow it
  size_t bytes = grown * sizeof(Value);
  if (bytes > charged_bytes) charge(bytes - charged_bytes, "a list");
  charged_bytes = std::max(charged_bytes, bytes);
  items.reserve(grown);
}

Value make_str(std::string s) { return Value::object(Tag::Str, std::make_shared<StrObj>(std::move(s))); }
Value make_report(std::string text) {
  auto s = std::make_shared<StrObj>(std::move(text));
  s->repr_is_text = true;
  return Value::object(Tag::Str, std::move(s));
}
Value make_list(std::vector<Value> items) {
  auto l = std::make_shared<ListObj>();
  l->items = std::move(items);
  l->charge_items();
  return Value::object(Tag::List, std::move(l));
}
Value make_tuple(std::vector<Value> items) {
  auto l = std::make_shared<ListObj>();
  l->items = std::move(items);
  l->charge_items();
  return Value::object(Tag::Tuple, std::move(l));
}
Value values_indices(Value values, Value indices) {
  static const std::vector<std::string> names = {"values", "indices"};
  Value t = make_tuple({std::move(values), std::move(indices)});
  t.as<ListObj>()->field_names = &names;
  return t;
}
Value make_native(std::string name, NativeFn fn) {
  auto n = std::make_shared<NativeObj>();
  n->name = std::move(name);
  n->fn = std::move(fn);
  return Value::object(Tag::Native, std::move(n));
}

// In unsigned arithmetic: stop - start passes INT64_MAX in range(-2**63, 2**63 - 1),
// whose 2**64 - 1 elements len() cannot give (Python's OverflowError).
int64_t RangeObj::size() const {
  if (step > 0 ? stop <= start : start <= stop) return 0;
  uint64_t span = step > 0 ? static_cast<uint64_t>(stop) - static_cast<uint64_t>(start)
                           : static_cast<uint64_t>(start) - static_cast<uint64_t>(stop);
  uint64_t stride = step > 0 ? static_cast<uint64_t>(step) : 0 - static_cast<uint64_t>(step);
  uint64_t n = (span - 1) / stride + 1;
  if (n > static_cast<uint64_t>(INT64_MAX))
    throw Error("range(" + std::to_string(start) + ", " + std::to_string(stop) + ", " + std::to_string(step) +
                ") has " + std::to_string(n) + " elements, more than a 64-bit int counts");
  return static_cast<int64_t>(n);
}


std::string Module::shown_name() const {
  const Value* shown = get("__name__");
  return shown && shown->tag == Tag::Str ? shown->as<StrObj>()->s : name;
}

int Module::slot_of(const std::string& n) {
  auto it = names.find(n);
  if (it != names.end()) return it->second;
  int s = static_cast<int>(slots.size());
  slots.emplace_back();
  defined.push_back(0);
  slot_names.push_back(n);
  names.emplace(n, s);
  return s;
}

int Module::anon_slot(const std::string& n) {
  int s = static_cast<int>(slots.size());
  slots.emplace_back();
  defined.push_back(0);
  slot_names.push_back(n);
  return s;
}

// ---- dict -----------------------------------------------------------------------------

namespace {

// Python's hash of a dict key; a tuple combines its items' (recursing: a key nests only
// through tuples, which cannot hold themselves).
size_t hash_at(const Value& v, int depth) {
  switch (v.tag) {
    case Tag::None: return 0x9e37;
    case Tag::Bool: return std::hash<int64_t>()(v.b ? 1 : 0);
    case Tag::Int: return std::hash<int64_t>()(v.i);
    case Tag::Float: {
      double d = v.f;
      if (d == std::floor(d) && std::fabs(d) < 9.2e18) return std::hash<int64_t>()(static_cast<int64_t>(d));
      return std::hash<double>()(d);
    }
    case Tag::Str: {
      const StrObj& str = *v.as<StrObj>();
      size_t h = str.hash.load(std::memory_order_relaxed);
      if (h == 0) {
        h = std::hash<std::string>()(str.s);
        str.hash.store(h, std::memory_order_relaxed);
      }
      return h;
    }
    case Tag::Tuple: {
      check_walk_depth("dict key", v, depth);
      size_t h = 0x345678;
      for (auto& x : v.as<ListObj>()->items) h = h * 1000003 ^ hash_at(x, depth + 1);
      return h;
    }
    case Tag::DType: return static_cast<size_t>(v.dt) + 77;
    case Tag::Tensor: return std::hash<void*>()(v.t.impl());
    default: return std::hash<void*>()(v.o.get());
  }
}

}  // namespace

size_t ValueHash::operator()(const Value& v) const { return hash_at(v, 0); }

void check_dict_key(const Value& key) {
  // Iterative: a key may be a tuple nested a million deep.
  std::vector<const Value*> pending{&key};
  while (!pending.empty()) {
    const Value& k = *pending.back();
    pending.pop_back();
    switch (k.tag) {
      case Tag::Str:
      case Tag::Int:
      case Tag::Bool:
      case Tag::Float:
      case Tag::None:
      case Tag::DType: break;
      case Tag::Tuple:
        for (auto& x : k.as<ListObj>()->items) pending.push_back(&x);
        break;
      default: throw Error(std::string("unhashable type: '") + type_name(k) + "' cannot be a dict key");
    }
  }
}


Value* DictObj::find(const Value& key) {
  auto it = index.find(key);
  return it == index.end() ? nullptr : &entries[it->second].second;
}
void DictObj::set(const Value& key, Value value) {
  if (Value* p = find(key)) {
    *p = std::move(value);
    return;
  }
  index.emplace(key, entries.size());
  entries.emplace_back(key, std::move(value));
}
bool DictObj::erase(const Value& key) {
  auto it = index.find(key);
  if (it == index.end()) return false;
  entries.erase(entries.begin() + static_cast<long>(it->second));
  index.clear();
  for (size_t k = 0; k < entries.size(); ++k) index.emplace(entries[k].first, k);
  return true;
}

// ---- printing -----------------------------------------------------------------------

// Note [Checked casts] (value.hpp).
void bad_object_cast(Tag tag, const char* expected) {
  static const char* const kNames[] = {"none", "bool", "int", "float", "dtype", "tensor", "str", "range", "list",
                                       "tuple", "dict", "function", "builtin", "method", "model", "model instance",
                                       "module", "function class", "object"};
  const size_t k = static_cast<size_t>(tag);
  const char* found = k < sizeof kNames / sizeof kNames[0] ? kNames[k] : "value";
  throw Error(std::string("internal error: expected a ") + expected + " value, found " + found +
              " (a builtin took an argument of another kind without checking it)");
}

const char* type_name(const Value& v) {
  switch (v.tag) {
    case Tag::None: return "none";
    case Tag::Bool: return "bool";
    case Tag::Int: return "int";
    case Tag::Float: return "float";
    case Tag::DType: return "dtype";
    case Tag::Tensor: return "tensor";
    case Tag::Str: return "str";
    case Tag::List: return "list";
    case Tag::Tuple: return "tuple";
    case Tag::Dict: return "dict";
    case Tag::Func: return "function";
    case Tag::Native: return "builtin";
    case Tag::Bound: return "method";
    case Tag::ModelClass: return "model";
    case Tag::Instance: return v.as<InstanceObj>()->cls->decl->name.c_str();
    case Tag::Module: return "module";
    case Tag::Range: return "range";
    case Tag::FnClass: return "function class";
    case Tag::Object: return v.as<ObjectObj>()->type_name.c_str();
  }
  return "?";
}

std::string float_repr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  // Python's repr: the shortest digits that round-trip, fixed notation for
  // exponents in [-4, 16), scientific otherwise.
  char buf[64];
  int prec = 1;
  for (; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*e", prec - 1, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  int exp10 = std::atoi(std::strchr(buf, 'e') + 1);
  if (exp10 >= -4 && exp10 < 16) {
    std::snprintf(buf, sizeof buf, "%.*f", std::max(prec - 1 - exp10, 0), d);
    std::string s = buf;
    if (s.find('.') == std::string::npos) s += ".0";
    return s;
  }
  std::string s = buf;  // "1.5e-05", "1e+20"
  return s;
}

namespace {

std::string quote(const std::string& s) {
  char q = s.find('\'') != std::string::npos && s.find('"') == std::string::npos ? '"' : '\'';
  std::string out(1, q);
  for (char c : s) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\\': out += "\\\\"; break;
      default:
        // Other control characters as \xHH, as Python's repr: a NUL was written raw,
        // cutting an error message that quoted the str ("could not convert ... '1").
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(c));
          out += hex;
          break;
        }
        if (c == q) out += '\\';
        out += c;
    }
  }
  return out + q;
}

// How values print (Note [Walks over nested values] in value_walk.hpp): appended to
// one string (a nested container is not printed into a string of its own and copied,
// which was quadratic in the depth), a container met again inside itself as [...],
// (...), {...} or Name(...), and a nesting deeper than the stack allows as an error.
void print_into(std::string& out, const Value& v, bool quoted, int depth);

// "[1, 'a']", "(1,)", "{'k': v}": the items by repr.
// Note [Host memory budget] in tensor/allocator.cpp, for printed text: a value that
// shares a sublist twice at each level prints 2^depth items from a few objects, all
// inside one call, so the text asks the budget for its next doubling before it grows
// past it. Past --max-memory or what the system can give, that is the budget's error,
// not a minute of growth and then the OOM killer.
thread_local size_t t_printed_checked = 0;  // bytes of text the budget has allowed

void check_printed_growth(const std::string& out) {
  constexpr size_t kFirstCheck = size_t{1} << 20;
  if (out.size() < kFirstCheck || out.size() <= t_printed_checked) return;
  CpuAllocator::instance().check_host_request(2 * out.size(), 1, "a str (the printed text of a value)");
  t_printed_checked = 2 * out.size();
}

void print_container(std::string& out, const Value& v, int depth) {
  bool dict = v.tag == Tag::Dict, list = v.tag == Tag::List;
  char open = dict ? '{' : list ? '[' : '(', close = dict ? '}' : list ? ']' : ')';
  WalkLevel level(&walk_path(Walk::print), v.o.get());
  out += open;
  if (level.cycle()) {
    out += "...";
    out += close;
    return;
  }
  if (lang::stack_nearly_full()) fail_too_deep("printing", v, depth);
  if (dict) {
    bool first = true;
    for (auto& [k, x] : v.as<DictObj>()->entries) {
      if (!first) out += ", ";
      first = false;
      print_into(out, k, true, depth + 1);
      out += ": ";
      print_into(out, x, true, depth + 1);
    }
  } else {
    auto& items = v.as<ListObj>()->items;
    for (size_t k = 0; k < items.size(); ++k) {
      if (k) out += ", ";
      print_into(out, items[k], true, depth + 1);
    }
    if (!list && items.size() == 1) out += ',';
  }
  out += close;
  check_printed_growth(out);
}

// A value that holds no values to print (numbers, tensors, functions, ...).
std::string leaf_str(const Value& v) {
  switch (v.tag) {
    case Tag::None: return "none";
    case Tag::Bool: return v.b ? "true" : "false";
    case Tag::Int: return std::to_string(v.i);
    case Tag::Float: return float_repr(v.f);
    case Tag::DType: return dtype_name(v.dt);
    case Tag::Tensor:
      if (!v.t.defined()) return "none";
      notify_value_read(v.t, "printing");
      return v.t.str();
    case Tag::Func: {
      auto* f = v.as<FuncObj>();
      return "<fn " + (f->qualname.empty() ? std::string("<lambda>") : f->qualname) + ">";
    }
    case Tag::Native: return "<builtin " + v.as<NativeObj>()->name + ">";
    case Tag::Bound: {
      auto* b = v.as<BoundObj>();
      return std::string("<method ") + type_name(b->self) + "." + b->name + ">";
    }
    case Tag::ModelClass: return "<model " + v.as<ModelClassObj>()->decl->name + ">";
    case Tag::FnClass: return "<function " + v.as<ModelClassObj>()->decl->name + ">";
    case Tag::Module: return "<module " + v.as<Module>()->shown_name() + ">";
    case Tag::Range: {
      auto* r = v.as<RangeObj>();
      return "range(" + std::to_string(r->start) + ", " + std::to_string(r->stop) +
             (r->step != 1 ? ", " + std::to_string(r->step) : std::string()) + ")";
    }
    case Tag::Object: {
      auto* o = v.as<ObjectObj>();
      return o->describe ? o->describe() : "<" + o->type_name + ">";
    }
    default: return "?";  // containers and strings are print_into's
  }
}

void print_into(std::string& out, const Value& v, bool quoted, int depth) {
  switch (v.tag) {
    case Tag::Str: {
      auto* s = v.as<StrObj>();
      if (quoted && s->repr_is_text) out += s->s.size() && s->s.back() == '\n' ? s->s.substr(0, s->s.size() - 1) : s->s;
      else if (quoted) out += quote(s->s);
      else out += s->s;
      return;
    }
    case Tag::List:
    case Tag::Tuple:
    case Tag::Dict: print_container(out, v, depth); return;
    case Tag::Instance: out += model_repr(v); return;  // interp/models/module_print.cpp
    default: out += leaf_str(v);
  }
}

}  // namespace

std::string repr(const Value& v) {
  std::string out;
  t_printed_checked = 0;
  print_into(out, v, true, 0);
  return out;
}

std::string str(const Value& v) {
  std::string out;
  t_printed_checked = 0;
  print_into(out, v, false, 0);
  return out;
}

bool truthy(const Value& v) {
  switch (v.tag) {
    case Tag::None: return false;
    case Tag::Bool: return v.b;
    case Tag::Int: return v.i != 0;
    case Tag::Float: return v.f != 0.0;
    case Tag::Tensor:
      if (v.t.numel() != 1)
        throw Error("the truth value of a tensor with " + std::to_string(v.t.numel()) +
                    " elements is ambiguous (use .any() / .all() style reductions, e.g. (x > 0).sum() > 0)");
      notify_value_read(v.t, "a condition on its value");
      return v.t.item() != 0.0;
    case Tag::Str: return !v.as<StrObj>()->s.empty();
    case Tag::List:
    case Tag::Tuple: return !v.as<ListObj>()->items.empty();
    case Tag::Dict: return !v.as<DictObj>()->entries.empty();
    case Tag::Range: return v.as<RangeObj>()->size() != 0;
    default: return true;
  }
}

namespace {

// The operation an equality walk is for, named by its errors (set by values_equal for
// the walk's duration), and how many containers deep it is. Not parameters: equal_at
// keeps the two arguments and the frameless scalar cases it had before walks were
// guarded (most calls are scalars: a list's items, a dict key's parts).
thread_local const char* t_equality_what = "==";
thread_local int t_equality_depth = 0;

// One container level of an equality walk (left also when an error unwinds it).
struct EqualityLevel {
  int depth = ++t_equality_depth;
  ~EqualityLevel() { --t_equality_depth; }
};

bool equal_at(const Value& a, const Value& b);

// Lists and tuples item by item, dicts entry by entry (same tags; see values_equal).
// Inlined into equal_at, whose shallow levels stay one function.
[[gnu::always_inline]] inline bool items_equal(const Value& a, const Value& b) {
  if (a.tag == Tag::Dict) {
    auto* x = a.as<DictObj>();
    auto* y = b.as<DictObj>();
    if (x->entries.size() != y->entries.size()) return false;
    for (auto& [k, v] : x->entries) {
      Value* o = y->find(k);
      if (!o || !equal_at(v, *o)) return false;
    }
    return true;
  }
  auto& x = a.as<ListObj>()->items;
  auto& y = b.as<ListObj>()->items;
  size_t n = x.size();
  if (n != y.size()) return false;
  // Comparing runs no code of the program, so the items stay where they are.
  const Value* px = x.data();
  const Value* py = y.data();
  for (size_t k = 0; k < n; ++k)
    if (!equal_at(px[k], py[k])) return false;
  return true;
}

// items_equal from kTrackFrom levels down: with the path that finds a cycle and the
// stack check (Note [Walks over nested values]); out of line, off the common path.
[[gnu::noinline]] bool deep_items_equal(const Value& a, const Value& b, int depth) {
  WalkLevel level(&walk_path(Walk::equality), a.o.get(), b.o.get());
  if (level.cycle()) fail_cycle(t_equality_what, a);
  check_walk_depth(t_equality_what, a, depth);
  return items_equal(a, b);
}

bool equal_at(const Value& a, const Value& b) {
  if (a.is_num() && b.is_num()) {
    if (a.tag == Tag::Float || b.tag == Tag::Float) return a.as_double() == b.as_double();
    int64_t x = a.tag == Tag::Int ? a.i : a.b, y = b.tag == Tag::Int ? b.i : b.b;
    return x == y;
  }
  if (a.tag != b.tag) return false;
  switch (a.tag) {
    case Tag::None: return true;
    case Tag::DType: return a.dt == b.dt;
    case Tag::Tensor: return a.t.impl() == b.t.impl();
    case Tag::Str: return a.as<StrObj>()->s == b.as<StrObj>()->s;
    case Tag::List:
    case Tag::Tuple:
    case Tag::Dict: {
      if (a.o == b.o) return true;  // the same container: Python compares items by identity first
      EqualityLevel level;
      if (level.depth > kTrackFrom) return deep_items_equal(a, b, level.depth);
      return items_equal(a, b);
    }
    case Tag::Range: {
      auto* x = a.as<RangeObj>();
      auto* y = b.as<RangeObj>();
      return x->start == y->start && x->stop == y->stop && x->step == y->step;
    }
    default: return a.o == b.o;
  }
}

}  // namespace

// Dict keys cannot hold themselves (check_dict_key): the walk needs no name of its own,
// and a lookup stays one call.
bool ValueKeyEq::operator()(const Value& a, const Value& b) const { return equal_at(a, b); }

bool values_equal(const Value& a, const Value& b, const char* what) {
  if (a.tag < Tag::List || a.tag != b.tag) return equal_at(a, b);  // no walk: no name needed
  const char* outer = t_equality_what;  // a dict comparison looks its keys up: walks nest
  t_equality_what = what;
  struct Restore {
    const char* outer;
    ~Restore() { t_equality_what = outer; }
  } restore{outer};
  return equal_at(a, b);
}

// ---- freeing --------------------------------------------------------------------------

// Note [Freeing deep values]
// The value that drops the last reference to a container frees it, and the container's
// destructor drops the values it holds: freed naively, a list nested 10^6 deep is 10^6
// nested destructor calls, which overflow the stack (a deep global at exit, the
// interpreter's teardown, a REPL :reset). So each thread counts how many container
// frees it is inside; past kMaxFreeDepth the last reference is moved to a worklist
// instead, and the outermost free empties the worklist in a loop (CPython's
// trashcan, PyTorch's deleteNode). A chain thus frees kMaxFreeDepth links per loop
// round, with the stack of kMaxFreeDepth frees at most; a wide container (a list of
// many small lists) frees each child directly, without the worklist. Every owner of
// values passes through here (a frame's slots, a function's defaults, a model's
// fields, a bound method's self), so chains through any of them are cut too; a
// frame's parent chain is not a value, but it is only as deep as the source nests.
// The worklist is allocated by the outermost free that needs it and freed when
// emptied: it is never left behind (LeakSanitizer) and the thread-local state is
// trivially destructible (usable during static destruction).

namespace {

constexpr int kMaxFreeDepth = 64;
thread_local int t_free_depth = 0;
thread_local std::vector<std::shared_ptr<Obj>>* t_deferred_frees = nullptr;

// Heap objects that may hold values (a native function's closure may, too).
bool may_hold_values(Tag tag) { return tag > Tag::Range; }

// Frees what deeper frees left on the worklist; the outermost free calls this, and
// each object it frees counts as one level deep.
[[gnu::noinline]] void free_deferred() noexcept {
  t_free_depth = 1;
  while (!t_deferred_frees->empty()) {
    std::shared_ptr<Obj> last = std::move(t_deferred_frees->back());
    t_deferred_frees->pop_back();
    last.reset();  // may push more
  }
  delete t_deferred_frees;
  t_deferred_frees = nullptr;
  t_free_depth = 0;
}

// Moves `last` to the worklist for the outermost free. Out of memory for the worklist,
// it is freed here after all (deeper).
[[gnu::noinline]] void defer_free(std::shared_ptr<Obj>& last) noexcept {
  try {
    if (!t_deferred_frees) t_deferred_frees = new std::vector<std::shared_ptr<Obj>>();
    t_deferred_frees->push_back(std::move(last));
  } catch (...) {
    last.reset();
  }
}

}  // namespace

// A tensor, or a heap object: when this is the last reference to one that may hold
// values, its free is counted (and deferred past kMaxFreeDepth, Note [Freeing deep
// values]); the worklist's paths are out of line, so that the common paths stay short.
void Value::destroy_slow() {
  if (tag == Tag::Tensor) {
    t.~Tensor();
    return;
  }
  if (!may_hold_values(tag) || o.use_count() != 1) {
    o.~shared_ptr();
    return;
  }
  if (t_free_depth >= kMaxFreeDepth) {
    defer_free(o);
    o.~shared_ptr();  // empty unless the worklist could not grow
    return;
  }
  ++t_free_depth;
  o.~shared_ptr();  // the object's values come back here, one level deeper
  if (--t_free_depth == 0 && t_deferred_frees) free_deferred();
}

void Value::copy_slow(const Value& v) {
  if (tag == Tag::Tensor)
    new (&t) Tensor(v.t);
  else
    new (&o) std::shared_ptr<Obj>(v.o);
}

}  // namespace nabla::interp
