# RealNVP as a PyTorch user writes it: affine coupling layers with alternating binary
# masks (a buffer each), a scale net ending in tanh and a translation net, the
# log-det-Jacobian as the sum of the log-scales, a MultivariateNormal prior, and the
# inverse for sampling; then a MAF-style masked autoregressive layer (MADE masks on
# nn.Linear weights). The log-probs and gradients from a fixed init are checked against
# PyTorch 1.13 at f64 (tests/stdlib/reference/make_newuser5.py), the log-det against
# the log|det| of the Jacobian autograd computes; then the flow learns a 2-D density.
import autograd
import distributions
import linalg
import math
import nn
import optim

let ref = load("tests/stdlib/reference/newuser5.safetensors")

model Coupling(dim, mask, hidden=16) {
  buffer mask = mask
  s = nn.Sequential(nn.Linear(dim, hidden), nn.Tanh(), nn.Linear(hidden, dim), nn.Tanh())
  t = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, dim))
  forward(x) {
    let xm = x * self.mask
    let s = self.s(xm) * (1 - self.mask)
    let t = self.t(xm) * (1 - self.mask)
    return (xm + (1 - self.mask) * (x * exp(s) + t), s.sum(dim=1))
  }
  inverse(y) {
    let ym = y * self.mask
    let s = self.s(ym) * (1 - self.mask)
    let t = self.t(ym) * (1 - self.mask)
    return ym + (1 - self.mask) * ((y - t) * exp(-s))
  }
}

model RealNVP(dim=4, n=4) {
  layers = nn.ModuleList([Coupling(dim, tensor([float((i + j) % 2) for j in range(dim)])) for i in range(n)])
  forward(x) {
    let log_det = zeros(x.shape[0], dtype=x.dtype)
    for layer in self.layers {
      let (y, ld) = layer(x)
      x = y
      log_det = log_det + ld
    }
    return (x, log_det)
  }
  prior(dtype) = distributions.MultivariateNormal(zeros(self.layers[0].mask.shape[0], dtype=dtype), eye(self.layers[0].mask.shape[0], dtype=dtype))
  log_prob(x) {
    let (z, ld) = self(x)
    return self.prior(x.dtype).log_prob(z) + ld
  }
  sample(n) {
    let z = self.prior(self.layers[0].mask.dtype).sample([n])
    for layer in reversed(list(self.layers)) { z = layer.inverse(z) }
    return z
  }
}

test "RealNVP's latents, log-dets, log-probs and gradients match PyTorch" {
  let m = RealNVP().double()
  m.load_state_dict({k: ref["realnvp." + k] for k in m.state_dict().keys()})
  expect(m.state_dict().keys()[0] == "layers.0.mask")
  let x = ref["realnvp.x"]
  let (z, ld) = m(x)
  expect_close(z, ref["realnvp.z"], rtol=1e-12, atol=1e-14)
  expect_close(ld, ref["realnvp.log_det"], rtol=1e-12, atol=1e-14)
  let lp = m.log_prob(x)
  expect_close(lp, ref["realnvp.log_prob"], rtol=1e-12, atol=1e-14)
  let loss = -lp.mean()
  expect_close(loss, ref["realnvp.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in m.named_parameters() { expect_close(p.grad, ref["realnvp.grad." + name], rtol=1e-9, atol=1e-12) }
}

test "the log-det is log|det J| of the Jacobian, and inverse undoes forward" {
  let m = RealNVP().double()
  m.load_state_dict({k: ref["realnvp." + k] for k in m.state_dict().keys()})
  let x = ref["realnvp.x"]
  for i in range(3) {
    let J = autograd.functional.jacobian(fn(v) = m(v.unsqueeze(0))[0].squeeze(0), x[i])
    let (sign, logabsdet) = linalg.slogdet(J)
    expect_close(logabsdet, m(x[i:i + 1])[1][0], rtol=1e-12, atol=1e-13)
    expect(sign.item() == 1.0)
  }
  no_grad {
    let (z, _) = m(x)
    let back = z
    for layer in reversed(list(m.layers)) { back = layer.inverse(back) }
    expect_close(back, x, rtol=1e-12, atol=1e-13)
  }
}

# MADE's masks for a masked autoregressive layer: output d sees inputs < d only.
fn made_masks(dim, hidden) {
  let in_deg = arange(dim)
  let hid_deg = arange(hidden) % max(1, dim - 1)
  let m1 = (hid_deg.unsqueeze(1) >= in_deg.unsqueeze(0)).float()     # [hidden, dim]
  let m2 = (in_deg.unsqueeze(1) > hid_deg.unsqueeze(0)).float()      # [dim, hidden]
  return (m1, m2)
}

model MAFLayer(dim=2, hidden=16) {
  fc1 = nn.Linear(dim, hidden)
  fc2 = nn.Linear(hidden, 2 * dim)
  let (m1, m2) = made_masks(dim, hidden)
  buffer mask1 = m1
  buffer mask2 = cat([m2, m2])
  # u = (x - mu(x_<d)) * exp(-alpha(x_<d)), log|det du/dx| = -sum alpha
  forward(x) {
    let h = relu(nn.functional.linear(x, self.fc1.weight * self.mask1, self.fc1.bias))
    let (mu, alpha) = nn.functional.linear(h, self.fc2.weight * self.mask2, self.fc2.bias).chunk(2, dim=-1)
    alpha = alpha.clamp(-5, 5)
    return ((x - mu) * exp(-alpha), -alpha.sum(-1))
  }
}

test "a MADE layer is autoregressive: its Jacobian is lower triangular with exp(-alpha) on the diagonal" {
  manual_seed(0)
  let layer = MAFLayer(dim=3).double()
  let x = randn(3, dtype=f64)
  let J = autograd.functional.jacobian(fn(v) = layer(v.unsqueeze(0))[0].squeeze(0), x)
  expect((J.triu(1) == 0).all().item(), f"{J}")
  expect_close(J.diagonal().log().sum(), layer(x.unsqueeze(0))[1][0], rtol=1e-12, atol=1e-13)
}

# Two Gaussian blobs at (+-1.5, 0): a flow's density has to split its mass.
fn blobs(n) {
  let side = randint(0, 2, [n, 1]).float() * 3 - 1.5
  return cat([side, zeros(n, 1)], dim=1) + 0.3 * randn(n, 2)
}

test "RealNVP learns two blobs: likelihood up, and samples land near them" {
  manual_seed(0)
  let m = RealNVP(dim=2, n=6)
  let opt = optim.Adam(m.parameters(), lr=5e-3)
  let x_test = blobs(512)
  let before = 0.0
  no_grad { before = m.log_prob(x_test).mean().item() }
  for step in range(250) {
    let loss = -m.log_prob(blobs(128)).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
  }
  let after = 0.0
  let samples = none
  no_grad {
    after = m.log_prob(x_test).mean().item()
    samples = m.sample(500)
  }
  expect(after > before + 1.0, f"test log-likelihood {before} -> {after}")
  let near = ((samples[:, 0].abs() - 1.5).abs() < 0.8).float().mean().item()
  expect(near > 0.7, f"fraction of samples near a blob {near}")
}
