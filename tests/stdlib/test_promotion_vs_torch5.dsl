# Round 5 of the differential tests against PyTorch 1.13 (after test_ops_vs_torch4.dsl):
# results of the right value in the wrong dtype, and gradients where PyTorch's rule
# differs at an edge. Result dtypes of //, %, fmod and div's rounding modes on integers
# and numbers, add/sub with alpha on integers, square of bools, and the promotion of
# 0-dim tensors, numbers, bools, u8, i32 and f16 together (PyTorch's default dtype f32,
# nabla's); the gradients of pow at a zero exponent and of a number base, of div's
# rounding modes through a zero divisor, of clamp with tensor bounds through NaN and
# inverted or equal bounds; copysign's gradient and signed zeros; the grid's gradient
# in grid_sample's nearest mode. Each case loads
# tests/stdlib/reference/vs_torch5.safetensors (written by
# tests/stdlib/reference/make_vs_torch5.py, promotion_cases and grad_cases, where each
# case's torch call is, under the same name) and compares dtypes, values and the
# gradients of sum(y0 * g).
import "vs_torch5_check.inc" as v5

let check = v5.check

test "//, % and fmod of integers by numbers: dtype and signs" {
  check("floordiv_int_float", 1, fn(xs) = xs[0] // 2.5)
  check("remainder_int_float", 1, fn(xs) = xs[0] % 2.5)
  check("floordiv_int_neg", 1, fn(xs) = xs[0] // -3)
  check("remainder_int_neg", 1, fn(xs) = xs[0] % -3)
  check("fmod_int_neg", 1, fn(xs) = fmod(xs[0], -3))
}

test "div's rounding modes and true division of integers" {
  check("div_trunc_int", 2, fn(xs) = div(xs[0], xs[1], rounding_mode="trunc"))
  check("div_floor_int", 2, fn(xs) = div(xs[0], xs[1], rounding_mode="floor"))
  check("div_floor_int_float", 1, fn(xs) = div(xs[0], -2.5, rounding_mode="floor"))
  check("div_trunc_int_float", 1, fn(xs) = div(xs[0], -2.5, rounding_mode="trunc"))
  check("true_div_int", 2, fn(xs) = xs[0] / xs[1])
}

# add(i64, i64, alpha=3) was f32: alpha went in as the float 3.0
test "add and sub with alpha keep an integer dtype" {
  check("add_alpha_int", 2, fn(xs) = add(xs[0], xs[1], alpha=3))
  check("sub_alpha_int_number", 1, fn(xs) = sub(xs[0], 2, alpha=3))
  check("add_alpha_int_float_number", 1, fn(xs) = add(xs[0], 1.5, alpha=2))
  check("method_add_alpha_int", 2, fn(xs) = xs[0].add(xs[1], alpha=2))
  check("sub_alpha_f32_int", 2, fn(xs) = sub(xs[0], xs[1], alpha=2), rtol=1e-6)
}

test "square of bools is i64, of i32 stays i32" {
  check("square_bool", 1, fn(xs) = square(xs[0]))
  check("square_i32", 1, fn(xs) = square(xs[0]))
}

test "0-dim tensors, numbers, bools, u8, i32 and f16 together" {
  let add2 = fn(xs) = xs[0] + xs[1]
  for name in ["add_int_0d_f64", "add_f32_0d_f64", "add_i32_0d_i64", "add_u8_i64", "add_f16_0d_f64", "add_f16_f32",
               "add_int_0d_bool", "add_0d_int_0d_f64"] {
    check(name, 2, add2, rtol=1e-6)
  }
  check("mul_i32_number", 1, fn(xs) = xs[0] * 3)
  check("add_bool_int", 1, fn(xs) = xs[0] + 1)
  check("add_bool_true", 1, fn(xs) = xs[0] + true)
  check("mul_bool_bool", 2, fn(xs) = xs[0] * xs[1])
  check("add_u8_wraps", 1, fn(xs) = xs[0] + 100)
  check("where_int_number", 2, fn(xs) = where(xs[0], xs[1], 1.5))
  check("where_int_f64", 3, fn(xs) = where(xs[0], xs[1], xs[2]))
  check("clamp_int_f64_bound", 2, fn(xs) = clamp(xs[0], xs[1]))
  check("float_power_int", 1, fn(xs) = float_power(xs[0], 2))
  check("compare_int_float", 2, fn(xs) = xs[0] < xs[1])
}

# fmod(i64, 2.5) took 2.5 into i64 (it divided by 2); xlogy, fmax, fmin and copysign
# of an f32 tensor and a 0-dim f64 one were f64; float_power took them through f32
test "the function forms with a number or a 0-dim tensor promote as the operators do" {
  check("fmod_fn_int_float", 1, fn(xs) = fmod(xs[0], 2.5))
  check("floor_divide_fn_int_float", 1, fn(xs) = floor_divide(xs[0], 2.5))
  check("fmod_fn_bool_int", 1, fn(xs) = fmod(xs[0], 2))
  check("method_fmod_int_float", 1, fn(xs) = xs[0].fmod(-2.5))
  check("xlogy_f32_0d_f64", 2, fn(xs) = xlogy(xs[0], xs[1]), rtol=1e-6)
  check("fmax_f32_0d_f64", 2, fn(xs) = fmax(xs[0], xs[1]), rtol=1e-6)
  check("fmin_f32_0d_f64", 2, fn(xs) = fmin(xs[0], xs[1]), rtol=1e-6)
  check("copysign_f32_0d_f64", 2, fn(xs) = copysign(xs[0], xs[1]), rtol=1e-6)
  check("fmod_f32_0d_f64", 2, fn(xs) = fmod(xs[0], xs[1]), rtol=1e-6)
  check("float_power_f32_0d_f64", 2, fn(xs) = float_power(xs[0], xs[1]).detach())
}

# x ** 0 had the gradient 0 * x^-1: NaN at x = 0 and at a NaN x; 2 ** e's log(2) was f32's
test "pow's gradients at a zero exponent, a zero base and a number base" {
  check("pow_zero_exponent", 1, fn(xs) = xs[0] ** 0)
  check("pow_tensor_zero_exponent", 2, fn(xs) = pow(xs[0], xs[1]))
  check("pow_zero_base_exponents", 2, fn(xs) = pow(xs[0], xs[1]))
  check("rpow_int_base", 1, fn(xs) = 2 ** xs[0])
  check("rpow_float_base", 1, fn(xs) = 2.5 ** xs[0])
  check("pow_number_zero_base", 1, fn(xs) = pow(0.0, xs[0]))
}

# trunc(x / 0)'s zero gradient was 0 * inf, NaN
test "div's rounding modes have a zero gradient, also through a zero divisor" {
  check("div_trunc_zero_divisor", 2, fn(xs) = div(xs[0], xs[1], rounding_mode="trunc"))
  check("div_floor_zero_divisor", 2, fn(xs) = div(xs[0], xs[1], rounding_mode="floor"))
}

# Note [Clamp's gradient with tensor bounds]: a NaN x passed its gradient, a NaN bound took it
test "clamp with tensor bounds: NaN in x and in the bounds, inverted, equal and broadcast bounds" {
  check("clamp_tensor_nan_x", 3, fn(xs) = clamp(xs[0], xs[1], xs[2]))
  check("clamp_tensor_nan_bounds", 3, fn(xs) = clamp(xs[0], xs[1], xs[2]))
  check("clamp_tensor_equal_bounds", 3, fn(xs) = clamp(xs[0], xs[1], xs[2]))
  check("clamp_tensor_min_only", 2, fn(xs) = clamp(xs[0], min=xs[1]))
  check("clamp_tensor_max_only", 2, fn(xs) = clamp(xs[0], max=xs[1]))
  check("clamp_tensor_broadcast", 3, fn(xs) = clamp(xs[0], xs[1], xs[2]))
  check("clamp_number_inverted", 1, fn(xs) = clamp(xs[0], 1.0, 0.0))
  check("clamp_number_ties", 1, fn(xs) = clamp(xs[0], 0.0, 1.0))
}

# other's gradient was none; abs(-0.0) was -0.0, so copysign(-0.0, 1.0) too
test "copysign gives other a zero gradient and keeps signed zeros; abs(-0.0) is +0.0" {
  check("copysign_grads", 2, fn(xs) = copysign(xs[0], xs[1]))
  check("copysign_signed_zeros", 2, fn(xs) = (copysign(xs[0], xs[1]), copysign(xs[0], xs[1]).signbit()))
  check("abs_signed_zero", 1, fn(xs) = abs(xs[0]).detach().signbit())
}

# rounded cells left grid.grad none; PyTorch's is zeros (so weight decay still moves it)
test "grid_sample's nearest mode gives the grid a zero gradient" {
  check("grid_sample_nearest", 2, fn(xs) = grid_sample(xs[0], xs[1], mode="nearest", padding_mode="border"))
  check("grid_sample_nearest_3d", 2, fn(xs) = grid_sample(xs[0], xs[1], mode="nearest", align_corners=true))
}
