// Rows of the elementwise ops. Backward rules are written with the functional API,
// so they record nodes under create_graph and grad of grad works.
#include <cmath>

#include "autograd/ops/common.hpp"
#include "tensor/scalar_ops.hpp"

namespace nabla {

namespace {

std::vector<TensorMeta> infer_float_unary(const TensorList& in, const Attrs&) {
  return one(in[0].sizes(), float_result(in[0].dtype()));
}
std::vector<TensorMeta> infer_numeric_unary(const TensorList& in, const Attrs&) {
  return one(in[0].sizes(), in[0].dtype());
}

Tensor zero_scalar() { return wrapped_scalar(0.0); }

TensorList backward_neg(BackwardContext& c) { return {neg(c.grad())}; }
TensorList backward_exp(BackwardContext& c) { return {c.grad() * c.output(0)}; }
TensorList backward_log(BackwardContext& c) { return {c.grad() / c.input(0)}; }
TensorList backward_sqrt(BackwardContext& c) { return {c.grad() / (c.output(0) * 2.0)}; }
TensorList backward_rsqrt(BackwardContext& c) {
  Tensor y = c.output(0);
  return {c.grad() * (y * y * y) * -0.5};
}
TensorList backward_abs(BackwardContext& c) { return {c.grad() * sign(c.input(0))}; }
TensorList backward_sign(BackwardContext& c) { return {zeros_like(c.grad())}; }
TensorList backward_sin(BackwardContext& c) { return {c.grad() * cos(c.input(0))}; }
TensorList backward_cos(BackwardContext& c) { return {neg(c.grad() * sin(c.input(0)))}; }
TensorList backward_tanh(BackwardContext& c) {
  Tensor y = c.output(0);
  return {c.grad() * (1.0 - y * y)};
}
TensorList backward_sigmoid(BackwardContext& c) {
  Tensor y = c.output(0);
  return {c.grad() * (y * (1.0 - y))};
}
// relu's output is positive exactly where its input is, so the saved output decides
// (as PyTorch's threshold_backward(grad, result, 0)).
TensorList backward_relu(BackwardContext& c) { return {threshold_backward(c.grad(), c.output(0), 0.0)}; }
TensorList backward_gelu(BackwardContext& c) {
  // d/dx x*Phi(x) = Phi(x) + x*phi(x)
  Tensor x = c.input(0);
  Tensor cdf = (erf(x * M_SQRT1_2) + 1.0) * 0.5;
  Tensor pdf = exp(x * x * -0.5) * (0.5 * M_2_SQRTPI * M_SQRT1_2);
  return {c.grad() * (cdf + x * pdf)};
}
TensorList backward_silu(BackwardContext& c) {
  Tensor x = c.input(0);
  Tensor s = sigmoid(x);
  return {c.grad() * (s * (1.0 + x * (1.0 - s)))};
}
TensorList backward_erf(BackwardContext& c) {
  Tensor x = c.input(0);
  return {c.grad() * (exp(neg(x * x)) * M_2_SQRTPI)};
}

TensorList backward_log1p(BackwardContext& c) { return {c.grad() / (c.input(0) + 1.0)}; }
TensorList backward_expm1(BackwardContext& c) { return {c.grad() * (c.output(0) + 1.0)}; }
// The gamma family differentiates into itself: lgamma' = digamma, digamma' =
// polygamma(1, x), polygamma(n)' = polygamma(n + 1), as PyTorch's formulas, so every
// order of gradient is rows of the table.
TensorList backward_lgamma(BackwardContext& c) { return {c.grad() * digamma(c.input(0))}; }
TensorList backward_digamma(BackwardContext& c) { return {c.grad() * polygamma(c.input(0), {{"n", 1.0}})}; }
// floor, ceil, round, trunc: piecewise constant, so a zero gradient (as PyTorch's).
TensorList backward_rounding(BackwardContext& c) { return {zeros_like(c.grad())}; }
TensorList backward_hardswish(BackwardContext& c) {
  // 0 below -3, x / 3 + 1/2 on [-3, 3], 1 above (PyTorch's sides of each bound)
  Tensor x = c.input(0);
  Tensor inside = where(le(x, wrapped_scalar(3.0)), c.grad() * (x / 3.0 + 0.5), c.grad());
  return {where(lt(x, wrapped_scalar(-3.0)), zero_scalar(), inside)};
}
TensorList backward_mish(BackwardContext& c) {
  // d/dx x tanh(softplus(x)) = tanh(sp) + x sigmoid(x) (1 - tanh(sp)^2)
  Tensor x = c.input(0);
  Tensor t = tanh(softplus(x));
  return {c.grad() * (t + x * sigmoid(x) * (1.0 - t * t))};
}

// The parametric ops (Note [Scalar attributes of unary ops]): their rules read the
// attributes by the names of scalar::scalar_attrs.
TensorList backward_softplus(BackwardContext& c) {
  Tensor z = c.input(0) * c.attrs().f("beta");
  return {where(gt(z, wrapped_scalar(c.attrs().f("threshold"))), c.grad(), c.grad() * sigmoid(z))};
}
TensorList backward_elu(BackwardContext& c) {
  Tensor x = c.input(0);
  return {where(gt(x, zero_scalar()), c.grad(), c.grad() * exp(x) * c.attrs().f("alpha"))};
}
TensorList backward_leaky_relu(BackwardContext& c) {
  Tensor x = c.input(0);
  return {where(gt(x, zero_scalar()), c.grad(), c.grad() * c.attrs().f("negative_slope"))};
}
TensorList backward_hardtanh(BackwardContext& c) {
  // PyTorch's: zero at the bounds as well as beyond them
  Tensor x = c.input(0);
  Tensor inside = mul(gt(x, wrapped_scalar(c.attrs().f("min_val"))), lt(x, wrapped_scalar(c.attrs().f("max_val"))));
  return {where(inside, c.grad(), zero_scalar())};
}
TensorList backward_logit(BackwardContext& c) {
  // 1 / (x (1 - x)); with eps, zero where the forward clamped x to [eps, 1 - eps]
  Tensor x = c.input(0);
  Tensor g = c.grad() / (x * (1.0 - x));
  if (c.attrs().is_none("eps") || c.attrs().f("eps") < 0) return {g};
  double eps = c.attrs().f("eps");
  Tensor inside = mul(ge(x, wrapped_scalar(eps)), le(x, wrapped_scalar(1.0 - eps)));
  return {where(inside, g, zero_scalar())};
}
TensorList backward_polygamma(BackwardContext& c) {
  return {c.grad() * polygamma(c.input(0), {{"n", c.attrs().f("n") + 1.0}})};
}
// polygamma's order: a whole number from 0 up, as torch.polygamma's int n, and at most
// 10^6 here; the message names that bound ("from 0 up, got 2147483648" read as a
// contradiction).
std::vector<TensorMeta> infer_polygamma(const TensorList& in, const Attrs& a) {
  double n = a.f("n");
  if (!(n >= 0) || n != std::floor(n) || n > 1e6)
    throw Error("polygamma: n must be a whole number from 0 to 1000000 (the order of the derivative of digamma), got " +
                attr_value_str(a.value("n")));
  return infer_float_unary(in, a);
}
std::vector<TensorMeta> infer_hardtanh(const TensorList& in, const Attrs& a) {
  double lo = a.f("min_val"), hi = a.f("max_val");
  if (lo > hi)
    throw Error("hardtanh: min_val (" + attr_value_str(a.value("min_val")) + ") must not be greater than max_val (" +
                attr_value_str(a.value("max_val")) + ")");
  return infer_float_unary(in, a);
}
std::vector<TensorMeta> infer_softplus(const TensorList& in, const Attrs& a) {
  if (a.f("beta") == 0) throw Error("softplus: beta must not be 0 (it divides by beta)");
  return infer_float_unary(in, a);
}

// The shape rule of a binary op: the broadcast shape and the inputs' result type,
// made a float for NABLA_FLOAT_RESULT_BINARY_OPS (true division, like Python's / and
// PyTorch's div; pow).
template <OpId op>
std::vector<TensorMeta> infer_binary(const TensorList& in, const Attrs&) {
  auto m = one(broadcast_shapes(op_name(op), in[0].sizes(), in[1].sizes()), result_type(in));
  if constexpr (has_float_result(op)) m[0].dtype = float_result(m[0].dtype);
  return m;
}
std::vector<TensorMeta> infer_sub(const TensorList& in, const Attrs& attrs) {
  if (in[0].dtype() == DType::b8 && in[1].dtype() == DType::b8)
    throw Error("sub: subtracting two bool tensors is not supported; use logical ops or convert with to_dtype");
  return infer_binary<OpId::sub>(in, attrs);
}
std::vector<TensorMeta> infer_compare(const TensorList& in, const Attrs&) {
  return one(broadcast_shapes("comparison", in[0].sizes(), in[1].sizes()), DType::b8);
}

std::vector<TensorMeta> infer_remainder(const TensorList& in, const Attrs& attrs) {
  if (in[0].dtype() == DType::b8 && in[1].dtype() == DType::b8)
    throw Error("remainder: not defined for two bool tensors; convert one with to_dtype");
  return infer_binary<OpId::remainder>(in, attrs);
}

TensorList backward_add(BackwardContext& c) {
  return {c.needs_grad(0) ? reduce_to_shape(c.grad(), c.input_shape(0)) : Tensor(),
          c.needs_grad(1) ? reduce_to_shape(c.grad(), c.input_shape(1)) : Tensor()};
}
TensorList backward_sub(BackwardContext& c) {
  return {c.needs_grad(0) ? reduce_to_shape(c.grad(), c.input_shape(0)) : Tensor(),
          c.needs_grad(1) ? reduce_to_shape(neg(c.grad()), c.input_shape(1)) : Tensor()};
}
TensorList backward_mul(BackwardContext& c) {
  return {c.needs_grad(0) ? reduce_to_shape(c.grad() * c.input(1), c.input_shape(0)) : Tensor(),
          c.needs_grad(1) ? reduce_to_shape(c.grad() * c.input(0), c.input_shape(1)) : Tensor()};
}
TensorList backward_div(BackwardContext& c) {
  Tensor b = c.input(1);
  Tensor ga, gb;
  if (c.needs_grad(0)) ga = reduce_to_shape(c.grad() / b, c.input_shape(0));
  if (c.needs_grad(1)) gb = reduce_to_shape(neg(c.grad() * c.input(0)) / (b * b), c.input_shape(1));
  return {ga, gb};
}
// f(t) for an input that may be a number (a wrapped f64, as x ** (1/3) or atan2(x, 2.0)
// make): two numbers combine in the default f32 under type promotion, which made those
// gradients good to 7 digits only in f64. So a number is taken as a plain 0-dim f64
// view for the arithmetic, and the result is wrapped again: f64 precision, and still
// no widening of the tensors it meets.
template <class F>
Tensor on_number(const Tensor& t, F f) {
  if (!t.impl()->wrapped_number) return f(t);
  Tensor r = f(alias(t));
  r.impl()->wrapped_number = true;
  return r;
}

// log of pow's base: a number base (2 ** x) in f64, as PyTorch's Scalar::log (an int
// one was logged in f32, which made the gradient of 2 ** x good to 8 digits in f64).
Tensor log_of_base(const Tensor& a) {
  if (!a.impl()->wrapped_number) return log(a);
  Tensor r = log(to_dtype(alias(a), DType::f64));
  r.impl()->wrapped_number = true;
  return r;
}

// As PyTorch's pow_backward_self and pow_backward_exponent: a zero exponent's
// gradient in the base is 0 (b * a^(b-1) was 0 * 0^-1, NaN at a = 0, and NaN at a NaN
// a), and 0^b with b >= 0 has derivative 0 in b (not the NaN of log(0)).
TensorList backward_pow(BackwardContext& c) {
  Tensor a = c.input(0), b = c.input(1);
  Tensor ga, gb;
  if (c.needs_grad(0)) {
    Tensor less_one = on_number(b, [](const Tensor& e) { return e - 1.0; });
    Tensor zero_exponent = eq(b, zero_scalar());
    ga = reduce_to_shape(where(zero_exponent, zero_scalar(), c.grad() * b * pow(a, less_one)), c.input_shape(0));
  }
  if (c.needs_grad(1)) {
    Tensor at_zero = mul(eq(a, zero_scalar()), ge(b, zero_scalar()));
    gb = reduce_to_shape(where(at_zero, zero_scalar(), c.grad() * c.output(0) * log_of_base(a)), c.input_shape(1));
  }
  return {ga, gb};
}
// maximum/minimum: the gradient goes to the chosen side; ties split it evenly. As
// PyTorch's, only a side that loses a comparison gets none, so where a NaN wins (every
// comparison with it false) both sides get the whole gradient: the NaN's source too.
TensorList backward_extremum(BackwardContext& c, bool is_max) {
  Tensor a = c.input(0), b = c.input(1);
  Tensor share = where(eq(a, b), wrapped_scalar(0.5), wrapped_scalar(1.0));
  auto weight = [&](const Tensor& loses) {
    return to_dtype(where(loses, zero_scalar(), share), c.grad().dtype());
  };
  return {c.needs_grad(0) ? reduce_to_shape(c.grad() * weight(is_max ? lt(a, b) : gt(a, b)), c.input_shape(0))
                          : Tensor(),
          c.needs_grad(1) ? reduce_to_shape(c.grad() * weight(is_max ? gt(a, b) : lt(a, b)), c.input_shape(1))
                          : Tensor()};
}
// remainder(a, b) = a - floor(a / b) b: 1 in a, -floor(a / b) in b.
TensorList backward_remainder(BackwardContext& c) {
  return {
      c.needs_grad(0) ? reduce_to_shape(c.grad(), c.input_shape(0)) : Tensor(),
      c.needs_grad(1) ? reduce_to_shape(neg(c.grad() * floor(c.input(0) / c.input(1))), c.input_shape(1)) : Tensor()};
}
// atan2(a, b): b / (a^2 + b^2) in a, -a / (a^2 + b^2) in b.
TensorList backward_atan2(BackwardContext& c) {
  Tensor a = c.input(0), b = c.input(1);
  auto square = [](const Tensor& t) { return t * t; };
  Tensor r2 = on_number(a, square) + on_number(b, square);
  return {c.needs_grad(0) ? reduce_to_shape(c.grad() * b / r2, c.input_shape(0)) : Tensor(),
          c.needs_grad(1) ? reduce_to_shape(neg(c.grad() * a) / r2, c.input_shape(1)) : Tensor()};
}
// logaddexp(a, b): e^a / (e^a + e^b) = sigmoid(a - b) in a, sigmoid(b - a) in b.
TensorList backward_logaddexp(BackwardContext& c) {
  Tensor a = c.input(0), b = c.input(1);
  return {c.needs_grad(0) ? reduce_to_shape(c.grad() * sigmoid(a - b), c.input_shape(0)) : Tensor(),
          c.needs_grad(1) ? reduce_to_shape(c.grad() * sigmoid(b - a), c.input_shape(1)) : Tensor()};
}
TensorList backward_maximum(BackwardContext& c) { return backward_extremum(c, true); }
TensorList backward_minimum(BackwardContext& c) { return backward_extremum(c, false); }

std::vector<TensorMeta> infer_where(const TensorList& in, const Attrs&) {
  Shape s = broadcast_shapes("where", in[0].sizes(), in[1].sizes(), "condition", "input");
  s = broadcast_shapes("where", s, in[2].sizes(), "condition and input", "other");
  return one(s, result_type({in[1], in[2]}));
}
TensorList backward_where(BackwardContext& c) {
  Tensor cond = c.input(0);
  return {Tensor(),
          c.needs_grad(1) ? reduce_to_shape(where(cond, c.grad(), zero_scalar()), c.input_shape(1)) : Tensor(),
          c.needs_grad(2) ? reduce_to_shape(where(cond, zero_scalar(), c.grad()), c.input_shape(2)) : Tensor()};
}

// threshold_backward(grad, input; threshold): grad and input broadcast, in their
// result type made a float.
std::vector<TensorMeta> infer_threshold_backward(const TensorList& in, const Attrs&) {
  check_floating("threshold_backward", "grad", in[0]);
  Shape s = broadcast_shapes("threshold_backward", in[0].sizes(), in[1].sizes(), "grad", "input");
  return one(s, float_result(result_type(in)));
}
// Linear in grad (the same mask on the incoming gradient); piecewise constant in
// input, whose gradient is zero where it exists: none.
TensorList backward_threshold_backward(BackwardContext& c) {
  Tensor gg = threshold_backward(c.grad(), c.input(1), c.attrs().f("threshold"));
  return {c.needs_grad(0) ? reduce_to_shape(gg, c.input_shape(0)) : Tensor(), Tensor()};
}

std::vector<TensorMeta> infer_clamp(const TensorList& in, const Attrs& a) {
  DType t = in[0].dtype();
  bool float_bound = std::holds_alternative<double>(a.value("min")) || std::holds_alternative<double>(a.value("max"));
  if (float_bound && !is_floating(t)) t = DType::f32;
  return one(in[0].sizes(), t);
}
TensorList backward_clamp(BackwardContext& c) {
  Tensor x = c.input(0);
  Tensor keep = ones(x.sizes(), DType::b8, x.device());
  if (!c.attrs().is_none("min")) keep = mul(keep, ge(x, wrapped_scalar(c.attrs().f("min"))));
  if (!c.attrs().is_none("max")) keep = mul(keep, le(x, wrapped_scalar(c.attrs().f("max"))));
  return {where(keep, c.grad(), zero_scalar())};
}

// Cost: these rows keep the default rule (op_cost): one FLOP per output element,
// whether the op is an add, a comparison or a transcendental (exp, tanh, gelu count
// as one, as FLOP counters count them, not as the instructions they take).
// The CPU kernel of an elementwise op (tensor/cpu/elementwise.cpp makes one per op of
// the list).
KernelFn cpu_kernel(OpId id) {
  switch (id) {
#define NABLA_KERNEL_CASE(name) \
  case OpId::name:              \
    return cpu::name;
    NABLA_ELEMENTWISE_OPS(NABLA_KERNEL_CASE)
#undef NABLA_KERNEL_CASE
    default:
      return nullptr;
  }
}

// The row of a unary op: its kernel, its shape rule (integers kept or made f32, by
// its family in tensor/op_list.hpp) and its one input, "input", come from the list;
// the row gives the backward rule and what it saves.
void unary(std::vector<OpDef>& t, OpId id, BackwardFn b, Saves saves) {
  row(t, id) = {.num_inputs = 1,
                .input_names = {"input"},
                .infer = keeps_integers(id) ? infer_numeric_unary : infer_float_unary,
                .cpu = cpu_kernel(id),
                .backward = b,
                .saves = saves,
                .elementwise = true};
}
// The row of a parametric unary op: a unary row, with the attributes of
// scalar::scalar_attrs (a default of none where the list says so) and a shape rule
// that may check them.
void parametric_unary(std::vector<OpDef>& t, OpId id, BackwardFn b, Saves saves, InferFn infer = infer_float_unary) {
  unary(t, id, b, saves);
  OpDef& r = row(t, id);
  r.infer = infer;
  for (const scalar::ScalarAttr& spec : scalar::scalar_attrs(id)) {
    if (!spec.name) continue;
    r.attrs.push_back({spec.name, AttrKind::number, NoneAttr{}});
    if (!spec.default_none) r.attrs.back().default_value = spec.default_value;
  }
}
// The row of a binary op or comparison: its kernel, its inputs ("self", "other") and
// by default its shape rule come from the list; the row gives the backward rule and
// what it saves.
template <OpId op>
void binary(std::vector<OpDef>& t, BackwardFn b, Saves saves, InferFn infer = infer_binary<op>) {
  row(t, op) = {.num_inputs = 2,
                .input_names = {"self", "other"},
                .infer = infer,
                .cpu = cpu_kernel(op),
                .backward = b,
                .saves = saves,
                .elementwise = true};
}

}  // namespace

void register_elementwise_ops(std::vector<OpDef>& t) {
  unary(t, OpId::neg, backward_neg, {});
  unary(t, OpId::exp, backward_exp, {.outputs = 1});
  unary(t, OpId::log, backward_log, {.inputs = 1});
  unary(t, OpId::sqrt, backward_sqrt, {.outputs = 1});
  unary(t, OpId::rsqrt, backward_rsqrt, {.outputs = 1});
  unary(t, OpId::abs, backward_abs, {.inputs = 1});
  unary(t, OpId::sign, backward_sign, {});
  unary(t, OpId::sin, backward_sin, {.inputs = 1});
  unary(t, OpId::cos, backward_cos, {.inputs = 1});
  unary(t, OpId::tanh, backward_tanh, {.outputs = 1});
  unary(t, OpId::sigmoid, backward_sigmoid, {.outputs = 1});
  unary(t, OpId::relu, backward_relu, {.outputs = 1});
  unary(t, OpId::gelu, backward_gelu, {.inputs = 1});
  unary(t, OpId::silu, backward_silu, {.inputs = 1});
  unary(t, OpId::erf, backward_erf, {.inputs = 1});
  unary(t, OpId::log1p, backward_log1p, {.inputs = 1});
  unary(t, OpId::expm1, backward_expm1, {.outputs = 1});
  unary(t, OpId::lgamma, backward_lgamma, {.inputs = 1});
  unary(t, OpId::digamma, backward_digamma, {.inputs = 1});
  unary(t, OpId::floor, backward_rounding, {});
  unary(t, OpId::ceil, backward_rounding, {});
  unary(t, OpId::round, backward_rounding, {});
  unary(t, OpId::trunc, backward_rounding, {});
  unary(t, OpId::hardswish, backward_hardswish, {.inputs = 1});
  unary(t, OpId::mish, backward_mish, {.inputs = 1});

  parametric_unary(t, OpId::softplus, backward_softplus, {.inputs = 1}, infer_softplus);
  parametric_unary(t, OpId::elu, backward_elu, {.inputs = 1});
  parametric_unary(t, OpId::leaky_relu, backward_leaky_relu, {.inputs = 1});
  parametric_unary(t, OpId::hardtanh, backward_hardtanh, {.inputs = 1}, infer_hardtanh);
  parametric_unary(t, OpId::logit, backward_logit, {.inputs = 1});
  parametric_unary(t, OpId::polygamma, backward_polygamma, {.inputs = 1}, infer_polygamma);

  binary<OpId::add>(t, backward_add, {});
  binary<OpId::sub>(t, backward_sub, {}, infer_sub);
  binary<OpId::mul>(t, backward_mul, {.inputs = 0b11});
  binary<OpId::div>(t, backward_div, {.inputs = 0b11});
  binary<OpId::pow>(t, backward_pow, {.inputs = 0b11, .outputs = 1});
  binary<OpId::maximum>(t, backward_maximum, {.inputs = 0b11});
  binary<OpId::minimum>(t, backward_minimum, {.inputs = 0b11});
  binary<OpId::remainder>(t, backward_remainder, {.inputs = 0b11}, infer_remainder);
  binary<OpId::atan2>(t, backward_atan2, {.inputs = 0b11});
  binary<OpId::logaddexp>(t, backward_logaddexp, {.inputs = 0b11});
  // Comparisons are not differentiable (their output is bool).
#define NABLA_COMPARISON_ROW(name) binary<OpId::name>(t, nullptr, {}, infer_compare);
  NABLA_COMPARISON_OPS(NABLA_COMPARISON_ROW)
#undef NABLA_COMPARISON_ROW
  row(t, OpId::where) = {.num_inputs = 3,
                         .infer = infer_where,
                         .cpu = cpu::where,
                         .backward = backward_where,
                         .saves = {0b001, 0},
                         .elementwise = true};
  row(t, OpId::clamp) = {
      .num_inputs = 1,
      .attrs = {attr_optional("min", AttrKind::number, NoneAttr{}), attr_optional("max", AttrKind::number, NoneAttr{})},
      .infer = infer_clamp,
      .cpu = cpu::clamp,
      .backward = backward_clamp,
      .saves = {1, 0},
      .elementwise = true};
  row(t, OpId::threshold_backward) = {.num_inputs = 2,
                                      .attrs = {attr_optional("threshold", AttrKind::number, 0.0)},
                                      .infer = infer_threshold_backward,
                                      .cpu = cpu::threshold_backward,
                                      .backward = backward_threshold_backward,
                                      .saves = {0b10, 0},
                                      .elementwise = true};
  name_inputs(t, {{OpId::clamp, {"input"}},
                  {OpId::pow, {"self", "exponent"}},
                  {OpId::where, {"condition", "self", "other"}},
                  {OpId::threshold_backward, {"grad", "input"}}});
  // What :help prints for each op of this family; tests/interp/op_docs.cpp runs every example.
  document_ops(t, {{OpId::neg,
                    "The negation -input of each element, as torch.neg. "
                    "Example: neg(tensor([1.0, -2.0]))"},
                   {OpId::exp,
                    "e raised to each element, as torch.exp. "
                    "Example: exp(tensor([0.0, 1.0]))"},
                   {OpId::log,
                    "The natural logarithm of each element, as torch.log. "
                    "Example: log(tensor([1.0, 10.0]))"},
                   {OpId::sqrt,
                    "The square root of each element, as torch.sqrt. "
                    "Example: sqrt(tensor([4.0, 9.0]))"},
                   {OpId::rsqrt,
                    "The reciprocal of the square root of each element, as torch.rsqrt. "
                    "Example: rsqrt(tensor([4.0, 16.0]))"},
                   {OpId::abs,
                    "The absolute value of each element, as torch.abs. "
                    "Example: abs(tensor([-1.5, 2.0]))"},
                   {OpId::sign,
                    "-1, 0 or 1 by the sign of each element, as torch.sign. "
                    "Example: sign(tensor([-2.0, 0.0, 3.0]))"},
                   {OpId::sin,
                    "The sine of each element (in radians), as torch.sin. "
                    "Example: sin(tensor([0.0, 1.5708]))"},
                   {OpId::cos,
                    "The cosine of each element (in radians), as torch.cos. "
                    "Example: cos(tensor([0.0, 3.1416]))"},
                   {OpId::tanh,
                    "The hyperbolic tangent of each element, as torch.tanh. "
                    "Example: tanh(randn(4))"},
                   {OpId::sigmoid,
                    "The logistic function 1 / (1 + exp(-x)) of each element, as torch.sigmoid. "
                    "Example: sigmoid(randn(4))"},
                   {OpId::relu,
                    "max(x, 0) of each element, as torch.relu. "
                    "Example: relu(tensor([-1.0, 2.0]))"},
                   {OpId::gelu,
                    "x * Phi(x) of each element, Phi the standard normal CDF (the exact erf form), as "
                    "torch.nn.functional.gelu; approximate=\"tanh\" takes PyTorch's tanh form instead. "
                    "Example: gelu(randn(4))"},
                   {OpId::silu,
                    "x * sigmoid(x) of each element (swish), as torch.nn.functional.silu. "
                    "Example: silu(randn(4))"},
                   {OpId::erf,
                    "The Gauss error function of each element, as torch.erf. "
                    "Example: erf(tensor([0.0, 0.5]))"},
                   {OpId::log1p,
                    "log(1 + x) of each element, accurate for small x, as torch.log1p. "
                    "Example: log1p(tensor([1e-8, 1.0]))"},
                   {OpId::lgamma,
                    "The log of the absolute value of the gamma function of each element, as torch.lgamma. "
                    "Example: lgamma(tensor([0.5, 3.0]))"},
                   {OpId::digamma,
                    "The logarithmic derivative of the gamma function (psi) of each element, as torch.digamma. "
                    "Example: digamma(tensor([0.5, 3.0]))"},
                   {OpId::expm1,
                    "exp(x) - 1 of each element, accurate for small x, as torch.expm1. "
                    "Example: expm1(tensor([1e-8, 1.0]))"},
                   {OpId::floor,
                    "The largest integer not above each element, as torch.floor. "
                    "Example: floor(tensor([1.5, -1.5]))"},
                   {OpId::ceil,
                    "The smallest integer not below each element, as torch.ceil. "
                    "Example: ceil(tensor([1.5, -1.5]))"},
                   {OpId::round,
                    "Each element rounded to the nearest integer, halves to even, as torch.round. "
                    "Example: randn(4).round()"},
                   {OpId::trunc,
                    "Each element rounded toward zero, as torch.trunc. "
                    "Example: trunc(tensor([1.7, -1.7]))"},
                   {OpId::hardswish,
                    "x * relu6(x + 3) / 6 of each element, as torch.nn.functional.hardswish. "
                    "Example: hardswish(randn(4))"},
                   {OpId::mish,
                    "x * tanh(softplus(x)) of each element, as torch.nn.functional.mish. "
                    "Example: mish(randn(4))"},
                   {OpId::softplus,
                    "log(1 + exp(beta * x)) / beta of each element, x itself where beta * x exceeds threshold, as "
                    "torch.nn.functional.softplus. "
                    "Example: softplus(randn(4), beta=2.0)"},
                   {OpId::elu,
                    "x where x > 0, else alpha * (exp(x) - 1), of each element, as torch.nn.functional.elu. "
                    "Example: elu(randn(4), alpha=1.0)"},
                   {OpId::leaky_relu,
                    "x where x > 0, else negative_slope * x, of each element, as torch.nn.functional.leaky_relu. "
                    "Example: leaky_relu(randn(4), negative_slope=0.2)"},
                   {OpId::hardtanh,
                    "Each element clamped to [min_val, max_val], as torch.nn.functional.hardtanh. "
                    "Example: hardtanh(randn(4), min_val=-0.5, max_val=0.5)"},
                   {OpId::logit,
                    "log(p / (1 - p)) of each element p, clamped first to [eps, 1 - eps] when eps is given, as "
                    "torch.logit. "
                    "Example: logit(tensor([0.25, 0.5]), eps=1e-6)"},
                   {OpId::polygamma,
                    "The n-th derivative of digamma of each element, as torch.polygamma(n, input) (n = 0 is "
                    "digamma). "
                    "Example: polygamma(2, tensor([0.5, 3.0]))"},
                   {OpId::add,
                    "self + other elementwise with broadcasting (the + operator), as torch.add. "
                    "Example: add(randn(2, 3), randn(3))"},
                   {OpId::sub,
                    "self - other elementwise with broadcasting (the - operator), as torch.sub. "
                    "Example: sub(randn(2, 3), 1.0)"},
                   {OpId::mul,
                    "self * other elementwise with broadcasting (the * operator), as torch.mul. "
                    "Example: mul(randn(2, 3), randn(2, 1))"},
                   {OpId::div,
                    "self / other elementwise with broadcasting, integers divided as floats (the / operator), as "
                    "torch.div. "
                    "Example: div(arange(4), 2)"},
                   {OpId::pow,
                    "self raised to exponent elementwise with broadcasting (the ** operator), as torch.pow. "
                    "Example: tensor([2.0, 3.0]).pow(2)"},
                   {OpId::maximum,
                    "The larger of self and other elementwise with broadcasting (NaN wins), as torch.maximum. "
                    "Example: maximum(randn(3), zeros(3))"},
                   {OpId::minimum,
                    "The smaller of self and other elementwise with broadcasting (NaN wins), as torch.minimum. "
                    "Example: minimum(randn(3), zeros(3))"},
                   {OpId::remainder,
                    "self modulo other elementwise, the result taking other's sign as Python's % does, as "
                    "torch.remainder. "
                    "Example: remainder(tensor([-3, 5]), 4)"},
                   {OpId::atan2,
                    "The angle of the point (other, self) elementwise, atan(self / other) in the right quadrant, as "
                    "torch.atan2. "
                    "Example: atan2(tensor([1.0, -1.0]), tensor([-1.0, -1.0]))"},
                   {OpId::logaddexp,
                    "log(exp(self) + exp(other)) elementwise, computed without overflow, as torch.logaddexp. "
                    "Example: logaddexp(tensor([1000.0]), tensor([1000.0]))"},
                   {OpId::eq,
                    "self == other elementwise with broadcasting, a bool tensor, as torch.eq. "
                    "Example: eq(tensor([1, 2]), tensor([1, 3]))"},
                   {OpId::ne,
                    "self != other elementwise with broadcasting, a bool tensor, as torch.ne. "
                    "Example: ne(tensor([1, 2]), tensor([1, 3]))"},
                   {OpId::lt,
                    "self < other elementwise with broadcasting, a bool tensor, as torch.lt. "
                    "Example: lt(arange(4), 2)"},
                   {OpId::le,
                    "self <= other elementwise with broadcasting, a bool tensor, as torch.le. "
                    "Example: le(arange(4), 2)"},
                   {OpId::gt,
                    "self > other elementwise with broadcasting, a bool tensor, as torch.gt. "
                    "Example: gt(arange(4), 2)"},
                   {OpId::ge,
                    "self >= other elementwise with broadcasting, a bool tensor, as torch.ge. "
                    "Example: ge(arange(4), 2)"},
                   {OpId::where,
                    "The element of self where condition is true, else of other, all three broadcast, as torch.where. "
                    "Example: where(tensor([true, false]), ones(2), zeros(2))"},
                   {OpId::clamp,
                    "Each element limited to [min, max], either bound none for no limit, as torch.clamp. "
                    "Example: clamp(randn(4), min=0.0)"},
                   {OpId::threshold_backward,
                    "grad where input is greater than threshold, else 0, both broadcast: relu's gradient (input its "
                    "result, threshold 0), as torch.ops.aten.threshold_backward. "
                    "Example: threshold_backward(ones(3), tensor([-1.0, 0.0, 2.0]), threshold=0.0)"}});
}

// The functional API of this family.

#define NABLA_UNARY_API(name) \
  Tensor name(const Tensor& x) { return call1(OpId::name, {x}); }
NABLA_UNARY_OPS(NABLA_UNARY_API)
#undef NABLA_UNARY_API

#define NABLA_PARAMETRIC_UNARY_API(name) \
  Tensor name(const Tensor& x, const Attrs& attrs) { return call1(OpId::name, {x}, attrs); }
NABLA_PARAMETRIC_UNARY_OPS(NABLA_PARAMETRIC_UNARY_API)
#undef NABLA_PARAMETRIC_UNARY_API

#define NABLA_BINARY_API(name) \
  Tensor name(const Tensor& a, const Tensor& b) { return call1(OpId::name, {a, b}); }
NABLA_BINARY_OPS(NABLA_BINARY_API)
NABLA_COMPARISON_OPS(NABLA_BINARY_API)
#undef NABLA_BINARY_API

Tensor pow(const Tensor& a, double exponent) { return pow(a, wrapped_scalar(exponent)); }
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) { return call1(OpId::where, {cond, a, b}); }
Tensor threshold_backward(const Tensor& grad, const Tensor& x, double threshold) {
  return call1(OpId::threshold_backward, {grad, x}, {{"threshold", threshold}});
}
Tensor clamp(const Tensor& x, std::optional<double> min, std::optional<double> max) {
  return clamp_attrs(x, min ? AttrValue(*min) : AttrValue(NoneAttr{}), max ? AttrValue(*max) : AttrValue(NoneAttr{}));
}
Tensor clamp_attrs(const Tensor& x, AttrValue min, AttrValue max) {
  return call1(OpId::clamp, {x}, {{"min", std::move(min)}, {"max", std::move(max)}});
}

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator-(const Tensor& a) { return neg(a); }
Tensor operator+(const Tensor& a, double b) { return add(a, wrapped_scalar(b)); }
Tensor operator-(const Tensor& a, double b) { return sub(a, wrapped_scalar(b)); }
Tensor operator*(const Tensor& a, double b) { return mul(a, wrapped_scalar(b)); }
Tensor operator/(const Tensor& a, double b) { return div(a, wrapped_scalar(b)); }
Tensor operator+(double a, const Tensor& b) { return add(wrapped_scalar(a), b); }
Tensor operator-(double a, const Tensor& b) { return sub(wrapped_scalar(a), b); }
Tensor operator*(double a, const Tensor& b) { return mul(wrapped_scalar(a), b); }
Tensor operator/(double a, const Tensor& b) { return div(wrapped_scalar(a), b); }

Tensor zeros_like(const Tensor& x) { return zeros(x.sizes(), x.dtype(), x.device()); }
Tensor ones_like(const Tensor& x) { return ones(x.sizes(), x.dtype(), x.device()); }

Tensor reduce_to_shape(const Tensor& g, const Shape& shape) {
  if (g.sizes() == shape) return g;
  int64_t lead = g.dim() - static_cast<int64_t>(shape.size());
  NABLA_CHECK(lead >= 0,
              "reduce_to_shape: gradient of shape " + g.shape_str() + " has fewer dims than " + shape_str(shape));
  IntList dims;
  for (int64_t d = 0; d < g.dim(); ++d)
    if (d < lead || (shape[d - lead] == 1 && g.sizes()[d] != 1)) dims.push_back(d);
  Tensor r = dims.empty() ? g : sum(g, dims, true);
  return reshape(r, shape.vec());
}

}  // namespace nabla
