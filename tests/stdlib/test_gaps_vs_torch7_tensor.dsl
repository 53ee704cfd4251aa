# Round 7 against PyTorch 1.13, the tensor functions nabla lacked: gradient (central
# differences with a uniform spacing or sample coordinates, edge_order 1 and 2), ldexp,
# diagflat, adjoint, hsplit, vsplit, dsplit and combinations
# (interp/builtins/composites/composite_torch_gaps7.cpp). Each check loads
# tests/stdlib/reference/vs_torch7.safetensors (written by
# tests/stdlib/reference/make_vs_torch7.py, where each case's torch call is, under the
# same name) and compares dtypes, values and the gradients of sum(y0 * g).
import "vs_torch5_check.inc" as v5

let ref = load("tests/stdlib/reference/vs_torch7.safetensors")
fn check(name, n, f, rtol=1e-10, atol=1e-12) = v5.check_in(ref, name, n, f, rtol, atol)

test "gradient: all dims, one dim, edge_order 2, a spacing per dim, sample coordinates" {
  check("gradient_all", 1, fn(xs) = gradient(xs[0]))
  check("gradient_dim", 1, fn(xs) = gradient(xs[0], dim=1))
  check("gradient_edge2", 1, fn(xs) = gradient(xs[0], spacing=0.5, edge_order=2))
  check("gradient_spacings", 1, fn(xs) = gradient(xs[0], spacing=[2.0, 0.25]))
  for order in [1, 2] {
    check(f"gradient_coords_{order}", 3, fn(xs) = gradient(xs[0], spacing=[xs[1].detach(), xs[2].detach()], edge_order=order))
  }
  check("gradient_1d", 1, fn(xs) = gradient(xs[0], edge_order=2))
  check("gradient_1d", 1, fn(xs) = xs[0].gradient(edge_order=2))
}

test "ldexp, diagflat and adjoint" {
  check("ldexp", 2, fn(xs) = ldexp(xs[0], xs[1]))
  check("ldexp_float", 2, fn(xs) = ldexp(xs[0], xs[1]))
  check("diagflat", 1, fn(xs) = diagflat(xs[0], 1))
  check("diagflat_neg", 1, fn(xs) = xs[0].diagflat(-2))
  check("adjoint", 1, fn(xs) = adjoint(xs[0]))
  check("adjoint", 1, fn(xs) = xs[0].adjoint())
}

test "hsplit, vsplit and dsplit: sections and indices" {
  check("hsplit", 1, fn(xs) = hsplit(xs[0], 3))
  check("hsplit_list", 1, fn(xs) = hsplit(xs[0], [1, 4]))
  check("vsplit", 1, fn(xs) = vsplit(xs[0], 2))
  check("dsplit", 1, fn(xs) = xs[0].dsplit([1]))
  check("hsplit_1d", 1, fn(xs) = hsplit(xs[0], 2))
}

test "combinations: r, with_replacement, an integer input, the empty cases" {
  check("combinations", 1, fn(xs) = combinations(xs[0]))
  check("combinations_r3", 1, fn(xs) = combinations(xs[0], r=3))
  check("combinations_repl", 1, fn(xs) = combinations(xs[0], r=2, with_replacement=true))
  check("combinations_int", 1, fn(xs) = combinations(xs[0], 2, true))
  let a = tensor([1.0, 2.0, 3.0])
  expect(list(combinations(a, r=0).shape) == [0], "r = 0: an empty 1-D tensor, as PyTorch's")
  expect(list(combinations(a, r=4).shape) == [0, 4], "r past the size: no rows")
  expect(list(combinations(a, r=4, with_replacement=true).shape) == [15, 4], "with replacement: C(6, 4) rows")
  expect(list(combinations(tensor([]), r=2).shape) == [0, 2], "an empty input: no rows")
}

test "x.H, x.mH, x.nbytes and x.nelement()" {
  let m = tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=f64)
  expect(bool((m.H == m.T).all()) and list(m.H.shape) == [3, 2], ".H of a real matrix is .T")
  let b = randn(4, 2, 3)
  expect(bool((b.mH == b.transpose(-2, -1)).all()), ".mH swaps the last two dims")
  expect(m.nbytes == 48 and ones(3, dtype=f16).nbytes == 6 and zeros(0).nbytes == 0, "nbytes: numel * element_size")
  expect(m.nelement() == 6 and b.nelement() == b.numel(), "nelement is numel")
  let x = tensor([[1.0, 2.0], [3.0, 4.0]], dtype=f64, requires_grad=true)
  (x.H * tensor([[1.0, 0.0], [0.0, 0.0]], dtype=f64)).sum().backward()
  expect_close(x.grad, tensor([[1.0, 0.0], [0.0, 0.0]], dtype=f64))
}

# torch.linspace(0, 1, steps=100) and torch.arange(start=1, end=5) name their arguments;
# linspace, logspace and arange refused every name but dtype, device and requires_grad.
test "arange, linspace and logspace take their arguments by name" {
  expect(bool((linspace(0, 1, steps=3) == tensor([0.0, 0.5, 1.0])).all()), "linspace(steps=)")
  expect(bool((linspace(start=0, end=1, steps=3) == linspace(0, 1, 3)).all()), "linspace by name")
  expect(bool((logspace(0, 2, steps=3, base=2.0) == tensor([1.0, 2.0, 4.0])).all()), "logspace(steps=, base=)")
  expect(bool((arange(start=1, end=4) == tensor([1, 2, 3])).all()), "arange(start=, end=)")
  expect(bool((arange(end=3) == arange(3)).all()), "arange(end=)")
  expect(bool((arange(0, 6, step=2) == tensor([0, 2, 4])).all()), "arange(step=)")
  expect(bool((arange(1, end=4, dtype=f64) == tensor([1.0, 2.0, 3.0], dtype=f64)).all()), "arange mixed")
}

# torch.result_type, promote_types and can_cast (the expected dtypes are PyTorch 1.13's;
# u8 with i8 is i32 here, where PyTorch has i16, a dtype nabla lacks).
test "result_type, promote_types and can_cast" {
  expect(result_type(tensor([1, 2]), 2.5) == f32, "an integer tensor and a float: f32")
  expect(result_type(tensor([1.0]), tensor(1.0, dtype=f64)) == f32, "a 0-dim tensor does not widen one with dims")
  expect(result_type(tensor([1], dtype=i32), tensor([1], dtype=i64)) == i64, "two integer tensors promote")
  expect(result_type(2, 3.0) == f32 and result_type(1, 2) == i64 and str(result_type(true, false)) == "bool", "two numbers")
  expect(result_type(tensor([1], dtype=u8), 300) == u8, "a number does not widen a tensor of its kind")
  expect(result_type(tensor([1.0]), tensor([1.0], dtype=f64)) == (tensor([1.0]) + tensor([1.0], dtype=f64)).dtype, "as arithmetic")
  expect(promote_types(i32, f32) == f32 and promote_types(f16, bf16) == f32 and promote_types(u8, i8) == i16, "promote_types")
  expect(can_cast(i64, f32) and not can_cast(f32, i64) and not can_cast(i64, bool) and can_cast(bool, i32), "can_cast")
}

test "x.new_tensor: x's dtype and device unless given, data copied and detached" {
  let x = zeros(2, dtype=f64)
  let a = x.new_tensor([1, 2])
  expect(a.dtype == f64 and bool((a == tensor([1.0, 2.0], dtype=f64)).all()), "a list takes x's dtype")
  expect(x.new_tensor(3).dtype == f64 and list(x.new_tensor(3).shape) == [], "a number: 0-dim")
  expect(x.new_tensor([[1.5]], dtype=f32).dtype == f32, "dtype= wins")
  expect(x.new_tensor([1.0], requires_grad=true).requires_grad, "requires_grad=")
  let w = ones(2, requires_grad=true)
  let c = x.new_tensor(w)
  expect(not c.requires_grad and c.dtype == f64, "a tensor is copied, detached, in x's dtype")
  c.add_(1.0)
  expect(bool((w == 1.0).all()), "the copy does not share memory")
}

test "histogram: bins, range, edges, weight and density; a named tuple" {
  check("histogram", 1, fn(xs) = list(histogram(xs[0].detach(), 7)))
  check("histogram_range", 1, fn(xs) = list(histogram(xs[0].detach(), 4, range=(-1.0, 0.5))))
  check("histogram_edges", 2, fn(xs) = list(histogram(xs[0].detach(), xs[1].detach(), density=true)))
  check("histogram_weight", 2, fn(xs) = list(histogram(xs[0].detach(), 5, weight=xs[1].detach(), density=true)))
  let h = histogram(tensor([1.0, 1.0, 1.0]), 2)
  expect(bool((h.hist == tensor([0.0, 3.0])).all()) and bool((h.bin_edges == tensor([0.5, 1.0, 1.5])).all()), "equal min and max widen by 0.5")
  # the last edge is the maximum itself, so every element is counted (PyTorch 1.13's last
  # edge, start + bins * step, can round below the maximum and leave it out)
  manual_seed(1)
  for n in [7, 13, 100] { expect(histogram(randn(1000, dtype=f64), n).hist.sum().item() == 1000.0, f"{n} bins count all") }
}

test "addmv, addr, addbmm, chain_matmul, select_scatter, slice_scatter, cumulative_trapezoid" {
  check("addmv", 3, fn(xs) = addmv(xs[0], xs[1], xs[2], beta=2.0, alpha=0.5))
  check("addr", 3, fn(xs) = addr(xs[0], xs[1], xs[2], alpha=3.0))
  check("addbmm", 3, fn(xs) = addbmm(xs[0], xs[1], xs[2], beta=0.5))
  check("chain_matmul", 3, fn(xs) = chain_matmul(xs[0], xs[1], xs[2]))
  check("select_scatter", 2, fn(xs) = select_scatter(xs[0], xs[1], 1, -1))
  check("slice_scatter", 2, fn(xs) = slice_scatter(xs[0], xs[1], 0, 1, 5, 2))
  check("cumulative_trapezoid", 1, fn(xs) = cumulative_trapezoid(xs[0]))
  check("cumulative_trapezoid_x", 2, fn(xs) = cumulative_trapezoid(xs[0], xs[1]))
  check("cumulative_trapezoid_dx", 1, fn(xs) = cumulative_trapezoid(xs[0], dx=0.25, dim=0))
  let inf = float("inf")
  expect(bool((isposinf(tensor([1.0, inf, -inf])) == tensor([false, true, false])).all()), "isposinf")
  expect(bool((isneginf(tensor([1.0, inf, -inf])) == tensor([false, false, true])).all()), "isneginf")
  expect(bool(isreal(tensor([1.0, 2.0])).all()) and bool((positive(tensor([-1.0])) == -1.0).all()), "isreal, positive")
  expect(bool((addmv(tensor([float("nan"), 1.0]), ones([2, 2]), ones(2), beta=0) == 2.0).all()), "beta = 0 ignores NaN in input")
}

# The draws are nabla's generator's, not PyTorch's: their laws are checked by statistics.
test "log_normal_, cauchy_ and geometric_ fill in place with their laws" {
  manual_seed(0)
  let g = zeros(20000, dtype=f64)
  let same = g.geometric_(0.25)
  expect(same.data_ptr() == g.data_ptr() and bool((g >= 1).all()) and bool((g == g.floor()).all()), "trials from 1, whole")
  expect_close(g.mean(), tensor(4.0, dtype=f64), rtol=0.05)
  let ln = zeros(20000, dtype=f64).log_normal_(0.5, 0.25).log()
  expect_close(ln.mean(), tensor(0.5, dtype=f64), atol=0.01)
  expect_close(ln.std(), tensor(0.25, dtype=f64), rtol=0.05)
  let c = zeros(20001, dtype=f64).cauchy_(1.0, 2.0)
  expect_close(c.median(), tensor(1.0, dtype=f64), atol=0.1)
  expect_close(c.quantile(0.75) - c.quantile(0.25), tensor(4.0, dtype=f64), rtol=0.1)
  expect(zeros(3, dtype=i64).geometric_(0.5).dtype == i64, "geometric_ fills integer tensors too")
}

# combinations(ones(3), r=2**62) counted C(3, r) over r steps (a hang) and listed r
# empty columns; an r past the size is an empty [0, r] at once, as PyTorch's.
test "combinations with a huge r: no rows at once" {
  expect(list(combinations(ones(3), r=2**40).shape) == [0, 2**40], "r past the size")
  expect(list(combinations(ones(0), r=2**40, with_replacement=true).shape) == [0, 2**40], "an empty input")
}

test "masked_scatter and put, out of place and in place" {
  check("masked_scatter", 3, fn(xs) = masked_scatter(xs[0], xs[1], xs[2]))
  check("masked_scatter_row", 3, fn(xs) = xs[0].masked_scatter(xs[1], xs[2]))
  check("put", 3, fn(xs) = put(xs[0], xs[1], xs[2]))
  check("put_accumulate", 3, fn(xs) = put(xs[0], xs[1], xs[2], accumulate=true))
  let y = zeros(2, 3)
  y.put_(tensor([1, -1]), tensor([7.0, 8.0]))
  expect(y.tolist() == [[0.0, 7.0, 0.0], [0.0, 0.0, 8.0]], "put_ writes in place")
  let z = zeros(3)
  z.masked_scatter_(tensor([false, true, true]), tensor([4.0, 5.0]))
  expect(z.tolist() == [0.0, 4.0, 5.0], "masked_scatter_ writes in place")
}

# (values as PyTorch 1.13's fill_diagonal_ gives them for these shapes)
test "x.fill_diagonal_: square, tall with and without wrap, wide, 3-D; in place" {
  let e = zeros(3, 3)
  let same = e.fill_diagonal_(1.0)
  expect(same.data_ptr() == e.data_ptr() and bool((e == eye(3)).all()), "a square matrix, in place")
  let tall = zeros(7, 3).fill_diagonal_(2.0, wrap=true)
  expect(tall.tolist() == [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0]], "wrap restarts after a gap row")
  expect(zeros(7, 3).fill_diagonal_(2.0).sum().item() == 6.0, "no wrap: the top square only")
  expect(zeros(2, 4).fill_diagonal_(5.0).tolist() == [[5.0, 0.0, 0.0, 0.0], [0.0, 5.0, 0.0, 0.0]], "wide")
  expect(zeros(2, 2, 2).fill_diagonal_(3.0).tolist() == [[[3.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 3.0]]], "3-D")
  let w = ones(2, 2, requires_grad=true)
  let y = w * 2.0
  y.fill_diagonal_(0.0)
  y.sum().backward()
  expect(w.grad.tolist() == [[0.0, 2.0], [2.0, 0.0]], "the filled places pass no gradient")
}
