// The numeric builtins of Python: int, float, abs, max, min, sum, round, divmod and
// pow, with Python's semantics on numbers (ints never wrap: Note [Integer overflow] in
// interp/values/operators.cpp). abs, max, min, sum and pow are ops too: given a
// tensor they call the op (builtins_ops.cpp), so they replace the op's builtin of the
// same name. The table at the end is this family's (Note [Builtin tables]).
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>

#include "autograd/trace.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/eval/script/script_mode.hpp"

namespace nabla::interp {

namespace {

// A tensor's number read by int() or float(): a 0-dim tensor inside a condition of a
// compiled function (Note [Numbers read for a condition]), else a value read that a
// capture reports (before, the capture's number was silently baked in).
Tensor read_number(Evaluator& ev, const Tensor& t, const char* kind) {
  if (Tensor n = condition_number(ev, t, kind); n.defined()) return n;
  notify_value_read(t, kind);
  return Tensor();
}

// The text of a number as Python's int() and float() read a str: without the blanks
// around it, and its '_' dropped when each stands between two digits ("1_000"); empty
// when the text is not such a number. C's strtod and stoll read more than Python does:
// "0x10" was 16.0, "1e3" ended an int early, and a NUL ended the text ("1\0junk" was
// 1.0). `real`: a float's forms too (a point, an exponent, inf, infinity and nan in any
// case); otherwise only digits.
std::string python_number_text(const std::string& given, bool real) {
  const char* blanks = " \t\n\r\f\v";
  size_t first = given.find_first_not_of(blanks), last = given.find_last_not_of(blanks);
  if (first == std::string::npos) return "";
  std::string t = given.substr(first, last - first + 1);
  size_t k = t[0] == '+' || t[0] == '-' ? 1 : 0;
  std::string word = t.substr(k);
  for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (real && (word == "inf" || word == "infinity" || word == "nan")) return t;
  std::string out = t.substr(0, k);
  bool digits = false, point = false, exponent = false;
  auto digit = [&](size_t i) { return i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); };
  for (; k < t.size(); ++k) {
    char c = t[k];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digits = true;
    } else if (c == '_') {
      if (!digit(k - 1) || !digit(k + 1)) return "";
      continue;
    } else if (real && c == '.' && !point && !exponent) {
      point = true;
    } else if (real && (c == 'e' || c == 'E') && digits && !exponent) {
      exponent = true;
      digits = false;
      out += c;
      if (k + 1 < t.size() && (t[k + 1] == '+' || t[k + 1] == '-')) out += t[++k];
      continue;
    } else {
      return "";
    }
    out += c;
  }
  return digits ? out : "";
}

Value int_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("int", a, {"x"}, 0);
  const Value& v = b[0];
  if (!b.given[0]) return Value::integer(0);
  if (v.tag == Tag::Tensor)
    if (Tensor n = read_number(ev, v.t, "int()"); n.defined()) return Value::tensor(n);
  switch (v.tag) {
    case Tag::Int: return v;
    case Tag::Bool: return Value::integer(v.b);
    case Tag::Float:
      return Value::integer(int_from_double(std::trunc(v.f), "int()"));
    case Tag::Str: {
      const std::string s = python_number_text(v.as<StrObj>()->s, false);
      try {
        size_t used = 0;
        long long r = s.empty() ? 0 : std::stoll(s, &used, 10);
        if (!s.empty() && used == s.size()) return Value::integer(r);
      } catch (const std::out_of_range&) {
        fail("int(): " + repr(v) + " is outside the range of a 64-bit int");
      } catch (const std::invalid_argument&) {
      }
      fail("invalid literal for int(): " + repr(v));
    }
    case Tag::Tensor:
      if (!is_floating(v.t.dtype())) return Value::integer(v.t.item_int());
      return Value::integer(int_from_double(std::trunc(v.t.item()), "int()"));
    default: fail(std::string("int() argument must be a number, str or one-element tensor, not ") + type_name(v));
  }
}

Value float_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("float", a, {"x"}, 0);
  const Value& v = b[0];
  if (!b.given[0]) return Value::number(0.0);
  if (v.tag == Tag::Tensor)
    if (Tensor n = read_number(ev, v.t, "float()"); n.defined()) return Value::tensor(n);
  if (v.is_num()) return Value::number(v.as_double());
  if (v.tag == Tag::Tensor) return Value::number(v.t.item());
  if (v.tag == Tag::Str) {
    std::string s = python_number_text(v.as<StrObj>()->s, true);
    char* end = nullptr;
    double d = s.empty() ? 0.0 : std::strtod(s.c_str(), &end);
    if (!s.empty() && end == s.c_str() + s.size()) return Value::number(d);
    fail("could not convert string to float: " + repr(v));
  }
  fail(std::string("float() argument must be a number, str or one-element tensor, not ") + type_name(v));
}

// round(int, ndigits < 0) in integers, half to even, as Python: round(25, -1) is 20,
// and no int passes through a double (which would change 2**62 + 1).
Value round_int(int64_t x, int64_t ndigits) {
  if (ndigits >= 0) return Value::integer(x);
  if (ndigits < -38) return Value::integer(0);  // 10**39 > 2 * |x|: rounds to 0
  __int128 scale = 1;
  for (int64_t k = 0; k < -ndigits; ++k) scale *= 10;
  __int128 q = x / scale, r = x % scale;
  if (r < 0) r += scale, q -= 1;  // floor division
  if (2 * r > scale || (2 * r == scale && (q & 1))) q += 1;
  __int128 out = q * scale;
  if (out > INT64_MAX || out < INT64_MIN) fail("integer overflow in round()");
  return Value::integer(static_cast<int64_t>(out));
}

// round(float, ndigits): the correctly rounded decimal (printf's, half to even on the
// exact binary value), as Python's: round(2.675, 2) is 2.67, for 2.675 is a little
// less than it reads; x * 100 would round up first.
double round_float(double x, int64_t ndigits) {
  if (!std::isfinite(x) || ndigits > 323) return x;
  if (ndigits < -308) return 0.0 * x;
  if (ndigits >= 0) {
    std::string text(static_cast<size_t>(std::snprintf(nullptr, 0, "%.*f", static_cast<int>(ndigits), x)), '\0');
    std::snprintf(text.data(), text.size() + 1, "%.*f", static_cast<int>(ndigits), x);
    return std::strtod(text.c_str(), nullptr);
  }
  double scale = std::pow(10.0, static_cast<double>(-ndigits));
  double y = x / scale, z = std::nearbyint(y);
  double r = z * scale;
  return std::isfinite(r) ? r : x;
}

// round(number, ndigits): Python's on numbers; of a tensor, the op round (half to
// even, elementwise).
Value round_builtin(Evaluator& ev, CallArgs& a) {
  if (a.pos.size() == 1 && a.pos[0].tag == Tag::Tensor) return op_functions().at("round")(ev, a);
  Bound b = bind("round", a, {"number", "ndigits"}, 1);
  double x = as_num(b[0], "round()");
  bool is_int = b[0].tag == Tag::Int || b[0].tag == Tag::Bool;
  if (!b.has(1)) {
    if (is_int) return Value::integer(int_of(b[0]));
    return Value::integer(int_from_double(std::nearbyint(x), "round()"));
  }
  int64_t n = as_python_int(b[1], "round(): ndigits");
  return is_int ? round_int(int_of(b[0]), n) : Value::number(round_float(x, n));
}

// divmod(a, b): (a // b, a % b), with their errors (Note [Integer overflow] in
// operators.cpp).
Value divmod_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("divmod", a, {"a", "b"}, 2);
  if (!b[0].is_num() || !b[1].is_num())
    fail(std::string("divmod() needs two numbers, got ") + type_name(b[0]) + " and " + type_name(b[1]));
  return make_tuple({binary_op(lang::BinaryOp::FloorDiv, b[0], b[1]), binary_op(lang::BinaryOp::Mod, b[0], b[1])});
}

// The inverse of x modulo m (m > 0), for pow with a negative exponent.
int64_t inverse_mod(int64_t x, int64_t m) {
  __int128 r0 = m, r1 = ((x % m) + m) % m, t0 = 0, t1 = 1;
  while (r1 != 0) {
    __int128 q = r0 / r1;
    std::tie(r0, r1) = std::make_pair(r1, r0 - q * r1);
    std::tie(t0, t1) = std::make_pair(t1, t0 - q * t1);
  }
  if (r0 != 1) fail("pow(): base is not invertible for the given modulus");
  return static_cast<int64_t>(((t0 % m) + m) % m);
}

// pow(base, exp, mod) on ints, in 128-bit products (no overflow); the result has the
// sign of mod, as Python's %.
Value pow_mod(int64_t base, int64_t exp, int64_t mod) {
  if (mod == 0) fail("pow(): the modulus must not be 0");
  __int128 m = mod < 0 ? -static_cast<__int128>(mod) : mod;
  if (exp < 0) {
    if (m > INT64_MAX) fail("pow(): the modulus is too large for a negative exponent");
    base = inverse_mod(base, static_cast<int64_t>(m));
  }
  unsigned __int128 e = exp < 0 ? static_cast<unsigned __int128>(-static_cast<__int128>(exp)) : exp;
  __int128 r = 1 % m, x = ((base % m) + m) % m;
  for (; e; e >>= 1) {
    if (e & 1) r = r * x % m;
    x = x * x % m;
  }
  if (mod < 0 && r != 0) r -= m;
  return Value::integer(static_cast<int64_t>(r));
}

// pow(base, exp[, mod]): Python's on numbers (base ** exp, its errors included); the
// op table's pow on tensors.
Value pow_builtin(Evaluator& ev, CallArgs& a) {
  for (auto& v : a.pos)
    if (v.tag == Tag::Tensor) return op_functions().at("pow")(ev, a);
  Bound b = bind("pow", a, {"base", "exp", "mod"}, 2);
  if (!b.has(2)) return binary_op(lang::BinaryOp::Pow, b[0], b[1]);
  for (size_t k = 0; k < 3; ++k)
    if (b[k].tag != Tag::Int && b[k].tag != Tag::Bool)
      fail(std::string("pow() with a modulus needs three ints, got ") + type_name(b[k]));
  return pow_mod(int_of(b[0]), int_of(b[1]), int_of(b[2]));
}


Value abs_builtin(Evaluator& ev, CallArgs& a) {
  if (a.pos.size() == 1 && a.pos[0].tag == Tag::Tensor) return op_functions().at("abs")(ev, a);
  Bound b = bind("abs", a, {"x"}, 1);
  if (b[0].tag == Tag::Int) {
    if (b[0].i == INT64_MIN) fail("integer overflow in abs()");
    return Value::integer(b[0].i < 0 ? -b[0].i : b[0].i);
  }
  if (b[0].tag == Tag::Bool) return Value::integer(b[0].b);
  return Value::number(std::fabs(as_num(b[0], "abs()")));
}

// max and min: of an iterable or of the arguments, with key=; of a tensor, the op's.
Value extremum(Evaluator& ev, CallArgs& a, bool is_max) {
  const char* name = is_max ? "max" : "min";
  if (!a.pos.empty() && a.pos[0].tag == Tag::Tensor) return op_functions().at(name)(ev, a);
  Value key;
  for (auto it = a.kw.begin(); it != a.kw.end(); ++it)
    if (it->first == "key") {
      key = it->second;
      a.kw.erase(it);
      break;
    }
  if (!a.kw.empty()) fail_unexpected_keyword(name, a.kw[0].first, {"key"});
  std::vector<Value> items = a.pos.size() == 1 ? ev.iterate(a.pos[0]) : a.pos;
  if (items.empty()) fail(std::string(name) + "() of an empty sequence");
  size_t best = 0;
  Value best_key;
  for (size_t k = 0; k < items.size(); ++k) {
    Value kv = items[k];
    if (!key.is_none()) {
      CallArgs ka;
      ka.pos.push_back(items[k]);
      kv = ev.call_value(key, ka);
    }
    if (k == 0) {
      best_key = kv;
      continue;
    }
    int c = compare_for_sort(kv, best_key, is_max ? "max()" : "min()");
    if (is_max ? c > 0 : c < 0) {
      best = k;
      best_key = kv;
    }
  }
  return items[best];
}

Value max_builtin(Evaluator& ev, CallArgs& a) { return extremum(ev, a, true); }
Value min_builtin(Evaluator& ev, CallArgs& a) { return extremum(ev, a, false); }

Value sum_builtin(Evaluator& ev, CallArgs& a) {
  if (!a.pos.empty() && a.pos[0].tag == Tag::Tensor) return op_functions().at("sum")(ev, a);
  Bound b = bind("sum", a, {"iterable", "start"}, 1);
  Value total = b.given[1] ? b[1] : Value::integer(0);
  for (auto& x : ev.iterate(b[0])) total = binary_op(lang::BinaryOp::Add, total, x);
  return total;
}

const BuiltinEntry kNumberBuiltins[] = {
    {"int", int_builtin, "int(x=0)",
     "x as an int: a float truncated, a str parsed, a one-element tensor read. Example: int(\"42\")"},
    {"float", float_builtin, "float(x=0.0)",
     "x as a float: a number, a str (\"inf\" and \"nan\" too) or a one-element tensor. Example: float(\"1e-3\")"},
    {"abs", abs_builtin, "abs(x)", "The absolute value of a number; of a tensor, elementwise. Example: abs(-3)"},
    {"max", max_builtin, "max(iterable, key=none) or max(a, b, ...)",
     "The largest item (the first of equals); of a tensor, as the op max(input, dim=none, keepdim=false). "
     "Example: max([(\"a\", 2), (\"b\", 5)], key=fn(s) = s[1])"},
    {"min", min_builtin, "min(iterable, key=none) or min(a, b, ...)",
     "The smallest item (the first of equals); of a tensor, as the op min(input, dim=none, keepdim=false). "
     "Example: min(3, 1, 2)"},
    {"sum", sum_builtin, "sum(iterable, start=0)",
     "start plus every item; of a tensor, as the op sum(input, dims=[], keepdim=false). Example: sum(randn(2, 3), "
     "dim=1)"},
    {"round", round_builtin, "round(number, ndigits=none)",
     "number rounded half to even, to an int, or to ndigits decimals; of a tensor, the op round. "
     "Example: round(2.675, 2)"},
    {"divmod", divmod_builtin, "divmod(a, b)", "The tuple (a // b, a % b). Example: divmod(7, 2)"},
    {"pow", pow_builtin, "pow(base, exp, mod=none)",
     "base ** exp, or with mod that modulo mod in exact integers; of tensors, the op pow. Example: pow(3, -1, 7)"},
};

}  // namespace

const BuiltinLibrary kNumberLibrary = {"numbers", nullptr, kNumberBuiltins, nullptr};

}  // namespace nabla::interp
