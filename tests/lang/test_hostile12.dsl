# What the hardening of round 12 (tests/lang/errors_hostile12.dsl) keeps working: the
# distributions' checks let every valid parameter and value through (a category of
# probability 0, a -inf logit, an infinite scale's log_prob, numbers for Normal's
# log_prob) and validate_args=false skips them, as PyTorch's; normal() with std 0 and
# inf; randint at its dtype's edges; add, sub and rsub with an int alpha on integer
# tensors stay integer, and a float alpha with a float operand works; weight_norm's
# int and none dims.
import distributions
import nn
import math

test "Categorical takes a zero probability and a -inf logit, and log_prob reads them" {
  let d = distributions.Categorical(probs=tensor([0.0, 1.0, 3.0]))
  expect_close(d.probs, tensor([0.0, 0.25, 0.75]), 1e-6)
  expect(d.log_prob(tensor(0)).item() < -15)  # log of PyTorch's clamped eps, not NaN
  expect_close(d.log_prob(tensor([1, 2])), tensor([math.log(0.25), math.log(0.75)]), 1e-5)
  let l = distributions.Categorical(logits=tensor([-float("inf"), 0.0]))
  expect(l.log_prob(tensor(0)).item() == -float("inf"))
  expect(l.log_prob(tensor(1)).item() == 0.0)
  expect(l.entropy().item() == 0.0)
  # integer probabilities are normalized, as PyTorch's
  expect_close(distributions.Categorical(probs=tensor([1, 3])).probs, tensor([0.25, 0.75]), 1e-6)
  # a batch of rows, each checked, each valid; values of any integer dtype or bool
  let b = distributions.Categorical(probs=tensor([[0.5, 0.5], [1.0, 0.0]]))
  expect(b.log_prob(tensor([true, false])).shape == (2,))
  expect(b.log_prob(tensor([[0, 1], [1, 0]], dtype=i8)).shape == (2, 2))
}

test "Normal takes an infinite scale and a number value; Bernoulli probs at 0 and 1" {
  let n = distributions.Normal(0.0, float("inf"))
  expect(n.log_prob(tensor(1.0)).item() == -float("inf"))
  let s = distributions.Normal(1.0, 2.0)
  expect_close(s.log_prob(3), s.log_prob(tensor(3.0)), 1e-6)
  expect_close(s.cdf(tensor(1.0)), tensor(0.5), 1e-6)
  expect(s.log_prob(tensor(float("inf"))).item() == -float("inf"))
  let b = distributions.Bernoulli(probs=tensor([0.0, 1.0]))
  let lp = b.log_prob(tensor([0.0, 1.0]))
  expect(lp.abs().max().item() < 1e-6)
  expect_close(distributions.Bernoulli(logits=tensor(0.0)).log_prob(tensor(1)), tensor(math.log(0.5)), 1e-6)
}

test "validate_args=false skips the checks, as PyTorch's" {
  # torch 1.13: Normal(0., -1., validate_args=False).log_prob(tensor(0.)) is nan
  let n = distributions.Normal(0.0, -1.0, validate_args=false)
  expect(isnan(n.log_prob(tensor(0.0))).item())
  # Categorical(logits=[1., 2.], validate_args=False).log_prob(tensor(0.5)) reads category 0
  let c = distributions.Categorical(logits=tensor([1.0, 2.0]), validate_args=false)
  expect_close(c.log_prob(tensor(0.5)), c.log_prob(tensor(0)), 1e-6)
  let b = distributions.Bernoulli(probs=tensor(0.5), validate_args=false)
  expect_close(b.log_prob(tensor(0.5)), tensor(math.log(0.5)), 1e-6)
}

test "normal() with std 0 gives the mean, with std inf infinities" {
  expect(normal(tensor([1.0, -2.0]), 0.0).tolist() == [1.0, -2.0])
  expect(normal(3.0, 0.0, size=[2]).tolist() == [3.0, 3.0])
  expect(normal(0.0, float("inf"), size=[4]).abs().min().item() == float("inf"))
}

test "randint fills its dtype's whole range and no more" {
  manual_seed(0)
  let u = randint(0, 256, [2000], dtype=u8)
  expect(u.dtype == u8 and u.to(i64).max().item() == 255 and u.to(i64).min().item() == 0)
  let s = randint(-128, 128, [2000], dtype=i8)
  expect(s.to(i64).min().item() == -128 and s.to(i64).max().item() == 127)
  let h = randint(65000, 65505, [200], dtype=f16)
  expect(h.max().item() <= 65504 and isfinite(h).all().item())  # f16 rounds to a multiple of 32 here
  expect(randint(-2**40, 2**40, [3]).dtype == i64)
  expect(randint(0, 2**31, [3], dtype=i32).to(i64).min().item() >= 0)
}

test "add, sub and rsub keep PyTorch's alpha kinds" {
  let i = tensor([1, 2])
  let a = add(i, 5, alpha=3)
  expect(a.dtype == i64 and a.tolist() == [16, 17])
  expect(sub(i, tensor([1, 1]), alpha=2).tolist() == [-1, 0])
  expect(rsub(i, 5, alpha=2).tolist() == [3, 1])
  # a float operand takes a float alpha (torch: add(tensor([1, 2]), 5.0, alpha=0.5) is [3.5, 4.5])
  expect(add(i, 5.0, alpha=0.5).tolist() == [3.5, 4.5])
  expect(add(i, tensor([1.0]), alpha=0.5).tolist() == [1.5, 2.5])
  expect(add(tensor([1.0]), 2, alpha=0.5).tolist() == [2.0])
  # bool operands take a bool alpha
  expect(add(tensor([true, false]), tensor([false, false]), alpha=true).tolist() == [true, false])
  let x = ones(2)
  x.add_(ones(2), alpha=2)
  x.sub_(1, alpha=0.5)
  expect(x.tolist() == [2.5, 2.5])
}

test "weight_norm's int and none dims" {
  let l = nn.Linear(3, 2)
  let before = l(ones(1, 3))
  nn.utils.weight_norm(l, dim=-1)
  expect(l.weight_g.shape == ())
  expect_close(l(ones(1, 3)), before, 1e-5)
  nn.utils.remove_weight_norm(l, "weight")
  expect(l.weight.shape == (2, 3))
  let c = nn.Conv1d(2, 4, 3)
  nn.utils.weight_norm(c, dim=1)
  expect(c.weight_g.shape == (1, 2, 1))
  nn.utils.weight_norm(c, name="bias", dim=none)
  expect(c.bias_g.shape == ())
}

test "the NaN checks leave valid arguments alone" {
  expect(smooth_l1_loss(ones(2), zeros(2), beta=0.0).item() == 1.0)
  expect(huber_loss(ones(2), zeros(2), delta=float("inf")).item() == 0.5)
  expect(renorm(ones(2, 2), 2, 0, float("inf")).tolist() == [[1.0, 1.0], [1.0, 1.0]])
  expect(pdist(tensor([[0.0, 0.0], [3.0, 4.0]]), p=float("inf")).tolist() == [4.0])
  let w = empty(4, 6)
  nn.init.sparse_(w, 0.5)
  expect(((w == 0).sum(0) >= 2).all().item())
  let q = empty(3, 5, dtype=f64)
  nn.init.orthogonal_(q)
  expect_close(q @ q.t(), eye(3, dtype=f64), 1e-10)
}

test "MultiheadAttention with dropout trains with its weights (was 'float' object is not callable)" {
  # its constructor argument `dropout` hid the function dropout() in forward
  manual_seed(0)
  let a = nn.MultiheadAttention(8, 2, dropout=0.1)
  let x = randn(5, 2, 8)
  let (o, w) = a(x, x, x)
  expect(o.shape == (5, 2, 8) and w.shape == (2, 5, 5))
  o.sum().backward()
  expect(a.in_proj_weight.grad != none)
  # PyTorch returns the weights after dropout: zeros where dropped, the rest scaled by 1 / 0.9
  let b = nn.MultiheadAttention(4, 1, dropout=0.5)
  let y = randn(6, 1, 4)
  let (_o, wd) = b(y, y, y)
  b.eval()
  let (_e, we) = b(y, y, y)
  expect_close(we.sum(-1), ones(1, 6), 1e-5)
  expect(((wd == 0).logical_or((wd - we * 2).abs() < 1e-5)).all().item())
  # eval and p = 0 agree with need_weights=false's path
  expect_close(b(y, y, y)[0], b(y, y, y, need_weights=false)[0], 1e-5)
}

test "the distributions' checks stay out of compile() and validate_args=false works under vmap" {
  import func
  let f = compile(fn(x) = distributions.Normal(x, 1.0).log_prob(x + 1.0).sum(), randn(3))
  expect_close(f(zeros(3)), tensor(3 * (-0.5 - 0.5 * math.log(2 * math.pi))), 1e-5)
  let d = distributions.Normal(zeros(3), ones(3), validate_args=false)
  let v = randn(4, 3)
  expect_close(func.vmap(fn(x) = d.log_prob(x))(v), d.log_prob(v), 1e-6)
  # validated, vmap fails as functorch's does ("data-dependent control flow")
  let checked = distributions.Normal(zeros(3), ones(3))
  expect_error(fn() = func.vmap(fn(x) = checked.log_prob(x))(v), "batched by vmap")
}

test "Bernoulli takes integer and bool probs and logits as f32, as Categorical's probs" {
  # probs=tensor([1, 0]) failed in finfo() of its eps, logits=tensor([1, 2]) in
  # binary_cross_entropy_with_logits
  let b = distributions.Bernoulli(probs=tensor([true, false]))
  expect(b.probs.dtype == f32 and b.probs.tolist() == [1.0, 0.0])
  let l = distributions.Bernoulli(logits=tensor([1, 2]))
  expect_close(l.log_prob(tensor([1, 0])), -binary_cross_entropy_with_logits(tensor([1.0, 2.0]), tensor([1.0, 0.0]), reduction="none"), 1e-6)
  expect(l.entropy().shape == (2,))
}

fn x_shape() = ones(2).shape  # a tensor's shape is a sample_shape too

test "a sample_shape with a 0 gives an empty sample, as PyTorch's" {
  # Categorical's multinomial refused 0 draws ("num_samples must be positive")
  let c = distributions.Categorical(logits=zeros(2, 3))
  expect(c.sample([0]).shape == (0, 2) and c.sample([0]).dtype == i64)
  expect(c.sample((4, 0)).shape == (4, 0, 2))
  expect(c.sample(x_shape()).shape == (2, 2))
  expect(distributions.Normal(zeros(3), 1.0).sample([0]).shape == (0, 3))
  expect(distributions.Bernoulli(probs=0.5).sample(0).shape == (0,))
}
