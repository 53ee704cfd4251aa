// Values of the nabla language. A Value is a tag plus an inline payload: none, bool,
// int (int64), float (double) and dtype live in the union, a tensor lives inline as a
// nabla::Tensor (no extra heap per tensor value), and everything else is a heap
// object behind a shared_ptr (strings, lists, tuples, dicts, functions, models, ...).
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "interp/values/cycles.hpp"
#include "lang/ast.hpp"
#include "tensor/tensor.hpp"

namespace nabla::interp {

// The order is used: tags from Tensor on take destroy's slow path, from Str on are heap
// objects, and from List on they may hold values (Note [Freeing deep values]).
enum class Tag : uint8_t {
  None, Bool, Int, Float, DType, Tensor,  // inline
  Str, Range,  // heap, holding no values
  List, Tuple, Dict, Func, Native, Bound, ModelClass, Instance, Module, FnClass, Object  // heap
};

// Note [Checked casts]
// A heap value's object is reached with v.as<T>(), which checks that v's tag is one of
// T's (T::holds): a builtin that took a value for another kind (an int where it
// expected a list) raised a segmentation fault; it now raises an internal error that
// names both kinds, which the evaluator reports at the user's line.
struct Obj {
  virtual ~Obj() = default;
  static constexpr const char* kKind = "object";
  static bool holds(Tag) { return true; }  // a plain Obj* (a dynamic_cast follows)
};
[[noreturn]] void bad_object_cast(Tag tag, const char* expected);

struct Value {
  Tag tag = Tag::None;
  union {
    bool b;
    int64_t i;
    double f;
    DType dt;
    Tensor t;                // Tag::Tensor
    std::shared_ptr<Obj> o;  // heap tags
  };

  Value() : i(0) {}
  ~Value() { destroy(); }
  Value(const Value& v) : tag(v.tag) { copy_from(v); }
  __attribute__((always_inline)) Value(Value&& v) noexcept : tag(v.tag) { move_from(std::move(v)); }
  Value& operator=(const Value& v) {
    if (this != &v) {
      Value tmp(v);
      *this = std::move(tmp);
    }
    return *this;
  }
  __attribute__((always_inline)) Value& operator=(Value&& v) noexcept {
    if (this != &v) {
      destroy();
      tag = v.tag;
      move_from(std::move(v));
    }
    return *this;
  }

  static Value none() { return Value(); }
  static Value boolean(bool v) { Value x; x.tag = Tag::Bool; x.i = 0; x.b = v; return x; }
  static Value integer(int64_t v) { Value x; x.tag = Tag::Int; x.i = v; return x; }
  static Value number(double v) { Value x; x.tag = Tag::Float; x.f = v; return x; }
  static Value dtype(DType d) { Value x; x.tag = Tag::DType; x.i = 0; x.dt = d; return x; }
  static Value tensor(Tensor v) {
    Value x;
    new (&x.t) Tensor(std::move(v));
    x.tag = Tag::Tensor;
    return x;
  }
  static Value object(Tag tag, std::shared_ptr<Obj> obj) {
    Value x;
    new (&x.o) std::shared_ptr<Obj>(std::move(obj));
    x.tag = tag;
    return x;
  }

  bool is_none() const { return tag == Tag::None; }
  bool is_num() const { return tag == Tag::Int || tag == Tag::Float || tag == Tag::Bool; }
  bool is_tensor() const { return tag == Tag::Tensor; }
  bool is_heap() const { return tag >= Tag::Str; }
  double as_double() const { return tag == Tag::Float ? f : tag == Tag::Int ? static_cast<double>(i) : b ? 1.0 : 0.0; }
  template <class T>
  T* as() const {  // Note [Checked casts]
    if (!T::holds(tag)) [[unlikely]]
      bad_object_cast(tag, T::kKind);
    return static_cast<T*>(o.get());
  }

 private:
  // Scalars take the inline fast paths; tensors and heap objects the slow ones (copies
  // and destruction out of line in value.cpp), so that the interpreter's hot loops
  // stay small.
  void destroy() {
    if (tag >= Tag::Tensor) destroy_slow();
    tag = Tag::None;
  }
  void copy_from(const Value& v) {
    if (tag >= Tag::Tensor)
      copy_slow(v);
    else
      i = v.i;
  }
  void move_from(Value&& v) {
    if (tag >= Tag::Tensor)
      move_slow(std::move(v));
    else
      i = v.i;
  }
  void destroy_slow();
  void copy_slow(const Value& v);
  // Inline, unlike the other two: moving a tensor or an object is two words copied and
  // the source cleared, and values move at every call, argument and return (an eager
  // Adam step over six parameters moved about 940 of them, at 9 instructions a call).
  void move_slow(Value&& v) {
    if (tag == Tag::Tensor) {
      new (&t) Tensor(std::move(v.t));
      v.t.~Tensor();
    } else {
      new (&o) std::shared_ptr<Obj>(std::move(v.o));
      v.o.~shared_ptr();
    }
    v.tag = Tag::None;
  }
};

// ---- heap objects -------------------------------------------------------------------

// A str's bytes and a list's item slots count under the memory budget while they
// live (Note [Host memory budget] in tensor/allocator.cpp).
struct StrObj : Obj {
  static constexpr const char* kKind = "str";
  static bool holds(Tag t) { return t == Tag::Str; }
  explicit StrObj(std::string v);  // the budget's error when it would pass the budget
  ~StrObj() override;
  std::string s;  // never changed after construction (its charge is its size)
  // A report (make_report): its repr is its text, so the REPL's echo shows the table.
  bool repr_is_text = false;
  // s's hash as a dict key, once computed (0: not yet). An interned key such as
  // st["exp_avg"] is hashed at every lookup otherwise. Atomic because one str may be
  // shared by interpreters on several threads (an interned type() name); relaxed, as
  // every thread computes the same number.
  mutable std::atomic<size_t> hash{0};
};
// Containers are Tracked: the cycle collector frees the cycles they form
// (Note [Reference cycles] in cycles.hpp; their references are listed in cycles.cpp).
struct ListObj : Obj, Tracked {
  static constexpr const char* kKind = "list or tuple";
  static bool holds(Tag t) { return t == Tag::List || t == Tag::Tuple; }
  ~ListObj() override;
  std::vector<Value> items;
  // A named tuple's field names (PyTorch's torch.return_types: max(x, 1).values,
  // sort(x).indices), one per item, of static storage; null for every other tuple.
  const std::vector<std::string>* field_names = nullptr;
  size_t charged_bytes = 0;  // what the budget counts for items (reserve_items keeps it up)
  void visit_references(RefVisitor& v) const override;
  void release_references(Graveyard& g) override;
  // Room for `extra` more items, charged to the memory budget before it is taken
  // (the budget's error when it would pass); what append, extend and insert call first.
  void reserve_items(size_t extra);
  void charge_items();  // charges items' capacity as it is now (a list made whole)
};
using TupleObj = ListObj;  // immutable by convention (Tag::Tuple)

struct ValueHash {
  size_t operator()(const Value& v) const;
};
struct ValueKeyEq {
  bool operator()(const Value& a, const Value& b) const;
};
struct DictObj : Obj, Tracked {
  static constexpr const char* kKind = "dict";
  static bool holds(Tag t) { return t == Tag::Dict; }
  void visit_references(RefVisitor& v) const override;
  void release_references(Graveyard& g) override;
  std::vector<std::pair<Value, Value>> entries;
  std::unordered_map<Value, size_t, ValueHash, ValueKeyEq> index;
  Value* find(const Value& key);
  void set(const Value& key, Value value);
  bool erase(const Value& key);
};

struct RangeObj : Obj {
  static constexpr const char* kKind = "range";
  static bool holds(Tag t) { return t == Tag::Range; }
  int64_t start = 0, stop = 0, step = 1;
  int64_t size() const;  // an Error past INT64_MAX elements
  // Element k < size(): start + k * step, which is in the range even where k * step
  // alone would overflow (wrapping arithmetic, exact modulo 2**64).
  int64_t at(int64_t k) const {
    return static_cast<int64_t>(static_cast<uint64_t>(start) + static_cast<uint64_t>(k) * static_cast<uint64_t>(step));
  }
};

class Evaluator;
struct Module;
struct Frame;
struct FnInfo;

// A DSL function: its declaration, the environment it closes over, defaults
// evaluated when the function was made (as in Python).
struct FuncObj : Obj, Tracked {
  static constexpr const char* kKind = "function";
  static bool holds(Tag t) { return t == Tag::Func; }
  void visit_references(RefVisitor& v) const override;
  void release_references(Graveyard& g) override;
  std::shared_ptr<lang::FnDecl> decl;
  const FnInfo* info = nullptr;
  std::shared_ptr<Frame> env;  // enclosing frame (null at module level)
  std::shared_ptr<Module> module;
  std::vector<Value> defaults;  // one per param (none where required)
  std::string qualname;         // "f", "MLP.forward"
};

struct CallArgs {
  std::vector<Value> pos;
  std::vector<std::pair<std::string, Value>> kw;
  const Value* find_kw(const std::string& name) const {
    for (auto& [k, v] : kw)
      if (k == name) return &v;
    return nullptr;
  }
};

using NativeFn = std::function<Value(Evaluator&, CallArgs&)>;
struct NativeObj : Obj {
  static constexpr const char* kKind = "builtin";
  static bool holds(Tag t) { return t == Tag::Native; }
  std::string name;
  NativeFn fn;
};

// obj.method captured as a value: calling it passes `self`.
struct BoundObj : Obj, Tracked {
  static constexpr const char* kKind = "method";
  static bool holds(Tag t) { return t == Tag::Bound; }
  void visit_references(RefVisitor& v) const override;
  void release_references(Graveyard& g) override;
  Value self;
  std::string name;  // method name (for tensors and objects)
  Value func;        // a Func (model methods) or none (builtin methods by name)
};

struct ModelInfo;
struct ModelClassObj : Obj, Tracked {
  static constexpr const char* kKind = "model or function class";
  static bool holds(Tag t) { return t == Tag::ModelClass || t == Tag::FnClass; }
  void visit_references(RefVisitor& v) const override;
  void release_references(Graveyard& g) override;
  std::shared_ptr<lang::ModelDecl> decl;
  const ModelInfo* info = nullptr;
  std::shared_ptr<Frame> env;
  std::shared_ptr<Module> module;
  std::vector<Value> defaults;
};

enum class FieldKind : uint8_t { submodule, parameter, buffer, attribute };
struct Field {
  std::string name;
  Value value;
  FieldKind kind;
  // A buffer registered with register_buffer(..., persistent=false) (a positional
  // encoding, a causal mask): moved by to() and listed by buffers(), but left out of
  // state_dict() and load_state_dict(), as PyTorch's non-persistent buffers.
  bool persistent = true;
};
struct InstanceObj : Obj, Tracked {
  static constexpr const char* kKind = "model instance";
  static bool holds(Tag t) { return t == Tag::Instance; }
  void visit_references(RefVisitor& v) const override;
  void release_references(Graveyard& g) override;
  std::shared_ptr<ModelClassObj> cls;
  std::vector<Field> fields;
  std::shared_ptr<Frame> ctor_frame;  // methods see the constructor's params and lets
  // Module hooks (register_forward_pre_hook, register_forward_hook,
  // register_backward_hook, register_full_backward_hook): id and function, in
  // registration order; the handles' remove() erases by id.
  std::vector<std::pair<int64_t, Value>> forward_pre_hooks, forward_hooks, backward_hooks, full_backward_hooks;
  int64_t next_hook_id = 0;
  Field* find(const std::string& name) {
    for (auto& f : fields)
      if (f.name == name) return &f;
    return nullptr;
  }
};

struct Module : Obj, Tracked, std::enable_shared_from_this<Module> {
  static constexpr const char* kKind = "module";
  static bool holds(Tag t) { return t == Tag::Module; }
  void visit_references(RefVisitor& v) const override;
  void release_references(Graveyard& g) override;
  std::string name;
  std::string path;  // the file, for relative imports
  std::vector<Value> slots;
  std::vector<uint8_t> defined;
  std::unordered_map<std::string, int> names;
  std::vector<std::string> slot_names;
  int slot_of(const std::string& n);  // creates an (undefined) slot for a new name
  int anon_slot(const std::string& n);
  void set(const std::string& n, Value v) {
    int s = slot_of(n);
    slots[s] = std::move(v);
    defined[s] = 1;
  }
  const Value* get(const std::string& n) const {
    auto it = names.find(n);
    if (it == names.end() || !defined[it->second]) return nullptr;
    return &slots[it->second];
  }
  // The name messages show: the module's `__name__` where it sets one (a library
  // file reached as another module's attribute, `let __name__ = "nn.utils"` in
  // stdlib/_nn_utils.dsl), else the name it was imported by.
  std::string shown_name() const;
};

// A generic object with attributes and native methods (ctx of custom functions,
// hook handles, ...).
struct ObjectObj : Obj, Tracked {
  static constexpr const char* kKind = "object";
  static bool holds(Tag t) { return t == Tag::Object; }
  void visit_references(RefVisitor& v) const override;
  void release_references(Graveyard& g) override;
  std::string type_name;
  std::vector<std::pair<std::string, Value>> attrs;
  std::unordered_map<std::string, NativeFn> methods;  // called with self as pos[0]
  // What print and repr show; "<type_name>" when unset (a graph module's summary).
  std::function<std::string()> describe;
  Value* find(const std::string& n) {
    for (auto& [k, v] : attrs)
      if (k == n) return &v;
    return nullptr;
  }
  void set(const std::string& n, Value v) {
    if (Value* p = find(n)) *p = std::move(v);
    else attrs.emplace_back(n, std::move(v));
  }
};

// ---- helpers ------------------------------------------------------------------------

Value make_str(std::string s);
// A str that a builtin returns as a report for people to read (gm.optimize(), gm.cost(),
// gm.explain(), memory_summary(), a profile's table()): a str in every way but its repr, which is the text itself rather than
// a quoted literal, so the REPL echoes the table as print() shows it (as a Python str
// subclass whose __repr__ is __str__).
Value make_report(std::string text);
Value make_list(std::vector<Value> items = {});
Value make_tuple(std::vector<Value> items = {});
// (values, indices) as max, min, sort, topk and median along a dim return it: a tuple
// whose items are also .values and .indices.
Value values_indices(Value values, Value indices);
Value make_native(std::string name, NativeFn fn);

const char* type_name(const Value& v);
std::string repr(const Value& v);
std::string str(const Value& v);
std::string float_repr(double d);
bool truthy(const Value& v);
// "cpu", "cuda", "cuda:N" as a Device (checked against the GPUs present); errors name
// `what` (builtins_cuda.cpp).
Device as_device(const Value& v, const std::string& what);           // throws for tensors with more than one element
// Python ==, tensors by identity; `what` (the operator or builtin) is named in the
// error that a container holding itself, or nested deeper than the stack allows, gives
// (Note [Walks over nested values] in value_walk.hpp).
bool values_equal(const Value& a, const Value& b, const char* what = "==");
// Fails unless v can be a dict key (numbers, strings, none, dtypes, tuples of them).
void check_dict_key(const Value& v);

}  // namespace nabla::interp
