# DQN updates with a target network on a chain of 6 states (reward 1 on reaching the
# right end): Q(s, a) by gather, targets from the target network under no_grad,
# smooth_l1_loss, clip_grad_norm_, and load_state_dict copies every 20 steps.
import nn
import optim

let S = 6
let gamma = 0.9
fn states(s) = one_hot(s, S).float()
fn env_step(s, a) {
  let s2 = (s + where(a == 1, 1, -1)).clamp(0, S - 1)
  return (s2, (s2 == S - 1).float(), s2 == S - 1)
}

test "a DQN with a target network learns the greedy policy of a chain" {
  manual_seed(0)
  let q = nn.Sequential(nn.Linear(S, 32), nn.ReLU(), nn.Linear(32, 2))
  let target = nn.Sequential(nn.Linear(S, 32), nn.ReLU(), nn.Linear(32, 2))
  target.load_state_dict(q.state_dict())
  expect(equal(target[2].weight, q[2].weight) and target[2].weight.data_ptr() != q[2].weight.data_ptr())
  let opt = optim.Adam(q.parameters(), lr=5e-3)
  let losses = []
  for step in range(300) {
    let s = randint(0, S - 1, [64])
    let a = randint(0, 2, [64])
    let (s2, r, done) = env_step(s, a)
    let q_sa = q(states(s)).gather(1, a.unsqueeze(1)).squeeze(1)
    let y = none
    no_grad { y = r + gamma * target(states(s2)).max(1).values * (~done).float() }
    let loss = smooth_l1_loss(q_sa, y)
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(q.parameters(), 10.0)
    opt.step()
    if step % 20 == 19 { target.load_state_dict(q.state_dict()) }
    losses.append(loss.item())
    if step == 0 { expect(target[0].weight.grad == none, "the target network gets no gradient") }
  }
  expect(losses[-1] < 0.1 * losses[0], f"{losses[0]} -> {losses[-1]}")
  no_grad {
    let qs = q(states(arange(S - 1)))
    expect(qs.argmax(1).tolist() == [1, 1, 1, 1, 1], f"the greedy policy goes right: {qs}")
    # Q(4, right) = 1, Q(3, right) = gamma, ...
    let v = qs[:, 1]
    expect(allclose(v, tensor([0.9 ** 4, 0.9 ** 3, 0.9 ** 2, 0.9, 1.0]), atol=0.05), f"{v}")
  }
  # the target holds copies: changing q leaves it
  no_grad { q[0].weight.add_(1.0) }
  expect(not equal(target[0].weight, q[0].weight))
}
