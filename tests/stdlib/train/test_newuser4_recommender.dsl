# A recommender as a PyTorch user writes it: matrix factorization with nn.Embedding
# tables (sparse=True), a user's history pooled by nn.EmbeddingBag (flat indices with
# offsets, per_sample_weights), item biases, the BPR loss -logsigmoid(pos - neg) and
# optim.SparseAdam, which moves only the rows a batch looked up. One step and two more
# are checked against PyTorch 1.13 at f64 (tests/stdlib/reference/make_newuser4.py);
# then MF with Adagrad ranks held-out positives above random items.
import nn
import optim

let ref = load("tests/stdlib/reference/newuser4.safetensors")

model MF(n_users=6, n_items=9, d=4) {
  user = nn.Embedding(n_users, d, sparse=true)
  item = nn.Embedding(n_items, d, sparse=true)
  item_bias = nn.Embedding(n_items, 1, sparse=true)
  history = nn.EmbeddingBag(n_items, d, mode="sum", sparse=true)
  score(u, hist, offsets, weights, items) {
    let users = self.user(u) + self.history(hist, offsets, per_sample_weights=weights)
    return (users * self.item(items)).sum(1) + self.item_bias(items).squeeze(1)
  }
}

fn bpr_loss(pos, neg) = -nn.functional.logsigmoid(pos - neg).mean()

test "BPR through Embedding and EmbeddingBag(offsets, per_sample_weights) matches PyTorch, and SparseAdam's steps too" {
  let m = MF().double()
  m.load_state_dict({k: ref["rec." + k] for k in m.state_dict().keys()})
  let (u, hist, offsets, weights) = (ref["rec.u"], ref["rec.hist"], ref["rec.offsets"], ref["rec.weights"])
  let loss = bpr_loss(m.score(u, hist, offsets, weights, ref["rec.pos"]), m.score(u, hist, offsets, weights, ref["rec.neg"]))
  expect_close(loss, ref["rec.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in m.named_parameters() { expect_close(p.grad, ref["rec.grad." + name], rtol=1e-10, atol=1e-13) }
  let opt = optim.SparseAdam(list(m.parameters()), lr=0.1)
  let before = m.item.weight.clone()
  opt.step()
  let moved = (m.item.weight != before).any(1)
  expect(moved.tolist() == [true, true, true, true, true, true, true, false, false], f"the rows looked up move, only they: {moved}")
  for step in range(2) {
    opt.zero_grad()
    let users = tensor([1, 4])
    let d2 = m.score(users, tensor([3, 3]), tensor([0, 1]), ones(2, dtype=f64), tensor([0, 2])) -
             m.score(users, tensor([3, 3]), tensor([0, 1]), ones(2, dtype=f64), tensor([1, 8]))
    (-nn.functional.logsigmoid(d2).mean()).backward()
    opt.step()
  }
  for (k, v) in m.state_dict().items() { expect_close(v, ref["rec.after." + k], rtol=1e-10, atol=1e-13) }
}

test "Adagrad on Embedding(sparse=true) gradients steps as PyTorch's sparse Adagrad" {
  let m = MF().double()
  m.load_state_dict({k: ref["rec." + k] for k in m.state_dict().keys()})
  let (u, hist, offsets, weights) = (ref["rec.u"], ref["rec.hist"], ref["rec.offsets"], ref["rec.weights"])
  let opt = optim.Adagrad(m.parameters(), lr=0.1, lr_decay=0.01)
  for step in range(2) {
    opt.zero_grad()
    bpr_loss(m.score(u, hist, offsets, weights, ref["rec.pos"]), m.score(u, hist, offsets, weights, ref["rec.neg"])).backward()
    opt.step()
  }
  for (k, v) in m.state_dict().items() { expect_close(v, ref["rec.adagrad." + k], rtol=1e-12, atol=1e-14) }
}

test "SparseAdam: the untouched rows keep their moments; its state_dict round-trips; bad options are errors" {
  manual_seed(0)
  let e = nn.Embedding(5, 3, sparse=true)
  let opt = optim.SparseAdam(e.parameters(), lr=0.1)
  e(tensor([0, 1])).sum().backward()
  opt.step()
  let m1 = opt.state[0]["exp_avg"].clone()
  expect((m1[2:] == 0).all().item() and (m1[:2] != 0).all().item(), f"{m1}")
  opt.zero_grad()
  e(tensor([3])).sum().backward()
  let w = e.weight.clone()
  opt.step()
  expect(equal(opt.state[0]["exp_avg"][:2], m1[:2]), "rows 0 and 1 were not looked up: their moments stay")
  expect(equal(e.weight[:3], w[:3]) and not equal(e.weight[3], w[3]))
  let opt2 = optim.SparseAdam(e.parameters(), lr=0.1)
  opt2.load_state_dict(opt.state_dict())
  expect(equal(opt2.state[0]["exp_avg_sq"], opt.state[0]["exp_avg_sq"]) and opt2.state[0]["step"] == 2)
  expect_error(fn() = optim.SparseAdam(e.parameters(), betas=(0.9, 1.5)), "betas[1] must be in [0, 1), got 1.5")
  expect_error(fn() = nn.Embedding(5, 3, sparse="yes"), "sparse must be true or false")
}

test "MF with BPR and Adagrad ranks each user's items above the rest" {
  manual_seed(0)
  let (n_users, n_items) = (40, 60)
  # two groups of users, each liking one half of the items
  let group = arange(n_users) % 2
  let likes = (arange(n_items)[none, :] % 2) == group[:, none]
  let m = MF(n_users, n_items, 8)
  let opt = optim.Adagrad(m.parameters(), lr=0.1)
  let empty_hist = tensor([], dtype=i64)
  for step in range(150) {
    let u = randint(0, n_users, (128,))
    let pos = (randint(0, n_items // 2, (128,)) * 2 + group[u]) % n_items        # an item the user likes
    let neg = (randint(0, n_items // 2, (128,)) * 2 + 1 - group[u]) % n_items    # one they do not
    let offsets = zeros(128, dtype=i64)                  # empty histories: every bag sums to zero
    let loss = bpr_loss(m.score(u, empty_hist, offsets, none, pos), m.score(u, empty_hist, offsets, none, neg))
    opt.zero_grad()
    loss.backward()
    opt.step()
  }
  no_grad {
    let scores = m.user.weight @ m.item.weight.t() + m.item_bias.weight.t()
    # AUC: the chance that a liked item scores above a disliked one, over every user
    let auc = 0.0
    for uu in range(n_users) {
      let s_pos = scores[uu][likes[uu]]
      let s_neg = scores[uu][~likes[uu]]
      auc = auc + (s_pos[:, none] > s_neg[none, :]).float().mean().item() / n_users
    }
    expect(auc > 0.95, f"AUC {auc}")
  }
}
