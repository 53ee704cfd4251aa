// Python builtins with logic of their own (len, range, min/max, sorted, int, float,
// round) and the native `math` module. One-line builtins stay with their
// registration in builtins.cpp.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <thread>
#include <cstring>
#include <fstream>
#include <sstream>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "interp/builtins/builtins_internal.hpp"
#include "tensor/file_kind.hpp"

namespace nabla::interp {

Value len_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("len", a, {"obj"}, 1);
  const Value& v = b[0];
  switch (v.tag) {
    case Tag::Str: return Value::integer(static_cast<int64_t>(v.as<StrObj>()->s.size()));
    case Tag::List:
    case Tag::Tuple: return Value::integer(static_cast<int64_t>(v.as<ListObj>()->items.size()));
    case Tag::Dict: return Value::integer(static_cast<int64_t>(v.as<DictObj>()->entries.size()));
    case Tag::Range: return Value::integer(v.as<RangeObj>()->size());
    case Tag::Tensor:
      if (v.t.dim() == 0) fail("len() of a 0-d tensor");
      return Value::integer(v.t.size(0));
    case Tag::Instance:  // a model with a __len__ method (nn.Sequential)
      if (v.as<InstanceObj>()->cls->info->methods.count("__len__")) {
        CallArgs none;
        return ev.call_method(v, "__len__", none);
      }
      [[fallthrough]];
    default: fail(std::string("object of type '") + type_name(v) + "' has no len()");
  }
}

Value range_builtin(Evaluator&, CallArgs& a) {
  if (!a.kw.empty()) fail("range() takes no keyword arguments");
  auto r = std::make_shared<RangeObj>();
  if (a.pos.size() == 1) {
    r->stop = as_int(a.pos[0], "range()");
  } else if (a.pos.size() == 2 || a.pos.size() == 3) {
    r->start = as_int(a.pos[0], "range()");
    r->stop = as_int(a.pos[1], "range()");
    if (a.pos.size() == 3) r->step = as_int(a.pos[2], "range()");
    if (r->step == 0) fail("range() step must not be zero");
  } else {
    fail("range() takes 1 to 3 arguments but " + std::to_string(a.pos.size()) + " were given");
  }
  return Value::object(Tag::Range, r);
}

Value extremum_builtin(Evaluator& ev, CallArgs& a, bool is_max) {
  const char* name = is_max ? "max" : "min";
  if (!a.pos.empty() && a.pos[0].tag == Tag::Tensor) return op_functions()[name](ev, a);
  Value key;
  for (auto it = a.kw.begin(); it != a.kw.end(); ++it)
    if (it->first == "key") {
      key = it->second;
      a.kw.erase(it);
      break;
    }
  if (!a.kw.empty()) fail(std::string(name) + "() got an unexpected keyword argument '" + a.kw[0].first + "'");
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
  bool rev = b.has(2) && truthy(b[2]);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    int c = compare_for_sort(keys[x], keys[y], "sorted()");
    return rev ? c > 0 : c < 0;
  });
  std::vector<Value> out;
  for (size_t k : order) out.push_back(items[k]);
  return make_list(std::move(out));
}

Value int_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("int", a, {"x"}, 0);
  const Value& v = b[0];
  if (!b.given[0]) return Value::integer(0);
  switch (v.tag) {
    case Tag::Int: return v;
    case Tag::Bool: return Value::integer(v.b);
    case Tag::Float:
      return Value::integer(int_from_double(std::trunc(v.f), "int()"));
    case Tag::Str: {
      const std::string& s = v.as<StrObj>()->s;
      try {
        size_t used = 0;
        long long r = std::stoll(s, &used, 10);
        std::string rest = s.substr(used);
        if (rest.find_first_not_of(" \t\n") == std::string::npos) return Value::integer(r);
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

Value float_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("float", a, {"x"}, 0);
  const Value& v = b[0];
  if (!b.given[0]) return Value::number(0.0);
  if (v.is_num()) return Value::number(v.as_double());
  if (v.tag == Tag::Tensor) return Value::number(v.t.item());
  if (v.tag == Tag::Str) {
    std::string s = v.as<StrObj>()->s;
    if (s == "inf" || s == "+inf") return Value::number(INFINITY);
    if (s == "-inf") return Value::number(-INFINITY);
    if (s == "nan") return Value::number(NAN);
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (end != s.c_str() && std::string(end).find_first_not_of(" \t\n") == std::string::npos) return Value::number(d);
    fail("could not convert string to float: " + repr(v));
  }
  fail(std::string("float() argument must be a number, str or one-element tensor, not ") + type_name(v));
}

// round(int, ndigits < 0) in integers, half to even, as Python: round(25, -1) is 20,
// and no int passes through a double (which would change 2**62 + 1).
static Value round_int(int64_t x, int64_t ndigits) {
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
static double round_float(double x, int64_t ndigits) {
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

Value round_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("round", a, {"number", "ndigits"}, 1);
  double x = as_num(b[0], "round()");
  bool is_int = b[0].tag == Tag::Int || b[0].tag == Tag::Bool;
  if (!b.has(1)) {
    if (is_int) return Value::integer(int_of(b[0]));
    return Value::integer(int_from_double(std::nearbyint(x), "round()"));
  }
  int64_t n = as_int(b[1], "round(): ndigits");
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
static int64_t inverse_mod(int64_t x, int64_t m) {
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
static Value pow_mod(int64_t base, int64_t exp, int64_t mod) {
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
Value pow_builtin(Evaluator& ev, CallArgs& a, const Fn& tensor_pow) {
  for (auto& v : a.pos)
    if (v.tag == Tag::Tensor) return tensor_pow(ev, a);
  Bound b = bind("pow", a, {"base", "exp", "mod"}, 2);
  if (!b.has(2)) return binary_op(lang::BinaryOp::Pow, b[0], b[1]);
  for (size_t k = 0; k < 3; ++k)
    if (b[k].tag != Tag::Int && b[k].tag != Tag::Bool)
      fail(std::string("pow() with a modulus needs three ints, got ") + type_name(b[k]));
  return pow_mod(int_of(b[0]), int_of(b[1]), int_of(b[2]));
}

std::shared_ptr<Module> math_module(Evaluator& ev) {
  auto m = std::make_shared<Module>();
  m->name = "math";
  m->set("pi", Value::number(M_PI));
  m->set("e", Value::number(M_E));
  m->set("inf", Value::number(INFINITY));
  m->set("nan", Value::number(NAN));
  auto unary = [&](const char* nm, double (*f)(double)) {
    std::string name = nm;
    m->set(name, make_native(name, [name, f](Evaluator&, CallArgs& a) {
             Bound b = bind(name, a, {"x"}, 1);
             return Value::number(f(as_num(b[0], name + "()")));
           }));
  };
  unary("sqrt", [](double x) { return std::sqrt(x); });
  unary("exp", [](double x) { return std::exp(x); });
  unary("log", [](double x) { return std::log(x); });
  unary("sin", [](double x) { return std::sin(x); });
  unary("cos", [](double x) { return std::cos(x); });
  unary("tan", [](double x) { return std::tan(x); });
  unary("tanh", [](double x) { return std::tanh(x); });
  unary("fabs", [](double x) { return std::fabs(x); });
  m->set("floor", make_native("floor", [](Evaluator&, CallArgs& a) {
           Bound b = bind("floor", a, {"x"}, 1);
           return Value::integer(int_from_double(std::floor(as_num(b[0], "floor()")), "floor()"));
         }));
  m->set("ceil", make_native("ceil", [](Evaluator&, CallArgs& a) {
           Bound b = bind("ceil", a, {"x"}, 1);
           return Value::integer(int_from_double(std::ceil(as_num(b[0], "ceil()")), "ceil()"));
         }));
  m->set("isnan", make_native("isnan", [](Evaluator&, CallArgs& a) {
           Bound b = bind("isnan", a, {"x"}, 1);
           return Value::boolean(std::isnan(as_num(b[0], "isnan()")));
         }));
  m->set("isinf", make_native("isinf", [](Evaluator&, CallArgs& a) {
           Bound b = bind("isinf", a, {"x"}, 1);
           return Value::boolean(std::isinf(as_num(b[0], "isinf()")));
         }));
  (void)ev;
  return m;
}

// ord(c): the code of a one-character (one-byte) string; chr(i): the inverse.
Value ord_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("ord", a, {"c"}, 1);
  if (b[0].tag != Tag::Str || b[0].as<StrObj>()->s.size() != 1)
    fail("ord() expected a string of one character, got " + repr(b[0]));
  return Value::integer(static_cast<unsigned char>(b[0].as<StrObj>()->s[0]));
}

Value chr_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("chr", a, {"i"}, 1);
  int64_t i = as_int(b[0], "chr()");
  if (i < 0 || i > 255) fail("chr() expected a code in [0, 255], got " + std::to_string(i));
  return make_str(std::string(1, static_cast<char>(i)));
}

// read_text(path): a whole file as a string (bytes as they are).
Value read_text_builtin(Evaluator& ev, CallArgs& a) {
  ev.check_sandbox("read_text()");
  Bound b = bind("read_text", a, {"path"}, 1);
  if (b[0].tag != Tag::Str) fail("read_text() expected a path string, got " + repr(b[0]));
  const std::string& path = b[0].as<StrObj>()->s;
  if (std::string problem = regular_file_problem(path); !problem.empty())
    fail("cannot open " + path + ": " + problem);  // a FIFO would block, /dev/zero never end
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot open " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return make_str(text.str());
}

// Sleeps in slices of at most 20 ms, so that Ctrl-C ends a long sleep at once
// (Note [Interrupts] in interp/interpreter.cpp); `seconds` may be inf.
static void sleep_interruptibly(Evaluator& ev, double seconds) {
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  for (;;) {
    ev.check_interrupt();
    double left = seconds - std::chrono::duration<double>(Clock::now() - start).count();
    if (left <= 0) return;
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(left, 0.02)));
  }
}

// The native `time` module: perf_counter() (monotonic seconds, for timing),
// time() (seconds since the epoch) and sleep(seconds).
std::shared_ptr<Module> time_module(Evaluator&) {
  auto m = std::make_shared<Module>();
  m->name = "time";
  m->set("perf_counter", make_native("perf_counter", [](Evaluator&, CallArgs& a) {
           bind("perf_counter", a, {}, 0);
           auto now = std::chrono::steady_clock::now().time_since_epoch();
           return Value::number(std::chrono::duration<double>(now).count());
         }));
  m->set("sleep", make_native("sleep", [](Evaluator& ev, CallArgs& a) {
           ev.check_sandbox("time.sleep()");
           Bound b = bind("sleep", a, {"seconds"}, 1);
           double s = as_num(b[0], "sleep(): seconds");
           if (!(s >= 0)) fail("sleep(): seconds must be a non-negative number, got " + float_repr(s));
           sleep_interruptibly(ev, s);
           return Value();
         }));
  m->set("time", make_native("time", [](Evaluator&, CallArgs& a) {
           bind("time", a, {}, 0);
           auto now = std::chrono::system_clock::now().time_since_epoch();
           return Value::number(std::chrono::duration<double>(now).count());
         }));
  return m;
}

}  // namespace nabla::interp
