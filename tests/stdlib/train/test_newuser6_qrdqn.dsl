# Distributional RL as a PyTorch user writes QR-DQN: a network emitting N quantiles per
# action, the quantile Huber loss (smooth_l1_loss with reduction="none" against every
# target quantile, weighted by |tau - 1{u < 0}|), a double-DQN target from a target
# network kept as a copy by target.load_state_dict(net.state_dict()), a replay buffer,
# and epsilon-greedy exploration drawn from a torch.Generator of its own, so that the
# exploration stream does not move with the weights' initialization. The predicted
# quantiles, targets, loss, gradients and one Adam step from a fixed init are checked
# against PyTorch 1.13 at f64 (tests/stdlib/reference/make_newuser6.py); then QR-DQN
# learns the reward distributions of a two-armed bandit, quantile by quantile.
import nn
import optim
import random

let ref = load("tests/stdlib/reference/newuser6.safetensors")

model QRNet(obs=4, n_actions=3, n_quantiles=8, hidden=16) {
  n_actions = n_actions
  n_quantiles = n_quantiles
  net = nn.Sequential(nn.Linear(obs, hidden), nn.ReLU(), nn.Linear(hidden, n_actions * n_quantiles))
  forward(x) = self.net(x).view(-1, self.n_actions, self.n_quantiles)
}

# pred [B, N] quantiles of Q(s, a); target [B, N'] samples of r + gamma Z(s', a*)
fn quantile_huber_loss(pred, target, kappa=1.0) {
  let n = pred.shape[1]
  let taus = (arange(n, dtype=pred.dtype) + 0.5) / n
  let u = target.unsqueeze(1) - pred.unsqueeze(2)
  let huber = nn.functional.smooth_l1_loss(pred.unsqueeze(2).expand_as(u), target.unsqueeze(1).expand_as(u),
                                           reduction="none", beta=kappa)
  let weight = (taus.view(1, -1, 1) - (u.detach() < 0).to(pred.dtype)).abs()
  return (weight * huber / kappa).sum(1).mean(1).mean()
}

fn td_target(target_net, next_obs, rewards, dones, gamma) {
  let out = none
  no_grad {
    let next_q = target_net(next_obs)
    let best = next_q.mean(2).argmax(1)
    let next_quantiles = next_q[arange(next_obs.shape[0]), best]
    out = rewards.unsqueeze(1) + gamma * (1 - dones.unsqueeze(1)) * next_quantiles
  }
  return out
}

test "QR-DQN's quantiles, target, quantile Huber loss, gradients and an Adam step match PyTorch" {
  let net = QRNet().double()
  net.load_state_dict({k: ref["qr." + k] for k in net.state_dict().keys()})
  let target_net = QRNet().double()
  target_net.load_state_dict(net.state_dict())
  let target = td_target(target_net, ref["qr.next_obs"], ref["qr.rewards"], ref["qr.dones"], 0.9)
  expect_close(target, ref["qr.target"], rtol=1e-12, atol=1e-14)
  let pred = net(ref["qr.obs"])[arange(6), ref["qr.actions"]]
  expect_close(pred, ref["qr.pred"], rtol=1e-12, atol=1e-14)
  let loss = quantile_huber_loss(pred, target)
  expect_close(loss, ref["qr.loss"], rtol=1e-12, atol=1e-14)
  let opt = optim.Adam(net.parameters(), lr=1e-2)
  loss.backward()
  for (name, p) in net.named_parameters() { expect_close(p.grad, ref["qr.grad." + name], rtol=1e-10, atol=1e-13) }
  opt.step()
  for (k, v) in net.state_dict().items() { expect_close(v, ref["qr.after." + k], rtol=1e-10, atol=1e-13) }
  # the target network is a copy: the step moved the online weights only
  expect_close(target_net.net[0].weight, ref["qr.net.0.weight"], rtol=0, atol=0)
  expect(not net.net[0].weight.equal(target_net.net[0].weight))
}

test "epsilon-greedy draws from its Generator, apart from the global generator" {
  fn explore_actions(seed) {
    let g = Generator().manual_seed(seed)
    let acts = []
    for step in range(20) {
      if rand(1, generator=g).item() < 0.5 { acts.append(randint(0, 3, [1], generator=g).item()) } else { acts.append(-1) }
      randn(5)   # the global generator moves in between (weights, dropout): the stream must not care
    }
    return acts
  }
  manual_seed(0)
  let a = explore_actions(7)
  manual_seed(123)
  let b = explore_actions(7)
  expect(a == b, "the same seed gives the same exploration whatever the global generator did")
  expect(a != explore_actions(8))
  # a Generator seeded n draws what manual_seed(n) would, and leaves the global state alone
  let state = get_rng_state()
  let g = Generator().manual_seed(5)
  let drawn = randn(4, generator=g)
  expect(get_rng_state() == state)
  manual_seed(5)
  expect(drawn.equal(randn(4)))
  expect(Generator().initial_seed() == 67280421310721)
}

# a two-armed bandit of one state: arm 0 pays 0.5, arm 1 pays uniformly in [-1, 3] (mean 1).
# A small kappa: the minimizers of the quantile Huber loss are the quantiles as kappa -> 0
# (with kappa = 1 against a spread of 4 they are pulled in towards the median).
fn pull(arm, g) = 0.5 if arm == 0 else -1.0 + 4.0 * rand(1, generator=g).item()

test "QR-DQN learns the quantiles of each arm's reward and prefers the better mean" {
  manual_seed(0)
  let g = Generator().manual_seed(0)
  let n_q = 8
  let net = QRNet(obs=1, n_actions=2, n_quantiles=n_q)
  let target_net = QRNet(obs=1, n_actions=2, n_quantiles=n_q)
  target_net.load_state_dict(net.state_dict())
  let opt = optim.Adam(net.parameters(), lr=1e-2)
  let memory = []
  let obs = ones(1, 1)
  for step in range(600) {
    let eps = max(0.1, 1.0 - step / 300)
    let arm = 0
    if rand(1, generator=g).item() < eps { arm = randint(0, 2, [1], generator=g).item() } else {
      no_grad { arm = net(obs).mean(2).argmax(1).item() }
    }
    memory.append((arm, pull(arm, g)))
    if len(memory) >= 32 {
      let batch = random.sample(memory, 32)
      let actions = tensor([b[0] for b in batch])
      let rewards = tensor([b[1] for b in batch])
      let target = td_target(target_net, obs.expand(32, 1), rewards, ones(32), 0.9)
      let loss = quantile_huber_loss(net(obs.expand(32, 1))[arange(32), actions], target, kappa=0.05)
      opt.zero_grad()
      loss.backward()
      opt.step()
    }
    if step % 50 == 0 { target_net.load_state_dict(net.state_dict()) }
  }
  let q = zeros(1)
  no_grad { q = net(obs)[0] }
  expect(q.mean(1).argmax().item() == 1, f"the better mean: {q.mean(1)}")
  let taus = (arange(n_q) + 0.5) / n_q
  expect_close(q[1], -1.0 + 4.0 * taus, atol=0.35)
  expect_close(q[0], full([n_q], 0.5), atol=0.15)
}

test "every random function takes generator=, drawing what manual_seed would, the global state untouched" {
  let draws = [fn(g) = rand(3, generator=g), fn(g) = randn(2, 2, generator=g), fn(g) = randint(0, 9, [4], generator=g),
               fn(g) = randperm(5, generator=g), fn(g) = normal(0.0, 2.0, [3], generator=g),
               fn(g) = bernoulli(full([6], 0.5), generator=g), fn(g) = multinomial(tensor([0.2, 0.3, 0.5]), 4, true, generator=g),
               fn(g) = nn.functional.dropout(ones(8), 0.5, generator=g), fn(g) = zeros(4).uniform_(-1, 1, generator=g),
               fn(g) = zeros(4).normal_(generator=g), fn(g) = zeros(4).bernoulli_(0.3, generator=g),
               fn(g) = zeros(4).exponential_(generator=g), fn(g) = zeros(4, dtype=i64).random_(0, 10, generator=g)]
  for (k, draw) in enumerate(draws) {
    manual_seed(100 + k)
    let state = get_rng_state()
    let from_g = draw(Generator().manual_seed(k))
    expect(get_rng_state() == state, f"draw {k} left the global generator alone")
    manual_seed(k)
    expect(from_g.equal(draw(none)), f"draw {k}: generator=Generator().manual_seed({k}) is manual_seed({k})")
  }
}
