# Random draws in compiled graphs (Note [Random draws are ops], autograd/ops/random.cpp):
# rand, randn, randint and the in-place fills are random_* nodes, so a compiled
# function draws anew at every call and at every step of a lowered loop, the same
# numbers as eager for the same seed.
import nn

fn noisy(x) = x + randn_like(x) * 0.1 + rand([3]) + randint(0, 5, [3]).float()

test "a compiled function draws at every call, eager's numbers for eager's seed" {
  let gm = compile(noisy, zeros([3]))
  let ir = gm.ir()
  expect(ir.count("random_normal(") == 1 and ir.count("random_uniform(") == 1 and ir.count("random_integers(") == 1, ir)
  manual_seed(7)
  let first = gm(ones([3]))
  let second = gm(ones([3]))
  manual_seed(7)
  expect_close(first, noisy(ones([3])), rtol=0, atol=0)
  expect_close(second, noisy(ones([3])), rtol=0, atol=0)
  expect((first - second).abs().max().item() > 0, f"two calls drew the same: {first}")
}

# A loop lowered to a while_loop, and a cond: each trip, and only the branch taken, draws.
fn random_walk(x) {
  let steps = 0
  while x.abs().max() < 3.0 {
    x = x + randn([2], dtype=f64)
    steps = steps + 1
  }
  return x, steps
}

fn maybe_noise(x) {
  if x.sum() > 0 {
    x = x + rand_like(x)
  }
  return x * 2.0
}

test "a lowered loop draws at each trip and a cond in its branch, as eager" {
  let walk = compile(random_walk, zeros([2], dtype=f64), mode="script")
  expect(walk.ir().count(" = while_loop(") == 1, walk.ir())
  for seed in [1, 2, 3] {
    manual_seed(seed)
    let (x, steps) = walk(zeros([2], dtype=f64))
    manual_seed(seed)
    let (want_x, want_steps) = random_walk(zeros([2], dtype=f64))
    expect_close(x, want_x, rtol=0, atol=0)
    expect(steps.item() == want_steps, f"{steps} trips, eager {want_steps}")
  }
  let gate = compile(maybe_noise, ones([2]), mode="script")
  for x in [ones([2]), -ones([2])] {
    manual_seed(4)
    let got = gate(x)
    let after_compiled = rand([1])
    manual_seed(4)
    let want = maybe_noise(x)
    expect_close(got, want, rtol=0, atol=0)
    expect_close(after_compiled, rand([1]), rtol=0, atol=0)  # the untaken branch drew nothing
  }
}

test "the passes keep every draw: two equal draws are not merged, an unused one is not folded away" {
  let gm = compile(fn(x) = x + rand([2]) - rand([2]), zeros([2]))
  gm.optimize()
  expect(gm.ir().count("random_uniform(") == 2, gm.ir())
  expect((gm(zeros([2]))).abs().max().item() > 0)
}

test "layers that draw (Dropout2d, RReLU, AlphaDropout) draw at every call when compiled" {
  for layer in [nn.Dropout2d(0.5), nn.RReLU(), nn.AlphaDropout(0.5)] {
    layer.train()
    let gm = compile(layer, randn([4, 3, 2, 2]))
    let x = randn([4, 3, 2, 2]) - 2.0
    manual_seed(11)
    let got = gm(x)
    manual_seed(11)
    expect_close(got, layer(x), rtol=0, atol=0)
    expect((gm(x) - got).abs().max().item() > 0, f"{layer} drew the same twice")
  }
}

test "the in-place fills and bernoulli are draws too" {
  fn fills(x) {
    let y = zeros([4], dtype=f64)
    y.normal_(1.0, 0.5)
    let z = zeros([4], dtype=f64).uniform_(-1.0, 1.0)
    return x + y + z + bernoulli(full([4], 0.5, dtype=f64)) + zeros([4], dtype=f64).exponential_(2.0)
  }
  let gm = compile(fills, zeros([4], dtype=f64))
  manual_seed(5)
  let got = gm(zeros([4], dtype=f64))
  manual_seed(5)
  expect_close(got, fills(zeros([4], dtype=f64)), rtol=0, atol=0)
}

test "the random rows check their arguments, naming them" {
  expect_error("random_uniform(size=[2], low=1.0, high=0.0)", "random_uniform: expected low <= high, got low=1 high=0")
  expect_error("random_normal(size=[2], std=-1.0)", "random_normal: expected std >= 0, got -1")
  expect_error("random_integers(size=[2], low=3, high=3)", "random_integers: expected low < high, got low=3 high=3")
  expect_error("random_uniform(size=[2, -1])", "random_uniform: negative size in [2, -1]")
  expect_error("random_normal(size=[2], dtype=i64)", "random_normal: expected a floating dtype, got i64")
}

test "draws keep their statistics" {
  manual_seed(3)
  let u = random_uniform(size=[20000], low=-2.0, high=4.0, dtype=f64)
  expect(u.min().item() >= -2.0 and u.max().item() < 4.0)
  expect(abs(u.mean().item() - 1.0) < 0.05, f"{u.mean()}")
  let n = random_normal(size=[20000], mean=3.0, std=0.5, dtype=f64)
  expect(abs(n.mean().item() - 3.0) < 0.02 and abs(n.std().item() - 0.5) < 0.02, f"{n.mean()} {n.std()}")
  let k = random_integers(size=[20000], low=-3, high=3)
  expect(k.min().item() == -3 and k.max().item() == 2 and str(k.dtype) == "i64", f"{k.min()} {k.max()} {k.dtype}")
}
