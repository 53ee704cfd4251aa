# A wide & deep recommender with neural collaborative filtering as a PyTorch user
# writes it: user and item nn.Embedding tables, a GMF branch (the elementwise product of
# the two), an MLP over [user, item, tags], a bag of tags per example through
# nn.EmbeddingBag(mode="sum", sparse=false) with offsets (an empty bag included) and
# per_sample_weights, a wide linear part as a one-column EmbeddingBag, and
# BCEWithLogitsLoss with pos_weight for the rare positives. The logits, loss and
# gradients from a fixed init, and EmbeddingBag's mean and max modes (offsets with
# include_last_offset, a 2-D input of fixed-size bags), are checked against PyTorch
# 1.13 at f64 (tests/stdlib/reference/make_newuser6.py); then the model learns
# synthetic preferences with Adam.
import nn
import optim

let ref = load("tests/stdlib/reference/newuser6.safetensors")

model WideDeep(n_users=10, n_items=12, n_tags=15, d=6) {
  user = nn.Embedding(n_users, d)
  item = nn.Embedding(n_items, d)
  tags = nn.EmbeddingBag(n_tags, d, mode="sum", sparse=false)
  wide = nn.EmbeddingBag(n_tags, 1, mode="sum")
  gmf_out = nn.Linear(d, 1, bias=false)
  mlp = nn.Sequential(nn.Linear(3 * d, 16), nn.ReLU(), nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 1))
  forward(users, items, tag_ids, offsets, tag_weights) {
    let (u, i) = (self.user(users), self.item(items))
    let t = self.tags(tag_ids, offsets, per_sample_weights=tag_weights)
    let gmf = self.gmf_out(u * i)
    let deep = self.mlp(cat([u, i, t], dim=1))
    let wide = self.wide(tag_ids, offsets)
    return (gmf + deep + wide).squeeze(1)
  }
}

test "the wide & deep model's logits, pos_weight loss and gradients match PyTorch" {
  let m = WideDeep().double()
  m.load_state_dict({k: ref["wd." + k] for k in m.state_dict().keys()})
  let logits = m(ref["wd.users"], ref["wd.items"], ref["wd.tag_ids"], ref["wd.offsets"], ref["wd.tag_weights"])
  expect_close(logits, ref["wd.logits"], rtol=1e-12, atol=1e-14)
  let crit = nn.BCEWithLogitsLoss(pos_weight=tensor([3.0], dtype=f64))
  let loss = crit(logits, ref["wd.labels"])
  expect_close(loss, ref["wd.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in m.named_parameters() { expect_close(p.grad, ref["wd.grad." + name], rtol=1e-10, atol=1e-13) }
  # the third bag (offsets 4 to 4) is empty: it sums to zero
  expect((m.tags(ref["wd.tag_ids"], ref["wd.offsets"])[2] == 0).all().item())
}

test "EmbeddingBag's mean and max modes, include_last_offset and 2-D bags match PyTorch" {
  let bag = nn.EmbeddingBag(15, 4, mode="mean").double()
  bag.load_state_dict({"weight": ref["bag_mean.weight"]})
  expect_close(bag(ref["wd.tag_ids"], ref["wd.offsets"]), ref["bag_mean.out"], rtol=1e-12, atol=1e-14)
  let last = tensor([0, 3, 4, 4, 7, 10])
  expect_close(nn.functional.embedding_bag(ref["wd.tag_ids"], bag.weight, last, mode="mean", include_last_offset=true),
               ref["bag_mean.out_last"], rtol=1e-12, atol=1e-14)
  expect_close(nn.functional.embedding_bag(ref["wd.tag_ids"].view(5, 2), bag.weight, mode="max"), ref["bag_max.out2d"],
               rtol=1e-12, atol=1e-14)
  # the sum with per_sample_weights is the weighted sum of the rows, bag by bag
  let w = rand(10, dtype=f64)
  let ids = ref["wd.tag_ids"]
  let sums = nn.functional.embedding_bag(ids, bag.weight, ref["wd.offsets"], mode="sum", per_sample_weights=w)
  let bounds = [0, 3, 4, 4, 7, 10]
  for b in range(5) {
    let (lo, hi) = (bounds[b], bounds[b + 1])
    let want = (bag.weight[ids[lo:hi]] * w[lo:hi, none]).sum(0)
    expect_close(sums[b], want, rtol=1e-12, atol=1e-14)
  }
}

test "the wide & deep model learns synthetic preferences" {
  manual_seed(0)
  let (n_users, n_items, n_tags) = (20, 30, 15)
  let user_taste = randn(n_users, 4)
  let item_style = randn(n_items, 4)
  let n = 512
  let users = randint(0, n_users, [n])
  let items = randint(0, n_items, [n])
  let scores = (user_taste[users] * item_style[items]).sum(1)
  let labels = (scores > 1.0).float()
  # two tags per example: the item's two hashed tags, weighted 1 and 0.5
  let tag_ids = stack([items % n_tags, (items * 7 + 3) % n_tags], dim=1).flatten()
  let offsets = arange(0, 2 * n, 2)
  let tag_weights = tensor([1.0, 0.5]).repeat(n)
  let pos_weight = ((1 - labels).sum() / labels.sum()).reshape(1)
  let m = WideDeep(n_users, n_items, n_tags, d=8)
  let opt = optim.Adam(m.parameters(), lr=2e-2)
  let crit = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
  for epoch in range(80) {
    let loss = crit(m(users, items, tag_ids, offsets, tag_weights), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
  }
  let acc = 0.0
  no_grad { acc = ((m(users, items, tag_ids, offsets, tag_weights) > 0).float() == labels).float().mean().item() }
  expect(acc > 0.9, f"training accuracy {acc}")
}
