# A mixture density network as a PyTorch user writes one (Bishop's inverse problem):
# the network gives each input the logits, means and log standard deviations of K
# Gaussians; the loss is the mixture's negative log-likelihood through logsumexp of
# log_softmax(logits) plus each component's log-density. The loss and gradients are
# checked against PyTorch (and torch.distributions.MixtureSameFamily's log_prob); the
# network learns the multi-valued inverse of y + 0.3 sin(2 pi y) that an MSE fit
# averages away.
import nn
import optim
import math
import distributions

let ref = load("tests/stdlib/reference/newuser2.safetensors")

fn mdn_nll(pi_logits, mu, log_sigma, y) {
  let log_pi = log_softmax(pi_logits, dim=-1)
  let z = (y - mu) / log_sigma.exp()
  let log_n = -0.5 * z ** 2 - log_sigma - 0.5 * math.log(2 * math.pi)
  return -logsumexp(log_pi + log_n, dim=-1).mean()
}

model MDN(k=5, hidden=32) {
  body = nn.Sequential(nn.Linear(1, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
  head = nn.Linear(hidden, 3 * k)
  forward(x) {
    let (pi_logits, mu, log_sigma) = self.head(self.body(x)).chunk(3, dim=-1)
    return (pi_logits, mu, log_sigma.clamp(-7.0, 3.0))
  }
}

test "the mixture's negative log-likelihood and its gradients match PyTorch's" {
  let pi_logits = ref["mdn.pi_logits"].clone().requires_grad_()
  let mu = ref["mdn.mu"].clone().requires_grad_()
  let log_sigma = ref["mdn.log_sigma"].clone().requires_grad_()
  let y = ref["mdn.y"]
  let loss = mdn_nll(pi_logits, mu, log_sigma, y)
  expect_close(loss, ref["mdn.loss"], rtol=1e-12, atol=1e-12)
  # MixtureSameFamily(Categorical(logits), Normal(mu, sigma)).log_prob(y), per example
  no_grad {
    let per = logsumexp(log_softmax(pi_logits, dim=-1) - 0.5 * ((y - mu) / log_sigma.exp()) ** 2 - log_sigma
                        - 0.5 * math.log(2 * math.pi), dim=-1)
    expect_close(per, ref["mdn.log_prob"], rtol=1e-12, atol=1e-12)
    # and with distributions.Normal's log_prob for the components
    let comp = distributions.Normal(mu, log_sigma.exp()).log_prob(y)
    expect_close(logsumexp(log_softmax(pi_logits, dim=-1) + comp, dim=-1), ref["mdn.log_prob"], rtol=1e-12, atol=1e-12)
  }
  loss.backward()
  expect_close(pi_logits.grad, ref["mdn.grad_pi_logits"], rtol=1e-10, atol=1e-12)
  expect_close(mu.grad, ref["mdn.grad_mu"], rtol=1e-10, atol=1e-12)
  expect_close(log_sigma.grad, ref["mdn.grad_log_sigma"], rtol=1e-10, atol=1e-12)
}

test "logsumexp stays finite where exp overflows, and its gradient is the softmax" {
  let x = tensor([[1000.0, 1000.0], [-1000.0, -1001.0]], dtype=f64, requires_grad=true)
  let v = logsumexp(x, dim=-1)
  expect_close(v, tensor([1000.0 + math.log(2.0), -1000.0 + math.log(1 + math.exp(-1.0))], dtype=f64), atol=1e-9)
  v.sum().backward()
  expect_close(x.grad, softmax(x.detach(), dim=-1), atol=1e-12)
  # every component at -inf: PyTorch gives -inf, not NaN
  expect(logsumexp(full([3], float("-inf")), dim=0).item() == float("-inf"))
}

test "an MDN learns the multi-valued inverse that a mean-squared fit averages away" {
  manual_seed(0)
  let n = 512
  let y = rand(n, 1)
  let x = y + 0.3 * sin(2 * math.pi * y) + 0.05 * randn(n, 1)   # predict y from x
  let m = MDN()
  let opt = optim.Adam(m.parameters(), lr=1e-2)
  let losses = []
  for step in range(300) {
    let (pi_logits, mu, log_sigma) = m(x)
    let loss = mdn_nll(pi_logits, mu, log_sigma, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
  }
  # a single Gaussian of the data's spread scores about -0.2 nats; the mixture much better
  expect(losses[-1] < -0.8, f"the mixture's NLL should fall below -0.8, got {losses[-1]} (first {losses[0]})")
  # at x = 0.5 the inverse has three branches: the mixture puts weight on more than one
  no_grad {
    let (pi_logits, mu, log_sigma) = m(tensor([[0.5]]))
    let w = softmax(pi_logits, dim=-1)[0]
    let used = mu[0][w > 0.1]
    expect(used.max().item() - used.min().item() > 0.3, f"branches {mu[0]} with weights {w}")
  }
}
