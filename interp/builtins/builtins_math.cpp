// The native `math` module (`import math`): Python's functions of one float and its
// constants pi, e, inf and nan. The table at the end is this family's (Note [Builtin
// tables]).
#include <cmath>

#include "interp/builtins/builtins_internal.hpp"

namespace nabla::interp {

namespace {

// sqrt, exp, ...: f of one number, `name` in the errors.
Value of_number(const char* name, double (*f)(double), CallArgs& a) {
  Bound b = bind(name, a, {"x"}, 1);
  return Value::number(f(as_num(b[0], std::string(name) + "()")));
}
Value sqrt_builtin(Evaluator&, CallArgs& a) { return of_number("sqrt", [](double x) { return std::sqrt(x); }, a); }
Value exp_builtin(Evaluator&, CallArgs& a) { return of_number("exp", [](double x) { return std::exp(x); }, a); }
Value log_builtin(Evaluator&, CallArgs& a) { return of_number("log", [](double x) { return std::log(x); }, a); }
Value sin_builtin(Evaluator&, CallArgs& a) { return of_number("sin", [](double x) { return std::sin(x); }, a); }
Value cos_builtin(Evaluator&, CallArgs& a) { return of_number("cos", [](double x) { return std::cos(x); }, a); }
Value tan_builtin(Evaluator&, CallArgs& a) { return of_number("tan", [](double x) { return std::tan(x); }, a); }
Value tanh_builtin(Evaluator&, CallArgs& a) { return of_number("tanh", [](double x) { return std::tanh(x); }, a); }
Value fabs_builtin(Evaluator&, CallArgs& a) { return of_number("fabs", [](double x) { return std::fabs(x); }, a); }

Value floor_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("floor", a, {"x"}, 1);
  return Value::integer(int_from_double(std::floor(as_num(b[0], "floor()")), "floor()"));
}

Value ceil_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("ceil", a, {"x"}, 1);
  return Value::integer(int_from_double(std::ceil(as_num(b[0], "ceil()")), "ceil()"));
}

Value isnan_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("isnan", a, {"x"}, 1);
  return Value::boolean(std::isnan(as_num(b[0], "isnan()")));
}

Value isinf_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("isinf", a, {"x"}, 1);
  return Value::boolean(std::isinf(as_num(b[0], "isinf()")));
}

void math_constants(NamedValues& out) {
  out.emplace_back("pi", Value::number(M_PI));
  out.emplace_back("e", Value::number(M_E));
  out.emplace_back("inf", Value::number(INFINITY));
  out.emplace_back("nan", Value::number(NAN));
}

const BuiltinEntry kMathFunctions[] = {
    {"sqrt", sqrt_builtin, "sqrt(x)", "The square root of x (nan below 0). Example: math.sqrt(2)"},
    {"exp", exp_builtin, "exp(x)", "e to the power x. Example: math.exp(1)"},
    {"log", log_builtin, "log(x)", "The natural logarithm of x. Example: math.log(10)"},
    {"sin", sin_builtin, "sin(x)", "The sine of x radians. Example: math.sin(math.pi / 2)"},
    {"cos", cos_builtin, "cos(x)", "The cosine of x radians. Example: math.cos(0)"},
    {"tan", tan_builtin, "tan(x)", "The tangent of x radians. Example: math.tan(0.5)"},
    {"tanh", tanh_builtin, "tanh(x)", "The hyperbolic tangent of x. Example: math.tanh(1)"},
    {"fabs", fabs_builtin, "fabs(x)", "The absolute value of x as a float. Example: math.fabs(-2)"},
    {"floor", floor_builtin, "floor(x)", "The largest int not above x. Example: math.floor(2.7)"},
    {"ceil", ceil_builtin, "ceil(x)", "The smallest int not below x. Example: math.ceil(2.1)"},
    {"isnan", isnan_builtin, "isnan(x)", "Whether x is a NaN. Example: math.isnan(float(\"nan\"))"},
    {"isinf", isinf_builtin, "isinf(x)", "Whether x is infinite. Example: math.isinf(float(\"inf\"))"},
};

}  // namespace

const BuiltinLibrary kMathLibrary = {"math", "math", kMathFunctions, math_constants};

}  // namespace nabla::interp
