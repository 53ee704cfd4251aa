# A differential round against PyTorch 1.13 in f64 (see test_layers_vs_torch2.dsl) of
# ops whose edge cases users meet: cumprod through zeros (and its grad of grad),
# stable sorts with ties, topk, repeat_interleave with tensor repeats, one_hot,
# tril/triu with offsets, roll over several dims, and the gradients of activations,
# clamps and max/min at their kinks and ties. Each case's torch call is in
# tests/stdlib/reference/make_layers_vs_torch2.py (ops_cases) under the same name.
import "vs_torch2_check.inc" as vt

let ref = vt.ref

fn check(name, n, f) = vt.check(name, none, n, fn(m, xs) = f(xs))
fn pair(r) = list(r) if type(r) == "tuple" else [r]

test "cumprod through one and two zeros, both dims; cumsum" {
  check("cumprod_zeros_dim1", 1, fn(xs) = [cumprod(xs[0], 1)])
  check("cumprod_zeros_dim0", 1, fn(xs) = [cumprod(xs[0], 0)])
  check("cumsum_dim0", 1, fn(xs) = [cumsum(xs[0], 0)])
}

# second_order in the generator: the gradient of sum(cumprod * g), then the gradient
# of sum(that * gg), both from torch.autograd.grad
test "cumprod's grad of grad through zeros equals PyTorch's" {
  for case in ["cumprod_gg_one_zero", "cumprod_gg_two_zeros", "cumprod_gg"] {
    let x = ref[case + ".x0"].clone().requires_grad_(true)
    let dx = grad((cumprod(x, -1) * ref[case + ".g"]).sum(), x, create_graph=true)
    expect_close(dx, ref[case + ".grad_x0"], rtol=1e-10, atol=1e-12, msg=case)
    expect_close(grad((dx * ref[case + ".gg"]).sum(), x), ref[case + ".grad2_x0"], rtol=1e-10, atol=1e-12, msg=case)
  }
}

test "sort and argsort stable with ties, descending and along dim 0" {
  check("sort_stable_desc", 1, fn(xs) = pair(sort(xs[0], stable=true, descending=true)))
  check("sort_stable_asc_dim0", 1, fn(xs) = pair(sort(xs[0], dim=0, stable=true)))
  check("argsort_stable_desc", 1, fn(xs) = [argsort(xs[0], descending=true, stable=true)])
}

# PyTorch leaves open which of tied elements topk returns (its CPU kernel's
# nth_element picks); nabla's are the first by position, as a stable sort's.
test "topk with ties, smallest and largest, sorted: PyTorch's values, the first tied indices" {
  check("topk_smallest", 1, fn(xs) = [topk(xs[0], 3, largest=false, sorted=true)[0]])
  check("topk_largest", 1, fn(xs) = [topk(xs[0], 4, sorted=true)[0]])
  let x = ref["topk_smallest.x0"]
  expect(topk(x, 3, largest=false)[1].tolist() == [[7, 1, 3], [6, 3, 0]])
  expect(topk(x, 4)[1].tolist() == [[0, 4, 2, 5], [4, 5, 0, 1]])
  let xg = x.clone().requires_grad_(true)
  topk(xg, 4)[0].sum().backward()
  expect(xg.grad.tolist() == [[1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]])
}

test "repeat_interleave with tensor repeats (a zero among them), by dim and flattened" {
  check("repeat_interleave_dim0", 1, fn(xs) = [repeat_interleave(xs[0], tensor([1, 0, 2]), dim=0)])
  check("repeat_interleave_dim1", 1, fn(xs) = [repeat_interleave(xs[0], tensor([2, 3]), dim=1)])
  check("repeat_interleave_flat", 1, fn(xs) = [repeat_interleave(xs[0], tensor([1, 2, 0, 3, 1, 1]))])
}

test "one_hot with num_classes given and inferred" {
  check("one_hot_5", 1, fn(xs) = [one_hot(xs[0], 5)])
  check("one_hot_auto", 1, fn(xs) = [one_hot(xs[0])])
}

test "tril and triu with diagonal offsets, on a wide and a batched matrix" {
  check("tril_m1", 1, fn(xs) = [tril(xs[0], -1)])
  check("triu_2", 1, fn(xs) = [triu(xs[0], 2)])
  check("tril_batched_1", 1, fn(xs) = [tril(xs[0], 1)])
  check("triu_batched_m2", 1, fn(xs) = [triu(xs[0], diagonal=-2)])
}

test "roll over two dims, flattened, and by more than the size" {
  check("roll_two_dims", 1, fn(xs) = [roll(xs[0], [1, -2], [0, 2])])
  check("roll_flat", 1, fn(xs) = [roll(xs[0], 3)])
  check("roll_past_size", 1, fn(xs) = [roll(xs[0], [7, -6], [1, 0])])
}

test "logaddexp at equal arguments, logit with eps at its bounds, softplus at its threshold" {
  check("logaddexp_ties", 2, fn(xs) = [logaddexp(xs[0], xs[1])])
  check("logit_eps", 1, fn(xs) = [logit(xs[0], eps=0.1)])
  check("softplus_beta_threshold", 1, fn(xs) = [softplus(xs[0], beta=2.0, threshold=1.0)])
}

# k = [-4, -3, -1, -0.5, 0, 0.5, 1, 2, 3, 4, 6, 7]: every kink below is one of its points
test "activations' gradients at their kinks" {
  let acts = [
    ("elu_alpha", fn(x) = elu(x, alpha=0.5)),
    ("celu_alpha", fn(x) = celu(x, alpha=0.5)),
    ("selu", selu),
    ("hardtanh_bounds", fn(x) = hardtanh(x, min_val=-0.5, max_val=2.0)),
    ("leaky_relu_slope", fn(x) = leaky_relu(x, negative_slope=0.2)),
    ("relu", relu),
    ("relu6", relu6),
    ("hardswish", hardswish),
    ("hardshrink", fn(x) = hardshrink(x, 0.5)),
    ("softshrink", fn(x) = softshrink(x, 0.5)),
    ("threshold", fn(x) = threshold(x, 0.5, -1.0)),
    ("clamp_bounds", fn(x) = clamp(x, min=-0.5, max=2.0)),
    ("abs", abs),
  ]
  for (name, f) in acts { check("act_" + name, 1, fn(xs) = [f(xs[0])]) }
  # PyTorch's hardsigmoid_backward multiplies by 1/6 rounded to f32 in every dtype
  vt.check("act_hardsigmoid", none, 1, fn(m, xs) = [hardsigmoid(xs[0])], rtol=1e-7)
  check("prelu_kink", 2, fn(xs) = [prelu(xs[0], xs[1])])
  check("clamp_min_above_max", 1, fn(xs) = [clamp(xs[0], min=2.0, max=1.0)])
  check("clamp_tensor_bounds", 3, fn(xs) = [clamp(xs[0], xs[1], xs[2])])
  check("leaky_relu_big_slope", 1, fn(xs) = [leaky_relu(xs[0], 2.0)])
  check("softplus_negative_beta", 1, fn(xs) = [softplus(xs[0], beta=-1.0, threshold=2.0)])
}

test "maximum/minimum, amax/amin, max/min by dim, cummax/cummin and median with ties" {
  check("maximum_ties", 2, fn(xs) = [maximum(xs[0], xs[1])])
  check("minimum_ties", 2, fn(xs) = [minimum(xs[0], xs[1])])
  check("amax_ties", 1, fn(xs) = [amax(xs[0], 1)])
  check("amin_ties_all", 1, fn(xs) = [amin(xs[0])])
  check("max_dim_ties", 1, fn(xs) = pair(max(xs[0], 1)))
  check("min_dim_ties", 1, fn(xs) = pair(min(xs[0], 0)))
  check("cummax_ties", 1, fn(xs) = pair(cummax(xs[0], 1)))
  check("cummin_ties", 1, fn(xs) = pair(cummin(xs[0], 1)))
  check("median_ties", 1, fn(xs) = pair(median(xs[0], 1)))
}

test "norm of a zero row has a zero gradient" {
  check("norm_zero_row", 1, fn(xs) = [norm(xs[0], dim=1)])
}
