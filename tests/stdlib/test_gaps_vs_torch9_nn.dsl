# Round 9's nn additions against PyTorch 1.13 (tests/stdlib/reference/vs_torch9.safetensors,
# written by tests/stdlib/reference/make_vs_torch9.py): F.fractional_max_pool2d/3d and
# nn.FractionalMaxPool2d/3d with given _random_samples (stdlib/_nn_fractional.dsl),
# interpolate(antialias=true) (stdlib/_nn_antialias.dsl), and
# nn.utils.parametrizations.orthogonal for each orthogonal_map and spectral_norm
# (stdlib/_nn_orthogonal.dsl).
import "vs_torch5_check.inc" as v5
import nn

let ref = load("tests/stdlib/reference/vs_torch9.safetensors")
fn check(name, n, f, rtol=1e-10, atol=1e-12) = v5.check_in(ref, name, n, f, rtol, atol)
let F = nn.functional

test "fractional_max_pool2d: output_size, output_ratio, size 1 and unbatched equal PyTorch's, indices and gradients too" {
  let u = ref["fractional.u"]
  check("fractional_size", 1, fn(xs) = list(F.fractional_max_pool2d(xs[0], 2, output_size=[4, 3], return_indices=true, _random_samples=u)))
  check("fractional_ratio", 1, fn(xs) = fractional_max_pool2d(xs[0], [3, 2], output_ratio=[0.5, 0.7], _random_samples=u))
  check("fractional_one", 1, fn(xs) = list(F.fractional_max_pool2d(xs[0], 3, output_size=1, return_indices=true, _random_samples=u)))
  let u1 = ref["fractional_unbatched.u"]
  check("fractional_unbatched", 1, fn(xs) = list(F.fractional_max_pool2d(xs[0], 2, output_size=5, return_indices=true, _random_samples=u1)))
}

test "FractionalMaxPool2d: the layer, draws of its own, gradgradcheck" {
  let x = ref["fractional_size.x0"]
  let m = nn.FractionalMaxPool2d(2, output_size=[4, 3], return_indices=true, _random_samples=ref["fractional.u"])
  let (y, i) = m(x)
  expect_close(y, ref["fractional_size.y0"], rtol=1e-12)
  expect(bool((i == ref["fractional_size.y1"]).all()), "indices")
  let drawn = nn.FractionalMaxPool2d(3, output_ratio=0.5)(x)
  expect(list(drawn.shape) == [2, 3, 3, 3], f"{drawn.shape}")
  # every output is one of its plane's elements
  let flat = x.reshape([2, 3, 1, 42])
  expect(bool((drawn.reshape([2, 3, 9, 1]) == flat).any(-1).all()), "outputs are input elements")
  let v = randn([1, 2, 5, 5], dtype=f64, requires_grad=true)
  let s = rand([1, 2, 2], dtype=f64)
  expect(gradgradcheck(fn(a) = (fractional_max_pool2d(a, 2, output_size=3, _random_samples=s) ** 2).sum(), v), "gradgradcheck")
}

test "fractional_max_pool2d: bad arguments are errors naming them" {
  let x = randn([1, 1, 5, 5])
  expect_error(fn() = F.fractional_max_pool2d(x, 2), "give output_size or output_ratio")
  expect_error(fn() = F.fractional_max_pool2d(x, 2, output_size=5), "pool height 2 too large relative to input height 5")
  expect_error(fn() = F.fractional_max_pool2d(x, 2, output_ratio=1.5), "output_ratio must be in (0, 1), got 1.5")
  expect_error(fn() = F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=rand([2, 1, 2])), "_random_samples must be a tensor of shape [1, 1, 2]")
  expect_error(fn() = F.fractional_max_pool2d(randn([5, 5]), 2, output_size=3), "input must be [C, H, W] or [N, C, H, W]")
  expect_error(fn() = F.fractional_max_pool2d(x, 0, output_size=3), "kernel_size must be ints >= 1")
  expect_error(fn() = nn.FractionalMaxPool2d(2), "give output_size or output_ratio")
  expect_error(fn() = nn.FractionalMaxPool2d(2, output_ratio=0.0), "output_ratio must be in (0, 1)")
}

# Case `name` of make_vs_torch9.py's orthogonal_cases: the weight at registration (and the
# base's first columns, the rest being normal draws), then with PyTorch's base and the
# fixed original, the weight, the output and the gradients.
fn check_orthogonal(name, rows, cols, orthogonal_map) {
  let m = nn.Linear(cols, rows).double()
  no_grad {
    m.weight.copy_(ref[name + ".weight"])
    m.bias.copy_(ref[name + ".bias"])
  }
  nn.utils.parametrizations.orthogonal(m, orthogonal_map=orthogonal_map)
  expect_close(m.weight, ref[name + ".w_init"], rtol=1e-10, atol=1e-12, msg=f"{name}: the weight at registration")
  let base = m.parametrizations.weight[0].base
  let k = min(rows, cols)
  expect_close(base.narrow(-1, 0, k), ref[name + ".base"].narrow(-1, 0, k), rtol=1e-10, atol=1e-12, msg=f"{name}: base")
  expect(list(m.state_dict().keys()) == ["bias", "parametrizations.weight.original", "parametrizations.weight.0.base"], f"{list(m.state_dict().keys())}")
  no_grad {
    base.copy_(ref[name + ".base"])
    m.parametrizations.weight.original.copy_(ref[name + ".original"])
  }
  let y = m(ref[name + ".x"])
  expect_close(m.weight, ref[name + ".w"], rtol=1e-9, atol=1e-12, msg=f"{name}: the weight")
  expect_close(y, ref[name + ".y"], rtol=1e-9, atol=1e-12, msg=f"{name}: the output")
  (y * ref[name + ".g"]).sum().backward()
  expect_close(m.parametrizations.weight.original.grad, ref[name + ".grad_original"], rtol=1e-8, atol=1e-11, msg=f"{name}: grad of the original")
  expect_close(m.bias.grad, ref[name + ".grad_bias"], rtol=1e-10, atol=1e-12, msg=f"{name}: grad of the bias")
  let w = m.weight.detach()
  let gram = w.t() @ w if rows >= cols else w @ w.t()
  expect_close(gram, eye(k, dtype=f64), atol=1e-12, msg=f"{name}: orthogonal")
}

test "parametrizations.orthogonal: each map, square, tall and wide, equals PyTorch's with gradients" {
  check_orthogonal("orth_exp", 3, 3, none)
  check_orthogonal("orth_cayley", 3, 3, "cayley")
  check_orthogonal("orth_house", 3, 3, "householder")
  check_orthogonal("orth_tall", 4, 2, none)
  check_orthogonal("orth_tall_cayley", 4, 2, "cayley")
  check_orthogonal("orth_wide", 2, 4, "matrix_exp")
  check_orthogonal("orth_wide_house", 2, 4, none)
}

test "parametrizations.orthogonal: an orthogonal weight is kept as the base; training keeps it orthogonal" {
  let m = nn.Linear(3, 3).double()
  no_grad { m.weight.copy_(ref["orth_kept.weight"]) }
  nn.utils.parametrizations.orthogonal(m)
  expect_close(m.parametrizations.weight[0].base, ref["orth_kept.base"], rtol=1e-12, atol=1e-14)
  let t = nn.Linear(4, 3)
  nn.utils.parametrizations.orthogonal(t)
  import optim
  let opt = optim.SGD(t.parameters(), lr=0.1)
  for _ in range(3) {
    opt.zero_grad()
    (t(randn([8, 4])) ** 2).sum().backward()
    opt.step()
  }
  let w = t.weight.detach()
  expect_close(w @ w.t(), eye(3), atol=1e-5, msg="still orthogonal after steps")
  let v = randn([3, 3], dtype=f64, requires_grad=true)
  let o = nn.utils.parametrizations._Orthogonal([3, 3], "cayley")
  expect(gradgradcheck(fn(a) = (o(a) ** 3).sum(), v), "gradgradcheck through the cayley map")
}

test "parametrizations.orthogonal: bad arguments are errors naming them" {
  let P = nn.utils.parametrizations
  expect_error(fn() = P.orthogonal(nn.Linear(3, 3), orthogonal_map="qr"), "orthogonal_map must be \"matrix_exp\", \"cayley\" or \"householder\", got 'qr'")
  expect_error(fn() = P.orthogonal(nn.LayerNorm(3)), "expected a matrix or batch of matrices, got a tensor of 1 dims")
  expect_error(fn() = P.orthogonal(nn.Linear(3, 3), "nope"), "the module has no parameter or buffer 'nope'")
  expect_error(fn() = P.orthogonal(nn.Linear(3, 3), use_trivialization=false), "use_trivialization=false is not supported")
  expect_error(fn() = P.orthogonal(ones(3)), "module must be a model, got tensor")
}

test "fractional_max_pool3d and FractionalMaxPool3d equal PyTorch's, indices and gradients too" {
  let u = ref["fractional3d.u"]
  check("fractional3d", 1, fn(xs) = list(F.fractional_max_pool3d(xs[0], [2, 3, 2], output_size=[3, 3, 4], return_indices=true, _random_samples=u)))
  check("fractional3d_ratio", 1, fn(xs) = nn.FractionalMaxPool3d(2, output_ratio=0.5, _random_samples=u[:1])(xs[0]))
  expect_error(fn() = F.fractional_max_pool3d(randn([4, 4, 4]), 2, output_size=2), "input must be [C, T, H, W] or [N, C, T, H, W]")
  expect_error(fn() = F.fractional_max_pool3d(randn([1, 1, 4, 4, 4]), 2, output_size=[2, 2]), "output_size must be a number or 3 of them")
  expect_error(fn() = nn.FractionalMaxPool3d(2), "give output_size or output_ratio")
}

test "interpolate(antialias=true): bilinear and bicubic, shrinking and growing, equal PyTorch's with gradients" {
  check("aa_bilinear", 1, fn(xs) = F.interpolate(xs[0], size=[4, 5], mode="bilinear", antialias=true))
  check("aa_bicubic", 1, fn(xs) = F.interpolate(xs[0], size=[3, 7], mode="bicubic", antialias=true))
  check("aa_up", 1, fn(xs) = F.interpolate(xs[0], size=[15, 4], mode="bilinear", antialias=true))
  check("aa_factor", 1, fn(xs) = F.interpolate(xs[0], scale_factor=0.35, mode="bicubic", antialias=true))
  check("aa_corners", 1, fn(xs) = F.interpolate(xs[0], size=[5, 4], mode="bilinear", align_corners=true, antialias=true))
  let x = randn([1, 1, 5, 6])
  expect_close(F.interpolate(x, size=[3, 3], mode="bilinear", antialias=false), F.interpolate(x, size=[3, 3], mode="bilinear"))
  expect_error(fn() = F.interpolate(x, size=[3, 3], mode="nearest", antialias=true), "antialias is only supported for the \"bilinear\" and \"bicubic\" modes")
  expect_error(fn() = F.interpolate(randn([1, 1, 5]), size=3, mode="bilinear", antialias=true), "antialias needs a 4-D input")
}

# Case `name` of make_vs_torch9.py's spectral_param_cases: PyTorch's buffers after
# registration loaded, then two training forwards, the gradients and an eval forward.
fn check_spectral(name, m) {
  m.double()
  no_grad {
    m.weight.copy_(ref[name + ".weight"])
    m.bias.copy_(ref[name + ".bias"])
  }
  nn.utils.parametrizations.spectral_norm(m)
  let sn = m.parametrizations.weight[0]
  expect(list(m.state_dict().keys()) == ["bias", "parametrizations.weight.original", "parametrizations.weight.0._u", "parametrizations.weight.0._v"], f"{list(m.state_dict().keys())}")
  no_grad {
    sn._u.copy_(ref[name + ".u0"])
    sn._v.copy_(ref[name + ".v0"])
  }
  expect_close(m(ref[name + ".x1"]), ref[name + ".y1"], rtol=1e-10, atol=1e-12, msg=f"{name}: first forward")
  expect_close(sn._u, ref[name + ".u1"], rtol=1e-10, atol=1e-12, msg=f"{name}: u after it")
  expect_close(sn._v, ref[name + ".v1"], rtol=1e-10, atol=1e-12, msg=f"{name}: v after it")
  let y2 = m(ref[name + ".x2"])
  expect_close(y2, ref[name + ".y2"], rtol=1e-10, atol=1e-12, msg=f"{name}: second forward")
  (y2 * ref[name + ".g"]).sum().backward()
  expect_close(m.parametrizations.weight.original.grad, ref[name + ".grad_original"], rtol=1e-9, atol=1e-12, msg=f"{name}: grad of the original")
  expect_close(m.bias.grad, ref[name + ".grad_bias"], rtol=1e-10, atol=1e-12, msg=f"{name}: grad of the bias")
  m.eval()
  expect_close(m(ref[name + ".x1"]), ref[name + ".y3"], rtol=1e-10, atol=1e-12, msg=f"{name}: eval forward")
}

test "parametrizations.spectral_norm: a Linear and a ConvTranspose2d (dim 1) equal PyTorch's, buffers and gradients" {
  check_spectral("sn_linear", nn.Linear(5, 4))
  check_spectral("sn_convt", nn.ConvTranspose2d(3, 2, 3))
  let m = nn.utils.parametrizations.spectral_norm(nn.Linear(6, 3))
  for _ in range(20) { m(randn([2, 6])) }
  import linalg
  expect(abs(linalg.svdvals(m.weight.detach())[0].item() - 1.0) < 1e-3, "sigma of the weight is 1 after iterations")
  expect_error(fn() = nn.utils.parametrizations.spectral_norm(nn.Linear(2, 2), n_power_iterations=0), "n_power_iterations must be an int > 0, got 0")
  expect_error(fn() = nn.utils.parametrizations.spectral_norm(nn.Linear(2, 2), dim=2), "dim must be an int in [-2, 1]")
}
