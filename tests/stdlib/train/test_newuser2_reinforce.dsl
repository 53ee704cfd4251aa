# REINFORCE as a PyTorch user writes it: a policy network's logits, actions drawn with
# multinomial (torch.distributions.Categorical's sample), their log-probabilities from
# log_softmax gathered at the actions, discounted returns normalized as a baseline, and
# the loss -sum(log_prob * return). The loss and gradients of one step are checked
# against PyTorch (Categorical(logits=...).log_prob), and so is `import distributions`'s
# Categorical, which the training loop uses; training solves a corridor walk.
import nn
import optim
import distributions

let ref = load("tests/stdlib/reference/newuser2.safetensors")

# Categorical(logits=...) by hand: sample() and log_prob(a) from multinomial and log_softmax
model Categorical(logits) {
  logits = logits
  sample() = multinomial(softmax(self.logits, dim=-1), 1).squeeze(-1)
  log_prob(a) = log_softmax(self.logits, dim=-1).gather(-1, a.unsqueeze(-1)).squeeze(-1)
  entropy() = -(softmax(self.logits, dim=-1) * log_softmax(self.logits, dim=-1)).sum(-1)
}

fn discounted_returns(rewards, gamma, dtype=f32) {
  let returns = []
  let g = 0.0
  for r in reversed(rewards) {
    g = r + gamma * g
    returns.insert(0, g)
  }
  let t = tensor(returns, dtype=dtype)
  return (t - t.mean()) / (t.std() + finfo(f32).eps)
}

test "multinomial draws each action with its probability" {
  manual_seed(0)
  let probs = tensor([0.1, 0.6, 0.3])
  let draws = multinomial(probs.expand(20000, 3), 1).squeeze(1)
  let freq = bincount(draws, minlength=3).float() / 20000
  expect_close(freq, probs, atol=0.015)
  # with replacement, many draws per row; without, each index once
  expect(multinomial(probs, 3, replacement=false).sort()[0].tolist() == [0, 1, 2])
  let many = multinomial(tensor([[0.0, 1.0], [1.0, 0.0]]), 5, replacement=true)
  expect(equal(many, tensor([[1, 1, 1, 1, 1], [0, 0, 0, 0, 0]])), f"{many}")
}

test "one REINFORCE step: the loss and gradients of PyTorch's Categorical log_prob" {
  let policy = nn.Sequential(nn.Linear(4, 16, dtype=f64), nn.Tanh(), nn.Linear(16, 2, dtype=f64))
  policy.load_state_dict({k: ref["reinforce." + k] for k in policy.state_dict().keys()})
  let returns = discounted_returns(ref["reinforce.rewards"].tolist(), 0.9, dtype=f64)
  expect_close(returns, ref["reinforce.returns"], rtol=1e-12, atol=1e-12)
  let dist = Categorical(policy(ref["reinforce.states"]))
  let log_probs = dist.log_prob(ref["reinforce.actions"])
  expect_close(log_probs, ref["reinforce.log_probs"], rtol=1e-12, atol=1e-12)
  let loss = -(log_probs * returns).sum()
  expect_close(loss, ref["reinforce.loss"], rtol=1e-12, atol=1e-12)
  loss.backward()
  for (name, p) in policy.named_parameters() {
    expect_close(p.grad, ref["reinforce.grad." + name], rtol=1e-10, atol=1e-12)
  }
  # distributions.Categorical gives the same log-probabilities and entropy
  let d = distributions.Categorical(logits=policy(ref["reinforce.states"]))
  expect_close(d.log_prob(ref["reinforce.actions"]), ref["reinforce.log_probs"], rtol=1e-12, atol=1e-12)
  expect_close(d.entropy(), dist.entropy(), rtol=1e-12, atol=1e-12)
}

# a corridor of 6 cells: start in cell 0, reward 1 in cell 5, -0.05 a step, 12 steps at most
let N = 6
fn run_episode(policy) {
  let pos = 0
  let log_probs = []
  let rewards = []
  for t in range(12) {
    let state = one_hot(tensor(pos), N).float().unsqueeze(0)
    let dist = distributions.Categorical(logits=policy(state))
    let action = dist.sample()
    log_probs.append(dist.log_prob(action))
    pos = max(0, min(N - 1, pos + (1 if action.item() == 1 else -1)))
    let done = pos == N - 1
    rewards.append(1.0 if done else -0.05)
    if done { break }
  }
  return (cat(log_probs), rewards)
}

test "REINFORCE learns to walk down the corridor" {
  manual_seed(0)
  let policy = nn.Sequential(nn.Linear(N, 16), nn.ReLU(), nn.Linear(16, 2))
  let opt = optim.Adam(policy.parameters(), lr=2e-2)
  let totals = []
  for episode in range(120) {
    let (log_probs, rewards) = run_episode(policy)
    let returns = discounted_returns(rewards, 0.95)
    let loss = -(log_probs * returns).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    totals.append(sum(rewards))
  }
  let first = sum(totals[:20]) / 20
  let last = sum(totals[-20:]) / 20
  expect(last > 0.7, f"the last episodes should reach the goal in few steps: mean return {first} -> {last}")
  # the greedy policy walks right from every cell
  no_grad {
    let right = policy(eye(N)).argmax(1)[:N - 1]
    expect(right.sum().item() == N - 1, f"{right}")
  }
}
