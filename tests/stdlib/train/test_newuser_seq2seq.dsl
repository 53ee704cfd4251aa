# A seq2seq model as a PyTorch user writes one: a GRU encoder, a GRUCell decoder with
# dot-product attention over the encoder's outputs (bmm, softmax), teacher forcing,
# gradient clipping; it learns to reverse sequences of tokens.
import nn
import optim

let V = 8      # tokens 2..7; 1 starts the decoder
let SOS = 1

model Seq2Seq(vocab, hidden) {
  emb = nn.Embedding(vocab, hidden)
  encoder = nn.GRU(hidden, hidden, batch_first=true)
  decoder = nn.GRUCell(2 * hidden, hidden)
  out = nn.Linear(2 * hidden, vocab)
  attend(h, enc_out) {
    let weights = softmax(bmm(enc_out, h.unsqueeze(2)).squeeze(2), dim=1)   # [B, T]
    return (bmm(weights.unsqueeze(1), enc_out).squeeze(1), weights)
  }
  # teacher forcing with tgt; greedy decoding of n steps without it
  forward(src, tgt=none, n=0) {
    let (enc_out, h_n) = self.encoder(self.emb(src))
    let h = h_n[0]
    let B = src.shape[0]
    let prev = full([B], SOS, dtype=i64)
    let ctx = zeros([B, enc_out.shape[2]])
    let logits = []
    for t in range(tgt.shape[1] if tgt != none else n) {
      h = self.decoder(cat([self.emb(prev), ctx], dim=1), h)
      let (c, w) = self.attend(h, enc_out)
      ctx = c
      let step_logits = self.out(cat([h, ctx], dim=1))
      logits.append(step_logits)
      prev = tgt[:, t] if tgt != none else step_logits.argmax(1)
    }
    return stack(logits, dim=1)
  }
}

test "a GRU encoder-decoder with attention learns to reverse sequences" {
  manual_seed(0)
  let src = randint(2, V, [64, 5])
  let tgt = src.flip([1])
  let m = Seq2Seq(V, 32)
  let opt = optim.Adam(m.parameters(), lr=1e-2)
  let losses = []
  for step in range(60) {
    let loss = cross_entropy(m(src, tgt).reshape(-1, V), tgt.reshape(-1))
    opt.zero_grad()
    loss.backward()
    let norm = nn.utils.clip_grad_norm_(m.parameters(), 1.0)
    expect(norm.ndim == 0 and norm.item() >= 0.0)
    opt.step()
    losses.append(loss.item())
  }
  expect(losses[0] > 1.7, f"the first loss is near ln(6): {losses[0]}")
  expect(losses[-1] < 0.1, f"the loss should fall below 0.1, got {losses[-1]}")
  # greedy decoding, without the targets, reverses sequences it was not trained on
  m.eval()
  no_grad {
    let fresh = randint(2, V, [32, 5])
    let out = m(fresh, n=5).argmax(2)
    let acc = (out == fresh.flip([1])).float().mean().item()
    expect(acc > 0.5, f"greedy decoding of fresh sequences (chance is 1/6): {acc}")
  }
}

test "the attention weights are a distribution over the source positions" {
  manual_seed(1)
  let m = Seq2Seq(V, 8)
  let enc_out = randn([3, 5, 8])
  let (ctx, w) = m.attend(randn([3, 8]), enc_out)
  expect(list(ctx.shape) == [3, 8] and list(w.shape) == [3, 5])
  expect(allclose(w.sum(1), ones([3])))
}
