# Round 8 against PyTorch 1.13: the rsample() of Gamma, Beta and Dirichlet (implicit
# gradients, stdlib/_distributions_rsample.dsl) and the tensor functions nabla lacked:
# gcd, lcm, frexp, nextafter and index_reduce
# (interp/builtins/composites/composite_torch_gaps8.cpp). Each check loads
# tests/stdlib/reference/vs_torch8.safetensors (written by
# tests/stdlib/reference/make_vs_torch8.py, where each case's torch call is, under the
# same name) and compares dtypes, values and the gradients of sum(y0 * g).
import "vs_torch5_check.inc" as v5
import distributions
import _distributions_rsample as R

let D = distributions
let ref = load("tests/stdlib/reference/vs_torch8.safetensors")
fn check(name, n, f, rtol=1e-10, atol=1e-12) = v5.check_in(ref, name, n, f, rtol, atol)

# Note [Implicit gradients of Gamma draws]: the same approximations as PyTorch's, region by region.
test "the implicit gradients of Gamma and Beta draws equal torch._standard_gamma_grad and _dirichlet_grad" {
  check("standard_gamma_grad", 2, fn(xs) = R._standard_gamma_grad(xs[0], xs[1]))
  check("dirichlet_grad", 3, fn(xs) = R._dirichlet_grad(xs[0], xs[1], xs[2]))
}

test "a Gamma draw's gradient in the concentration and the rate is PyTorch's for the same draw" {
  let x = ref["standard_gamma_grad.x1"]
  let a = ref["standard_gamma_grad.x0"].clone().requires_grad_(true)
  let y = R._GammaDraw(a, fn(c) = x)
  expect(bool((y == x).all()), "the draw is the one given")
  let g = randn(list(x.shape), dtype=f64)
  (y * g).sum().backward()
  expect_close(a.grad, g * ref["standard_gamma_grad.y0"], rtol=1e-10)
  # Gamma(a, rate).rsample() = draw / rate: the rate's gradient is -draw / rate^2
  manual_seed(3)
  let c = tensor([0.5, 2.0, 9.0], dtype=f64, requires_grad=true)
  let r = tensor([1.0, 3.0, 0.5], dtype=f64, requires_grad=true)
  let s = D.Gamma(c, r).rsample([4])
  expect(list(s.shape) == [4, 3] and bool((s > 0).all()), "rsample's shape and support")
  let w = randn(4, 3, dtype=f64)
  (s * w).sum().backward()
  let std = (s * r).detach()
  expect_close(c.grad, (w * R._standard_gamma_grad(c.detach().expand([4, 3]), std) / r.detach()).sum(0), rtol=1e-10)
  expect_close(r.grad, (-w * s.detach() / r.detach()).sum(0), rtol=1e-10)
}

test "a Dirichlet draw's gradient is PyTorch's _Dirichlet_backward for the same draw" {
  let draw = ref["dirichlet_backward.x0"]
  let c = ref["dirichlet_backward.x1"].clone().requires_grad_(true)
  let y = R._DirichletDraw(c, fn(conc) = draw * 7.0)  # the normalized gammas are the draw
  expect_close(y, draw, rtol=1e-15)
  (y * ref["dirichlet_backward.x2"]).sum().backward()
  expect_close(c.grad, ref["dirichlet_backward.y0"], rtol=1e-10)
}

# The implicit gradient is the derivative of the draw at a fixed quantile, so its mean
# over many draws is the derivative of the mean: d/da E[a / rate] = 1 / rate, and Beta's
# and Dirichlet's alike.
test "rsample's gradients average to the derivative of the mean" {
  manual_seed(0)
  let a = tensor([0.5, 2.0, 9.0], dtype=f64, requires_grad=true)
  let rate = tensor([1.0, 3.0, 0.5], dtype=f64, requires_grad=true)
  D.Gamma(a, rate).rsample([20000]).mean(0).sum().backward()
  expect_close(a.grad, 1.0 / rate.detach(), rtol=0.05)
  expect_close(rate.grad, -a.detach() / rate.detach() ** 2, rtol=0.05)
  let c1 = tensor([0.5, 2.0], dtype=f64, requires_grad=true)
  let c0 = tensor([3.0, 2.0], dtype=f64, requires_grad=true)
  let b = D.Beta(c1, c0).rsample([20000])
  expect(list(b.shape) == [20000, 2] and bool(((b >= 0) & (b <= 1)).all()), "Beta draws in [0, 1]")
  b.mean(0).sum().backward()
  let total = (c1 + c0).detach()
  expect_close(c1.grad, c0.detach() / total ** 2, rtol=0.08)
  expect_close(c0.grad, -c1.detach() / total ** 2, rtol=0.08)
  let c = tensor([1.0, 2.0, 3.0], dtype=f64, requires_grad=true)
  let d = D.Dirichlet(c).rsample([20000])
  expect_close(d.sum(-1), ones(20000, dtype=f64), rtol=1e-12)
  d.mean(0)[0].backward()
  # d E[x_0] / d c_j = (delta_0j * 6 - 1) / 36
  expect_close(c.grad, tensor([5.0, -1.0, -1.0], dtype=f64) / 36.0, atol=0.01)
}

test "rsample: sample_shape, batches, f32, and no gradient without one" {
  let g = D.Gamma(tensor([[1.0], [2.0]]), tensor([1.0, 2.0, 3.0]))
  expect(list(g.rsample([5]).shape) == [5, 2, 3] and g.rsample().dtype == f32, "Gamma: sample_shape + batch_shape, f32")
  expect(g.rsample().requires_grad == false, "no parameter requires grad: no graph")
  expect(list(D.Dirichlet(ones(2, 4)).rsample([3]).shape) == [3, 2, 4], "Dirichlet: sample + batch + event")
  expect(list(D.Beta(2.0, 3.0).rsample([7]).shape) == [7], "Beta of numbers")
  let c = tensor([0.01, 0.02], requires_grad=true)
  let s = D.Gamma(c, 1.0).rsample([200])
  expect(bool((s > 0).all()), "tiny concentrations: draws clamped above 0, as PyTorch's")
  s.sum().backward()
  expect(bool(isfinite(c.grad).all()), "and finite gradients")
  expect_error(fn() = D.Gamma(1.0, 1.0).rsample([-1]), "sample_shape must be a list of sizes >= 0")
}

test "gcd and lcm: signs, zeros, broadcasting, i32" {
  check("gcd", 2, fn(xs) = gcd(xs[0], xs[1]))
  check("lcm", 2, fn(xs) = lcm(xs[0], xs[1]))
  check("gcd_broadcast", 2, fn(xs) = gcd(xs[0], xs[1]))
  check("lcm_broadcast", 2, fn(xs) = xs[0].lcm(xs[1]))
  check("gcd_i32", 2, fn(xs) = xs[0].gcd(xs[1]))
  expect(gcd(tensor([12, 18]), 8).tolist() == [4, 2], "a number operand")
  let x = tensor([12, 18])
  x.gcd_(tensor([8, 4]))
  expect(x.tolist() == [4, 2], "gcd_ in place")
}

test "frexp: mantissa, exponent and the mantissa's gradient" {
  check("frexp", 1, fn(xs) = list(frexp(xs[0])))
  check("frexp_f32", 1, fn(xs) = list(xs[0].frexp()), rtol=1e-6, atol=1e-30)
  let x = ref["frexp.x0"]
  let (m, e) = frexp(x)
  expect(bool((m == ref["frexp.y0"]).all()) and bool((e == ref["frexp.y1"]).all()), "exact, bit for bit")
  let r = frexp(tensor([0.0, float("inf"), -float("inf"), float("nan")], dtype=f64))
  expect(r.exponent.tolist() == [0, 0, 0, 0] and r.mantissa[:3].tolist() == [0.0, float("inf"), -float("inf")] and
         bool(r.mantissa[3].isnan()), "0, inf and nan are themselves with exponent 0, as PyTorch's")
}

test "nextafter: one ulp each way, subnormals, powers of 2, the largest number, infinities" {
  for name in ["nextafter", "nextafter_f32"] {
    let got = nextafter(ref[f"{name}.x0"], ref[f"{name}.x1"])
    let want = ref[f"{name}.y0"]
    expect(got.dtype == want.dtype and bool((got == want).all()), f"{name}: {got} vs PyTorch's {want}")
  }
  let n = nextafter(tensor([1.0, float("nan")], dtype=f64), tensor([float("nan"), 1.0], dtype=f64))
  expect(bool(n.isnan().all()), "NaN in either is NaN")
  expect(nextafter(tensor([1.0], dtype=f64), 2.0).tolist() == [1.0000000000000002], "a number other")
  expect(nextafter(tensor([1.0], requires_grad=true), tensor([2.0])).requires_grad == false, "not differentiable, as PyTorch's")
}

test "index_reduce: prod, mean, amax and amin with include_self both ways, gradients" {
  let index = ref["index_reduce.index"]
  for r in ["prod", "mean", "amax", "amin"] {
    for inc in [1, 0] {
      check(f"index_reduce_{r}_{inc}", 2, fn(xs) = xs[0].index_reduce(0, index, xs[1], r, include_self=inc == 1))
    }
  }
  check("index_reduce_dim1_prod", 2, fn(xs) = index_reduce(xs[0], 1, tensor([3, 0, 3]), xs[1], "prod"))
  let x = ones([3, 2], dtype=f64)
  x.index_reduce_(0, tensor([0, 0]), full([2, 2], 3.0, dtype=f64), "prod")
  expect(x.tolist() == [[9.0, 9.0], [1.0, 1.0], [1.0, 1.0]], "index_reduce_ in place")
  let a = randn(3, 2, dtype=f64, requires_grad=true)
  let s = randn(4, 2, dtype=f64, requires_grad=true)
  expect(gradcheck(fn(p, q) = index_reduce(p, 0, tensor([0, 2, 0, 1]), q, "mean"), a, s), "gradcheck (mean)")
  expect(gradgradcheck(fn(p, q) = index_reduce(p, 0, tensor([0, 2, 0, 1]), q, "prod"), a, s), "gradgradcheck (prod)")
}

test "vdot, diagonal_scatter (offsets, other dims, gradients) and narrow_copy" {
  check("vdot", 2, fn(xs) = vdot(xs[0], xs[1]))
  check("diagonal_scatter", 2, fn(xs) = diagonal_scatter(xs[0], xs[1]))
  check("diagonal_scatter_up", 2, fn(xs) = diagonal_scatter(xs[0], xs[1], 1))
  check("diagonal_scatter_down", 2, fn(xs) = xs[0].diagonal_scatter(xs[1], offset=-1))
  check("diagonal_scatter_dims", 2, fn(xs) = diagonal_scatter(xs[0], xs[1], 0, 0, 2))
  check("diagonal_scatter_neg", 2, fn(xs) = diagonal_scatter(xs[0], xs[1], -1, -1, 0))
  check("narrow_copy", 1, fn(xs) = narrow_copy(xs[0], 1, 1, 3))
  let a = randn(3, 3, dtype=f64, requires_grad=true)
  let d = randn(2, dtype=f64, requires_grad=true)
  expect(gradgradcheck(fn(p, q) = diagonal_scatter(p, q, 1) ** 2, a, d), "diagonal_scatter: second derivatives")
  expect(is_tensor(ones(2)) and not is_tensor(2.0) and numel(ones(2, 3)) == 6, "is_tensor and numel")
  expect(tensor([2.0]).is_nonzero() and not tensor([[0]]).is_nonzero(), "is_nonzero")
  expect_error(fn() = ones(2).is_nonzero(), "a tensor of one element is expected")
  expect_error(fn() = diagonal_scatter(zeros(3, 3), ones(2)), "must have the diagonal's shape [3]")
}

# Note [Window functions]
test "hann, hamming, blackman, bartlett and kaiser windows, periodic both ways" {
  for n in [0, 1, 2, 5, 8] {
    for p in [1, 0] {
      let tag = f"{n}_{p}"
      let periodic = p == 1
      expect_close(hann_window(n, periodic, dtype=f64), ref[f"hann_window_{tag}.y0"], atol=1e-15)
      expect_close(hamming_window(n, periodic, 0.6, 0.3, dtype=f64), ref[f"hamming_window_{tag}.y0"], atol=1e-15)
      expect_close(blackman_window(n, periodic, dtype=f64), ref[f"blackman_window_{tag}.y0"], atol=1e-15)
      expect_close(bartlett_window(n, periodic, dtype=f64), ref[f"bartlett_window_{tag}.y0"], atol=1e-15)
      expect_close(kaiser_window(n, periodic, 5.0, dtype=f64), ref[f"kaiser_window_{tag}.y0"], rtol=1e-12, atol=1e-15)
    }
  }
  expect(hann_window(4).dtype == f32 and hann_window(4, requires_grad=true).requires_grad, "f32 by default; requires_grad")
  expect_error(fn() = hann_window(-1), "window_length' must be at least 0")
  expect_error(fn() = hann_window(3, dtype=i64), "must be a floating dtype")
}
