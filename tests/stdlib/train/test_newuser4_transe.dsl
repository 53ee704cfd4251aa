# Knowledge-graph embedding with TransE as a PyTorch user writes it: h + r ≈ t with an
# L1 distance, negative sampling by corrupting tails, nn.MarginRankingLoss, entity
# norms kept at most 1 by nn.Embedding(max_norm=1.0) (renormalized in place at each
# lookup) or by weight.renorm_ under no_grad. One step is checked against PyTorch 1.13
# at f64 (tests/stdlib/reference/make_newuser4.py); then TransE learns a small graph
# and ranks the true tails first.
import nn
import optim

let ref = load("tests/stdlib/reference/newuser4.safetensors")

model TransE(n_ent=8, n_rel=3, d=4) {
  ent = nn.Embedding(n_ent, d, max_norm=1.0)
  rel = nn.Embedding(n_rel, d)
  # one lookup of every entity: max_norm renormalizes the table in place at each
  # lookup, so a second lookup would modify what the first one's backward needs
  forward(h, r, t, neg_t) {
    let e = self.ent(stack([h, t, neg_t]))
    let translated = e[0] + self.rel(r)
    return ((translated - e[1]).norm(p=1, dim=1), (translated - e[2]).norm(p=1, dim=1))
  }
}

test "one TransE step matches PyTorch: max_norm's renormalization, margin ranking loss, gradients" {
  let m = TransE().double()
  m.load_state_dict({k: ref["transe." + k] for k in m.state_dict().keys()})
  let (pos, neg) = m(ref["transe.h"], ref["transe.r"], ref["transe.tail"], ref["transe.neg_t"])
  expect_close(m.ent.weight, ref["transe.renormed"], rtol=1e-13, atol=1e-15)
  expect((m.ent.weight.norm(dim=1) <= 1 + 1e-6).all().item(), "every looked-up row has norm at most 1")
  expect_close(pos, ref["transe.pos"], rtol=1e-12, atol=1e-14)
  expect_close(neg, ref["transe.neg"], rtol=1e-12, atol=1e-14)
  let loss = nn.MarginRankingLoss(margin=1.0)(neg, pos, ones(5, dtype=f64))
  expect_close(loss, ref["transe.loss"], rtol=1e-12, atol=1e-14)
  expect_close(nn.functional.margin_ranking_loss(neg, pos, ones(5, dtype=f64), margin=1.0), loss, rtol=0, atol=0)
  loss.backward()
  for (name, p) in m.named_parameters() { expect_close(p.grad, ref["transe.grad." + name], rtol=1e-10, atol=1e-13) }
  optim.SGD(m.parameters(), lr=0.1).step()
  no_grad { m.rel.weight.renorm_(2, 0, 1.0) }
  expect_close(m.ent.weight, ref["transe.after_ent"], rtol=1e-12, atol=1e-14)
  expect_close(m.rel.weight, ref["transe.after_rel"], rtol=1e-12, atol=1e-14)
}

test "max_norm's in-place renormalization: backward names a saved weight that a lookup changed, as PyTorch's" {
  manual_seed(0)
  let ent = nn.Embedding(5, 3, max_norm=1.0)
  no_grad { ent.weight.mul_(5) }          # every row over the norm: each lookup rewrites the rows it reads
  # tied weights: the matmul saves the table, which the lookup then renormalizes in place
  let scores = randn(2, 3, requires_grad=true) @ ent.weight.t()
  let a = ent(tensor([0, 1]))
  expect_error(fn() = (scores.sum() + a.sum()).backward(), "modified by an in-place operation")
  # two lookups of their own save no table: their gradients are the stacked lookup's
  let e2 = nn.Embedding(5, 3, max_norm=1.0)
  no_grad { e2.weight.mul_(5) }
  let w0 = e2.weight.clone()
  (e2(tensor([0, 1])) * e2(tensor([2, 3]))).sum().backward()
  let g_two = e2.weight.grad.clone()
  let e3 = nn.Embedding.from_pretrained(w0, freeze=false, max_norm=1.0)
  let both = e3(tensor([[0, 1], [2, 3]]))
  (both[0] * both[1]).sum().backward()
  expect_close(g_two, e3.weight.grad, rtol=1e-6, atol=1e-7)
}

test "TransE learns a small graph and ranks the true tail first" {
  manual_seed(0)
  let n_ent = 30
  # countries 0..14 and their capitals 15..29: capital_of (relation 0) and its inverse
  let countries = arange(15)
  let heads = cat([countries, countries + 15])
  let rels = cat([zeros(15, dtype=i64), ones(15, dtype=i64)])
  let tails = cat([countries + 15, countries])
  let m = TransE(n_ent, 2, 16)
  let loss_fn = nn.MarginRankingLoss(margin=1.0)
  let opt = optim.Adam(m.parameters(), lr=1e-2)
  for epoch in range(300) {
    let neg_t = randint(0, n_ent, tails.shape)
    let (pos, neg) = m(heads, rels, tails, neg_t)
    let loss = loss_fn(neg, pos, ones_like(pos))
    opt.zero_grad()
    loss.backward()
    opt.step()
  }
  no_grad {
    let table = m.ent(arange(n_ent))                                        # the renormalized rows
    expect((table.norm(dim=1) <= 1 + 1e-5).all().item(), "a lookup keeps the entity norms at most 1")
    # score every candidate tail; the true one should be nearest
    let translated = table[heads] + m.rel.weight[rels]
    let dist = cdist(translated, table, p=1)                                 # [triples, n_ent]
    let hits1 = (dist.argmin(1) == tails).float().mean().item()
    let ranks = (dist < dist.gather(1, tails.unsqueeze(1))).sum(1) + 1
    let mrr = (1.0 / ranks.float()).mean().item()
    expect(hits1 > 0.9 and mrr > 0.9, f"hits@1 {hits1}, MRR {mrr}")
  }
}
