# Round 5 of the differential tests against PyTorch 1.13 (see test_promotion_vs_torch5.dsl):
# reductions, losses, layers and initializers at the edges where nabla's answer was
# not PyTorch's. std of constant rows (its gradient 0, not 0/0), var and std with a
# correction past N, max/min of all elements through NaN, prod of nothing (1, in the
# graph, i64 for integers), norms with p < 1 through zeros, nll_loss and cross_entropy
# with every target ignored (the mean's gradient 0), ctc_loss after log_softmax,
# the softmax layers made without dim, and nn.init.calculate_gain's names. Each
# checked case loads tests/stdlib/reference/vs_torch5.safetensors (written by
# tests/stdlib/reference/make_vs_torch5.py, reduce_loss_cases, under the same names)
# and compares dtypes, values and the gradients of sum(y0 * g).
import nn
import "vs_torch5_check.inc" as v5

let check = v5.check

# std's gradient (x - mean) / ((N - c) std) was 0/0 where x is constant; a correction
# past N makes the value inf, and PyTorch's gradient then divides by N - c itself
test "std of constant rows has a zero gradient; var and std with a correction past N" {
  check("std_constant_rows", 1, fn(xs) = std(xs[0], 1))
  check("std_constant_all", 1, fn(xs) = std(xs[0]))
  check("std_correction_past_n", 1, fn(xs) = std(xs[0], 0, correction=5))
  check("var_correction_past_n", 1, fn(xs) = var(xs[0], 0, correction=5))
  check("std_mean_constant", 1, fn(xs) = std_mean(xs[0], 1))
}

# every gradient was 0 / 0: no element equals a NaN result
test "max and min of every element through NaN: the NaN elements share the gradient" {
  check("max_all_nan", 1, fn(xs) = max(xs[0]))
  check("min_all_one_nan", 1, fn(xs) = min(xs[0]))
}

# ones() left the graph: backward through prod of an empty dim was an error
test "prod of nothing is 1, in the graph, and i64 for integers" {
  check("prod_empty_dim", 1, fn(xs) = prod(xs[0], 0))
  check("prod_empty_dim_keepdim", 1, fn(xs) = prod(xs[0], 1, keepdim=true))
  check("prod_empty_all", 1, fn(xs) = prod(xs[0]))
  check("prod_empty_i32", 1, fn(xs) = prod(xs[0], 0))
}

# |x|^(p-1) is infinite at 0: its gradient was inf * sign(0), NaN
test "norms with p < 1 through zeros" {
  check("norm_half_zero", 1, fn(xs) = norm(xs[0], 0.5))
  check("norm_negative_p_zero", 1, fn(xs) = norm(xs[0], -1.5))
  check("norm_quarter_rows", 1, fn(xs) = norm(xs[0], 0.25, dim=1))
}

# the mean's g / 0 reached the ignored elements as 0 * inf, NaN
test "nll_loss and cross_entropy with every target ignored: a NaN mean with a zero gradient" {
  check("nll_all_ignored_mean", 2, fn(xs) = nll_loss(xs[0], xs[1], ignore_index=1))
  check("nll_all_ignored_weight", 2, fn(xs) = nll_loss(xs[0], xs[1], weight=tensor([1.0, 2.0, 3.0, 4.0], dtype=f64),
                                                       ignore_index=1))
  check("ce_all_ignored_mean", 2, fn(xs) = cross_entropy(xs[0], xs[1], ignore_index=1))
  check("ce_all_ignored_weight", 2, fn(xs) = cross_entropy(xs[0], xs[1], weight=tensor([1.0, 2.0, 3.0, 4.0], dtype=f64),
                                                           ignore_index=1))
  check("ce_all_ignored_smooth", 2, fn(xs) = cross_entropy(xs[0], xs[1], ignore_index=1, label_smoothing=0.2))
  check("ce_kd_all_ignored", 2, fn(xs) = cross_entropy(xs[0], xs[1], ignore_index=1))
  check("ce_some_ignored_weight_smooth", 2, fn(xs) = cross_entropy(xs[0], xs[1],
                                                                   weight=tensor([1.0, 2.0, 3.0, 4.0], dtype=f64),
                                                                   ignore_index=1, label_smoothing=0.3))
}

# PyTorch's ctc_loss backward returns exp(log_probs) * g minus the alignment term: the
# gradient with respect to logits under a log_softmax, not with respect to the
# log-probabilities it is given (nabla's is the latter, 0 off the target's labels).
# After log_softmax both are the same, which is what these compare.
test "ctc_loss after log_softmax: reductions, blank, concatenated and empty targets, zero_infinity" {
  let ls = fn(xs) = log_softmax(xs[0], 2)
  check("ctc_log_softmax_mean", 4, fn(xs) = ctc_loss(ls(xs), xs[1], xs[2], xs[3]))
  check("ctc_log_softmax_sum_blank", 4, fn(xs) = ctc_loss(ls(xs), xs[1], xs[2], xs[3], blank=3, reduction="sum"))
  check("ctc_log_softmax_concat", 4, fn(xs) = ctc_loss(ls(xs), xs[1], xs[2], xs[3]))
  check("ctc_log_softmax_empty_target", 4, fn(xs) = ctc_loss(ls(xs), xs[1], xs[2], xs[3], reduction="none"))
  check("ctc_log_softmax_zero_infinity", 4, fn(xs) = ctc_loss(ls(xs), xs[1], xs[2], xs[3], zero_infinity=true))
}

# Note [A softmax layer without dim]: dim -1 differed for 3- and 4-dim inputs
test "Softmax, LogSoftmax and Softmin made without dim pick PyTorch's dim by rank" {
  for suffix in ["5", "2_3", "2_3_4", "2_3_2_2"] { v5.check_layer("softmax_layer_no_dim_" + suffix, nn.Softmax()) }
  v5.check_layer("log_softmax_layer_no_dim_3d", nn.LogSoftmax())
  v5.check_layer("softmin_layer_no_dim_4d", nn.Softmin())
  expect(nn.Softmax().dim == none, "nn.Softmax()'s dim is none, as PyTorch's")
  expect_close(nn.Softmax(dim=-1)(tensor([[[1.0, 2.0]]])), tensor([[[0.2689414213699951, 0.7310585786300049]]]))
}

# PyTorch's linear_fns: every conv name but conv2d was an error
test "calculate_gain knows every name PyTorch's does" {
  for name in ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
               "sigmoid"] {
    expect(nn.init.calculate_gain(name) == 1.0, f"calculate_gain({repr(name)})")
  }
  expect_close(nn.init.calculate_gain("leaky_relu", 0), 2.0 ** 0.5)
  expect_close(nn.init.calculate_gain("leaky_relu", 1), 1.0)
  expect_close(nn.init.calculate_gain("selu"), 0.75)
  # fan_out of a [6, 4, 3] weight is 18: the bound is gain * sqrt(3 / 18)
  let w = zeros([6, 4, 3])
  nn.init.kaiming_uniform_(w, mode="fan_out", nonlinearity="conv1d")
  expect(float(w.abs().max()) <= (3.0 / 18) ** 0.5, "kaiming_uniform_ with fan_out of a conv1d weight")
}
