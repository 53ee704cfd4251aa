# import distributions: Categorical, Normal and Bernoulli against PyTorch 1.13's
# torch.distributions at f64 (tests/stdlib/reference/make_newuser2.py writes the
# values), their shapes, and their samples' frequencies.
import distributions

let ref = load("tests/stdlib/reference/newuser2.safetensors")
fn r(name) = ref["dist." + name]

test "Categorical(logits=...): log_prob, entropy (a -inf logit included) and their gradients" {
  let logits = r("cat_logits").clone().requires_grad_()
  let d = distributions.Categorical(logits=logits)
  expect_close(d.logits, r("cat_norm_logits"), rtol=1e-12, atol=1e-12)
  expect_close(d.probs, r("cat_probs"), rtol=1e-12, atol=1e-14)
  let lp = d.log_prob(r("cat_value"))
  let ent = d.entropy()
  expect_close(lp, r("cat_log_prob"), rtol=1e-12, atol=1e-12)
  expect_close(ent, r("cat_entropy"), rtol=1e-12, atol=1e-12)
  (lp.sum() + ent.sum()).backward()
  expect_close(logits.grad, r("cat_grad_logits"), rtol=1e-10, atol=1e-12)
  expect(d.batch_shape == [3] and d.sample().shape == (3,) and d.sample([5, 2]).shape == (5, 2, 3))
}

test "Categorical(probs=...) normalizes the probabilities; log_prob broadcasts the value" {
  let d = distributions.Categorical(probs=r("catp_probs"))
  expect_close(d.logits, r("catp_logits"), rtol=1e-12, atol=1e-12)
  expect_close(d.log_prob(tensor([[4], [0]])), r("catp_log_prob"), rtol=1e-12, atol=1e-12)
  expect(d.log_prob(tensor([[4], [0]])).shape == (2, 2))
  expect_error(fn() = distributions.Categorical(probs=ones(3), logits=zeros(3)), "give exactly one of probs or logits, got both")
}

test "Categorical samples each category with its probability" {
  manual_seed(0)
  let d = distributions.Categorical(probs=tensor([0.1, 0.6, 0.3]))
  let s = d.sample([20000])
  expect(s.dtype == i64 and s.shape == (20000,))
  expect_close(bincount(s, minlength=3).float() / 20000, tensor([0.1, 0.6, 0.3]), atol=0.015)
}

test "Normal: log_prob, entropy, cdf and their gradients; rsample carries the gradient, sample does not" {
  let loc = r("normal_loc").clone().requires_grad_()
  let scale = r("normal_scale").clone().requires_grad_()
  let d = distributions.Normal(loc, scale)
  let lp = d.log_prob(r("normal_y"))
  let ent = d.entropy()
  expect_close(lp, r("normal_log_prob"), rtol=1e-12, atol=1e-12)
  expect_close(ent, r("normal_entropy"), rtol=1e-12, atol=1e-12)
  expect_close(d.cdf(r("normal_y")), r("normal_cdf"), rtol=1e-10, atol=1e-12)
  (lp.sum() + ent.sum()).backward()
  expect_close(loc.grad, r("normal_grad_loc"), rtol=1e-10, atol=1e-12)
  expect_close(scale.grad, r("normal_grad_scale"), rtol=1e-10, atol=1e-12)
  expect(d.rsample([3]).shape == (3, 4) and d.rsample().requires_grad)
  expect(not d.sample().requires_grad)
  # numbers broadcast against tensors
  let s = distributions.Normal(zeros(2, 1), 2.0)
  expect(s.batch_shape == [2, 1] and s.stddev.shape == (2, 1))
}

test "Normal's samples have its mean and standard deviation" {
  manual_seed(1)
  let x = distributions.Normal(tensor([1.0, -2.0]), tensor([0.5, 3.0])).sample([20000])
  expect_close(x.mean(0), tensor([1.0, -2.0]), atol=0.06)
  expect_close(x.std(0), tensor([0.5, 3.0]), atol=0.06)
}

test "Bernoulli: log_prob, entropy and probs from logits" {
  let d = distributions.Bernoulli(logits=r("bern_logits"))
  expect_close(d.probs, r("bern_probs"), rtol=1e-12, atol=1e-14)
  expect_close(d.log_prob(r("bern_value")), r("bern_log_prob"), rtol=1e-12, atol=1e-12)
  expect_close(d.entropy(), r("bern_entropy"), rtol=1e-12, atol=1e-12)
  manual_seed(2)
  let s = distributions.Bernoulli(probs=tensor([0.2, 0.9])).sample([10000])
  expect_close(s.mean(0), tensor([0.2, 0.9]), atol=0.02)
}

test "normal(mean, std): torch.normal's forms, shapes, dtypes and statistics" {
  manual_seed(3)
  let x = normal(tensor([1.0, -2.0]).expand(20000, 2), tensor([0.5, 3.0]))
  expect(x.shape == (20000, 2) and x.dtype == f32)
  expect_close(x.mean(0), tensor([1.0, -2.0]), atol=0.06)
  expect_close(x.std(0), tensor([0.5, 3.0]), atol=0.06)
  expect(normal(zeros(3, dtype=f64), 2.0).dtype == f64)
  expect(normal(1.0, ones(2, 1)).shape == (2, 1))
  expect(normal(0.0, 1.0, [4, 5]).shape == (4, 5))
  expect(normal(0.0, 1.0, [3], dtype=f64).dtype == f64)
  expect_close(normal(tensor([3.0, 4.0]), 0.0), tensor([3.0, 4.0]))
  expect(not normal(zeros(2, requires_grad=true), 1.0).requires_grad)
  expect_error(fn() = normal(zeros(2), -ones(2)), "std must be at least 0")
  expect_error(fn() = normal(0.0, 1.0), "give size")
  expect_error(fn() = normal(zeros(2), 1.0, [2]), "size is for a number mean and std")
}
