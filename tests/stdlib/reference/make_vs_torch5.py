"""Writes vs_torch5.safetensors for the round-5 differential tests against PyTorch 1.13
(tests/stdlib/test_promotion_vs_torch5.dsl and test_reduce_loss_vs_torch5.dsl): the
places where nabla computed something other than PyTorch without a word. Each case is
saved by make_layer_options.record (inputs x<k>, outputs y<k>, upstream gradient g, the
gradients of sum(y0 * g) for every floating input and parameter); the tests compare
dtypes too.

- promotion_cases, under PyTorch's default dtype f32 (nabla's): the result dtypes of
  //, %, fmod, div's rounding modes, add/sub with alpha, square of bools, the mixes
  of 0-dim tensors, numbers, bools, u8, i32 and f16 that the earlier rounds leave out,
  and the function forms (fmod, floor_divide, xlogy, fmax, copysign, float_power) with a
  number or a 0-dim tensor;
- grad_cases, in f64: pow's gradients at a zero exponent and a number base, div's
  rounding modes through a zero divisor, clamp with tensor bounds through NaN, inverted
  and equal bounds, copysign's gradient and signed zeros, abs(-0.0), the grid's zero
  gradient in grid_sample's nearest mode;
- reduce_loss_cases, in f64: std of constant rows, var/std with a correction past N,
  max/min of all elements through NaN, prod of nothing, norms with p < 1 through
  zeros, nll_loss/cross_entropy with every target ignored, ctc_loss after
  log_softmax, and the softmax layers made without dim;
- schedule_cases and optimizer_cases (tests/stdlib/test_sched_optim_vs_torch5.dsl): 30
  lrs (and momenta) of each scheduler with the arguments tests/stdlib/optim leaves
  out, and 12 steps of the optimizers with their rarely used flags together, on a
  quartic, as <case>.lr / <case>.momentum and <case>.W (the parameter after the steps).

    /usr/bin/python3 tests/stdlib/reference/make_vs_torch5.py
"""
import pathlib
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE.parents[2] / "scripts" / "reference"))
sys.path.insert(0, str(HERE))
from safetensors_file import write_safetensors  # noqa: E402
from make_layer_options import fn, record  # noqa: E402

OUT = HERE / "vs_torch5.safetensors"
NAN, INF = float("nan"), float("inf")


def promotion_cases(out):
    t = torch.tensor
    i = t([7, -7, 5, -5, 0, 3])
    j = t([2, 2, -3, -3, 4, -1])
    b = t([True, False, True])
    i32 = t([1, 4, 9], dtype=torch.int32)
    u8 = t([200, 3, 0], dtype=torch.uint8)
    f16 = t([1.5, -2.0, 0.25], dtype=torch.float16)
    # ---- the integer quotients and remainders, their signs and dtypes
    record(out, "floordiv_int_float", None, [i], fn(lambda x: x // 2.5))
    record(out, "remainder_int_float", None, [i], fn(lambda x: x % 2.5))
    record(out, "floordiv_int_neg", None, [i], fn(lambda x: x // -3))
    record(out, "remainder_int_neg", None, [i], fn(lambda x: x % -3))
    record(out, "fmod_int_neg", None, [i], fn(lambda x: torch.fmod(x, -3)))
    record(out, "div_trunc_int", None, [i, j], fn(lambda x, y: torch.div(x, y, rounding_mode="trunc")))
    record(out, "div_floor_int", None, [i, j], fn(lambda x, y: torch.div(x, y, rounding_mode="floor")))
    record(out, "div_floor_int_float", None, [i], fn(lambda x: torch.div(x, -2.5, rounding_mode="floor")))
    record(out, "div_trunc_int_float", None, [i], fn(lambda x: torch.div(x, -2.5, rounding_mode="trunc")))
    record(out, "true_div_int", None, [i, j], fn(lambda x, y: x / y))
    # ---- add and sub with alpha keep an integer dtype
    record(out, "add_alpha_int", None, [i, j], fn(lambda x, y: torch.add(x, y, alpha=3)))
    record(out, "sub_alpha_int_number", None, [i], fn(lambda x: torch.sub(x, 2, alpha=3)))
    record(out, "add_alpha_int_float_number", None, [i], fn(lambda x: torch.add(x, 1.5, alpha=2)))
    record(out, "method_add_alpha_int", None, [i, j], fn(lambda x, y: x.add(y, alpha=2)))
    record(out, "sub_alpha_f32_int", None, [t([1.0, 2.5, -3.0]), t([1, 2, 3])],
           fn(lambda x, y: torch.sub(x, y, alpha=2)))
    record(out, "square_bool", None, [b], fn(torch.square))
    record(out, "square_i32", None, [i32], fn(torch.square))
    # ---- 0-dim tensors, numbers, bools, u8, i32 and f16 together
    record(out, "add_int_0d_f64", None, [i, t(1.5, dtype=torch.float64)], fn(lambda x, y: x + y))
    record(out, "add_f32_0d_f64", None, [t([1.0, 2.0]), t(1.25, dtype=torch.float64)], fn(lambda x, y: x + y))
    record(out, "add_i32_0d_i64", None, [i32, t(3)], fn(lambda x, y: x + y))
    record(out, "mul_i32_number", None, [i32], fn(lambda x: x * 3))
    record(out, "add_bool_int", None, [b], fn(lambda x: x + 1))
    record(out, "add_bool_true", None, [b], fn(lambda x: x + True))
    record(out, "mul_bool_bool", None, [b, t([True, True, False])], fn(lambda x, y: x * y))
    record(out, "add_u8_i64", None, [u8, t([1, 2, 3])], fn(lambda x, y: x + y))
    record(out, "add_u8_wraps", None, [u8], fn(lambda x: x + 100))
    record(out, "add_f16_0d_f64", None, [f16, t(1.5, dtype=torch.float64)], fn(lambda x, y: x + y))
    record(out, "add_f16_f32", None, [f16, t([0.5])], fn(lambda x, y: x + y))
    record(out, "add_int_0d_bool", None, [i, t(True)], fn(lambda x, y: x + y))
    record(out, "add_0d_int_0d_f64", None, [t(1), t(2.5, dtype=torch.float64)], fn(lambda x, y: x + y))
    record(out, "where_int_number", None, [b, i32], fn(lambda c, x: torch.where(c, x, 1.5)))
    record(out, "where_int_f64", None, [b, t([1, 2, 3]), t([0.5, 1.5, 2.5], dtype=torch.float64)],
           fn(lambda c, x, y: torch.where(c, x, y)))
    record(out, "clamp_int_f64_bound", None, [t([1, 5, 9]), t([2.5, 6.5, 2.5], dtype=torch.float64)],
           fn(lambda x, lo: torch.clamp(x, lo)))
    record(out, "float_power_int", None, [t([2, -3, 0])], fn(lambda x: torch.float_power(x, 2)))
    record(out, "compare_int_float", None, [i, t([1.5])], fn(lambda x, y: x < y))
    # ---- the function forms with a number: it lifts the kind (fmod(i64, 2.5) was by 2)
    record(out, "fmod_fn_int_float", None, [i], fn(lambda x: torch.fmod(x, 2.5)))
    record(out, "floor_divide_fn_int_float", None, [i], fn(lambda x: torch.floor_divide(x, 2.5)))
    record(out, "fmod_fn_bool_int", None, [b], fn(lambda x: torch.fmod(x, 2)))
    record(out, "method_fmod_int_float", None, [i], fn(lambda x: x.fmod(-2.5)))
    # ---- a 0-dim f64 tensor beside an f32 one: f32, also in the composites
    x32, s64 = t([1.0, 2.0, -0.5]), t(1.5, dtype=torch.float64)
    record(out, "xlogy_f32_0d_f64", None, [x32, s64], fn(torch.xlogy))
    record(out, "fmax_f32_0d_f64", None, [x32, s64], fn(torch.fmax))
    record(out, "fmin_f32_0d_f64", None, [x32, s64], fn(torch.fmin))
    record(out, "copysign_f32_0d_f64", None, [x32, -s64], fn(torch.copysign))
    record(out, "fmod_f32_0d_f64", None, [x32, s64], fn(torch.fmod))
    record(out, "float_power_f32_0d_f64", None, [t([1.1, 2.3, 0.7]), t(1.3, dtype=torch.float64)],
           fn(lambda x, e: torch.float_power(x, e).detach()))


def grad_cases(out):
    t = torch.tensor
    # ---- pow: a zero exponent, a zero base, a number base
    record(out, "pow_zero_exponent", None, [t([-2.0, 0.0, -0.0, 2.0, NAN])], fn(lambda x: x ** 0))
    record(out, "pow_tensor_zero_exponent", None, [t([-2.0, 0.0, 4.0, 0.0, 1.5]), t([2.0, 0.0, 0.5, 0.0, 0.0])],
           fn(lambda a, e: torch.pow(a, e)))
    record(out, "pow_zero_base_exponents", None, [t([0.0, 0.0, 1.0, -1.0]), t([0.0, 1.5, 3.0, 2.0])],
           fn(lambda a, e: torch.pow(a, e)))
    record(out, "rpow_int_base", None, [t([3.0, 0.0, -1.5, 0.25])], fn(lambda e: 2 ** e))
    record(out, "rpow_float_base", None, [t([3.0, 0.0, -1.5, 0.25])], fn(lambda e: 2.5 ** e))
    record(out, "pow_number_zero_base", None, [t([0.0, 1.0, 2.0, 0.5])], fn(lambda e: torch.pow(0.0, e)))
    # ---- div's rounding modes: a zero gradient, also through a zero divisor
    a, d = t([-6.0, 6.0, 0.0, 7.5, -7.5]), t([0.0, 0.0, 0.0, 2.0, 2.0])
    record(out, "div_trunc_zero_divisor", None, [a, d], fn(lambda x, y: torch.div(x, y, rounding_mode="trunc")))
    record(out, "div_floor_zero_divisor", None, [a, d], fn(lambda x, y: torch.div(x, y, rounding_mode="floor")))
    # ---- clamp with tensor bounds: NaN in x and in the bounds, inverted and equal bounds
    x = t([-2.0, 0.5, 3.0, NAN, 1.0, 0.0])
    record(out, "clamp_tensor_nan_x", None, [x, t([-1.0, 1.0, 0.0, 0.0, 1.0, 0.0]), t([1.0, 0.0, 2.0, 1.0, 1.0, 0.5])],
           fn(lambda x, lo, hi: torch.clamp(x, lo, hi)))
    record(out, "clamp_tensor_nan_bounds", None, [t([-2.0, 0.5, 3.0, 1.0]), t([NAN, 1.0, 0.0, 0.0]),
                                                 t([1.0, 0.0, NAN, 1.0])],
           fn(lambda x, lo, hi: torch.clamp(x, lo, hi)))
    record(out, "clamp_tensor_equal_bounds", None, [x, t([0.0, 1.0, 1.0, 0.0, 1.0, 0.0]),
                                                   t([0.0, 1.0, 1.0, 0.0, 1.0, 0.0])],
           fn(lambda x, lo, hi: torch.clamp(x, lo, hi)))
    record(out, "clamp_tensor_min_only", None, [x, t([0.0, 1.0, NAN, 0.0, 1.0, 0.0])],
           fn(lambda x, lo: torch.clamp(x, min=lo)))
    record(out, "clamp_tensor_max_only", None, [x, t([0.0, 1.0, NAN, 0.0, 1.0, 0.0])],
           fn(lambda x, hi: torch.clamp(x, max=hi)))
    record(out, "clamp_tensor_broadcast", None, [torch.randn(3, 4), t([[-0.5], [0.0], [0.5]]), t([0.2, 0.8, 1.0, 0.1])],
           fn(lambda x, lo, hi: torch.clamp(x, lo, hi)))
    record(out, "clamp_number_inverted", None, [x], fn(lambda x: torch.clamp(x, 1.0, 0.0)))
    record(out, "clamp_number_ties", None, [x], fn(lambda x: torch.clamp(x, 0.0, 1.0)))
    # ---- copysign: other's gradient is zeros; signed zeros; abs(-0.0)
    record(out, "copysign_grads", None, [t([1.0, -2.0, 0.5, 3.0]), t([-0.5, 1.0, -1.0, 2.0])],
           fn(lambda a, b: torch.copysign(a, b)))
    record(out, "copysign_signed_zeros", None, [t([0.0, -0.0, 0.0, -0.0]), t([-1.0, 1.0, -0.0, 0.0])],
           fn(lambda a, b: (torch.copysign(a, b), torch.copysign(a, b).signbit())))
    record(out, "abs_signed_zero", None, [t([-0.0, 0.0, -1.5])], fn(lambda x: torch.abs(x).detach().signbit()))
    # ---- grid_sample's nearest mode: the grid's gradient is zeros
    record(out, "grid_sample_nearest", None, [torch.randn(1, 2, 4, 5), torch.rand(1, 3, 3, 2) * 2.4 - 1.2],
           fn(lambda x, g: F.grid_sample(x, g, mode="nearest", padding_mode="border", align_corners=False)))
    record(out, "grid_sample_nearest_3d", None, [torch.randn(1, 2, 3, 4, 2), torch.rand(1, 2, 2, 3, 3) * 2 - 1],
           fn(lambda x, g: F.grid_sample(x, g, mode="nearest", align_corners=True)))


def reduce_loss_cases(out):
    t = torch.tensor
    r = torch.randn
    # ---- std and var: constant rows, a correction past N
    record(out, "std_constant_rows", None, [t([[1.0, 1.0, 1.0], [1.0, 2.0, 4.0]])], fn(lambda x: torch.std(x, 1)))
    record(out, "std_constant_all", None, [t([2.0, 2.0, 2.0, 2.0])], fn(torch.std))
    record(out, "std_correction_past_n", None, [r(3, 4)], fn(lambda x: torch.std(x, 0, correction=5)))
    record(out, "var_correction_past_n", None, [r(3, 4)], fn(lambda x: torch.var(x, 0, correction=5)))
    record(out, "std_mean_constant", None, [t([[3.0, 3.0], [1.0, 2.0]])], fn(lambda x: torch.std_mean(x, 1)))
    # ---- max and min of every element through NaN: the NaNs share the gradient
    record(out, "max_all_nan", None, [t([[1.0, NAN, 3.0], [2.0, 5.0, NAN]])], fn(torch.max))
    record(out, "min_all_one_nan", None, [t([[1.0, NAN, 3.0], [2.0, -5.0, 0.0]])], fn(torch.min))
    # ---- the product of nothing is 1, in the graph, i64 for integers
    record(out, "prod_empty_dim", None, [torch.zeros(0, 3)], fn(lambda x: torch.prod(x, 0)))
    record(out, "prod_empty_dim_keepdim", None, [torch.zeros(2, 0)], fn(lambda x: torch.prod(x, 1, keepdim=True)))
    record(out, "prod_empty_all", None, [torch.zeros(0, 3)], fn(torch.prod))
    record(out, "prod_empty_i32", None, [torch.zeros(0, 3, dtype=torch.int32)], fn(lambda x: torch.prod(x, 0)))
    # ---- norms with p < 1 through zeros (p exact in f32: PyTorch's kernel holds p as a float)
    record(out, "norm_half_zero", None, [t([1.0, -0.5, 2.0, 0.0])], fn(lambda x: torch.norm(x, 0.5)))
    record(out, "norm_negative_p_zero", None, [t([1.0, -0.5, 2.0, 0.0])], fn(lambda x: torch.norm(x, -1.5)))
    record(out, "norm_quarter_rows", None, [t([[1.0, 0.0], [0.0, 0.0], [-2.0, 3.0]])],
           fn(lambda x: torch.norm(x, 0.25, dim=1)))
    # ---- nll_loss and cross_entropy with every target ignored: the mean is NaN, its gradient 0
    w = t([1.0, 2.0, 3.0, 4.0])
    ones = t([1, 1, 1])
    record(out, "nll_all_ignored_mean", None, [r(3, 4), ones], fn(lambda x, y: F.nll_loss(x, y, ignore_index=1)))
    record(out, "nll_all_ignored_weight", None, [r(3, 4), ones],
           fn(lambda x, y: F.nll_loss(x, y, weight=w, ignore_index=1)))
    record(out, "ce_all_ignored_mean", None, [r(3, 4), ones], fn(lambda x, y: F.cross_entropy(x, y, ignore_index=1)))
    record(out, "ce_all_ignored_weight", None, [r(3, 4), ones],
           fn(lambda x, y: F.cross_entropy(x, y, weight=w, ignore_index=1)))
    record(out, "ce_all_ignored_smooth", None, [r(3, 4), ones],
           fn(lambda x, y: F.cross_entropy(x, y, ignore_index=1, label_smoothing=0.2)))
    record(out, "ce_kd_all_ignored", None, [r(2, 3, 2), t([[1, 1], [1, 1]])],
           fn(lambda x, y: F.cross_entropy(x, y, ignore_index=1)))
    record(out, "ce_some_ignored_weight_smooth", None, [r(4, 4), t([1, 0, 1, 3])],
           fn(lambda x, y: F.cross_entropy(x, y, weight=w, ignore_index=1, label_smoothing=0.3)))
    # ---- ctc_loss after log_softmax (PyTorch's gradient with respect to the
    # log-probabilities themselves is a different one: see the test)
    z = r(6, 2, 4)
    targets, lengths, target_lengths = t([[1, 2, 2], [3, 1, 0]]), t([6, 5]), t([3, 2])
    record(out, "ctc_log_softmax_mean", None, [z, targets, lengths, target_lengths],
           fn(lambda z, y, n, m: F.ctc_loss(F.log_softmax(z, 2), y, n, m)))
    record(out, "ctc_log_softmax_sum_blank", None, [z, t([[1, 2, 2], [0, 1, 0]]), lengths, target_lengths],
           fn(lambda z, y, n, m: F.ctc_loss(F.log_softmax(z, 2), y, n, m, blank=3, reduction="sum")))
    record(out, "ctc_log_softmax_concat", None, [z, t([1, 2, 2, 3, 1]), lengths, target_lengths],
           fn(lambda z, y, n, m: F.ctc_loss(F.log_softmax(z, 2), y, n, m)))
    record(out, "ctc_log_softmax_empty_target", None, [z, targets, lengths, t([0, 2])],
           fn(lambda z, y, n, m: F.ctc_loss(F.log_softmax(z, 2), y, n, m, reduction="none")))
    record(out, "ctc_log_softmax_zero_infinity", None, [z, t([[1, 1, 1], [3, 1, 0]]), t([4, 5]), target_lengths],
           fn(lambda z, y, n, m: F.ctc_loss(F.log_softmax(z, 2), y, n, m, zero_infinity=True)))
    # ---- the softmax layers made without dim pick it from the input's rank
    for shape in [(5,), (2, 3), (2, 3, 4), (2, 3, 2, 2)]:
        suffix = "_".join(str(s) for s in shape)
        record(out, f"softmax_layer_no_dim_{suffix}", nn.Softmax(), [r(*shape)])
    record(out, "log_softmax_layer_no_dim_3d", nn.LogSoftmax(), [r(2, 3, 4)])
    record(out, "softmin_layer_no_dim_4d", nn.Softmin(), [r(2, 3, 2, 2)])


# (name, scheduler, optimizer): the scheduler's arguments after the optimizer, as
# test_sched_optim_vs_torch5.dsl writes them; "SGDm" is SGD with momentum 0.9.
SCHEDULES = [
    ("step_gamma_above_1", lambda o: torch.optim.lr_scheduler.StepLR(o, 4, gamma=1.5), "SGD"),
    ("step_every_epoch", lambda o: torch.optim.lr_scheduler.StepLR(o, 1), "SGD"),
    ("multistep_repeated", lambda o: torch.optim.lr_scheduler.MultiStepLR(o, [2, 2, 5, 30], gamma=0.5), "SGD"),
    ("multistep_unsorted", lambda o: torch.optim.lr_scheduler.MultiStepLR(o, [7, 3]), "SGD"),
    ("exponential_growth", lambda o: torch.optim.lr_scheduler.ExponentialLR(o, 1.1), "SGD"),
    ("cosine_past_t_max", lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, 7, eta_min=0.01), "SGD"),
    ("cosine_t_max_1", lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, 1), "SGD"),
    ("cosine_eta_min_above", lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, 10, eta_min=0.5), "SGD"),
    ("linear_down", lambda o: torch.optim.lr_scheduler.LinearLR(o, start_factor=1.0, end_factor=0.1, total_iters=1),
     "SGD"),
    ("linear_small_start", lambda o: torch.optim.lr_scheduler.LinearLR(o, start_factor=0.01, end_factor=0.5,
                                                                        total_iters=7), "SGD"),
    ("constant_factor_1", lambda o: torch.optim.lr_scheduler.ConstantLR(o, factor=1.0, total_iters=3), "SGD"),
    ("polynomial_square", lambda o: torch.optim.lr_scheduler.PolynomialLR(o, total_iters=7, power=2.0), "SGD"),
    ("polynomial_one_iter", lambda o: torch.optim.lr_scheduler.PolynomialLR(o, total_iters=1, power=0.3), "SGD"),
    ("warm_restarts_t_mult_2", lambda o: torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, 3, T_mult=2,
                                                                                               eta_min=0.01), "SGD"),
    ("warm_restarts_t0_1", lambda o: torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, 1, T_mult=3), "SGD"),
    ("cyclic_up_down", lambda o: torch.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=3, step_size_down=5),
     "SGDm"),
    ("cyclic_exp_range_momentum", lambda o: torch.optim.lr_scheduler.CyclicLR(
        o, 0.01, 0.1, step_size_up=2, mode="exp_range", gamma=0.9, base_momentum=0.5, max_momentum=0.8), "SGDm"),
    ("cyclic_steps_1", lambda o: torch.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=1, step_size_down=1),
     "SGDm"),
    ("one_cycle_short_warmup", lambda o: torch.optim.lr_scheduler.OneCycleLR(
        o, 0.5, total_steps=30, pct_start=0.1, div_factor=10.0, final_div_factor=100.0), "SGDm"),
    ("one_cycle_three_phase_odd", lambda o: torch.optim.lr_scheduler.OneCycleLR(
        o, 0.5, total_steps=31, anneal_strategy="linear", three_phase=True, base_momentum=0.7, max_momentum=0.9),
     "SGDm"),
    ("one_cycle_epochs_adam", lambda o: torch.optim.lr_scheduler.OneCycleLR(o, 0.5, epochs=3, steps_per_epoch=11,
                                                                            pct_start=0.5), "Adam"),
    ("one_cycle_no_warmup", lambda o: torch.optim.lr_scheduler.OneCycleLR(o, 0.5, total_steps=31, pct_start=0.0),
     "SGDm"),
    ("one_cycle_all_warmup", lambda o: torch.optim.lr_scheduler.OneCycleLR(o, 0.5, total_steps=31, pct_start=1.0),
     "SGDm"),
]

# (name, optimizer over [W]): the rarely used flags together.
OPTIMIZERS = [
    ("sgd_nesterov_maximize_decay", lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True,
                                                               weight_decay=0.1, maximize=True)),
    ("sgd_dampening_maximize", lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, dampening=0.5, maximize=True)),
    ("adam_amsgrad_maximize_decay", lambda ps: torch.optim.Adam(ps, lr=0.1, amsgrad=True, maximize=True,
                                                                weight_decay=0.2)),
    ("adam_beta1_0_big_eps", lambda ps: torch.optim.Adam(ps, lr=0.05, betas=(0.0, 0.5), eps=0.1)),
    ("adamw_amsgrad_decay", lambda ps: torch.optim.AdamW(ps, lr=0.1, amsgrad=True, weight_decay=0.3)),
    ("rmsprop_everything", lambda ps: torch.optim.RMSprop(ps, lr=0.01, alpha=0.5, centered=True, momentum=0.5,
                                                          weight_decay=0.1, maximize=True)),
    ("adagrad_decays_eps", lambda ps: torch.optim.Adagrad(ps, lr=0.1, weight_decay=0.2, lr_decay=0.1, eps=0.5)),
    ("adamax_decay_eps", lambda ps: torch.optim.Adamax(ps, lr=0.1, weight_decay=0.2, eps=0.5)),
    ("radam_eps_decay", lambda ps: torch.optim.RAdam(ps, lr=0.1, eps=0.5, weight_decay=0.1)),
    ("adadelta_rho_decay", lambda ps: torch.optim.Adadelta(ps, lr=0.5, rho=0.5, weight_decay=0.1)),
    ("rprop_etas_sizes", lambda ps: torch.optim.Rprop(ps, lr=0.05, etas=(0.3, 1.5), step_sizes=(0.01, 0.1))),
]


def schedule_cases(out):
    for name, make, kind in SCHEDULES:
        p = torch.zeros(1, requires_grad=True)
        opt = (torch.optim.Adam([p], lr=0.1) if kind == "Adam" else
               torch.optim.SGD([p], lr=0.1, momentum=0.9 if kind == "SGDm" else 0))
        sched = make(opt)
        lrs, momenta = [], []
        for _ in range(30):
            g = opt.param_groups[0]
            lrs.append(g["lr"])
            momenta.append(g["betas"][0] if "betas" in g else g["momentum"])
            opt.step()
            sched.step()
        out[f"sched_{name}.lr"] = torch.tensor(lrs, dtype=torch.float64)
        out[f"sched_{name}.momentum"] = torch.tensor(momenta, dtype=torch.float64)


def optimizer_cases(out):
    coef = torch.tensor([[1.0, 2.0, 0.5], [0.1, 3.0, 1.0]], dtype=torch.float64)
    for name, make in OPTIMIZERS:
        W = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=torch.float64, requires_grad=True)
        opt = make([W])
        for _ in range(12):
            opt.zero_grad()
            loss = (W ** 4 * coef).sum() + (W ** 2).sum() * 0.3 + W[0, 0] * W[1, 1]
            loss.backward()
            opt.step()
        out[f"optim_{name}.W"] = W.detach().clone()


def main():
    torch.manual_seed(0)
    out = {}
    torch.set_default_dtype(torch.float32)  # nabla's default: the dtypes a number makes
    promotion_cases(out)
    torch.set_default_dtype(torch.float64)
    grad_cases(out)
    reduce_loss_cases(out)
    schedule_cases(out)
    optimizer_cases(out)
    write_safetensors(OUT, out)
    print(f"{OUT}: {len(out)} tensors")


if __name__ == "__main__":
    main()
