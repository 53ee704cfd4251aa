#include "interp/value.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <cstdlib>

#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "autograd/trace.hpp"
#include "tensor/allocator.hpp"
#include "interp/module_walk.hpp"
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

size_t ValueHash::operator()(const Value& v) const {
  switch (v.tag) {
    case Tag::None: return 0x9e37;
    case Tag::Bool: return std::hash<int64_t>()(v.b ? 1 : 0);
    case Tag::Int: return std::hash<int64_t>()(v.i);
    case Tag::Float: {
      double d = v.f;
      if (d == std::floor(d) && std::fabs(d) < 9.2e18) return std::hash<int64_t>()(static_cast<int64_t>(d));
      return std::hash<double>()(d);
    }
    case Tag::Str: return std::hash<std::string>()(v.as<StrObj>()->s);
    case Tag::Tuple: {
      size_t h = 0x345678;
      for (auto& x : v.as<ListObj>()->items) h = h * 1000003 ^ (*this)(x);
      return h;
    }
    case Tag::DType: return static_cast<size_t>(v.dt) + 77;
    case Tag::Tensor: return std::hash<void*>()(v.t.impl());
    default: return std::hash<void*>()(v.o.get());
  }
}

bool ValueKeyEq::operator()(const Value& a, const Value& b) const { return values_equal(a, b); }

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
        if (c == q) out += '\\';
        out += c;
    }
  }
  return out + q;
}

}  // namespace

std::string repr(const Value& v) {
  switch (v.tag) {
    case Tag::Str: return quote(v.as<StrObj>()->s);
    default: return str(v);
  }
}

std::string str(const Value& v) {
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
    case Tag::Str: return v.as<StrObj>()->s;
    case Tag::List:
    case Tag::Tuple: {
      auto& items = v.as<ListObj>()->items;
      bool list = v.tag == Tag::List;
      std::string s = list ? "[" : "(";
      for (size_t k = 0; k < items.size(); ++k) {
        if (k) s += ", ";
        s += repr(items[k]);
      }
      if (!list && items.size() == 1) s += ",";
      return s + (list ? "]" : ")");
    }
    case Tag::Dict: {
      std::string s = "{";
      bool first = true;
      for (auto& [k, x] : v.as<DictObj>()->entries) {
        if (!first) s += ", ";
        first = false;
        s += repr(k) + ": " + repr(x);
      }
      return s + "}";
    }
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
    case Tag::Instance: return model_repr(v);  // interp/module_print.cpp
    case Tag::Module: return "<module " + v.as<Module>()->name + ">";
    case Tag::Range: {
      auto* r = v.as<RangeObj>();
      return "range(" + std::to_string(r->start) + ", " + std::to_string(r->stop) +
             (r->step != 1 ? ", " + std::to_string(r->step) : std::string()) + ")";
    }
    case Tag::Object: return "<" + v.as<ObjectObj>()->type_name + ">";
  }
  return "?";
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

bool values_equal(const Value& a, const Value& b) {
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
    case Tag::Tuple: {
      auto& x = a.as<ListObj>()->items;
      auto& y = b.as<ListObj>()->items;
      if (x.size() != y.size()) return false;
      for (size_t k = 0; k < x.size(); ++k)
        if (!values_equal(x[k], y[k])) return false;
      return true;
    }
    case Tag::Dict: {
      auto* x = a.as<DictObj>();
      auto* y = b.as<DictObj>();
      if (x->entries.size() != y->entries.size()) return false;
      for (auto& [k, v] : x->entries) {
        Value* o = y->find(k);
        if (!o || !values_equal(v, *o)) return false;
      }
      return true;
    }
    case Tag::Range: {
      auto* x = a.as<RangeObj>();
      auto* y = b.as<RangeObj>();
      return x->start == y->start && x->stop == y->stop && x->step == y->step;
    }
    default: return a.o == b.o;
  }
}

void Value::destroy_slow() {
  if (tag == Tag::Tensor)
    t.~Tensor();
  else
    o.~shared_ptr();
}

void Value::copy_slow(const Value& v) {
  if (tag == Tag::Tensor)
    new (&t) Tensor(v.t);
  else
    new (&o) std::shared_ptr<Obj>(v.o);
}

void Value::move_slow(Value&& v) {
  if (tag == Tag::Tensor) {
    new (&t) Tensor(std::move(v.t));
    v.t.~Tensor();
  } else {
    new (&o) std::shared_ptr<Obj>(std::move(v.o));
    v.o.~shared_ptr();
  }
  v.tag = Tag::None;
}

}  // namespace nabla::interp
