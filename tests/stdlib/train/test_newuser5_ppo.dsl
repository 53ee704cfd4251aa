# PPO as a PyTorch user writes it: an actor-critic with a Categorical policy (and a
# Gaussian one, Normal with a learned log-std), GAE advantages computed backwards over
# a rollout with episode ends, the clipped surrogate objective, a clipped value loss
# and an entropy bonus, trained for a few epochs of minibatches over the rollout
# buffer (torch.utils.data's BatchSampler over a SubsetRandomSampler). One loss and its
# gradients from a fixed init are checked against PyTorch 1.13 at f64
# (tests/stdlib/reference/make_newuser5.py); then PPO learns a contextual bandit.
import nn
import optim
import data
import distributions

let ref = load("tests/stdlib/reference/newuser5.safetensors")

model ActorCritic(obs=4, n_act=3, hidden=16) {
  body = nn.Sequential(nn.Linear(obs, hidden), nn.Tanh())
  pi = nn.Linear(hidden, n_act)
  v = nn.Linear(hidden, 1)
  forward(x) {
    let h = self.body(x)
    return (distributions.Categorical(logits=self.pi(h)), self.v(h).squeeze(-1))
  }
}

model GaussianPolicy(obs=3, act=2, hidden=16) {
  mu = nn.Sequential(nn.Linear(obs, hidden), nn.Tanh(), nn.Linear(hidden, act))
  log_std = nn.Parameter(-0.5 * ones(act))
  v = nn.Sequential(nn.Linear(obs, hidden), nn.Tanh(), nn.Linear(hidden, 1))
  forward(x) = (distributions.Normal(self.mu(x), self.log_std.exp()), self.v(x).squeeze(-1))
}

# Generalized advantage estimation, backwards over the rollout; dones[t] = 1 ends an
# episode at step t, so nothing flows back across it.
fn gae(rewards, values, dones, last_value, gamma=0.99, lam=0.95) {
  let adv = zeros_like(rewards)
  let last = 0.0
  for t in reversed(range(len(rewards))) {
    let next_v = last_value if t == len(rewards) - 1 else values[t + 1]
    let nonterminal = 1.0 - dones[t]
    let delta = rewards[t] + gamma * next_v * nonterminal - values[t]
    last = delta + gamma * lam * nonterminal * last
    adv[t] = last
  }
  return (adv, adv + values)
}

fn ppo_loss(dist, value, actions, old_logp, adv, returns, old_values, clip=0.2) {
  let logp = dist.log_prob(actions)
  let ent = dist.entropy()
  if logp.dim() > 1 { (logp, ent) = (logp.sum(-1), ent.sum(-1)) }
  let ratio = (logp - old_logp).exp()
  let pg = -min(ratio * adv, ratio.clamp(1 - clip, 1 + clip) * adv).mean()
  let v_clipped = old_values + (value - old_values).clamp(-clip, clip)
  let v_loss = 0.5 * max((value - returns) ** 2, (v_clipped - returns) ** 2).mean()
  return pg + 0.5 * v_loss - 0.01 * ent.mean()
}

fn loaded(m, name) {
  m.double()
  m.load_state_dict({k: ref[name + "." + k] for k in m.state_dict().keys()})
  return m
}

test "GAE, the clipped objective and its gradients match PyTorch (Categorical policy)" {
  let m = loaded(ActorCritic(), "ppo")
  let (adv, returns) = gae(ref["ppo.rewards"], ref["ppo.values"], ref["ppo.dones"], tensor(0.5, dtype=f64))
  expect_close(adv, ref["ppo.adv"], rtol=1e-13, atol=1e-14)
  expect_close(returns, ref["ppo.returns"], rtol=1e-13, atol=1e-14)
  let (dist, value) = m(ref["ppo.obs"])
  expect_close(value, ref["ppo.values"], rtol=1e-13, atol=1e-14)
  expect_close(dist.log_prob(ref["ppo.actions"]), ref["ppo.logp"], rtol=1e-13, atol=1e-14)
  expect_close(dist.entropy(), ref["ppo.entropy"], rtol=1e-13, atol=1e-14)
  let norm_adv = (adv - adv.mean()) / (adv.std() + 1e-8)
  let loss = ppo_loss(dist, value, ref["ppo.actions"], ref["ppo.old_logp"], norm_adv, returns, ref["ppo.old_values"])
  expect_close(loss, ref["ppo.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in m.named_parameters() { expect_close(p.grad, ref["ppo.grad." + name], rtol=1e-10, atol=1e-13) }
}

test "a Gaussian policy's summed log-probs, entropy and PPO gradients match PyTorch" {
  let g = loaded(GaussianPolicy(), "gauss")
  let (dist, value) = g(ref["gauss.obs"])
  expect(dist.batch_shape == [6, 2], f"{dist.batch_shape}")
  expect_close(dist.log_prob(ref["gauss.actions"]).sum(-1), ref["gauss.logp"], rtol=1e-13, atol=1e-14)
  # Spinning Up writes NumPy's keyword: sum(axis=-1) is sum(dim=-1), as in PyTorch
  expect_close(dist.log_prob(ref["gauss.actions"]).sum(axis=-1), ref["gauss.logp"], rtol=1e-13, atol=1e-14)
  expect_close(dist.entropy().sum(-1), ref["gauss.entropy"], rtol=1e-13, atol=1e-14)
  let loss = ppo_loss(dist, value, ref["gauss.actions"], ref["gauss.old_logp"], ref["gauss.adv"], ref["gauss.returns"],
                      ref["gauss.old_values"])
  expect_close(loss, ref["gauss.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in g.named_parameters() { expect_close(p.grad, ref["gauss.grad." + name], rtol=1e-10, atol=1e-13) }
  # the same log-probs through Independent, which sums the action dim itself
  let ind = distributions.Independent(dist, 1)
  expect_close(ind.log_prob(ref["gauss.actions"]), ref["gauss.logp"], rtol=1e-13, atol=1e-14)
}

test "torch.utils.data's samplers give every index of the buffer once per epoch" {
  manual_seed(0)
  let batches = data.BatchSampler(data.SubsetRandomSampler(range(10)), batch_size=4, drop_last=false)
  expect(len(batches) == 3)
  let seen = []
  for idx in batches { seen.extend(idx) }
  expect(sorted(seen) == list(range(10)), f"{seen}")
  expect(list(data.BatchSampler(data.SequentialSampler(range(5)), 2, drop_last=true)) == [[0, 1], [2, 3]])
  expect(len(data.BatchSampler(range(5), 2, drop_last=true)) == 2)
  let perm = list(data.RandomSampler(arange(6)))
  expect(sorted(perm) == list(range(6)))
  expect(len(list(data.RandomSampler(range(3), replacement=true, num_samples=7))) == 7)
}

# A contextual bandit in episodes of 4 steps: the right action is the argmax of the
# observation's first 3 entries (reward 1, else 0).
fn rollout(m, n) {
  let obs = randn(n, 4, dtype=f64)
  let (dist, values) = (none, none)
  no_grad { (dist, values) = m(obs) }
  let actions = dist.sample()
  let rewards = (actions == obs[:, :3].argmax(-1)).double()
  let dones = (arange(n) % 4 == 3).double()
  return (obs, actions, dist.log_prob(actions), values, rewards, dones)
}

test "PPO with minibatch epochs over a rollout buffer learns the bandit" {
  manual_seed(0)
  let m = ActorCritic().double()
  let opt = optim.Adam(m.parameters(), lr=1e-2, eps=1e-5)
  let (n, mb) = (64, 16)
  let first = none
  let last = none
  for it in range(25) {
    let (obs, actions, old_logp, old_values, rewards, dones) = rollout(m, n)
    let (adv, returns) = gae(rewards, old_values, dones, tensor(0.0, dtype=f64), gamma=0.9)
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    if first is none { first = rewards.mean().item() }
    last = rewards.mean().item()
    for epoch in range(4) {
      for idx in data.BatchSampler(data.SubsetRandomSampler(range(n)), mb, drop_last=false) {
        let (dist, value) = m(obs[idx])
        let loss = ppo_loss(dist, value, actions[idx], old_logp[idx], adv[idx], returns[idx], old_values[idx])
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(m.parameters(), 0.5)
        opt.step()
      }
    }
  }
  let obs = randn(256, 4, dtype=f64)
  let probs = none
  no_grad { probs = m(obs)[0].probs }
  let greedy = (probs.argmax(-1) == obs[:, :3].argmax(-1)).double().mean().item()
  expect(greedy > 0.85, f"greedy accuracy {greedy} (first rollout's mean reward {first}, last {last})")
  expect(last > first, f"mean reward {first} -> {last}")
}
