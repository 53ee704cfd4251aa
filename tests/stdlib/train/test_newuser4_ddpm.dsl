# A tiny DDPM as a PyTorch user writes it: a linear beta schedule (linspace, cumprod),
# a sinusoidal time embedding, an MLP denoiser with SiLU, the simple loss (the MSE of
# the predicted noise) and ancestral sampling. One loss and gradient from a fixed init,
# and a whole sampling run from given noise, are checked against PyTorch 1.13 at f64
# (tests/stdlib/reference/make_newuser4.py); then training on a two-point mixture
# makes the samples land near the two points, sampled from an EMA of the weights
# (copy.deepcopy of the model, updated with lerp_).
import copy
import math
import nn
import optim

let ref = load("tests/stdlib/reference/newuser4.safetensors")

fn time_embedding(t, dim, dtype) {
  let half = dim // 2
  let freqs = exp(-math.log(10000.0) * arange(half, dtype=dtype) / half)
  let args = t[:, none].to(dtype) * freqs[none]
  return cat([args.sin(), args.cos()], dim=-1)
}

model Denoiser(d=2, t_dim=16, hidden=32) {
  t_dim = t_dim
  time_mlp = nn.Sequential(nn.Linear(t_dim, hidden), nn.SiLU(), nn.Linear(hidden, hidden))
  inp = nn.Linear(d, hidden)
  out = nn.Sequential(nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, d))
  forward(x, t) = self.out(self.inp(x) + self.time_mlp(time_embedding(t, self.t_dim, x.dtype)))
}

model Schedule(T, dtype=f32) {
  T = T
  betas = linspace(1e-4, 0.02, T, dtype=dtype)
  alphas = 1 - self.betas
  alpha_bar = cumprod(self.alphas, dim=0)

  # q(x_t | x_0): the noised input at each row's step
  noised(x0, t, noise) {
    let ab = self.alpha_bar[t].unsqueeze(-1)
    return ab.sqrt() * x0 + (1 - ab).sqrt() * noise
  }

  # ancestral sampling from x; next_noise(i) gives the z of step i (none at i = 0)
  sample(m, x, next_noise) {
    no_grad {
      for i in reversed(range(self.T)) {
        let eps = m(x, full([x.shape[0]], i, dtype=i64))
        let mean = (x - self.betas[i] / (1 - self.alpha_bar[i]).sqrt() * eps) / self.alphas[i].sqrt()
        x = mean + self.betas[i].sqrt() * next_noise(i) if i > 0 else mean
      }
    }
    return x
  }
}

test "the simple loss, its gradients and an ancestral sampling run match PyTorch" {
  let m = Denoiser().double()
  m.load_state_dict({k: ref["ddpm." + k] for k in m.state_dict().keys()})
  let s = Schedule(20, dtype=f64)
  expect_close(s.alpha_bar, ref["ddpm.alpha_bar"], rtol=1e-14, atol=1e-15)
  let xt = s.noised(ref["ddpm.x0"], ref["ddpm.steps"], ref["ddpm.noise"])
  expect_close(xt, ref["ddpm.xt"], rtol=1e-13, atol=1e-14)
  let loss = nn.functional.mse_loss(m(xt, ref["ddpm.steps"]), ref["ddpm.noise"])
  expect_close(loss, ref["ddpm.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in m.named_parameters() { expect_close(p.grad, ref["ddpm.grad." + name], rtol=1e-9, atol=1e-12) }
  let zs = ref["ddpm.zs"]
  let x = s.sample(m, ref["ddpm.x_T"], fn(i) = zs[i])
  expect_close(x, ref["ddpm.sample"], rtol=1e-10, atol=1e-12)
}

test "a DDPM trained on two points samples near them" {
  manual_seed(0)
  let s = Schedule(50)
  let m = Denoiser(hidden=64)
  let centers = tensor([[-2.0, 0.0], [2.0, 0.0]])
  let ema = copy.deepcopy(m)
  ema.requires_grad_(false)
  let opt = optim.Adam(m.parameters(), lr=3e-3)
  let sched = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=400)
  let first = none
  let last = 0.0
  for step in range(400) {
    let x0 = centers[randint(0, 2, (128,))] + 0.05 * randn(128, 2)
    let t = randint(0, s.T, (128,))
    let noise = randn_like(x0)
    let loss = nn.functional.mse_loss(m(s.noised(x0, t, noise), t), noise)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    no_grad { for (e, p) in zip(ema.parameters(), m.parameters()) { e.lerp_(p, 0.05) } }
    if step == 0 { first = loss.item() }
    if step >= 350 { last = last + loss.item() / 50 }
  }
  expect(last < 0.6 * first, f"the noise prediction improves: {first} -> {last}")
  expect(not (ema.inp.weight is m.inp.weight) and not equal(ema.inp.weight, m.inp.weight), "the EMA is a copy of its own")
  let samples = s.sample(ema, randn(200, 2), fn(i) = randn(200, 2))
  let nearest = cdist(samples, centers).min(1).values
  let close = (nearest < 0.5).float().mean().item()
  expect(close > 0.8, f"{close} of the samples lie within 0.5 of a center")
  let left = (samples[:, 0] < 0).float().mean().item()
  expect(left > 0.25 and left < 0.75, f"both modes are sampled: {left} on the left")
}
