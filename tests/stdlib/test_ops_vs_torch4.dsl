# Round 4 of the differential tests against PyTorch 1.13 in f64 (after
# test_ops_vs_torch2.dsl): scans and orderings through zeros, infinities and NaN
# (cumprod along a middle dim, logcumsumexp with -inf, cummax/cummin with NaN, stable
# sorts and argsort with NaN and infinities, topk along dim 0 and with NaN, kthvalue,
# median and nanmedian with NaN, mode with ties), and the activations with their
# non-default arguments, functional and as layers (elu/celu alpha, gelu's tanh
# approximation, softplus beta/threshold, hardtanh bounds, rrelu in eval, threshold,
# a negative leaky slope, glu/softmin/log_softmax along other dims, log_softmax's dtype,
# softmax through -inf, per-channel prelu), inplace=true of the activations and
# dropouts (functional and layers), NaN through max/amax/argmax/maximum/clamp,
# normalize/pairwise_distance/cosine_similarity/cdist with other p. Each case loads
# tests/stdlib/reference/vs_torch4.safetensors (written by
# tests/stdlib/reference/make_vs_torch4.py, ops_cases) and compares outputs and the
# gradients of sum(y0 * g).
import nn
import "vs_torch2_check.inc" as vt

let ref = load("tests/stdlib/reference/vs_torch4.safetensors")

fn check(name, n, f) = vt.check_in(ref, name, none, n, fn(m, xs) = f(xs))
fn check_layer(name, m) = vt.check_in(ref, name, m, 1, fn(m, xs) = [m(xs[0])])
fn pair(r) = list(r) if type(r) == "tuple" else [r]

test "cumprod along a middle dim through zeros, cumsum along -1, logcumsumexp through -inf" {
  check("cumprod_zeros_mid_dim", 1, fn(xs) = [cumprod(xs[0], 1)])
  check("cumsum_neg_dim", 1, fn(xs) = [cumsum(xs[0], -1)])
  check("logcumsumexp_inf", 1, fn(xs) = [logcumsumexp(xs[0], 1)])
  check("logcumsumexp_dim0", 1, fn(xs) = [logcumsumexp(xs[0], 0)])
}

test "cummax and cummin propagate NaN, with its index" {
  check("cummax_nan", 1, fn(xs) = pair(cummax(xs[0], 1)))
  check("cummin_nan", 1, fn(xs) = pair(cummin(xs[0], 1)))
}

test "stable sorts with NaN and infinities, both orders; argsort along dim 0" {
  check("sort_nan_desc_stable", 1, fn(xs) = pair(sort(xs[0], dim=1, descending=true, stable=true)))
  check("sort_nan_asc_stable", 1, fn(xs) = pair(sort(xs[0], dim=1, stable=true)))
  check("argsort_nan_dim0", 1, fn(xs) = [argsort(xs[0], dim=0, stable=true)])
}

test "topk along dim 0 smallest and with NaN; kthvalue; median and nanmedian with NaN; mode" {
  check("topk_smallest_dim0", 1, fn(xs) = pair(topk(xs[0], 2, 0, largest=false)))
  check("topk_nan_largest", 1, fn(xs) = pair(topk(xs[0], 2)))
  check("kthvalue_dim0_keepdim", 1, fn(xs) = pair(kthvalue(xs[0], 2, 0, keepdim=true)))
  check("kthvalue_last", 1, fn(xs) = pair(kthvalue(xs[0], 5)))
  check("median_nan_dim", 1, fn(xs) = pair(median(xs[0], 1)))
  check("median_all_even", 1, fn(xs) = [median(xs[0])])
  check("nanmedian_dim", 1, fn(xs) = pair(nanmedian(xs[0], 1)))
  check("mode_ties_dim0", 1, fn(xs) = [mode(xs[0], 0)[0]])
}

# k = [-1000, -20, -3, -2, -1, -0.5, 0, 0.25, 0.5, 1, 2, 2.5, 5, 30]: the kinks and
# both saturations
test "activations with their non-default arguments, at their kinks and saturations" {
  let acts = [
    ("elu_alpha2", fn(x) = elu(x, alpha=2.0)),
    ("celu_alpha2", fn(x) = celu(x, alpha=2.0)),
    ("gelu_tanh", fn(x) = gelu(x, approximate="tanh")),
    ("gelu", gelu),
    ("softplus_half_5", fn(x) = softplus(x, beta=0.5, threshold=5.0)),
    ("hardtanh_asym", fn(x) = hardtanh(x, min_val=-2.0, max_val=0.5)),
    ("rrelu_eval", fn(x) = rrelu(x, lower=0.1, upper=0.5, training=false)),
    ("threshold_up", fn(x) = threshold(x, 1.0, 5.0)),
    ("logsigmoid", logsigmoid),
    ("leaky_relu_neg", fn(x) = leaky_relu(x, -0.5)),
    ("silu", silu),
    ("mish", mish),
    ("softsign", softsign),
    ("tanhshrink", tanhshrink),
    ("sigmoid", sigmoid),
    ("relu6", relu6),
  ]
  for (name, f) in acts { check("act_" + name, 1, fn(xs) = [f(xs[0])]) }
}

test "glu, softmin and log_softmax along other dims; softmax through -inf; log_softmax's dtype" {
  check("glu_dim0", 1, fn(xs) = [glu(xs[0], 0)])
  check("glu_dim1", 1, fn(xs) = [glu(xs[0], 1)])
  check("softmin_dim0", 1, fn(xs) = [softmin(xs[0], 0)])
  check("log_softmax_dim1", 1, fn(xs) = [log_softmax(xs[0], 1)])
  check("softmax_neg_inf", 1, fn(xs) = [softmax(xs[0], 1)])
  # the input is f32: its gradient comes back in f32, PyTorch's rounding
  vt.check_in(ref, "log_softmax_dtype", none, 1, fn(m, xs) = [log_softmax(xs[0], 1, dtype=f64)], rtol=1e-6)
  check("prelu_channels", 2, fn(xs) = [prelu(xs[0], xs[1])])
}

test "activation layers with their non-default arguments" {
  check_layer("prelu_layer_channels", nn.PReLU(3, init=0.3))
  check_layer("softplus_layer", nn.Softplus(beta=3.0, threshold=2.0))
  check_layer("elu_layer", nn.ELU(alpha=0.3))
  check_layer("hardtanh_layer", nn.Hardtanh(-0.5, 3.0))
  check_layer("celu_layer", nn.CELU(1.5))
  let r = nn.RReLU(0.2, 0.4)
  r.eval()
  check_layer("rrelu_layer_eval", r)
  check_layer("logsoftmax_layer", nn.LogSoftmax(dim=0))
  check_layer("softmin_layer", nn.Softmin(dim=1))
}

test "logsumexp, softmax and log_softmax through rows of -inf" {
  check("logsumexp_neg_inf", 1, fn(xs) = [logsumexp(xs[0], 1)])
  check("softmax_neg_inf_rows", 1, fn(xs) = [softmax(xs[0], 1)])
  check("log_softmax_neg_inf", 1, fn(xs) = [log_softmax(xs[0], 1)])
}

# maximum's gradient where a NaN wins: PyTorch's rule (only a side that loses a
# comparison gets none) sends it to both sides, the NaN's source among them.
test "max, amax, argmax, maximum and clamp propagate NaN" {
  check("max_dim_nan", 1, fn(xs) = pair(max(xs[0], 1)))
  check("amax_nan", 1, fn(xs) = [amax(xs[0], 0)])
  check("argmax_nan", 1, fn(xs) = [argmax(xs[0], 1)])
  check("maximum_nan", 2, fn(xs) = [maximum(xs[0], xs[1])])
  check("clamp_nan", 1, fn(xs) = [clamp(xs[0], -1.0, 2.5)])
}

test "integer sorts and a cumsum into f64" {
  check("sort_int_desc", 1, fn(xs) = pair(sort(xs[0], dim=1, descending=true, stable=true)))
  check("cumsum_int_dtype", 1, fn(xs) = [cumsum(xs[0], 1, dtype=f64)])
}

test "normalize, pairwise_distance, cosine_similarity and cdist with their other p, eps and broadcasting" {
  check("normalize_inf_dim0", 1, fn(xs) = [normalize(xs[0], p=float("inf"), dim=0)])
  check("normalize_p1_last", 1, fn(xs) = [normalize(xs[0], p=1.0, dim=-1, eps=1e-3)])
  check("pairwise_inf_keepdim", 2, fn(xs) = [pairwise_distance(xs[0], xs[1], p=float("inf"), keepdim=true)])
  check("pairwise_bcast_p3", 2, fn(xs) = [pairwise_distance(xs[0], xs[1], p=3.0, eps=1e-4)])
  check("cosine_similarity_bcast", 2, fn(xs) = [cosine_similarity(xs[0], xs[1], dim=-1, eps=1e-6)])
  check("cdist_p1", 2, fn(xs) = [cdist(xs[0], xs[1], p=1.0)])
  check("cdist_pinf", 2, fn(xs) = [cdist(xs[0], xs[1], p=float("inf"))])
}

test "dropout is the identity in eval and with p=0" {
  check("dropout_eval", 1, fn(xs) = [dropout(xs[0], p=0.7, training=false)])
  check("dropout_p0_train", 1, fn(xs) = [dropout(xs[0], p=0.0, training=true)])
  let d = nn.Dropout2d(0.4)
  d.eval()
  check_layer("dropout2d_eval_layer", d)
}

# F.relu(h, inplace=true) and the layers' inplace=true: the activation written into a
# non-leaf h, which is returned; the gradient reaches the leaf through the write.
test "inplace=true of the activations and dropout: PyTorch's values and gradients through the write" {
  let acts = [
    ("relu", fn(h) = relu(h, inplace=true)),
    ("relu6", fn(h) = relu6(h, inplace=true)),
    ("elu", fn(h) = elu(h, 0.5, inplace=true)),
    ("selu", fn(h) = selu(h, inplace=true)),
    ("celu", fn(h) = celu(h, 2.0, inplace=true)),
    ("leaky_relu", fn(h) = leaky_relu(h, 0.1, inplace=true)),
    ("hardtanh", fn(h) = hardtanh(h, -2.0, 3.0, inplace=true)),
    ("hardswish", fn(h) = hardswish(h, inplace=true)),
    ("hardsigmoid", fn(h) = hardsigmoid(h, inplace=true)),
    ("silu", fn(h) = silu(h, inplace=true)),
    ("mish", fn(h) = mish(h, inplace=true)),
    ("threshold", fn(h) = threshold(h, 0.5, -2.0, inplace=true)),
    ("dropout_eval", fn(h) = dropout(h, 0.3, false, true)),
  ]
  # PyTorch's hardsigmoid_backward multiplies by 1/6 rounded to f32 (test_ops_vs_torch2.dsl)
  for (name, f) in acts {
    vt.check_in(ref, "inplace_" + name, none, 1, fn(m, xs) = [f(xs[0] * 1.5)], rtol=1e-7 if name == "hardsigmoid" else 1e-10)
  }
  let s = nn.Sequential([nn.Linear(3, 4), nn.ReLU(inplace=true), nn.Linear(4, 4), nn.Hardswish(inplace=true),
                         nn.Dropout(0.2, inplace=true), nn.Linear(4, 4), nn.SiLU(inplace=true), nn.Linear(4, 2),
                         nn.LeakyReLU(0.2, inplace=true)])
  s.eval()
  check_layer("inplace_sequential", s)
}

test "inplace=true returns its input, written; a leaf that requires grad is refused" {
  let h = tensor([-1.0, 2.0, -3.0]) * 1.0
  let y = relu(h, inplace=true)
  expect(h.tolist() == [0.0, 2.0, 0.0] and y.tolist() == [0.0, 2.0, 0.0])
  y[1] = 5.0
  expect(h[1].item() == 5.0)  # one tensor
  let d = tensor([1.0, -1.0])
  nn.ELU(inplace=true)(d)
  expect_close(d, tensor([1.0, exp(-1.0) - 1.0]))
  let leaf = randn([3], requires_grad=true)
  expect_error(fn() = silu(leaf, inplace=true), "silu(): inplace=true writes into argument 'input', a leaf tensor that requires grad")
  expect_error(fn() = nn.AlphaDropout(0.2, inplace=true)(leaf), "alpha_dropout(): inplace=true writes into argument 'input'")
  expect(str(nn.ReLU(inplace=true)) == "ReLU(inplace=true)")
}
