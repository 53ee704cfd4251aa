# word2vec skip-gram with negative sampling: two nn.Embedding tables, bmm for the dot
# products, logsigmoid for the positive and negative terms. Words 0..4 share contexts,
# as do 5..9; their vectors must end up close within a topic and apart across.
import nn
import optim

model SkipGram(vocab, dim) {
  in_embed = nn.Embedding(vocab, dim)
  out_embed = nn.Embedding(vocab, dim)
  forward(center, context, negatives) {
    let v = self.in_embed(center).unsqueeze(2)                       # [B, D, 1]
    let pos = logsigmoid(bmm(self.out_embed(context).unsqueeze(1), v).squeeze(2).squeeze(1))
    let neg = logsigmoid(-bmm(self.out_embed(negatives), v).squeeze(2)).sum(1)
    return -(pos + neg).mean()
  }
}

test "skip-gram with negative sampling separates two topics" {
  manual_seed(0)
  let (V, B, K) = (10, 128, 4)
  let m = SkipGram(V, 8)
  let opt = optim.Adam(m.parameters(), lr=0.05)
  let losses = []
  for step in range(100) {
    let topic = randint(0, 2, [B])
    let loss = m(topic * 5 + randint(0, 5, [B]), topic * 5 + randint(0, 5, [B]), randint(0, V, [B, K]))
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
  }
  expect(losses[-1] < 0.5 * losses[0], f"{losses[0]} -> {losses[-1]}")
  let E = m.in_embed.weight.detach()
  let sim = cosine_similarity(E.unsqueeze(1), E.unsqueeze(0), dim=2)      # [V, V]
  let same = (arange(V).unsqueeze(1) // 5) == (arange(V).unsqueeze(0) // 5)
  let within = sim[same & ~eye(V).bool()].mean().item()
  let across = sim[~same].mean().item()
  expect(within > across + 0.3, f"within-topic similarity {within}, across {across}")
  # the dense gradient of a lookup touches only the rows looked up
  m.zero_grad()
  m(tensor([1]), tensor([2]), tensor([[3]])).backward()
  expect(m.in_embed.weight.grad.abs().sum(1).nonzero().flatten().tolist() == [1])
  expect(m.out_embed.weight.grad.abs().sum(1).nonzero().flatten().tolist() == [2, 3])
}
