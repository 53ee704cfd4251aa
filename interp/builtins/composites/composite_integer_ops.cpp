// Integer arithmetic that PyTorch defines on integer tensors and the pow row does not:
// an integer raised to an integer power stays an integer (tensor([5]) ** 2 is
// tensor([25]), i64), and the bitwise operators (&, |, ^, ~ and the bitwise_*
// functions). The pow row's result is a float by design (op_list: pow is a float-result
// binary op), so integer powers are a composite of mul and where by repeated squaring:
// exact past 2^53 and wrapping as PyTorch's integers do (Note [Integer tensor
// arithmetic] in tensor/scalar_ops.hpp). The bitwise results are found on the host
// (host_ints tells a graph capture, so compile() refuses them rather than keeping this
// call's values); they have no gradient, as in PyTorch.
// tests/stdlib/test_torch_surface.dsl checks them against PyTorch.
#include <string>
#include <vector>

#include <cstring>

#include "autograd/ops.hpp"
#include "autograd/ops/common.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/composites/composites.hpp"

namespace nabla::interp {

using composite_args::host_ints;
using composite_args::shape_of;

namespace {

// An i64 tensor of `values` exactly (index_tensor goes through doubles), on `device`.
Tensor exact_ints(const std::vector<int64_t>& values, const IntList& shape, const Device& device) {
  Tensor t = empty(Shape(shape), DType::i64, cpu_device());
  if (!values.empty()) std::memcpy(t.data<int64_t>(), values.data(), values.size() * sizeof(int64_t));
  return to_device(t, device);
}

// A wrapped number's value: a constant of the program, not data, so reading it is no
// value read for a capture (x ** 2 compiles).
int64_t wrapped_int(const Tensor& number) {
  return contiguous(to_dtype(detach(number), DType::i64)).data<int64_t>()[0];
}

// base ** e for e >= 0 known here (a number): square-and-multiply, unrolled.
Tensor integer_pow_by(const Tensor& base, int64_t e) {
  Tensor result = mul(base, number_like(0.0, base)) + number_like(1.0, base);  // ones of base's shape and dtype
  Tensor square = base;
  while (e > 0) {
    if (e & 1) result = mul(result, square);
    e >>= 1;
    if (e > 0) square = mul(square, square);
  }
  return result;
}

// base ** e elementwise, e a tensor: square-and-multiply over the bits of |e| (as many
// steps as the largest |e| has bits), then PyTorch's rule for a negative exponent:
// 1 and -1 keep their power, any other base gives 0.
Tensor integer_pow_tensor(const Tensor& base, const Tensor& e) {
  const Tensor zero = number_like(0.0, e), one = number_like(1.0, e), two = number_like(2.0, e);
  Tensor magnitude = abs(e);
  int64_t largest = 0;
  for (int64_t v : host_ints(max(reshape(magnitude, {magnitude.numel()})), "pow(): the integer exponent"))
    largest = v;
  Tensor result = mul(base, zero) + mul(e, zero) + one;  // ones of the broadcast shape
  Tensor square = base;
  for (int64_t bits = largest; bits > 0; bits >>= 1) {
    Tensor odd = ne(remainder(magnitude, two), zero);
    result = where(odd, mul(result, square), result);
    magnitude = floor_division(magnitude, two);
    if (bits > 1) square = mul(square, square);
  }
  if (e.numel() == 0 || largest == 0) return result;
  Tensor unit = eq(abs(base), number_like(1.0, base));
  return where(lt(e, zero), where(unit, result, mul(result, zero)), result);
}

bool integer_dtype(DType d) { return is_integral(d) && d != DType::b8; }

}  // namespace

// torch.pow's dtype rule: integers raised to integers stay integers (an int number
// exponent below 0 is PyTorch's error); anything with a float is the pow row's.
Tensor tensor_pow(const Tensor& base, const Tensor& exponent) {
  const DType out = result_type({base, exponent});
  if (!integer_dtype(out)) return pow(base, exponent);
  Tensor b = to_dtype(base, out), e = to_dtype(exponent, out);
  if (exponent.dim() == 0 && exponent.impl()->wrapped_number) {
    const int64_t k = wrapped_int(exponent);
    if (k < 0) fail("Integers to negative integer powers are not allowed.");
    return integer_pow_by(b, k);
  }
  return integer_pow_tensor(b, e);
}

namespace {

Value pow_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("pow", a, {"input", "exponent"}, 2);
  if (!b[0].is_num() && b[0].tag != Tag::Tensor) required_input(b[0], "pow", "input");
  if (!b[1].is_num() && b[1].tag != Tag::Tensor) required_input(b[1], "pow", "exponent");
  if (b[0].is_num() && b[1].is_num()) fail("pow(): argument 'input' or 'exponent' must be a tensor, got two numbers");
  return Value::tensor(tensor_pow(to_tensor_arg(b[0], "pow(): argument 'input'"),
                                  to_tensor_arg(b[1], "pow(): argument 'exponent'")));
}

// ---- bitwise -----------------------------------------------------------------------------

// The two operands broadcast together, in their promoted integer (or bool) dtype.
std::pair<Tensor, Tensor> bitwise_operands(const Tensor& x, const Tensor& y, const std::string& fname) {
  const DType out = result_type({x, y});
  if (is_floating(out))
    fail(fname + "(): expected integer or bool tensors, got " + dtype_name(x.dtype()) + " and " + dtype_name(y.dtype()));
  const Shape shape = broadcast_shapes(fname.c_str(), x.sizes(), y.sizes(), "input", "other");
  const IntList dims(shape.begin(), shape.end());
  return {expand(to_dtype(x, out), dims), expand(to_dtype(y, out), dims)};
}

int64_t bitwise_apply(Bitwise op, int64_t p, int64_t q) {
  const auto up = static_cast<uint64_t>(p);
  switch (op) {
    case Bitwise::And: return p & q;
    case Bitwise::Or: return p | q;
    case Bitwise::Xor: return p ^ q;
    // A shift by the width or more is 0 (or the sign for >>), as PyTorch's.
    case Bitwise::Shl: return q < 0 || q >= 64 ? 0 : static_cast<int64_t>(up << q);
    case Bitwise::Shr: return q < 0 || q >= 64 ? (p < 0 ? -1 : 0) : p >> q;
  }
  return 0;
}

}  // namespace

const char* bitwise_name(Bitwise op) {
  static const char* const names[] = {"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
                                      "bitwise_right_shift"};
  return names[static_cast<int>(op)];
}

Tensor bitwise_binary(const Tensor& x, const Tensor& y, Bitwise op) {
  const std::string fname = bitwise_name(op);
  auto [l, r] = bitwise_operands(x, y, fname);
  const std::vector<int64_t> p = host_ints(l, fname + "()"), q = host_ints(r, fname + "()");
  std::vector<int64_t> out(p.size());
  for (size_t k = 0; k < p.size(); ++k) out[k] = bitwise_apply(op, p[k], q[k]);
  return to_dtype(exact_ints(out, shape_of(l), l.device()), l.dtype());  // the cast wraps as the dtype does
}

// ~x: the complement of each integer, logical not of a bool.
Tensor bitwise_not_of(const Tensor& x) {
  if (x.dtype() == DType::b8) return logical_not_of(x);
  if (!integer_dtype(x.dtype())) fail(std::string("bitwise_not(): expected an integer or bool tensor, got ") + dtype_name(x.dtype()));
  // ~v is -1 - v in two's complement, and 255 - v in u8.
  return sub(scalar_tensor(x.dtype() == DType::u8 ? 255.0 : -1.0, x.dtype()), x);
}

namespace {

template <Bitwise Op>
Value bitwise_builtin(Evaluator&, CallArgs& a) {
  const std::string fname = bitwise_name(Op);
  Bound b = bind(fname, a, {"input", "other"}, 2);
  if (b[0].is_num() && b[1].is_num()) fail(fname + "(): argument 'input' or 'other' must be a tensor");
  const Tensor x = to_tensor_arg(b[0], (fname + "(): argument 'input'").c_str());
  const Tensor y = to_tensor_arg(b[1], (fname + "(): argument 'other'").c_str());
  return Value::tensor(bitwise_binary(x, y, Op));
}

Value bitwise_not_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("bitwise_not", a, {"input"}, 1);
  return Value::tensor(bitwise_not_of(arg(b, 0, "bitwise_not", "input")));
}

const BuiltinEntry kCompositeIntegerOps[] = {
    {"pow", pow_builtin, "pow(input, exponent)", nullptr},  // the row's doc; integers as PyTorch's
    {"bitwise_and", bitwise_builtin<Bitwise::And>, "bitwise_and(input, other)",
     "The bits in both (logical and of bools), as torch.bitwise_and and the & operator. "
     "Example: bitwise_and(tensor([5, 3]), 1)"},
    {"bitwise_or", bitwise_builtin<Bitwise::Or>, "bitwise_or(input, other)",
     "The bits in either, as torch.bitwise_or and the | operator. Example: bitwise_or(tensor([5, 3]), 8)"},
    {"bitwise_xor", bitwise_builtin<Bitwise::Xor>, "bitwise_xor(input, other)",
     "The bits in exactly one, as torch.bitwise_xor and the ^ operator. Example: bitwise_xor(tensor([5, 3]), 1)"},
    {"bitwise_not", bitwise_not_builtin, "bitwise_not(input)",
     "Each integer's bits flipped (logical not of bools), as torch.bitwise_not and the ~ operator. "
     "Example: bitwise_not(tensor([5, -1]))"},
    {"bitwise_left_shift", bitwise_builtin<Bitwise::Shl>, "bitwise_left_shift(input, other)",
     "input shifted left by other bits, wrapping in input's dtype, as torch.bitwise_left_shift. "
     "Example: bitwise_left_shift(tensor([5, 3]), 2)"},
    {"bitwise_right_shift", bitwise_builtin<Bitwise::Shr>, "bitwise_right_shift(input, other)",
     "input shifted right by other bits (keeping the sign), as torch.bitwise_right_shift. "
     "Example: bitwise_right_shift(tensor([-8, 8]), 1)"},
};

}  // namespace

std::span<const BuiltinEntry> composite_integer_ops() { return kCompositeIntegerOps; }

}  // namespace nabla::interp
