// Operators on values: Python semantics for numbers, strings and containers, the op
// table for tensors (a number beside a tensor is a wrapped scalar), and the ordering
// used by sorted/min/max. Indexing, formatting and container methods live in
// indexing.cpp, formatting.cpp and container_methods.cpp.
#include <algorithm>
#include <cmath>
#include <optional>
#include <cstdio>

#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "autograd/trace.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/composites/composites.hpp"
#include "tensor/allocator.hpp"
#include "interp/values/value_walk.hpp"

namespace nabla::interp {

using lang::BinaryOp;
using lang::UnaryOp;

Value tensor_value(Tensor t) { return t.defined() ? Value::tensor(std::move(t)) : Value(); }

// A number as a 0-dim tensor that does not drive type promotion (PyTorch's wrapped numbers).
// An int exactly (int_scalar_tensor): x + (2^53 + 1) on an i64 tensor added 2^53.
static Tensor wrapped(const Value& v) {
  if (v.tag == Tag::Float) return wrapped_scalar(v.f);
  Tensor t = v.tag == Tag::Int ? int_scalar_tensor(v.i, DType::i64) : scalar_tensor(v.b ? 1.0 : 0.0, DType::b8);
  t.impl()->wrapped_number = true;
  return t;
}

Tensor to_tensor_arg(const Value& v, const char* what) {
  if (v.tag == Tag::Tensor) return v.t;
  if (v.is_num()) return wrapped(v);
  fail(std::string(what) + ": expected a tensor or a number, got " + type_name(v));
}

// ---- numbers ------------------------------------------------------------------------

static const char* verb(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "add";
    case BinaryOp::Sub: return "subtract";
    case BinaryOp::Mul: return "multiply";
    case BinaryOp::Div: return "divide";
    case BinaryOp::FloorDiv: return "floor-divide";
    case BinaryOp::Mod: return "take the remainder of";
    case BinaryOp::Pow: return "raise";
    case BinaryOp::MatMul: return "matrix-multiply";
    case BinaryOp::BitAnd:
    case BinaryOp::BitXor:
    case BinaryOp::BitOr: return "combine";
    default: return "compare";
  }
}

[[noreturn]] static void type_mismatch(BinaryOp op, const Value& a, const Value& b) {
  std::string s = std::string("cannot ") + verb(op) + " " + type_name(a) + " and " + type_name(b);
  const bool bitwise = op == BinaryOp::BitAnd || op == BinaryOp::BitXor || op == BinaryOp::BitOr;
  if (verb(op) == std::string("compare") || bitwise) s += std::string(" with '") + lang::op_symbol(op) + "'";
  if (bitwise) s += " (it takes ints, bools and bool tensors)";
  fail(s);
}


// Python's float // and % (float_divmod in CPython's floatobject.c): the quotient is
// computed from the exact remainder, so that 1 // 0.1 is 9.0 (as 1 % 0.1 is 0.0999...)
// where floor(1 / 0.1) would say 10.
struct FloatDivmod {
  double quotient, remainder;
};
static FloatDivmod float_divmod(double a, double b) {
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, b);
  }
  double floordiv;
  if (div != 0) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
  } else {
    floordiv = std::copysign(0.0, a / b);
  }
  return {floordiv, mod};
}

// The six comparisons, for int and float operands alike; nullopt for other ops.
template <class T>
static std::optional<Value> compare(BinaryOp op, T a, T b) {
  switch (op) {
    case BinaryOp::Eq: return Value::boolean(a == b);
    case BinaryOp::Ne: return Value::boolean(a != b);
    case BinaryOp::Lt: return Value::boolean(a < b);
    case BinaryOp::Le: return Value::boolean(a <= b);
    case BinaryOp::Gt: return Value::boolean(a > b);
    case BinaryOp::Ge: return Value::boolean(a >= b);
    default: return std::nullopt;
  }
}

// Note [Integer overflow]
// Ints are 64-bit and never wrap: every int operation whose exact result does not fit
// is the error "integer overflow in OP", as +, -, * and unary - always were. That
// includes INT64_MIN // -1 and INT64_MIN % -1, which the CPU traps (SIGFPE) rather
// than computing; the remainder is 0 in Python, but, as Rust's checked_rem does, it is
// the overflow of the division it comes from. Division by zero is its own error, and
// so is 0 ** negative (Python's ZeroDivisionError), for ints and floats alike.
[[noreturn]] static void int_overflow(BinaryOp op) {
  fail(std::string("integer overflow in ") + lang::op_symbol(op));
}

static int64_t int_floor_div(int64_t a, int64_t b) {
  if (b == 0) fail("integer division by zero");
  if (a == INT64_MIN && b == -1) int_overflow(BinaryOp::FloorDiv);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

static int64_t int_mod(int64_t a, int64_t b) {
  if (b == 0) fail("integer modulo by zero");
  if (a == INT64_MIN && b == -1) int_overflow(BinaryOp::Mod);
  int64_t m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

[[noreturn]] static void zero_to_negative_power() { fail("division by zero: 0 cannot be raised to a negative power"); }

static Value int_pow(int64_t a, int64_t b) {
  if (b < 0) {
    if (a == 0) zero_to_negative_power();
    return Value::number(std::pow(static_cast<double>(a), static_cast<double>(b)));
  }
  int64_t r = 1, base = a;
  for (int64_t e = b; e > 0;) {
    if ((e & 1) && __builtin_mul_overflow(r, base, &r)) int_overflow(BinaryOp::Pow);
    e >>= 1;
    // An exponent bit is left, so r will take a factor of at least base * base.
    if (e && __builtin_mul_overflow(base, base, &base)) int_overflow(BinaryOp::Pow);
  }
  return Value::integer(r);
}

static Value int_binary(BinaryOp op, int64_t a, int64_t b) {
  int64_t out;
  switch (op) {
    case BinaryOp::Add:
      if (__builtin_add_overflow(a, b, &out)) int_overflow(op);
      return Value::integer(out);
    case BinaryOp::Sub:
      if (__builtin_sub_overflow(a, b, &out)) int_overflow(op);
      return Value::integer(out);
    case BinaryOp::Mul:
      if (__builtin_mul_overflow(a, b, &out)) int_overflow(op);
      return Value::integer(out);
    case BinaryOp::Div:
      if (b == 0) fail("division by zero");
      return Value::number(static_cast<double>(a) / static_cast<double>(b));
    case BinaryOp::FloorDiv: return Value::integer(int_floor_div(a, b));
    case BinaryOp::Mod: return Value::integer(int_mod(a, b));
    case BinaryOp::Pow: return int_pow(a, b);
    case BinaryOp::BitAnd: return Value::integer(a & b);
    case BinaryOp::BitXor: return Value::integer(a ^ b);
    case BinaryOp::BitOr: return Value::integer(a | b);
    default:
      if (auto c = compare(op, a, b)) return *c;
      type_mismatch(op, Value::integer(a), Value::integer(b));
  }
}

static Value float_binary(BinaryOp op, double a, double b) {
  switch (op) {
    case BinaryOp::Add: return Value::number(a + b);
    case BinaryOp::Sub: return Value::number(a - b);
    case BinaryOp::Mul: return Value::number(a * b);
    case BinaryOp::Div:
      if (b == 0) fail("float division by zero");
      return Value::number(a / b);
    case BinaryOp::FloorDiv:
      if (b == 0) fail("float floor division by zero");
      return Value::number(float_divmod(a, b).quotient);
    case BinaryOp::Mod:
      if (b == 0) fail("float modulo by zero");
      return Value::number(float_divmod(a, b).remainder);
    case BinaryOp::Pow:
      if (a == 0 && b < 0 && std::isfinite(b)) zero_to_negative_power();  // 0.0 ** -inf is inf, as in Python
      return Value::number(std::pow(a, b));
    default:
      if (auto c = compare(op, a, b)) return *c;
      type_mismatch(op, Value::number(a), Value::number(b));
  }
}

// An int beside a float compares exactly, as in Python: 2**53 + 1 != 2.0**53, where
// converting the int to a double first would call them equal. -1, 0, 1 as <, ==, >;
// 2 when d is NaN (every comparison but != is false).
static int compare_int_float(int64_t i, double d) {
  if (std::isnan(d)) return 2;
  if (d >= 0x1p63) return -1;
  if (d < -0x1p63) return 1;
  double whole = std::trunc(d);
  auto w = static_cast<int64_t>(whole);
  if (i != w) return i < w ? -1 : 1;
  double frac = d - whole;
  return frac > 0 ? -1 : frac < 0 ? 1 : 0;
}

static std::optional<Value> mixed_compare(BinaryOp op, const Value& a, const Value& b) {
  bool a_int = a.tag != Tag::Float, b_int = b.tag != Tag::Float;
  if (a_int == b_int) return std::nullopt;
  int c = a_int ? compare_int_float(int_of(a), b.f) : compare_int_float(int_of(b), a.f);
  if (c != 2 && !a_int) c = -c;
  if (c == 2) return op == BinaryOp::Ne ? std::optional<Value>(Value::boolean(true))
                    : op == BinaryOp::Eq || op == BinaryOp::Lt || op == BinaryOp::Le || op == BinaryOp::Gt ||
                              op == BinaryOp::Ge
                        ? std::optional<Value>(Value::boolean(false))
                        : std::nullopt;
  return compare(op, c, 0);
}

// & ^ | of bool masks (a bool tensor, or true/false), elementwise with broadcasting as
// logical and, xor, or (made of where and ne, so they trace and compile); of integer
// tensors, PyTorch's bitwise and, xor, or (composite_integer_ops.cpp); floats are an
// error, as PyTorch's.
static Tensor mask_logic(BinaryOp op, const Tensor& l, const Tensor& r) {
  const bool masks = l.dtype() == DType::b8 && r.dtype() == DType::b8;
  if (!masks && !is_floating(l.dtype()) && !is_floating(r.dtype())) {
    return bitwise_binary(l, r, op == BinaryOp::BitAnd ? Bitwise::And : op == BinaryOp::BitOr ? Bitwise::Or : Bitwise::Xor);
  }
  for (const Tensor* t : {&l, &r})
    if (t->dtype() != DType::b8)
      fail(std::string("operator '") + lang::op_symbol(op) + "' combines bool masks, got a " + dtype_name(t->dtype()) +
           " tensor (compare first: (x > 0) " + lang::op_symbol(op) + " (y > 0))");
  if (op == BinaryOp::BitAnd) return where(l, r, l);
  if (op == BinaryOp::BitOr) return where(l, l, r);
  return ne(l, r);
}

static Value tensor_binary(BinaryOp op, const Value& a, const Value& b) {
  bool ta = a.tag == Tag::Tensor, tb = b.tag == Tag::Tensor;
  if ((!ta && !a.is_num()) || (!tb && !b.is_num())) {
    if (op == BinaryOp::Eq) return Value::boolean(values_equal(a, b, "=="));
    if (op == BinaryOp::Ne) return Value::boolean(!values_equal(a, b, "!="));
    type_mismatch(op, a, b);
  }
  Tensor xs, ys;
  if (!ta) xs = wrapped(a);
  if (!tb) ys = wrapped(b);
  const Tensor& l = ta ? a.t : xs;
  const Tensor& r = tb ? b.t : ys;
  switch (op) {
    case BinaryOp::Add: return Value::tensor(add(l, r));
    case BinaryOp::Sub: return Value::tensor(sub(l, r));
    case BinaryOp::Mul: return Value::tensor(mul(l, r));
    case BinaryOp::Div: return Value::tensor(div(l, r));
    case BinaryOp::Pow: return Value::tensor(tensor_pow(l, r));  // integers stay integers
    case BinaryOp::MatMul: return Value::tensor(matmul(l, r));
    case BinaryOp::Eq: return Value::tensor(eq(l, r));
    case BinaryOp::Ne: return Value::tensor(ne(l, r));
    case BinaryOp::Lt: return Value::tensor(lt(l, r));
    case BinaryOp::Le: return Value::tensor(le(l, r));
    case BinaryOp::Gt: return Value::tensor(gt(l, r));
    case BinaryOp::Ge: return Value::tensor(ge(l, r));
    case BinaryOp::Mod: return Value::tensor(remainder(l, r));  // the divisor's sign, as Python's %
    case BinaryOp::FloorDiv: return Value::tensor(floor_division(l, r));  // torch.floor_divide, as Python's //
    case BinaryOp::BitAnd:
    case BinaryOp::BitXor:
    case BinaryOp::BitOr: return Value::tensor(mask_logic(op, l, r));
    default: type_mismatch(op, a, b);
  }
}

static int compare_values(const Value& a, const Value& b, BinaryOp op);

// `x in range(...)` without iterating, and without the overflow of x - start: an int
// (or a bool, or a whole float, as Python's == would find) between the bounds on the
// step's grid.
static bool range_contains(const RangeObj& r, const Value& item) {
  int64_t x;
  if (item.tag == Tag::Int || item.tag == Tag::Bool) x = int_of(item);
  else if (item.tag == Tag::Float && std::trunc(item.f) == item.f && item.f >= -0x1p63 && item.f < 0x1p63) x = static_cast<int64_t>(item.f);
  else return false;
  bool inside = r.step > 0 ? (r.start <= x && x < r.stop) : (r.stop < x && x <= r.start);
  if (!inside) return false;
  __int128 offset = static_cast<__int128>(x) - r.start;
  return offset % r.step == 0;
}

static bool contains(const Value& container, const Value& item) {
  switch (container.tag) {
    case Tag::List:
    case Tag::Tuple:
      for (auto& x : container.as<ListObj>()->items)
        if (values_equal(x, item, "in")) return true;
      return false;
    case Tag::Dict: return container.as<DictObj>()->find(item) != nullptr;
    case Tag::Str:
      if (item.tag != Tag::Str) fail(std::string("'in <str>' requires a str on the left, got ") + type_name(item));
      return container.as<StrObj>()->s.find(item.as<StrObj>()->s) != std::string::npos;
    case Tag::Range: return range_contains(*container.as<RangeObj>(), item);
    default: fail(std::string("argument of type '") + type_name(container) + "' is not a container");
  }
}

// Note [Host memory budget] (tensor/allocator.cpp): a big result is asked for before
// it is built, so "ab" * 2**62 is an error at once, not a minute of growing. An empty
// sequence repeats no times: "" * 2**62 looped 2^62 times appending nothing (a hang).
static Value seq_repeat(const Value& seq, int64_t n) {
  const bool empty = seq.tag == Tag::Str ? seq.as<StrObj>()->s.empty() : seq.as<ListObj>()->items.empty();
  size_t times = n > 0 && !empty ? static_cast<size_t>(n) : 0;
  if (seq.tag == Tag::Str) {
    const std::string& s = seq.as<StrObj>()->s;
    CpuAllocator::instance().check_host_request(times, s.size(), "a str");
    std::string out;
    out.reserve(times * s.size());
    for (size_t k = 0; k < times; ++k) out += s;
    return make_str(std::move(out));
  }
  const auto& items = seq.as<ListObj>()->items;
  CpuAllocator::instance().check_host_request(times, items.size() * sizeof(Value), std::string("a ") + type_name(seq));
  std::vector<Value> out;
  out.reserve(times * items.size());
  for (size_t k = 0; k < times; ++k) out.insert(out.end(), items.begin(), items.end());
  return seq.tag == Tag::List ? make_list(std::move(out)) : make_tuple(std::move(out));
}

static Value seq_concat(const Value& a, const Value& b) {
  if (a.tag == Tag::Str) {
    const std::string &x = a.as<StrObj>()->s, &y = b.as<StrObj>()->s;
    CpuAllocator::instance().check_host_request(x.size() + y.size(), 1, "a str");
    return make_str(x + y);
  }
  const auto &x = a.as<ListObj>()->items, &y = b.as<ListObj>()->items;
  CpuAllocator::instance().check_host_request(x.size() + y.size(), sizeof(Value), std::string("a ") + type_name(a));
  std::vector<Value> out;
  out.reserve(x.size() + y.size());
  out.insert(out.end(), x.begin(), x.end());
  out.insert(out.end(), y.begin(), y.end());
  return a.tag == Tag::List ? make_list(std::move(out)) : make_tuple(std::move(out));
}

// Note [Identity: is and is not]
// Python's `a is b`: the same object. Heap values (models, lists, dicts, functions)
// compare by pointer and tensors by their handle's storage object (a tied weight `is`
// the embedding's; x.detach() is not x); numbers, bools, none, dtypes and strings have
// no identity of their own here, so they compare by value and kind (`1 is true` is
// false, `x is none` true for none only).
static bool same_object(const Value& a, const Value& b) {
  if (a.tag != b.tag) return false;
  switch (a.tag) {
    case Tag::None: return true;
    case Tag::Bool: return a.b == b.b;
    case Tag::Int: return a.i == b.i;
    case Tag::Float: return a.f == b.f;
    case Tag::DType: return a.dt == b.dt;
    case Tag::Tensor: return a.t.impl() == b.t.impl();
    case Tag::Str: return a.as<StrObj>()->s == b.as<StrObj>()->s;
    default: return a.o == b.o;
  }
}

Value binary_op(BinaryOp op, const Value& a, const Value& b) {
  if (op == BinaryOp::Is) return Value::boolean(same_object(a, b));
  if (op == BinaryOp::IsNot) return Value::boolean(!same_object(a, b));
  if (op == BinaryOp::In) return Value::boolean(contains(b, a));
  if (op == BinaryOp::NotIn) return Value::boolean(!contains(b, a));
  if (a.tag == Tag::Tensor || b.tag == Tag::Tensor) return tensor_binary(op, a, b);
  if (a.is_num() && b.is_num()) {
    const bool bitwise = op == BinaryOp::BitAnd || op == BinaryOp::BitXor || op == BinaryOp::BitOr;
    if (bitwise && a.tag == Tag::Bool && b.tag == Tag::Bool)  // bool & bool is a bool, as Python's
      return Value::boolean(int_binary(op, int_of(a), int_of(b)).i != 0);
    if (bitwise && (a.tag == Tag::Float || b.tag == Tag::Float)) type_mismatch(op, a, b);
    if (a.tag != Tag::Float && b.tag != Tag::Float) return int_binary(op, int_of(a), int_of(b));
    if (auto c = mixed_compare(op, a, b)) return *c;
    return float_binary(op, a.as_double(), b.as_double());
  }
  if (op == BinaryOp::Eq) return Value::boolean(values_equal(a, b, "=="));
  if (op == BinaryOp::Ne) return Value::boolean(!values_equal(a, b, "!="));
  bool seq_a = a.tag == Tag::Str || a.tag == Tag::List || a.tag == Tag::Tuple;
  if (op == BinaryOp::Add && seq_a && a.tag == b.tag) return seq_concat(a, b);
  if (op == BinaryOp::Mul && seq_a && (b.tag == Tag::Int || b.tag == Tag::Bool)) return seq_repeat(a, int_of(b));
  if (op == BinaryOp::Mul && (a.tag == Tag::Int || a.tag == Tag::Bool) &&
      (b.tag == Tag::Str || b.tag == Tag::List || b.tag == Tag::Tuple))
    return seq_repeat(b, int_of(a));
  if (op == BinaryOp::Mod && a.tag == Tag::Str) fail("use f-strings to format strings ('%' is not supported on str)");
  if (op == BinaryOp::Lt || op == BinaryOp::Le || op == BinaryOp::Gt || op == BinaryOp::Ge) {
    int c = compare_values(a, b, op);
    switch (op) {
      case BinaryOp::Lt: return Value::boolean(c < 0);
      case BinaryOp::Le: return Value::boolean(c <= 0);
      case BinaryOp::Gt: return Value::boolean(c > 0);
      default: return Value::boolean(c >= 0);
    }
  }
  type_mismatch(op, a, b);
}

// Three-way comparison for ordering (sorted, min, max, <): numbers, strings, and lists
// and tuples lexicographically, where (as in Python) the first items that differ by ==
// decide by <. One pass: order_at also says whether a and b are equal, so that a
// nested list is not compared by == and then again by < at every level (quadratic in
// the depth). `what` names the operation in the errors of a list that holds itself or
// nests deeper than the stack allows (Note [Walks over nested values]).
static int order_at(const Value& a, const Value& b, BinaryOp op, const char* what, int depth, bool& equal);

static int order_sequences(const Value& a, const Value& b, BinaryOp op, const char* what, int depth, bool& equal) {
  equal = false;
  if (a.o == b.o) {
    equal = true;
    return 0;
  }
  WalkLevel level(depth >= kTrackFrom ? &walk_path(Walk::order) : nullptr, a.o.get(), b.o.get());
  if (level.cycle()) fail_cycle(what, a);
  check_walk_depth(what, a, depth);
  auto& x = a.as<ListObj>()->items;
  auto& y = b.as<ListObj>()->items;
  for (size_t k = 0; k < x.size() && k < y.size(); ++k) {
    bool same = false;
    int c = order_at(x[k], y[k], op, what, depth + 1, same);
    if (!same) return c;
  }
  equal = x.size() == y.size();
  return x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
}

template <class T>
static int three_way(T x, T y, bool& equal) {
  equal = x == y;
  return x < y ? -1 : x > y ? 1 : 0;  // NaN: 0 and not equal, as before
}

static int order_at(const Value& a, const Value& b, BinaryOp op, const char* what, int depth, bool& equal) {
  if (a.is_num() && b.is_num()) {
    if (a.tag != Tag::Float && b.tag != Tag::Float) return three_way(int_of(a), int_of(b), equal);
    return three_way(a.as_double(), b.as_double(), equal);
  }
  if (a.tag == Tag::Str && b.tag == Tag::Str) {
    int c = a.as<StrObj>()->s.compare(b.as<StrObj>()->s);
    return three_way(c, 0, equal);
  }
  if ((a.tag == Tag::List || a.tag == Tag::Tuple) && a.tag == b.tag) return order_sequences(a, b, op, what, depth, equal);
  if ((a.tag == Tag::Tensor && (b.tag == Tag::Tensor || b.is_num())) || (b.tag == Tag::Tensor && a.is_num())) {
    // Under compile() the order is the capture's (max([t.sum() for t in x]) picked the
    // example's largest at every call): a value read the capture reports at its line.
    for (const Value* v : {&a, &b})
      if (v->tag == Tag::Tensor) notify_value_read(v->t, what);
    double x = a.tag == Tag::Tensor ? a.t.item() : a.as_double();
    double y = b.tag == Tag::Tensor ? b.t.item() : b.as_double();
    return three_way(x, y, equal);
  }
  // Not ordered, but items that are equal let a sequence comparison go on
  // ([none, 1] < [none, 2]); at the top, `none < none` is an error as in Python.
  if (depth > 0 && values_equal(a, b, what)) {
    equal = true;
    return 0;
  }
  type_mismatch(op, a, b);
}

// Two numbers, the common case of sorted, min and max, without the walk's arguments.
static inline bool order_numbers(const Value& a, const Value& b, int& c) {
  if (!a.is_num() || !b.is_num()) return false;
  bool equal;
  if (a.tag != Tag::Float && b.tag != Tag::Float) c = three_way(int_of(a), int_of(b), equal);
  else c = three_way(a.as_double(), b.as_double(), equal);
  return true;
}

static int compare_values(const Value& a, const Value& b, BinaryOp op) {
  int c;
  if (order_numbers(a, b, c)) return c;
  bool equal = false;
  return order_at(a, b, op, lang::op_symbol(op), 0, equal);
}

int compare_for_sort(const Value& a, const Value& b, const char* what) {
  int c;
  if (order_numbers(a, b, c)) return c;
  bool equal = false;
  return order_at(a, b, BinaryOp::Lt, what, 0, equal);
}

Value unary_op(UnaryOp op, const Value& a) {
  switch (op) {
    case UnaryOp::Not: return Value::boolean(!truthy(a));
    case UnaryOp::Neg:
      if (a.tag == Tag::Int) {
        if (a.i == INT64_MIN) fail("integer overflow in unary -");
        return Value::integer(-a.i);
      }
      if (a.tag == Tag::Bool) return Value::integer(a.b ? -1 : 0);
      if (a.tag == Tag::Float) return Value::number(-a.f);
      if (a.tag == Tag::Tensor) return Value::tensor(neg(a.t));
      fail(std::string("bad operand type for unary -: '") + type_name(a) + "'");
    case UnaryOp::Pos:
      if (a.tag == Tag::Bool) return Value::integer(a.b ? 1 : 0);
      if (a.is_num() || a.tag == Tag::Tensor) return a;
      fail(std::string("bad operand type for unary +: '") + type_name(a) + "'");
    case UnaryOp::Invert:  // bitwise not of an int, logical not of a bool mask
      if (a.tag == Tag::Int) return Value::integer(~a.i);
      if (a.tag == Tag::Bool) fail("~ of a bool is Python's bitwise not (~true is -2); write 'not b'");
      if (a.tag == Tag::Tensor) {
        if (is_floating(a.t.dtype()))
          fail(std::string("~ inverts bool masks and integer tensors, got a ") + dtype_name(a.t.dtype()) +
               " tensor (compare first: ~(x > 0))");
        if (a.t.dtype() != DType::b8) return Value::tensor(bitwise_not_of(a.t));
        return Value::tensor(eq(a.t, scalar_tensor(0.0, DType::b8)));
      }
      fail(std::string("bad operand type for unary ~: '") + type_name(a) + "'");
  }
  return a;
}

}  // namespace nabla::interp
