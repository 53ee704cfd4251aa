# A RealNVP-style normalizing flow on 2-D points: affine coupling layers that alternate
# which half they transform, trained by maximum likelihood with the log-determinant;
# the inverse must undo the forward.
import nn
import optim
import math

model Coupling(hidden, flip) {
  flip = flip
  net = nn.Sequential(nn.Linear(1, hidden), nn.Tanh(), nn.Linear(hidden, 2))
  split(x) = (x[:, 1:2], x[:, 0:1]) if self.flip else (x[:, 0:1], x[:, 1:2])
  join(a, b) = cat([b, a], dim=1) if self.flip else cat([a, b], dim=1)
  forward(x) {
    let (a, b) = self.split(x)
    let st = self.net(a)
    let s = tanh(st[:, 0:1])
    return (self.join(a, b * exp(s) + st[:, 1:2]), s.sum(1))
  }
  inverse(y) {
    let (a, b) = self.split(y)
    let st = self.net(a)
    return self.join(a, (b - st[:, 1:2]) * exp(-tanh(st[:, 0:1])))
  }
}

model Flow(n_layers) {
  layers = nn.ModuleList([Coupling(32, i % 2 == 1) for i in range(n_layers)])
  forward(x) {
    let logdet = zeros([x.shape[0]])
    for l in self.layers {
      let (y, ld) = l(x)
      x = y
      logdet = logdet + ld
    }
    return (x, logdet)
  }
  log_prob(x) {
    let (z, logdet) = self(x)
    return -0.5 * (z ** 2).sum(1) - math.log(2 * math.pi) + logdet
  }
}

test "an affine coupling flow fits an arc by maximum likelihood and inverts exactly" {
  manual_seed(0)
  let theta = rand([512]) * math.pi
  let x = stack([cos(theta), sin(theta)], dim=1) + 0.05 * randn([512, 2])
  let f = Flow(4)
  let opt = optim.Adam(f.parameters(), lr=5e-3)
  let losses = []
  for step in range(80) {
    let loss = -f.log_prob(x).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
  }
  expect(losses[0] > 2.5 and losses[-1] < 0.5, f"negative log-likelihood {losses[0]} -> {losses[-1]}")
  no_grad {
    let back = f(x[:8])[0]
    for l in reversed(f.layers) { back = l.inverse(back) }
    expect((back - x[:8]).abs().max().item() < 1e-5)
  }
}

test "the log-determinant is that of the Jacobian" {
  manual_seed(1)
  let c = Coupling(4, false)
  let x = randn([1, 2], dtype=f64)
  c.double()
  let J = jacrev(fn(v) = c(v.unsqueeze(0))[0].squeeze(0))(x[0])
  expect(abs(log(abs(det(J))).item() - c(x)[1].item()) < 1e-9)
}
