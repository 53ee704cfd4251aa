# A BERT-style masked language model as a PyTorch user writes one: token, position
# and LayerNorm embeddings, nn.TransformerEncoder (GELU, batch_first) with a
# src_key_padding_mask for padded sequences, an MLM head whose decoder weight is tied
# to the token embedding (decoder.weight = embedding.weight), 15% of the tokens
# replaced by [MASK] and labels of -100 elsewhere. The sequences count up by a fixed
# step modulo 10, so a masked token follows from its neighbours.
import nn
import optim

let PAD = 0
let MASK = 1
let FIRST = 2          # tokens 2..11 carry the content
let K = 10
let V = FIRST + K

model TinyBert(vocab, d=32, heads=4, layers=2, max_len=16) {
  tok = nn.Embedding(vocab, d, padding_idx=PAD)
  pos = nn.Embedding(max_len, d)
  emb_norm = nn.LayerNorm(d)
  encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, heads, dim_feedforward=64, dropout=0.0,
                                                             activation="gelu", batch_first=true), layers)
  transform = nn.Sequential(nn.Linear(d, d), nn.GELU(), nn.LayerNorm(d))
  decoder = nn.Linear(d, vocab)
  let _tie = self.tie_weights()
  tie_weights() { self.decoder.weight = self.tok.weight }
  forward(input_ids, attention_mask) {
    let positions = arange(input_ids.size(1)).unsqueeze(0)
    let h = self.emb_norm(self.tok(input_ids) + self.pos(positions))
    # PyTorch's key_padding_mask is true where a key is padding: the inverse of BERT's attention_mask
    h = self.encoder(h, src_key_padding_mask=attention_mask.logical_not())
    return self.decoder(self.transform(h))
  }
}

# n padded sequences of 6..12 tokens counting up by a step of 1..3 modulo K
fn counting_batch(n, max_len=12) {
  let lengths = randint(6, max_len + 1, [n])
  let start = randint(0, K, [n, 1])
  let step = randint(1, 4, [n, 1])
  let tokens = FIRST + (start + step * arange(max_len).unsqueeze(0)) % K
  let attention_mask = arange(max_len).unsqueeze(0) < lengths.unsqueeze(1)
  return (where(attention_mask, tokens, PAD), attention_mask)
}

# BERT's masking: 15% of the real tokens become [MASK]; labels -100 elsewhere
fn mask_tokens(input_ids, attention_mask, p=0.15) {
  let chosen = (rand(input_ids.shape) < p) & attention_mask
  let labels = input_ids.masked_fill(chosen.logical_not(), -100)
  return (input_ids.masked_fill(chosen, MASK), labels)
}

test "the output embedding is tied: one parameter, gradients from both uses" {
  manual_seed(0)
  let m = TinyBert(V)
  expect(m.decoder.weight is m.tok.weight)
  let names = [n for (n, p) in m.named_parameters()]
  expect("tok.weight" in names and not ("decoder.weight" in names), f"{names}")
  let (ids, am) = counting_batch(4)
  let out = m(ids, am)
  expect(out.shape == (4, 12, V))
  # the gradient of the tied weight is the sum of the two uses' gradients
  out.sum().backward()
  let both = m.tok.weight.grad.clone()
  m.zero_grad()
  let h = m.transform(m.encoder(m.emb_norm(m.tok(ids) + m.pos(arange(12).unsqueeze(0))),
                                src_key_padding_mask=am.logical_not()))
  (h @ m.tok.weight.detach().t()).sum().backward()
  let embedding_only = m.tok.weight.grad.clone()
  let decoder_only = h.detach().reshape(-1, 32).sum(0).unsqueeze(0).expand(V, 32)
  expect_close(both, embedding_only + decoder_only, atol=1e-4)
}

let ref = load("tests/stdlib/reference/newuser2.safetensors")

test "the tied MLM matches PyTorch's logits, loss and gradients (the tied weight's summed)" {
  # tests/stdlib/reference/make_newuser2.py: TinyBert(12, d=8, heads=2, layers=1, max_len=8)
  let m = TinyBert(12, d=8, heads=2, layers=1, max_len=8).double()
  expect(m.decoder.weight is m.tok.weight, "double() keeps the tie")
  m.load_state_dict({k: ref["bert." + k] for k in m.state_dict().keys()})
  let logits = m(ref["bert.ids"], ref["bert.attention_mask"])
  expect_close(logits, ref["bert.logits"], rtol=1e-10, atol=1e-12)
  let loss = cross_entropy(logits.reshape(-1, 12), ref["bert.labels"].reshape(-1), ignore_index=-100)
  expect_close(loss, ref["bert.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in m.named_parameters() {
    expect_close(p.grad, ref["bert.grad." + name], rtol=1e-8, atol=1e-12)
  }
}

test "padding is invisible: a padded key changes no real position's output" {
  manual_seed(1)
  let m = TinyBert(V)
  m.eval()
  let ids = tensor([[2, 3, 4, 5, 6, 7, PAD, PAD]])
  let am = ids != PAD
  let a = m(ids, am)
  let b = m(ids.masked_fill(am.logical_not(), 9), am)
  expect_close(a[:, :6], b[:, :6], atol=1e-5)
}

test "the masked language model learns to fill in counting sequences" {
  manual_seed(0)
  let m = TinyBert(V)
  let opt = optim.AdamW(m.parameters(), lr=3e-3, weight_decay=0.01)
  let losses = []
  for step in range(400) {
    let (ids, am) = counting_batch(64)
    let (masked, labels) = mask_tokens(ids, am)
    let logits = m(masked, am)
    let loss = cross_entropy(logits.reshape(-1, V), labels.reshape(-1), ignore_index=-100)
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
  }
  expect(m.decoder.weight is m.tok.weight, "the optimizer step keeps the tie")
  expect(losses[0] > 2.0, f"{losses[0]}")
  let tail = sum(tensor(losses[-10:])).item() / 10
  expect(tail < 0.35, f"the MLM loss should fall below 0.35, got {tail}")
  m.eval()
  no_grad {
    manual_seed(5)
    let (ids, am) = counting_batch(64)
    let (masked, labels) = mask_tokens(ids, am)
    let pred = m(masked, am).argmax(-1)
    let at = labels != -100
    let acc = (pred[at] == labels[at]).float().mean().item()
    expect(acc > 0.9, f"masked tokens of fresh sequences (chance is 1/10): {acc}")
  }
}
