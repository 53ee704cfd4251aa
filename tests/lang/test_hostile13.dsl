# What the hardening of round 13 (tests/lang/errors_hostile13.dsl) keeps working:
# randperm at the edge of each dtype holds every value 0..n-1 once; random.randrange
# over ranges wider than 2**62 stays on its grid (start + step * k overflowed and
# failed now and then); assert as a call, with the whole condition inside its
# parentheses, in every form a program writes it; cat still leaves 1-D empty tensors
# out and promotes with their dtype.
import random

# Every value 0..n-1 exactly once: the sorted permutation is arange(n).
fn is_permutation(p, n) = p.shape == (n,) and (sort(p.to(f64)).values == arange(n, dtype=f64)).all().item()

test "randperm at the edge of each dtype holds 0..n-1 once, as PyTorch's" {
  expect(is_permutation(randperm(256, dtype=u8), 256))
  expect(is_permutation(randperm(128, dtype=i8), 128))
  expect(is_permutation(randperm(2049, dtype=f16), 2049))  # PyTorch's own bound for Half
  expect(is_permutation(randperm(257, dtype=bf16), 257))
  expect(is_permutation(randperm(1000, dtype=i32), 1000))
  expect(is_permutation(randperm(1000, dtype=f32), 1000))
  expect(is_permutation(randperm(1000), 1000))
  expect(randperm(256, dtype=u8).dtype == u8)
  expect(randperm(0, dtype=u8).shape == (0,))
  expect(randperm(5, dtype=f64, requires_grad=true).requires_grad)
}

test "random.randrange over ranges wider than 2**62 stays in range and on its grid" {
  let lo = -4611686018427387904 * 2      # -2**63
  let hi = 4611686018427387904 + 4611686018427387903   # 2**63 - 1
  for i in range(200) {
    let up = random.randrange(lo, hi, 3)
    expect(up >= lo and up < hi and up % 3 == lo % 3, f"randrange(lo, hi, 3) gave {up}")
    let down = random.randrange(hi, lo, -3)
    expect(down <= hi and down > lo and down % 3 == hi % 3, f"randrange(hi, lo, -3) gave {down}")
  }
  for i in range(50) { expect(random.randrange(0, 10, 5) in [0, 5]) }
  expect(random.randrange(7, 8) == 7)
  expect(random.randrange(5, -5, -10) == 5)
}

test "assert is a call: the whole condition inside its parentheses, in every form" {
  let v = 7
  assert((v - 1) % 3 == 0)
  assert((v - 1) % 3 == 0, "the message")
  assert(v == 7 and true)
  let r = assert(true)
  expect(r == none)
  expect_error(fn() = assert((v - 1) % 4 == 0, "not a multiple"), "assertion failed: not a multiple")
  # a name other than assert called under an operator is no concern of the check
  fn twice(x) = x * 2
  twice (3) + 1
  expect(twice (3) + 1 == 7)
}

test "cat leaves 1-D empty tensors out and promotes with their dtype, at any position" {
  let x = randn(2, 3)
  expect(cat([tensor([]), x, tensor([])]).shape == (2, 3))
  expect(cat([tensor([]), ones(2, 2, dtype=i64)]).dtype == f32)
  expect(cat([x, tensor([], dtype=f64)], dim=-1).dtype == f64)
  expect(cat([tensor([]), tensor([])]).shape == (0,))
  expect_error(fn() = cat([tensor([]), x, randn(2, 4)]), "tensor 2 has shape [2, 4] but tensor 1 has shape [2, 3]")
  expect_error(fn() = cat([randn(2, 3), randn(2, 4)]), "tensor 1 has shape [2, 4] but tensor 0 has shape [2, 3]")
}

test "linspace takes ends its dtype holds, a negative u8 end wrapping as full()'s" {
  expect(linspace(0, 255, 3, dtype=u8).tolist() == [0, 127, 255])
  expect(linspace(-128, 127, 2, dtype=i8).tolist() == [-128, 127])
  expect(linspace(0, 65504, 2, dtype=f16).tolist() == [0.0, 65504.0])
  expect(linspace(-5, 5, 3, dtype=u8).tolist()[0] == 251)
  expect(linspace(0, 1, 5).dtype == f32)
  expect_error(fn() = linspace(0, 256, 2, dtype=u8), "linspace(): argument 'end': 256 cannot be converted to u8")
}

test "arange with an integer dtype takes a step of at least 1, float or not" {
  expect(arange(0, 3, 1.5, dtype=i64).tolist() == [0, 1])   # as PyTorch's
  expect(arange(5, dtype=i32).tolist() == [0, 1, 2, 3, 4])
  expect(arange(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75])
  expect(arange(0, 1, 0.25, dtype=f16).dtype == f16)
  expect_error(fn() = arange(0, 1, -0.5, dtype=u8), "arange(): step -0.5 is 0 as an integer of u8")
}

test "nn.checkpoint recomputes under the autocast of its forward, as PyTorch's" {
  import nn
  let w = randn(3, 2)
  let x = randn(2, 3, requires_grad=true)
  let y = none
  autocast("cpu", dtype=bf16) { y = nn.checkpoint(fn(a) = matmul(a, w).tanh(), x) }
  expect(y.dtype == bf16)
  y.float().sum().backward()   # outside the block: the recomputation ran in f32 before
  let plain = x.detach().requires_grad_(true)
  autocast("cpu", dtype=bf16) { matmul(plain, w).tanh().float().sum().backward() }
  expect((x.grad - plain.grad).abs().max().item() == 0.0, f"{x.grad} vs {plain.grad}")
  # and a forward outside autocast recomputes outside it, even when backward runs in one
  let z = randn(2, 3, requires_grad=true)
  let out = nn.checkpoint(fn(a) = matmul(a, w).tanh(), z)
  autocast("cpu", dtype=bf16) { out.sum().backward() }
  let ref = z.detach().requires_grad_(true)
  let ref_out = matmul(ref, w).tanh()
  autocast("cpu", dtype=bf16) { ref_out.sum().backward() }
  expect((z.grad - ref.grad).abs().max().item() == 0.0)
  expect(autocast_dtype() == none)
  autocast(dtype=f16) { expect(autocast_dtype() == f16) }
}
