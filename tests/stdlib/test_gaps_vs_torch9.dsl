# Round 9 against PyTorch 1.13: as_strided and as_strided_scatter, histogramdd, gradient
# with a uniform spacing, erfinv's gradient at +-1, PyTorch's dtype names as strs, lerp and
# norm of integer tensors, autocast("cpu", dtype=f16), torch's names of linalg's and
# special's functions (slogdet, matrix_exp, pinverse, igamma, ...), is_same_size,
# scalar_tensor, angle, poisson, binomial, get_device, ndimension, is_cpu and the in-place
# view ops (unsqueeze_, transpose_, ...). The PyTorch values load
# tests/stdlib/reference/vs_torch9.safetensors (written by
# tests/stdlib/reference/make_vs_torch9.py, each case's torch call under the same name)
# and compare dtypes, values and the gradients of sum(y0 * g).
import "vs_torch5_check.inc" as v5
import linalg
import math

let ref = load("tests/stdlib/reference/vs_torch9.safetensors")
fn check(name, n, f, rtol=1e-10, atol=1e-12) = v5.check_in(ref, name, n, f, rtol, atol)
let inf = float("inf")

test "as_strided: contiguous, offset, overlapping and zero-stride views equal PyTorch's, with gradients" {
  check("as_strided", 1, fn(xs) = xs[0].as_strided([3, 3], [2, 1]))
  check("as_strided_offset", 1, fn(xs) = as_strided(xs[0], [2, 4], [3, 1], 2))
  check("as_strided_windows", 1, fn(xs) = xs[0].as_strided([5, 4], [2, 1]))
  check("as_strided_zero_stride", 1, fn(xs) = xs[0].as_strided([3, 2], [0, 5], storage_offset=1))
  check("as_strided_3d", 1, fn(xs) = xs[0].as_strided([2, 2, 2], [6, 1, 2], 1))
}

test "as_strided: a transposed and a sliced view read the storage as PyTorch's" {
  check("as_strided_transposed", 1, fn(xs) = xs[0].reshape([3, 4]).t().as_strided([2, 3], [1, 4]))
  check("as_strided_sliced", 1, fn(xs) = xs[0].reshape([3, 4])[1:].as_strided([2, 2], [1, 1]))
  let sliced = arange(12.0).reshape([3, 4])[1:]
  expect(sliced.storage_offset() == 4, "a slice keeps its storage offset")
  expect(bool((sliced.as_strided([3], [1]) == tensor([4.0, 5.0, 6.0])).all()), "the default offset is the input's")
}

test "as_strided: grad-of-grad through the gather, and an empty size" {
  let x = randn([6], dtype=f64, requires_grad=true)
  expect(gradcheck(fn(a) = (a.as_strided([3, 2], [1, 2]) ** 3).sum(), x), "gradcheck")
  expect(gradgradcheck(fn(a) = (a.as_strided([2, 2], [2, 1], 1) ** 3).sum(), x), "gradgradcheck")
  expect(list(x.as_strided([0, 3], [1, 1]).shape) == [0, 3], "an empty view")
}

test "as_strided_scatter: values equal PyTorch's; gradients by gradcheck (PyTorch 1.13's in input are reversed)" {
  check("as_strided_scatter", 2, fn(xs) = as_strided_scatter(xs[0], xs[1], [2, 3], [4, 1], 1))
  let x = randn([3, 4], dtype=f64, requires_grad=true)
  let s = randn([2, 3], dtype=f64, requires_grad=true)
  expect(gradgradcheck(fn(a, b) = (a.as_strided_scatter(b, [2, 3], [4, 1], 1) ** 2).sum(), x, s), "gradgradcheck")
  let y = as_strided_scatter(x, s, [2, 3], [4, 1], 1)
  y.sum().backward()
  expect(bool((x.grad.reshape(-1) == tensor([1.0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1], dtype=f64)).all()), f"{x.grad}")
  expect_error(fn() = as_strided_scatter(x, ones(3), [2, 3], [4, 1]), "src must be a tensor of shape [2, 3]")
}

test "as_strided: bad sizes, strides and offsets are errors naming them" {
  let x = arange(12.0)
  expect_error(fn() = x.as_strided([5, 5], [2, 1]), "read storage elements 0 to 12, outside the input's (storage elements 0 to 11")
  expect_error(fn() = x.as_strided([2, 2], [-1, 1]), "negative strides are not supported")
  expect_error(fn() = x.as_strided([2, 2], [1]), "must have the same length")
  expect_error(fn() = x.as_strided([-2, 2], [1, 1]), "size must hold no negative numbers")
  expect_error(fn() = x.as_strided([2, 2], [1, 1], -1), "storage_offset must be an int >= 0, got -1")
  expect_error(fn() = x.reshape([3, 4])[:, 1:3].as_strided([4], [1]), "between the input's elements")
  expect_error(fn() = x.as_strided("a", [1]), "size must be a list of ints")
}

fn edges_and_hist(h) = [h.hist] + list(h.bin_edges)

test "histogramdd: even bins, a range, edges with weights and density, 3 dims equal PyTorch's" {
  check("histogramdd", 1, fn(xs) = edges_and_hist(histogramdd(xs[0], bins=[3, 4])))
  check("histogramdd_range", 1, fn(xs) = edges_and_hist(histogramdd(xs[0], bins=3, range=[-1.0, 1.0, -0.5, 2.0])))
  check("histogramdd_edges", 4, fn(xs) = edges_and_hist(histogramdd(xs[0], bins=[xs[2], xs[3]], weight=xs[1], density=true)))
  check("histogramdd_3d", 1, fn(xs) = edges_and_hist(histogramdd(xs[0], bins=[2, 3, 2], density=true)))
  let (h, e) = histogramdd(tensor([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]]), 2)
  expect(bool((h == tensor([[0.0, 1.0], [1.0, 1.0]])).all()) and len(e) == 2, f"{h}")
}

test "histogramdd: bad arguments are errors naming them" {
  let pts = randn([5, 2])
  expect_error(fn() = histogramdd(pts, bins=[2, 2, 2]), "bins must have one entry per dim of the points (2), got 3")
  expect_error(fn() = histogramdd(pts, bins=2, range=[0.0, 1.0]), "range must be 4 numbers")
  expect_error(fn() = histogramdd(tensor([1.0, 2.0]), bins=2), "input must have at least 2 dims")
  expect_error(fn() = histogramdd(tensor([[1, 2]]), bins=2), "input must be a floating tensor, got i64")
  expect_error(fn() = histogramdd(pts, bins=0), "bins must be >= 1, got 0 for dim 0")
  expect_error(fn() = histogramdd(pts, bins=[tensor([1.0, 0.0]), 2]), "must be increasing")
  expect_error(fn() = histogramdd(pts, bins=2, weight=ones(4)), "weight must have shape [5]")
}

test "gradient: a uniform spacing (0 too) and edge_order 2 by PyTorch's formulas" {
  check("gradient_zero", 1, fn(xs) = gradient(xs[0], spacing=0.0))
  check("gradient_uniform2", 1, fn(xs) = gradient(xs[0], spacing=0.3, edge_order=2))
  check("gradient_2d", 1, fn(xs) = gradient(xs[0], spacing=[0.5, 2.0], edge_order=2))
  let g = gradient(tensor([1.0, 2.0, 4.0]), spacing=0)[0]
  expect(bool((g == inf).all()), f"spacing 0 gives inf everywhere, as PyTorch's: {g}")
  expect_error(fn() = gradient(tensor([1.0, 2.0, 4.0]), spacing=[tensor([1.0, 2.0])]), "must have 3 elements (the dim's size), got 2")
}

test "erfinv: the gradient at +-1 is inf and NaN beyond, as PyTorch's" {
  let x = tensor([1.0, -1.0, 0.5, 1.5, -2.0], dtype=f64, requires_grad=true)
  let y = erfinv(x)
  expect(y[0].item() == inf and y[1].item() == -inf and bool(y[3:].isnan().all()), f"{y}")
  y.sum().backward()
  expect(x.grad[0].item() == inf and x.grad[1].item() == inf, f"{x.grad}")
  # inside, PyTorch's sqrt(pi) / 2 exp(erfinv(x)^2)
  expect_close(x.grad[2], 0.5 * math.sqrt(math.pi) * exp(y[2].detach() ** 2), rtol=1e-10)
  expect(bool(x.grad[3:].isnan().all()), f"NaN beyond [-1, 1]: {x.grad}")
}

test "dtype strs: PyTorch's names are accepted wherever a dtype is" {
  let names = {"int16": i16, "int32": i32, "int64": i64, "float32": f32, "float64": f64, "bfloat16": bf16,
               "float16": f16, "bool": bool, "uint8": u8, "int8": i8, "torch.int16": i16, "long": i64,
               "double": f64, "half": f16, "short": i16, "i16": i16}
  for (name, want) in names.items() {
    expect(tensor([1, 0], dtype=name).dtype == tensor([1, 0], dtype=want).dtype, name)
    expect(zeros(2, dtype=name).dtype == zeros(2, dtype=want).dtype, name)
    expect(tensor([1.0]).to(name).dtype == tensor([1.0]).to(want).dtype, name)
    expect(arange(3, dtype=name).dtype == arange(3, dtype=want).dtype, name)
    expect(full([2], 1, dtype=name).dtype == full([2], 1, dtype=want).dtype, name)
  }
  expect_error(fn() = zeros(2, dtype="int128"), "unknown dtype 'int128'")
  expect_error(fn() = tensor([1.0]).to("float128"), "unknown device or dtype 'float128'")
}

test "lerp and norm of integer tensors are errors, as PyTorch's" {
  expect_error(fn() = lerp(tensor([1, 2]), tensor([3, 4]), 0.5), "lerp(): input must be a floating tensor, got i64")
  expect_error(fn() = tensor([1, 2]).lerp(tensor([3, 4]), tensor([1, 1])), "lerp(): input must be a floating tensor")
  expect_error(fn() = tensor([1, 2]).norm(), "norm: the input must be a floating tensor, got i64")
  expect_error(fn() = norm(tensor([true]), 1), "got bool")
  expect_error(fn() = linalg.vector_norm(tensor([1, 2])), "must be a floating tensor")
  expect_error(fn() = linalg.matrix_norm(tensor([[1, 2]])), "must be a floating tensor")
  expect_close(lerp(tensor([1.0, 2.0]), tensor([3.0, 4.0]), 0.5), tensor([2.0, 3.0]))
  expect_close(tensor([3.0, 4.0]).norm(), tensor(5.0))
}

test "autocast(\"cpu\", dtype=f16): warns once and runs in f32, as PyTorch 1.13 disables it" {
  let a = randn([2, 2])
  for _ in range(2) {
    autocast("cpu", dtype=f16) { expect(matmul(a, a).dtype == f32, "CPU autocast in f16 is off") }
  }
  autocast("cpu") { expect(matmul(a, a).dtype == bf16, "bf16 is CPU autocast's dtype") }
  autocast("cpu", dtype=f16, enabled=false) { expect(matmul(a, a).dtype == f32, "off") }
}

test "torch's names of linalg's and special's functions: global functions and methods" {
  let a = randn([3, 3], dtype=f64) + eye(3, dtype=f64) * 3
  let (s, l) = slogdet(a)
  let want = linalg.slogdet(a)
  expect(bool(s == want.sign) and bool(a.slogdet().logabsdet == want.logabsdet), "slogdet")
  expect_close(a.matrix_exp(), linalg.matrix_exp(a), rtol=1e-12)
  expect_close(matrix_power(a, -2), linalg.matrix_power(a, -2), rtol=1e-12)
  expect_close(a.pinverse(), linalg.pinv(a, rtol=1e-15), rtol=1e-12)
  let L = linalg.cholesky(a @ a.t())
  expect_close(cholesky_inverse(L), linalg.inv(a @ a.t()), rtol=1e-9)
  expect_close(cholesky_solve(ones([3, 1], dtype=f64), L), linalg.solve(a @ a.t(), ones([3, 1], dtype=f64)), rtol=1e-9)
  expect_close(orgqr(a.tril(-1), tensor([1.2, 0.4, 0.0], dtype=f64)), linalg.householder_product(a.tril(-1), tensor([1.2, 0.4, 0.0], dtype=f64)))
  let x = tensor([0.5, 2.0, 7.0], dtype=f64)
  expect_close(igamma(x, x) + igammac(x, x), ones(3, dtype=f64), rtol=1e-12)
  expect_close(igamma(ones(1, dtype=f64), ones(1, dtype=f64)), 1.0 - exp(tensor([-1.0], dtype=f64)), rtol=1e-12)
}

test "is_same_size, scalar_tensor, angle, poisson and binomial, as PyTorch's" {
  expect(ones([2, 3]).is_same_size(zeros([2, 3])) and not is_same_size(ones(2), ones(3)), "is_same_size")
  expect(scalar_tensor(3).dtype == f32 and scalar_tensor(3).dim() == 0 and scalar_tensor(true).item() == 1.0, "scalar_tensor")
  expect(scalar_tensor(2.5, dtype=f64).dtype == f64, "scalar_tensor(dtype=)")
  let g = tensor([-1.0, 2.0, 0.0, -3.0], dtype=f64, requires_grad=true)
  let an = angle(g)
  expect_close(an, tensor([math.pi, 0.0, 0.0, math.pi], dtype=f64))
  an.sum().backward()
  expect(bool((g.grad == 0).all()), "angle's gradient is 0")
  expect(bool(angle(tensor([float("nan")])).isnan().all()), "NaN stays NaN")
  let p = poisson(full([4000], 3.0, dtype=f64))
  expect(abs(p.mean().item() - 3.0) < 0.2 and bool((p == p.floor()).all()), f"poisson mean {p.mean().item()}")
  let b = binomial(full([4000], 10.0), full([4000], 0.3))
  expect(abs(b.mean().item() - 3.0) < 0.2 and bool((b <= 10).all()), f"binomial mean {b.mean().item()}")
  let c = ones([2, 3])
  expect(c.get_device() == -1 and c.ndimension() == 2 and c.is_cpu and not c.is_cuda, "get_device, ndimension, is_cpu")
  let w = randn(2, requires_grad=true)
  let h = w * 2
  expect(not w.retains_grad and not h.retains_grad, "retains_grad before retain_grad()")
  h.retain_grad()
  expect(h.retains_grad, "retains_grad after it")
  expect_error(fn() = is_same_size(ones(2), 2), "is_same_size(): expected two tensors, got tensor and int")
  expect_error(fn() = scalar_tensor("a"), "scalar_tensor(): s must be a number, got str")
}

test "unsqueeze_, squeeze_, transpose_, swapdims_: the tensor takes its view's layout, as t_" {
  let x = arange(6.0).reshape([2, 3])
  let y = x
  x.unsqueeze_(0)
  expect(list(y.shape) == [1, 2, 3], f"{y.shape}")
  x.squeeze_(0)
  x.transpose_(0, 1)
  expect(list(y.shape) == [3, 2] and bool((y == arange(6.0).reshape([2, 3]).t()).all()), f"{y}")
  x.swapdims_(0, 1)
  x.swapaxes_(1, 0)
  expect(list(y.shape) == [3, 2], f"{y.shape}")
  let w = randn([2, 3], requires_grad=true)
  let h = w * 2
  h.unsqueeze_(-1)
  let g = randn([2, 3, 1])
  (h * g).sum().backward()
  expect_close(w.grad, 2 * g.squeeze(-1), rtol=1e-6)
  expect_error(fn() = randn([2], requires_grad=true).unsqueeze_(0), "unsqueeze_(): a leaf tensor that requires grad cannot be modified in place")
}
