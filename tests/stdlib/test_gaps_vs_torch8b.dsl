# Round 8b against PyTorch 1.13: randint_like, Tensor.t_, clone(memory_format=),
# cdist(compute_mode=) and distributions.Binomial (stdlib/_distributions_binomial.dsl).
# The Binomial checks load tests/stdlib/reference/vs_torch8b.safetensors (written by
# tests/stdlib/reference/make_vs_torch8b.py, each case's torch call under the same name)
# and compare dtypes, values and the gradients of sum(y0 * g); the draws are checked by
# their moments.
import "vs_torch5_check.inc" as v5
import distributions

let D = distributions
let ref = load("tests/stdlib/reference/vs_torch8b.safetensors")
fn check(name, n, f, rtol=1e-10, atol=1e-12) = v5.check_in(ref, name, n, f, rtol, atol)

test "randint_like: input's shape, dtype and device; low and high; dtype told" {
  let x = zeros([3, 4], dtype=f64)
  let a = randint_like(x, 10)
  expect(list(a.shape) == [3, 4] and a.dtype == f64, f"{a.shape} {a.dtype}")
  expect(bool((a >= 0).all()) and bool((a < 10).all()) and bool((a == a.floor()).all()), "whole numbers in [0, 10)")
  let b = randint_like(tensor([1, 2, 3]), 5, 8)
  expect(b.dtype == i64 and bool((b >= 5).all()) and bool((b < 8).all()), f"{b}")
  let c = randint_like(x, low=-3, high=-1, dtype=i32)
  expect(c.dtype == i32 and bool(((c == -3) | (c == -2)).all()), f"{c}")
  expect(randint_like(x, high=2).dtype == f64, "high as a keyword")
  manual_seed(3)
  let d1 = randint_like(x, 100)
  manual_seed(3)
  expect(bool((randint_like(x, 100) == d1).all()), "manual_seed repeats the draws")
  expect_error(fn() = randint_like(x, 5, 5), "high must be greater than low")
  expect_error(fn() = randint_like(zeros(2, dtype=u8), 0, 300), "randint_like(): the range [0, 300) does not fit u8")
}

test "t_: transposes in place, every name sees it, gradients flow through a non-leaf" {
  let x = arange(6.0).reshape([2, 3])
  let y = x
  let r = x.t_()
  expect(list(y.shape) == [3, 2] and list(r.shape) == [3, 2], f"{y.shape}")
  expect(bool((x == arange(6.0).reshape([2, 3]).t()).all()), "the values are the transpose")
  let v = arange(3.0)
  v.t_()
  expect(list(v.shape) == [3], "a 1-D tensor is left as it is")
  let w = randn([2, 3], requires_grad=true)
  let h = w * 2
  h.t_()
  let g = randn([3, 2])
  (h * g).sum().backward()
  expect_close(w.grad, 2 * g.t(), rtol=1e-6)
  no_grad { w.t_() }
  expect(list(w.shape) == [3, 2], "a leaf under no_grad")
  expect_error(fn() = randn([2, 2], requires_grad=true).t_(), "a leaf tensor that requires grad cannot be modified in place")
  expect_error(fn() = randn([2, 2, 2]).t_(), "t_() expects a tensor of at most 2 dims")
}

test "clone(memory_format=): preserve_format and contiguous_format; the method too" {
  let x = arange(6.0).reshape([2, 3]).t()
  let a = clone(x, memory_format="preserve_format")
  let b = x.clone(memory_format="contiguous_format")
  expect(bool((a == x).all()) and bool((b == x).all()), "copies")
  let w = randn(3, requires_grad=true)
  clone(w).sum().backward()
  expect(bool((w.grad == 1).all()), "differentiable")
  expect_error(fn() = clone(x, memory_format="channels_last"), "\"channels_last\" is not supported")
  expect_error(fn() = x.clone(memory_format="nope"), "must be \"preserve_format\" or \"contiguous_format\", got \"nope\"")
  expect_error(fn() = x.clone(memory_format=1), "memory_format must be a str")
}

test "cdist: PyTorch's three compute_mode names give the same distances" {
  let x1 = randn([2, 4, 3], dtype=f64)
  let x2 = randn([2, 5, 3], dtype=f64)
  let want = cdist(x1, x2)
  for mode in ["use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"] {
    expect_close(cdist(x1, x2, compute_mode=mode), want, rtol=1e-12)
  }
  expect_close(cdist(x1, x2, p=1.0, compute_mode="use_mm_for_euclid_dist"), cdist(x1, x2, p=1.0), rtol=1e-12)
  expect_error(fn() = cdist(x1, x2, compute_mode="fast"), "compute_mode must be")
}

fn full(d, v) = [d.log_prob(v), d.entropy(), d.mean, d.mode, d.variance, d.enumerate_support(), d.enumerate_support(false)]

test "Binomial: log_prob, entropy, moments, enumerate_support and gradients equal PyTorch's" {
  check("binomial_probs", 3, fn(xs) = full(D.Binomial(xs[0], probs=xs[1]), xs[2]))
  check("binomial_logits", 3, fn(xs) = full(D.Binomial(xs[0], logits=xs[1]), xs[2]))
  check("binomial_entropy", 1, fn(xs) = D.Binomial(7, probs=xs[0]).entropy())
  check("binomial_batch", 3, fn(xs) = [D.Binomial(xs[0], probs=xs[1]).log_prob(xs[2]), D.Binomial(xs[0], probs=xs[1]).mean,
                                       D.Binomial(xs[0], probs=xs[1]).mode, D.Binomial(xs[0], probs=xs[1]).variance])
}

test "kl_divergence of two Binomials equals PyTorch's (infinite where p's total_count is larger)" {
  check("binomial_kl", 2, fn(xs) = D.kl_divergence(D.Binomial(6, probs=xs[0]), D.Binomial(6, probs=xs[1])))
  check("binomial_kl_logits", 2, fn(xs) = D.kl_divergence(D.Binomial(6, logits=xs[0]), D.Binomial(6, probs=xs[1])))
  check("binomial_kl_inf", 2, fn(xs) = D.kl_divergence(D.Binomial(tensor([6.0, 4.0, 8.0], dtype=f64), probs=xs[0]),
                                                        D.Binomial(tensor([6.0, 4.0, 5.0], dtype=f64), probs=xs[1])))
  expect_error(fn() = D.kl_divergence(D.Binomial(3, probs=0.5), D.Binomial(4, probs=0.5)), "q.total_count > p.total_count")
}

test "Binomial draws: the moments of both samplers, both sides of 1/2, and the edges" {
  manual_seed(0)
  let n = tensor([10.0, 40.0, 1000.0, 200.0, 7.0, 0.0, 5.0], dtype=f64)
  let p = tensor([0.3, 0.8, 0.5, 0.97, 1.0, 0.4, 0.0], dtype=f64)
  let d = D.Binomial(n, probs=p)
  let s = d.sample([20000])
  expect(list(s.shape) == [20000, 7] and s.dtype == f64, f"{s.shape}")
  expect(bool((s >= 0).all()) and bool((s <= n).all()) and bool((s == s.floor()).all()), "counts in [0, n]")
  expect_close(s.mean(0), d.mean, rtol=0.02, atol=0.05)
  expect_close(s.var(0), d.variance, rtol=0.06, atol=0.05)
  expect(list(D.Binomial(3, logits=zeros([2])).sample().shape) == [2], "a batch of 2")
  expect(list(D.Binomial(3, probs=0.5).sample([4]).shape) == [4], "a number probs")
}

test "Binomial: bad arguments are named errors" {
  expect_error(fn() = D.Binomial(5), "give exactly one of probs or logits")
  expect_error(fn() = D.Binomial(5, probs=1.5), "probs must be in [0, 1], got 1.5")
  expect_error(fn() = D.Binomial(2.5, probs=0.5), "total_count must be an integer at least 0, got 2.5")
  expect_error(fn() = D.Binomial(-1, probs=0.5), "total_count must be an integer at least 0, got -1")
  expect_error(fn() = D.Binomial(3, probs=0.5).log_prob(tensor(4.0)), "value must be a count in [0, total_count], got 4")
  expect_error(fn() = D.Binomial(3, probs=0.5).log_prob(tensor(1.5)), "value must be a count in [0, total_count], got 1.5")
  expect_error(fn() = D.Binomial(tensor([2.0, 3.0]), probs=0.5).entropy(), "total_count must be one number for all the batch")
  expect_error(fn() = D.Binomial("a", probs=0.5), "total_count must be a tensor or a number, got str")
}
