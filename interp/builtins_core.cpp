// Operators on values (Python semantics for numbers, strings and containers; the op
// table for tensors), f-string formatting, indexing and container methods.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "interp/evaluator.hpp"

namespace nabla::interp {

using lang::BinaryOp;
using lang::UnaryOp;

Value tensor_value(Tensor t) { return t.defined() ? Value::tensor(std::move(t)) : Value(); }

Value ellipsis_value() {
  static const Value v = [] {
    auto o = std::make_shared<ObjectObj>();
    o->type_name = "ellipsis";
    return Value::object(Tag::Object, o);
  }();
  return v;
}

Value make_slice_value(const Value& start, const Value& stop, const Value& step) {
  auto o = std::make_shared<ObjectObj>();
  o->type_name = "slice";
  o->attrs = {{"start", start}, {"stop", stop}, {"step", step}};
  return Value::object(Tag::Object, o);
}

static bool is_slice(const Value& v) { return v.tag == Tag::Object && v.as<ObjectObj>()->type_name == "slice"; }
static bool is_ellipsis(const Value& v) { return v.tag == Tag::Object && v.o == ellipsis_value().o; }

// A number as a 0-dim tensor that does not drive type promotion (PyTorch's wrapped numbers).
static Tensor wrapped(const Value& v) {
  if (v.tag == Tag::Float) return wrapped_scalar(v.f);
  Tensor t = scalar_tensor(v.tag == Tag::Int ? static_cast<double>(v.i) : (v.b ? 1.0 : 0.0),
                           v.tag == Tag::Int ? DType::i64 : DType::b8);
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
    default: return "compare";
  }
}

[[noreturn]] static void type_mismatch(BinaryOp op, const Value& a, const Value& b) {
  std::string s = std::string("cannot ") + verb(op) + " " + type_name(a) + " and " + type_name(b);
  if (verb(op) == std::string("compare")) s += std::string(" with '") + lang::op_symbol(op) + "'";
  fail(s);
}

static int64_t int_of(const Value& v) { return v.tag == Tag::Int ? v.i : v.b ? 1 : 0; }

static double py_fmod(double a, double b) {
  double m = std::fmod(a, b);
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

static Value int_binary(BinaryOp op, int64_t a, int64_t b) {
  int64_t out;
  switch (op) {
    case BinaryOp::Add:
      if (__builtin_add_overflow(a, b, &out)) fail("integer overflow in +");
      return Value::integer(out);
    case BinaryOp::Sub:
      if (__builtin_sub_overflow(a, b, &out)) fail("integer overflow in -");
      return Value::integer(out);
    case BinaryOp::Mul:
      if (__builtin_mul_overflow(a, b, &out)) fail("integer overflow in *");
      return Value::integer(out);
    case BinaryOp::Div:
      if (b == 0) fail("division by zero");
      return Value::number(static_cast<double>(a) / static_cast<double>(b));
    case BinaryOp::FloorDiv: {
      if (b == 0) fail("integer division by zero");
      int64_t q = a / b;
      if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
      return Value::integer(q);
    }
    case BinaryOp::Mod: {
      if (b == 0) fail("integer modulo by zero");
      int64_t m = a % b;
      if (m != 0 && ((m < 0) != (b < 0))) m += b;
      return Value::integer(m);
    }
    case BinaryOp::Pow: {
      if (b < 0) return Value::number(std::pow(static_cast<double>(a), static_cast<double>(b)));
      int64_t r = 1, base = a;
      int64_t e = b;
      while (e > 0) {
        if (e & 1)
          if (__builtin_mul_overflow(r, base, &r)) fail("integer overflow in **");
        e >>= 1;
        if (e && __builtin_mul_overflow(base, base, &base)) fail("integer overflow in **");
      }
      return Value::integer(r);
    }
    case BinaryOp::Eq: return Value::boolean(a == b);
    case BinaryOp::Ne: return Value::boolean(a != b);
    case BinaryOp::Lt: return Value::boolean(a < b);
    case BinaryOp::Le: return Value::boolean(a <= b);
    case BinaryOp::Gt: return Value::boolean(a > b);
    case BinaryOp::Ge: return Value::boolean(a >= b);
    default: type_mismatch(op, Value::integer(a), Value::integer(b));
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
      return Value::number(std::floor(a / b));
    case BinaryOp::Mod:
      if (b == 0) fail("float modulo by zero");
      return Value::number(py_fmod(a, b));
    case BinaryOp::Pow: return Value::number(std::pow(a, b));
    case BinaryOp::Eq: return Value::boolean(a == b);
    case BinaryOp::Ne: return Value::boolean(a != b);
    case BinaryOp::Lt: return Value::boolean(a < b);
    case BinaryOp::Le: return Value::boolean(a <= b);
    case BinaryOp::Gt: return Value::boolean(a > b);
    case BinaryOp::Ge: return Value::boolean(a >= b);
    default: type_mismatch(op, Value::number(a), Value::number(b));
  }
}

static Value tensor_binary(BinaryOp op, const Value& a, const Value& b) {
  bool ta = a.tag == Tag::Tensor, tb = b.tag == Tag::Tensor;
  if ((!ta && !a.is_num()) || (!tb && !b.is_num())) {
    if (op == BinaryOp::Eq) return Value::boolean(values_equal(a, b));
    if (op == BinaryOp::Ne) return Value::boolean(!values_equal(a, b));
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
    case BinaryOp::Pow: return Value::tensor(pow(l, r));
    case BinaryOp::MatMul: return Value::tensor(matmul(l, r));
    case BinaryOp::Eq: return Value::tensor(eq(l, r));
    case BinaryOp::Ne: return Value::tensor(ne(l, r));
    case BinaryOp::Lt: return Value::tensor(lt(l, r));
    case BinaryOp::Le: return Value::tensor(le(l, r));
    case BinaryOp::Gt: return Value::tensor(gt(l, r));
    case BinaryOp::Ge: return Value::tensor(ge(l, r));
    case BinaryOp::FloorDiv:
    case BinaryOp::Mod: fail(std::string("operator '") + lang::op_symbol(op) + "' is not supported on tensors");
    default: type_mismatch(op, a, b);
  }
}

static int compare_values(const Value& a, const Value& b, BinaryOp op);

static bool contains(const Value& container, const Value& item) {
  switch (container.tag) {
    case Tag::List:
    case Tag::Tuple:
      for (auto& x : container.as<ListObj>()->items)
        if (values_equal(x, item)) return true;
      return false;
    case Tag::Dict: return container.as<DictObj>()->find(item) != nullptr;
    case Tag::Str:
      if (item.tag != Tag::Str) fail(std::string("'in <str>' requires a str on the left, got ") + type_name(item));
      return container.as<StrObj>()->s.find(item.as<StrObj>()->s) != std::string::npos;
    case Tag::Range: {
      if (item.tag != Tag::Int) return false;
      auto* r = container.as<RangeObj>();
      int64_t n = r->size();
      if (n == 0) return false;
      int64_t off = item.i - r->start;
      if (off % r->step != 0) return false;
      int64_t k = off / r->step;
      return k >= 0 && k < n;
    }
    default: fail(std::string("argument of type '") + type_name(container) + "' is not a container");
  }
}

static Value seq_repeat(const Value& seq, int64_t n) {
  if (seq.tag == Tag::Str) {
    std::string out;
    for (int64_t k = 0; k < n; ++k) out += seq.as<StrObj>()->s;
    return make_str(std::move(out));
  }
  std::vector<Value> out;
  for (int64_t k = 0; k < n; ++k)
    for (auto& x : seq.as<ListObj>()->items) out.push_back(x);
  return seq.tag == Tag::List ? make_list(std::move(out)) : make_tuple(std::move(out));
}

Value binary_op(BinaryOp op, const Value& a, const Value& b) {
  if (op == BinaryOp::In) return Value::boolean(contains(b, a));
  if (op == BinaryOp::NotIn) return Value::boolean(!contains(b, a));
  if (a.tag == Tag::Tensor || b.tag == Tag::Tensor) return tensor_binary(op, a, b);
  if (a.is_num() && b.is_num()) {
    if (a.tag != Tag::Float && b.tag != Tag::Float) return int_binary(op, int_of(a), int_of(b));
    return float_binary(op, a.as_double(), b.as_double());
  }
  if (op == BinaryOp::Eq) return Value::boolean(values_equal(a, b));
  if (op == BinaryOp::Ne) return Value::boolean(!values_equal(a, b));
  bool seq_a = a.tag == Tag::Str || a.tag == Tag::List || a.tag == Tag::Tuple;
  if (op == BinaryOp::Add && seq_a && a.tag == b.tag) {
    if (a.tag == Tag::Str) return make_str(a.as<StrObj>()->s + b.as<StrObj>()->s);
    std::vector<Value> out = a.as<ListObj>()->items;
    for (auto& x : b.as<ListObj>()->items) out.push_back(x);
    return a.tag == Tag::List ? make_list(std::move(out)) : make_tuple(std::move(out));
  }
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

// Three-way comparison for ordering (sorted, min, max, <): numbers, strings, sequences.
static int compare_values(const Value& a, const Value& b, BinaryOp op) {
  if (a.is_num() && b.is_num()) {
    double x = a.as_double(), y = b.as_double();
    if (a.tag != Tag::Float && b.tag != Tag::Float) {
      int64_t p = int_of(a), q = int_of(b);
      return p < q ? -1 : p > q ? 1 : 0;
    }
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.tag == Tag::Str && b.tag == Tag::Str) {
    int c = a.as<StrObj>()->s.compare(b.as<StrObj>()->s);
    return c < 0 ? -1 : c > 0 ? 1 : 0;
  }
  if ((a.tag == Tag::List || a.tag == Tag::Tuple) && a.tag == b.tag) {
    auto& x = a.as<ListObj>()->items;
    auto& y = b.as<ListObj>()->items;
    for (size_t k = 0; k < x.size() && k < y.size(); ++k) {
      if (values_equal(x[k], y[k])) continue;
      return compare_values(x[k], y[k], op);
    }
    return x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
  }
  if (a.tag == Tag::Tensor || b.tag == Tag::Tensor) {
    double x = a.tag == Tag::Tensor ? a.t.item() : a.as_double();
    double y = b.tag == Tag::Tensor ? b.t.item() : b.as_double();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  type_mismatch(op, a, b);
}

int compare_for_sort(const Value& a, const Value& b) { return compare_values(a, b, BinaryOp::Lt); }

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
  }
  return a;
}

// ---- format specs ---------------------------------------------------------------------

std::string format_value(const Value& v0, const std::string& spec) {
  Value v = v0;
  if (v.tag == Tag::Tensor && v.t.defined() && v.t.numel() == 1) {
    double d = v.t.item();
    v = is_floating(v.t.dtype()) ? Value::number(d) : v.t.dtype() == DType::b8 ? Value::boolean(d != 0) : Value::integer(static_cast<int64_t>(d));
  }
  size_t p = 0;
  char fill = ' ', align = 0, sign = '-';
  bool alt = false, comma = false;
  int width = -1, precision = -1;
  char type = 0;
  auto is_align = [](char c) { return c == '<' || c == '>' || c == '^' || c == '='; };
  if (spec.size() >= 2 && is_align(spec[1])) {
    fill = spec[0];
    align = spec[1];
    p = 2;
  } else if (!spec.empty() && is_align(spec[0])) {
    align = spec[0];
    p = 1;
  }
  if (p < spec.size() && (spec[p] == '+' || spec[p] == '-' || spec[p] == ' ')) sign = spec[p++];
  if (p < spec.size() && spec[p] == '#') {
    alt = true;
    ++p;
  }
  if (p < spec.size() && spec[p] == '0') {
    if (!align) {
      fill = '0';
      align = '=';
    }
    ++p;
  }
  while (p < spec.size() && std::isdigit(static_cast<unsigned char>(spec[p]))) {
    width = (width < 0 ? 0 : width) * 10 + (spec[p++] - '0');
  }
  if (p < spec.size() && (spec[p] == ',' || spec[p] == '_')) {
    comma = true;
    ++p;
  }
  if (p < spec.size() && spec[p] == '.') {
    ++p;
    precision = 0;
    if (p >= spec.size() || !std::isdigit(static_cast<unsigned char>(spec[p]))) fail("format spec '" + spec + "': expected digits after '.'");
    while (p < spec.size() && std::isdigit(static_cast<unsigned char>(spec[p]))) precision = precision * 10 + (spec[p++] - '0');
  }
  if (p < spec.size()) type = spec[p++];
  if (p != spec.size()) fail("invalid format spec '" + spec + "'");
  (void)alt;

  std::string body;
  bool numeric = v.is_num();
  bool negative = false;
  if (type == 's' || (!type && !numeric)) {
    if (type == 's' && numeric) fail("format spec 's' needs a str, got " + std::string(type_name(v)));
    body = str(v);
    if (precision >= 0 && body.size() > static_cast<size_t>(precision)) body.resize(static_cast<size_t>(precision));
    numeric = false;
  } else {
    if (!numeric) fail("format spec '" + spec + "' needs a number, got " + type_name(v));
    char buf[512];
    if (type == 'd' || type == 'x' || type == 'X' || type == 'o' || type == 'b') {
      if (v.tag == Tag::Float) fail("format spec 'd' needs an int, got float");
      int64_t i = int_of(v);
      negative = i < 0;
      uint64_t u = negative ? static_cast<uint64_t>(-(i + 1)) + 1 : static_cast<uint64_t>(i);
      if (type == 'd') body = std::to_string(u);
      else if (type == 'b') {
        do {
          body.insert(body.begin(), static_cast<char>('0' + (u & 1)));
          u >>= 1;
        } while (u);
      } else {
        std::snprintf(buf, sizeof buf, type == 'x' ? "%llx" : type == 'X' ? "%llX" : "%llo", static_cast<unsigned long long>(u));
        body = buf;
      }
    } else if (!type && v.tag != Tag::Float && precision < 0) {
      int64_t i = int_of(v);
      negative = i < 0;
      body = std::to_string(negative ? -static_cast<__int128>(i) > INT64_MAX ? 0 : -i : i);
      if (i == INT64_MIN) body = "9223372036854775808";
    } else {
      double d = v.as_double();
      negative = std::signbit(d) && !std::isnan(d);
      double a = std::fabs(d);
      int prec = precision < 0 ? 6 : precision;
      switch (type) {
        case 'f':
        case 'F': std::snprintf(buf, sizeof buf, "%.*f", prec, a); break;
        case 'e':
        case 'E': std::snprintf(buf, sizeof buf, type == 'e' ? "%.*e" : "%.*E", prec, a); break;
        case 'g':
        case 'G': std::snprintf(buf, sizeof buf, type == 'g' ? "%.*g" : "%.*G", prec == 0 ? 1 : prec, a); break;
        case '%': std::snprintf(buf, sizeof buf, "%.*f%%", prec, a * 100); break;
        case 0:
          if (precision < 0) std::snprintf(buf, sizeof buf, "%s", float_repr(a).c_str());
          else std::snprintf(buf, sizeof buf, "%.*g", prec == 0 ? 1 : prec, a);
          break;
        default: fail(std::string("unknown format code '") + type + "' for a number");
      }
      body = buf;
      if (std::isinf(a)) body = type == 'F' || type == 'E' || type == 'G' ? "INF" : "inf";
      if (std::isnan(a)) body = type == 'F' || type == 'E' || type == 'G' ? "NAN" : "nan";
    }
    if (comma) {
      size_t end = body.find_first_of(".eE%");
      if (end == std::string::npos) end = body.size();
      std::string head = body.substr(0, end), rest = body.substr(end);
      std::string grouped;
      int count = 0;
      for (size_t k = head.size(); k-- > 0;) {
        grouped.insert(grouped.begin(), head[k]);
        if (++count % 3 == 0 && k > 0 && std::isdigit(static_cast<unsigned char>(head[k - 1]))) grouped.insert(grouped.begin(), ',');
      }
      body = grouped + rest;
    }
  }
  std::string sign_str;
  if (numeric) {
    if (negative) sign_str = "-";
    else if (sign == '+') sign_str = "+";
    else if (sign == ' ') sign_str = " ";
  }
  if (!align) align = numeric ? '>' : '<';
  size_t len = sign_str.size() + body.size();
  if (width < 0 || static_cast<size_t>(width) <= len) return sign_str + body;
  size_t padn = static_cast<size_t>(width) - len;
  switch (align) {
    case '<': return sign_str + body + std::string(padn, fill);
    case '^': return std::string(padn / 2, fill) + sign_str + body + std::string(padn - padn / 2, fill);
    case '=': return sign_str + std::string(padn, fill) + body;
    default: return std::string(padn, fill) + sign_str + body;
  }
}

// ---- indexing -------------------------------------------------------------------------

static int64_t index_int(const Value& v, const char* what) {
  if (v.tag == Tag::Int) return v.i;
  if (v.tag == Tag::Bool) return v.b;
  if (v.tag == Tag::Tensor && v.t.numel() == 1 && !is_floating(v.t.dtype()) && v.t.dim() == 0)
    return static_cast<int64_t>(v.t.item());
  fail(std::string(what) + " indices must be integers or slices, not " + type_name(v));
}

static int64_t wrap_index(int64_t i, int64_t n, const char* what) {
  int64_t j = i < 0 ? i + n : i;
  if (j < 0 || j >= n)
    fail("index " + std::to_string(i) + " is out of range for " + what + " of length " + std::to_string(n));
  return j;
}

// Python slice semantics: (start, stop, step) clamped for a sequence of length n.
static void slice_bounds(const Value& sl, int64_t n, int64_t* start, int64_t* stop, int64_t* step) {
  auto* o = sl.as<ObjectObj>();
  const Value& a = o->attrs[0].second;
  const Value& b = o->attrs[1].second;
  const Value& c = o->attrs[2].second;
  *step = c.is_none() ? 1 : index_int(c, "slice");
  if (*step == 0) fail("slice step cannot be zero");
  if (*step > 0) {
    *start = a.is_none() ? 0 : index_int(a, "slice");
    *stop = b.is_none() ? n : index_int(b, "slice");
    if (*start < 0) *start = std::max<int64_t>(0, *start + n);
    if (*stop < 0) *stop = std::max<int64_t>(0, *stop + n);
    *start = std::min(*start, n);
    *stop = std::min(*stop, n);
    if (*stop < *start) *stop = *start;
  } else {
    *start = a.is_none() ? n - 1 : index_int(a, "slice");
    *stop = b.is_none() ? -1 : index_int(b, "slice");
    if (!a.is_none() && *start < 0) *start += n;
    if (!b.is_none() && *stop < 0) *stop = std::max<int64_t>(-1, *stop + n);
    *start = std::min(*start, n - 1);
    if (*start < -1) *start = -1;
  }
}

static std::vector<int64_t> slice_positions(const Value& sl, int64_t n) {
  int64_t start, stop, step;
  slice_bounds(sl, n, &start, &stop, &step);
  std::vector<int64_t> out;
  if (step > 0)
    for (int64_t k = start; k < stop; k += step) out.push_back(k);
  else
    for (int64_t k = start; k > stop; k += step) out.push_back(k);
  return out;
}

Tensor tensor_from_value(const Value& v, std::optional<DType> dtype);

namespace {

struct TensorIndexPlan {
  Tensor view;          // after basic indexing
  bool advanced = false;
};

bool is_index_tensor(const Value& v) {
  return v.tag == Tag::Tensor || (v.tag == Tag::List && !v.as<ListObj>()->items.empty());
}

Tensor index_tensor_of(const Value& v) {
  if (v.tag == Tag::Tensor) return v.t;
  return tensor_from_value(v, std::nullopt);
}

Tensor nonzero_flat(const Tensor& mask) {
  std::vector<double> m = to_double_vector(mask);
  std::vector<double> idx;
  for (size_t k = 0; k < m.size(); ++k)
    if (m[k] != 0) idx.push_back(static_cast<double>(k));
  return tensor_from(idx, {static_cast<int64_t>(idx.size())}, DType::i64);
}

Tensor index_tensor(const Tensor& x0, const std::vector<Value>& idx) {
  Tensor x = x0;
  int64_t consumed = 0;
  int advanced = 0;
  bool has_ellipsis = false;
  for (auto& v : idx) {
    if (v.is_none()) continue;
    if (is_ellipsis(v)) {
      if (has_ellipsis) fail("an index can only have a single ellipsis ('...')");
      has_ellipsis = true;
      continue;
    }
    if (is_slice(v)) {
      ++consumed;
    } else if (is_index_tensor(v)) {
      Tensor t = index_tensor_of(v);
      consumed += t.dtype() == DType::b8 ? std::max<int64_t>(t.dim(), 0) : 1;
      if (t.dim() > 0 || t.dtype() == DType::b8) ++advanced;
    } else {
      ++consumed;
    }
  }
  if (consumed > x.dim())
    fail("too many indices for tensor of dimension " + std::to_string(x.dim()) + " (got " + std::to_string(consumed) + ")");
  if (advanced > 1) fail("only one tensor (mask or integer) index per indexing expression is supported");
  int64_t dim = 0;
  for (auto& v : idx) {
    if (v.is_none()) {
      x = unsqueeze(x, dim++);
    } else if (is_ellipsis(v)) {
      // x's dims are [dims made so far | original dims not yet indexed]; the items
      // after the ellipsis consume `consumed` of the latter.
      dim += x.dim() - dim - consumed;
      continue;
    } else if (is_slice(v)) {
      int64_t n = x.size(dim);
      int64_t start, stop, step;
      slice_bounds(v, n, &start, &stop, &step);
      if (step < 0) fail("tensor slices need a positive step (got " + std::to_string(step) + ")");
      if (!(start == 0 && stop == n && step == 1)) x = slice(x, dim, start, stop, step);
      ++dim;
      --consumed;
    } else if (is_index_tensor(v)) {
      Tensor t = index_tensor_of(v);
      if (t.dtype() == DType::b8) {
        int64_t md = t.dim();
        for (int64_t k = 0; k < md; ++k)
          if (t.size(k) != x.size(dim + k))
            fail("mask of shape " + t.shape_str() + " does not match the indexed dims of tensor of shape " +
                 x.shape_str() + " (dim " + std::to_string(dim + k) + ": " + std::to_string(t.size(k)) + " vs " +
                 std::to_string(x.size(dim + k)) + ")");
        Tensor flat = md == 0 ? unsqueeze(x, dim) : md == 1 ? x : flatten(x, dim, dim + md - 1);
        x = index_select(flat, dim, nonzero_flat(t));
        ++dim;
        consumed -= md;
      } else if (is_floating(t.dtype())) {
        fail("tensors used as indices must be integer or bool tensors, got " + std::string(dtype_name(t.dtype())));
      } else if (t.dim() == 0) {
        int64_t i = static_cast<int64_t>(t.item());
        x = select(x, dim, wrap_index(i, x.size(dim), "tensor dim"));
        --consumed;
      } else {
        Tensor flat_idx = t.dim() == 1 ? t : reshape(t, {t.numel()});
        std::vector<double> iv = to_double_vector(flat_idx);
        int64_t n = x.size(dim);
        bool neg = false;
        for (double d : iv) {
          if (d < -n || d >= n)
            fail("index " + std::to_string(static_cast<int64_t>(d)) + " is out of range for dim " + std::to_string(dim) +
                 " of size " + std::to_string(n));
          neg |= d < 0;
        }
        if (neg) {
          for (double& d : iv)
            if (d < 0) d += static_cast<double>(n);
          flat_idx = tensor_from(iv, {static_cast<int64_t>(iv.size())}, DType::i64);
        }
        Tensor r = index_select(x, dim, flat_idx);
        if (t.dim() != 1) {
          std::vector<int64_t> shape;
          for (int64_t k = 0; k < dim; ++k) shape.push_back(x.size(k));
          for (int64_t k = 0; k < t.dim(); ++k) shape.push_back(t.size(k));
          for (int64_t k = dim + 1; k < x.dim(); ++k) shape.push_back(x.size(k));
          r = reshape(r, shape);
        }
        x = r;
        dim += t.dim();
        --consumed;
      }
    } else {
      int64_t i = index_int(v, "tensor");
      if (dim >= x.dim()) fail("too many indices for tensor of dimension " + std::to_string(x0.dim()));
      x = select(x, dim, wrap_index(i, x.size(dim), ("dim " + std::to_string(dim) + " of a tensor").c_str()));
      --consumed;
    }
  }
  return x;
}


}  // namespace

Value index_value(Evaluator& ev, const Value& obj, const std::vector<Value>& idx) {
  (void)ev;
  switch (obj.tag) {
    case Tag::Tensor: return Value::tensor(index_tensor(obj.t, idx));
    case Tag::List:
    case Tag::Tuple:
    case Tag::Str:
    case Tag::Range: {
      if (idx.size() != 1) fail(std::string(type_name(obj)) + " indices must be a single int or slice");
      const Value& i = idx[0];
      if (obj.tag == Tag::Range) {
        auto* r = obj.as<RangeObj>();
        int64_t k = wrap_index(index_int(i, "range"), r->size(), "range");
        return Value::integer(r->start + k * r->step);
      }
      if (obj.tag == Tag::Str) {
        const std::string& s = obj.as<StrObj>()->s;
        if (is_slice(i)) {
          std::string out;
          for (int64_t k : slice_positions(i, static_cast<int64_t>(s.size()))) out += s[static_cast<size_t>(k)];
          return make_str(std::move(out));
        }
        int64_t k = wrap_index(index_int(i, "string"), static_cast<int64_t>(s.size()), "str");
        return make_str(std::string(1, s[static_cast<size_t>(k)]));
      }
      auto& items = obj.as<ListObj>()->items;
      if (is_slice(i)) {
        std::vector<Value> out;
        for (int64_t k : slice_positions(i, static_cast<int64_t>(items.size()))) out.push_back(items[static_cast<size_t>(k)]);
        return obj.tag == Tag::List ? make_list(std::move(out)) : make_tuple(std::move(out));
      }
      int64_t k = wrap_index(index_int(i, type_name(obj)), static_cast<int64_t>(items.size()), type_name(obj));
      return items[static_cast<size_t>(k)];
    }
    case Tag::Dict: {
      if (idx.size() != 1) fail("dict keys must be a single value (use a tuple key: d[(a, b)])");
      Value* v = obj.as<DictObj>()->find(idx[0]);
      if (!v) fail("key " + repr(idx[0]) + " not found in dict");
      return *v;
    }
    default: fail(std::string("'") + type_name(obj) + "' object is not subscriptable");
  }
}

void assign_index(Evaluator& ev, const Value& obj, const std::vector<Value>& idx, const Value& v) {
  (void)ev;
  switch (obj.tag) {
    case Tag::List: {
      if (idx.size() != 1) fail("list indices must be a single int or slice");
      auto& items = obj.as<ListObj>()->items;
      if (is_slice(idx[0])) {
        int64_t start, stop, step;
        slice_bounds(idx[0], static_cast<int64_t>(items.size()), &start, &stop, &step);
        if (step != 1) fail("slice assignment to a list needs step 1");
        std::vector<Value> src;
        if (v.tag == Tag::List || v.tag == Tag::Tuple) src = v.as<ListObj>()->items;
        else fail(std::string("can only assign a list or tuple to a list slice, got ") + type_name(v));
        items.erase(items.begin() + start, items.begin() + stop);
        items.insert(items.begin() + start, src.begin(), src.end());
        return;
      }
      int64_t k = wrap_index(index_int(idx[0], "list"), static_cast<int64_t>(items.size()), "list");
      items[static_cast<size_t>(k)] = v;
      return;
    }
    case Tag::Dict: {
      if (idx.size() != 1) fail("dict keys must be a single value");
      const Value& key = idx[0];
      if (!(key.is_num() || key.is_none() || key.tag == Tag::Str || key.tag == Tag::Tuple || key.tag == Tag::DType))
        fail(std::string("unhashable type: '") + type_name(key) + "' cannot be a dict key");
      obj.as<DictObj>()->set(key, v);
      return;
    }
    case Tag::Tensor: {
      Tensor x = obj.t;
      bool has_tensor_index = false;
      for (auto& i : idx) has_tensor_index |= is_index_tensor(i);
      Tensor src = to_tensor_arg(v, "tensor assignment");
      if (has_tensor_index) {
        if (idx.size() == 1) {
          Tensor m = index_tensor_of(idx[0]);
          if (m.dtype() == DType::b8 && m.dim() == x.dim()) {
            bool same = true;
            for (int64_t k = 0; k < m.dim(); ++k) same &= m.size(k) == x.size(k);
            if (same) {
              Tensor filled = where(m, to_dtype(src, x.dtype()), x);
              copy_(x, filled);
              return;
            }
          }
        }
        fail("assignment through a tensor index is only supported for a bool mask of the tensor's full shape "
             "(use where() or scatter_add otherwise)");
      }
      Tensor view = index_tensor(x, idx);
      copy_(view, src);
      return;
    }
    case Tag::Tuple: fail("'tuple' object does not support item assignment");
    case Tag::Str: fail("'str' object does not support item assignment");
    default: fail(std::string("'") + type_name(obj) + "' object does not support item assignment");
  }
}

// ---- container methods ------------------------------------------------------------------

static const std::vector<std::string>& str_methods() {
  static const std::vector<std::string> m = {"split", "join", "upper", "lower", "strip", "lstrip", "rstrip",
                                             "replace", "startswith", "endswith", "find", "count", "format"};
  return m;
}
static const std::vector<std::string>& list_methods() {
  static const std::vector<std::string> m = {"append", "pop", "extend", "insert", "index", "count", "copy",
                                             "clear", "reverse", "sort", "remove"};
  return m;
}
static const std::vector<std::string>& tuple_methods() {
  static const std::vector<std::string> m = {"index", "count"};
  return m;
}
static const std::vector<std::string>& dict_methods() {
  static const std::vector<std::string> m = {"keys", "values", "items", "get", "pop", "update", "copy", "clear",
                                             "setdefault"};
  return m;
}

std::vector<std::string> container_method_names(Tag tag) {
  switch (tag) {
    case Tag::Str: return str_methods();
    case Tag::List: return list_methods();
    case Tag::Tuple: return tuple_methods();
    case Tag::Dict: return dict_methods();
    default: return {};
  }
}

bool has_container_method(Tag tag, const std::string& name) {
  auto names = container_method_names(tag);
  return std::find(names.begin(), names.end(), name) != names.end();
}

static void arity(const CallArgs& a, const std::string& name, size_t lo, size_t hi) {
  if (!a.kw.empty() && name != "sort") fail(name + "() takes no keyword arguments");
  if (a.pos.size() < lo || a.pos.size() > hi) {
    std::string want = lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
    fail(name + "() takes " + want + " argument" + (hi == 1 ? "" : "s") + " but " + std::to_string(a.pos.size()) +
         (a.pos.size() == 1 ? " was" : " were") + " given");
  }
}

static const std::string& str_arg(const Value& v, const std::string& fn) {
  if (v.tag != Tag::Str) fail(fn + "() expects a str, got " + type_name(v));
  return v.as<StrObj>()->s;
}

Value container_method(Evaluator& ev, const Value& self, const std::string& name, CallArgs& a) {
  if (self.tag == Tag::Str) {
    const std::string& s = self.as<StrObj>()->s;
    if (name == "upper" || name == "lower") {
      arity(a, name, 0, 0);
      std::string out = s;
      for (char& c : out) c = static_cast<char>(name == "upper" ? std::toupper(c) : std::tolower(c));
      return make_str(out);
    }
    if (name == "strip" || name == "lstrip" || name == "rstrip") {
      arity(a, name, 0, 1);
      std::string chars = a.pos.empty() ? " \t\n\r\f\v" : str_arg(a.pos[0], name);
      size_t b = name == "rstrip" ? 0 : s.find_first_not_of(chars);
      if (b == std::string::npos) return make_str("");
      size_t e = name == "lstrip" ? s.size() : s.find_last_not_of(chars) + 1;
      return make_str(s.substr(b, e - b));
    }
    if (name == "split") {
      arity(a, name, 0, 1);
      std::vector<Value> out;
      if (a.pos.empty() || a.pos[0].is_none()) {
        size_t k = 0;
        while (k < s.size()) {
          while (k < s.size() && std::isspace(static_cast<unsigned char>(s[k]))) ++k;
          size_t b = k;
          while (k < s.size() && !std::isspace(static_cast<unsigned char>(s[k]))) ++k;
          if (k > b) out.push_back(make_str(s.substr(b, k - b)));
        }
      } else {
        const std::string& sep = str_arg(a.pos[0], name);
        if (sep.empty()) fail("split(): empty separator");
        size_t b = 0, k;
        while ((k = s.find(sep, b)) != std::string::npos) {
          out.push_back(make_str(s.substr(b, k - b)));
          b = k + sep.size();
        }
        out.push_back(make_str(s.substr(b)));
      }
      return make_list(std::move(out));
    }
    if (name == "join") {
      arity(a, name, 1, 1);
      std::string out;
      bool first = true;
      for (auto& x : ev.iterate(a.pos[0])) {
        if (!first) out += s;
        first = false;
        if (x.tag != Tag::Str) fail(std::string("join() expects strings, got ") + type_name(x));
        out += x.as<StrObj>()->s;
      }
      return make_str(out);
    }
    if (name == "replace") {
      arity(a, name, 2, 2);
      const std::string& from = str_arg(a.pos[0], name);
      const std::string& to = str_arg(a.pos[1], name);
      if (from.empty()) return self;
      std::string out;
      size_t b = 0, k;
      while ((k = s.find(from, b)) != std::string::npos) {
        out += s.substr(b, k - b) + to;
        b = k + from.size();
      }
      return make_str(out + s.substr(b));
    }
    if (name == "startswith" || name == "endswith") {
      arity(a, name, 1, 1);
      const std::string& p = str_arg(a.pos[0], name);
      bool r = p.size() <= s.size() &&
               (name == "startswith" ? s.compare(0, p.size(), p) == 0 : s.compare(s.size() - p.size(), p.size(), p) == 0);
      return Value::boolean(r);
    }
    if (name == "find") {
      arity(a, name, 1, 1);
      size_t k = s.find(str_arg(a.pos[0], name));
      return Value::integer(k == std::string::npos ? -1 : static_cast<int64_t>(k));
    }
    if (name == "count") {
      arity(a, name, 1, 1);
      const std::string& p = str_arg(a.pos[0], name);
      if (p.empty()) return Value::integer(static_cast<int64_t>(s.size()) + 1);
      int64_t n = 0;
      for (size_t k = s.find(p); k != std::string::npos; k = s.find(p, k + p.size())) ++n;
      return Value::integer(n);
    }
    if (name == "format") {
      std::string out;
      size_t next = 0;
      for (size_t k = 0; k < s.size(); ++k) {
        if (s[k] == '{' && k + 1 < s.size() && s[k + 1] == '{') {
          out += '{';
          ++k;
        } else if (s[k] == '}' && k + 1 < s.size() && s[k + 1] == '}') {
          out += '}';
          ++k;
        } else if (s[k] == '{') {
          size_t e = s.find('}', k);
          if (e == std::string::npos) fail("format(): unclosed '{'");
          std::string field = s.substr(k + 1, e - k - 1);
          std::string spec;
          auto colon = field.find(':');
          if (colon != std::string::npos) {
            spec = field.substr(colon + 1);
            field = field.substr(0, colon);
          }
          const Value* v = nullptr;
          if (field.empty()) {
            if (next >= a.pos.size()) fail("format(): not enough arguments");
            v = &a.pos[next++];
          } else if (std::isdigit(static_cast<unsigned char>(field[0]))) {
            size_t i = std::stoul(field);
            if (i >= a.pos.size()) fail("format(): index " + field + " out of range");
            v = &a.pos[i];
          } else {
            v = a.find_kw(field);
            if (!v) fail("format(): no argument named '" + field + "'");
          }
          out += spec.empty() ? str(*v) : format_value(*v, spec);
          k = e;
        } else {
          out += s[k];
        }
      }
      return make_str(out);
    }
  }
  if (self.tag == Tag::List || self.tag == Tag::Tuple) {
    auto& items = self.as<ListObj>()->items;
    if (name == "index") {
      arity(a, name, 1, 1);
      for (size_t k = 0; k < items.size(); ++k)
        if (values_equal(items[k], a.pos[0])) return Value::integer(static_cast<int64_t>(k));
      fail(repr(a.pos[0]) + " is not in " + type_name(self));
    }
    if (name == "count") {
      arity(a, name, 1, 1);
      int64_t n = 0;
      for (auto& x : items) n += values_equal(x, a.pos[0]);
      return Value::integer(n);
    }
    if (name == "append") {
      arity(a, name, 1, 1);
      items.push_back(a.pos[0]);
      return Value();
    }
    if (name == "extend") {
      arity(a, name, 1, 1);
      for (auto& x : ev.iterate(a.pos[0])) items.push_back(x);
      return Value();
    }
    if (name == "insert") {
      arity(a, name, 2, 2);
      int64_t n = static_cast<int64_t>(items.size());
      int64_t i = index_int(a.pos[0], "list");
      if (i < 0) i = std::max<int64_t>(0, i + n);
      i = std::min(i, n);
      items.insert(items.begin() + i, a.pos[1]);
      return Value();
    }
    if (name == "pop") {
      arity(a, name, 0, 1);
      if (items.empty()) fail("pop from empty list");
      int64_t i = a.pos.empty() ? -1 : index_int(a.pos[0], "list");
      int64_t k = wrap_index(i, static_cast<int64_t>(items.size()), "list");
      Value v = items[static_cast<size_t>(k)];
      items.erase(items.begin() + k);
      return v;
    }
    if (name == "remove") {
      arity(a, name, 1, 1);
      for (size_t k = 0; k < items.size(); ++k)
        if (values_equal(items[k], a.pos[0])) {
          items.erase(items.begin() + static_cast<long>(k));
          return Value();
        }
      fail(repr(a.pos[0]) + " is not in list");
    }
    if (name == "copy") {
      arity(a, name, 0, 0);
      return make_list(items);
    }
    if (name == "clear") {
      arity(a, name, 0, 0);
      items.clear();
      return Value();
    }
    if (name == "reverse") {
      arity(a, name, 0, 0);
      std::reverse(items.begin(), items.end());
      return Value();
    }
    if (name == "sort") {
      CallArgs b;
      b.pos.push_back(self);
      b.kw = a.kw;
      Value sorted = ev.call_value(*ev.main_module->get("sorted"), b);
      items = sorted.as<ListObj>()->items;
      return Value();
    }
  }
  if (self.tag == Tag::Dict) {
    auto* d = self.as<DictObj>();
    if (name == "keys" || name == "values" || name == "items") {
      arity(a, name, 0, 0);
      std::vector<Value> out;
      for (auto& [k, v] : d->entries)
        out.push_back(name == "keys" ? k : name == "values" ? v : make_tuple({k, v}));
      return make_list(std::move(out));
    }
    if (name == "get") {
      arity(a, name, 1, 2);
      Value* v = d->find(a.pos[0]);
      return v ? *v : a.pos.size() > 1 ? a.pos[1] : Value();
    }
    if (name == "setdefault") {
      arity(a, name, 1, 2);
      Value* v = d->find(a.pos[0]);
      if (v) return *v;
      Value dv = a.pos.size() > 1 ? a.pos[1] : Value();
      d->set(a.pos[0], dv);
      return dv;
    }
    if (name == "pop") {
      arity(a, name, 1, 2);
      Value* v = d->find(a.pos[0]);
      if (!v) {
        if (a.pos.size() > 1) return a.pos[1];
        fail("key " + repr(a.pos[0]) + " not found in dict");
      }
      Value out = *v;
      d->erase(a.pos[0]);
      return out;
    }
    if (name == "update") {
      arity(a, name, 1, 1);
      if (a.pos[0].tag != Tag::Dict) fail(std::string("update() expects a dict, got ") + type_name(a.pos[0]));
      for (auto& [k, v] : a.pos[0].as<DictObj>()->entries) d->set(k, v);
      return Value();
    }
    if (name == "copy") {
      arity(a, name, 0, 0);
      auto c = std::make_shared<DictObj>(*d);
      return Value::object(Tag::Dict, c);
    }
    if (name == "clear") {
      arity(a, name, 0, 0);
      d->entries.clear();
      d->index.clear();
      return Value();
    }
  }
  fail(std::string(type_name(self)) + " has no attribute '" + name + "'");
}

}  // namespace nabla::interp
