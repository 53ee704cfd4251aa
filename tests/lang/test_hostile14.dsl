# What the hardening of round 14 (tests/lang/errors_hostile14.dsl) keeps working, and
# the values it fixed: diff of bool tensors is the xor of neighbours and prepend and
# append of input's dims still join; Gamma, Beta and Dirichlet draws of tiny
# concentrations stay inside their supports (they were 0, NaN and NaN rows: PyTorch
# clamps a draw to the smallest normal number); special's functions keep f16 and bf16;
# a path with a NUL byte names no file; autograd.functional's tensor and tuple outputs,
# searchsorted's sorter, gradient's distinct dims and log_prob of batched values work
# as before; a message holding a NUL byte is matched whole; hstack takes 0-dim tensors
# and masked_scatter broadcasts input with mask.
import autograd
import data
import distributions
import math
import special

test "diff of bool tensors is the xor of neighbours, as PyTorch's" {
  expect(diff(tensor([true, false, false, true])).tolist() == [true, false, true])
  expect(diff(tensor([true, false, true]), n=2).tolist() == [false])
  expect(diff(tensor([[true, true], [false, true]]), dim=0).tolist() == [[true, false]])
}

test "diff with prepend and append of input's dims, and n past the length" {
  let x = tensor([1.0, 2.0, 4.0])
  expect_close(diff(x, prepend=tensor([0.0]), append=tensor([10.0])), tensor([1.0, 1.0, 2.0, 6.0]), 0.0)
  expect_close(diff(x, n=2, prepend=tensor([0.0])), tensor([0.0, 1.0]), 0.0)
  expect(diff(x, n=10).shape == (0,))
  expect_close(diff(tensor([[1.0, 3.0]]), prepend=tensor([[0.0]])), tensor([[1.0, 2.0]]), 0.0)
  expect(diff(tensor([], dtype=f32)).shape == (0,))
}

test "Gamma, Beta and Dirichlet draws of tiny concentrations stay in their supports" {
  manual_seed(14)
  let g = distributions.Gamma(1e-3, 1.0).sample([200])
  expect((g > 0).all().item(), "a Gamma draw was 0, outside (0, inf)")
  let b = distributions.Beta(1e-3, 1e-3).sample([200])
  expect(isfinite(b).all().item(), "a Beta draw was NaN")
  expect(((b >= 0) & (b <= 1)).all().item())
  let d = distributions.Dirichlet(tensor([1e-3, 1e-3, 1e-3])).sample([100])
  expect(isfinite(d).all().item(), "a Dirichlet draw was NaN")
  expect_close(d.sum(-1), ones(100), 1e-5)
  let g64 = distributions.Gamma(tensor(1e-3, dtype=f64), 1.0).sample([50])
  expect(g64.dtype == f64 and (g64 > 0).all().item())
}

test "ordinary Gamma, Beta and Dirichlet draws are unchanged by the clamp" {
  manual_seed(7)
  let g = distributions.Gamma(tensor([2.0, 5.0]), tensor([1.0, 2.0])).sample([4000])
  expect_close(g.mean(0), tensor([2.0, 2.5]), 0.15)
  let b = distributions.Beta(2.0, 3.0).sample([4000])
  expect_close(b.mean(), tensor(0.4), 0.02)
}

test "special's functions keep f16 and bf16, as they keep f32 and f64" {
  for dt in [f16, bf16, f32, f64] {
    let x = tensor([0.25, 0.5], dtype=dt)
    expect(special.ndtri(x).dtype == dt, f"ndtri of {dt}")
    expect(special.zeta(x + 1.5, x).dtype == dt, f"zeta of {dt}")
    expect(special.zeta(x + 1.5, 2.0).dtype == dt, f"zeta of {dt} and a number")
    expect(special.gammainc(x, x).dtype == dt, f"gammainc of {dt}")
    expect(special.gammaincc(x, 2.0).dtype == dt, f"gammaincc of {dt} and a number")
  }
  expect_close(special.ndtri(tensor([0.5, 0.975], dtype=bf16)).to(f32), tensor([0.0, 1.96]), 0.05)  # bf16 holds 0.975 as 0.9766
  expect_close(special.zeta(tensor([2.0], dtype=f16), 1.0).to(f32), tensor([1.6449]), 2e-3)
}

test "a path holding a NUL byte names no file" {
  expect(not data.file_exists("tests/lang/test_hostile14.dsl\0zz"))
  expect(data.file_exists("tests/lang/test_hostile14.dsl"))
  expect_error(fn() = read_text("tests/lang/test_hostile14.dsl\0zz"), "the path holds a NUL byte (\\0) at byte 29")
  expect_error(fn() = load("tests/lang/test_hostile14.dsl\0zz"), "the path holds a NUL byte")
}

test "a message holding a NUL byte is matched whole" {
  expect_error(fn() = fail("bad\0byte, then more"), "bad\0byte, then more")
  expect_error(fn() = fail("bad\0byte, then more"), "then more")
}

test "autograd.functional's tensor and tuple outputs work as before" {
  let x = tensor([1.0, 2.0])
  expect_close(autograd.functional.jacobian(fn(x) = x * x, x), tensor([[2.0, 0.0], [0.0, 4.0]]), 0.0)
  let (ja, jb) = autograd.functional.jacobian(fn(x) = (x * 2, x.sum()), x)
  expect_close(ja, tensor([[2.0, 0.0], [0.0, 2.0]]), 0.0)
  expect_close(jb, tensor([1.0, 1.0]), 0.0)
  let (out, grads) = autograd.functional.vjp(fn(x) = (x.sum(), (x * x).sum()), x)
  expect_close(grads, tensor([3.0, 5.0]), 0.0)
  let (o2, t2) = autograd.functional.jvp(fn(x) = [x, x * 3], tensor([1.0]))
  expect_close(t2[1], tensor([3.0]), 0.0)
}

test "searchsorted with a sorter of in-range indices, as PyTorch's" {
  let seq = tensor([3.0, 1.0, 2.0])
  expect(searchsorted(seq, tensor([2.0, 0.5, 9.0]), sorter=tensor([1, 2, 0])).tolist() == [1, 0, 3])
  expect(searchsorted(seq, tensor([2.0]), right=true, sorter=tensor([1, 2, 0])).tolist() == [2])
  let rows = tensor([[2.0, 1.0], [5.0, 4.0]])
  expect(searchsorted(rows, tensor([[1.5], [4.5]]), sorter=tensor([[1, 0], [1, 0]])).tolist() == [[1], [1]])
}

test "gradient of distinct dims, in any order" {
  let f = tensor([[1.0, 4.0], [2.0, 3.0]])
  let (d1, d0) = gradient(f, dim=[1, 0])
  expect_close(d0, tensor([[1.0, -1.0], [1.0, -1.0]]), 0.0)
  expect_close(d1, tensor([[3.0, 3.0], [1.0, 1.0]]), 0.0)
  expect(len(gradient(f, dim=[-1])) == 1)
}

test "log_prob of batched values of the right event size" {
  let m = distributions.MultivariateNormal(zeros(2), eye(2))
  expect(m.log_prob(zeros(4, 2)).shape == (4,))
  expect_close(m.log_prob(zeros(2)), tensor(-math.log(2 * math.pi)), 1e-6)
  let d = distributions.Dirichlet(tensor([1.0, 2.0]))
  expect_close(d.log_prob(tensor([[0.5, 0.5], [0.25, 0.75]])), tensor([0.0, math.log(1.5)]), 1e-6)
  let i = distributions.Independent(distributions.Normal(zeros(2, 3), ones(2, 3)), 1)
  expect(distributions.kl_divergence(i, i).shape == (2,))
}

test "hstack of 0-dim tensors joins them as 1-D ones, as PyTorch's (it failed in cat)" {
  expect(hstack([tensor(1), tensor([2, 3])]).tolist() == [1, 2, 3])
  expect(hstack([tensor(1.0), tensor(2)]).tolist() == [1.0, 2.0])
  expect(hstack([tensor(5)]).shape == (1,))
  expect(hstack([ones(2, 1), ones(2, 2)]).shape == (2, 3))
  expect(vstack([tensor(1), tensor(2)]).tolist() == [[1], [2]])
}

test "masked_scatter broadcasts input and mask together, as PyTorch's (a larger mask failed in expand)" {
  let mask = tensor([[true, false, true], [true, true, true]])
  let out = masked_scatter(zeros(3), mask, tensor([1.0, 2.0, 3.0, 4.0, 5.0]))
  expect_close(out, tensor([[1.0, 0.0, 2.0], [3.0, 4.0, 5.0]]), 0.0)
  expect_close(masked_scatter(zeros(2, 3), tensor([true, false, true]), tensor([1.0, 2.0, 3.0, 4.0])),
               tensor([[1.0, 0.0, 2.0], [3.0, 0.0, 4.0]]), 0.0)
  let x = tensor([1.0, 2.0, 3.0], requires_grad=true)
  masked_scatter(x, mask, zeros(5)).sum().backward()
  expect_close(x.grad, tensor([0.0, 1.0, 0.0]), 0.0)  # the one place the mask leaves, in its one row
}
