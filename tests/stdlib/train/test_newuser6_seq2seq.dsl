# A seq2seq Transformer as a PyTorch user writes one with nn.Transformer (batch_first,
# one encoder and one decoder layer): token embeddings scaled by sqrt(d_model) plus a
# learned position table, the causal tgt_mask from
# nn.Transformer.generate_square_subsequent_mask, key padding masks for the source, the
# target and the memory, cross entropy with ignore_index=PAD; the encoder and decoder
# called apart (transformer.encoder, transformer.decoder) for greedy decoding and a
# beam search of width 3. The logits, loss and gradients from a fixed init, and the
# greedy and beam outputs, are checked against PyTorch 1.13 at f64
# (tests/stdlib/reference/make_newuser6.py); then the model learns a token-shift translation.
import math
import nn
import optim

let ref = load("tests/stdlib/reference/newuser6.safetensors")
let (BOS, EOS, PAD) = (1, 2, 0)

model Seq2Seq(vocab=7, d=8, nhead=2, max_len=12) {
  d = d
  src_embed = nn.Embedding(vocab, d, padding_idx=PAD)
  tgt_embed = nn.Embedding(vocab, d, padding_idx=PAD)
  pos = nn.Parameter(randn(max_len, d))
  transformer = nn.Transformer(d_model=d, nhead=nhead, num_encoder_layers=1, num_decoder_layers=1,
                               dim_feedforward=16, dropout=0.0, batch_first=true)
  generator = nn.Linear(d, vocab)
  encode(src) {
    let x = self.src_embed(src) * math.sqrt(self.d) + self.pos[:src.shape[1]]
    return self.transformer.encoder(x, src_key_padding_mask=src == PAD)
  }
  decode(tgt, memory, src_pad) {
    let T = tgt.shape[1]
    let y = self.tgt_embed(tgt) * math.sqrt(self.d) + self.pos[:T]
    let mask = nn.Transformer.generate_square_subsequent_mask(T, dtype=y.dtype)
    return self.generator(self.transformer.decoder(y, memory, tgt_mask=mask, tgt_key_padding_mask=tgt == PAD,
                                                   memory_key_padding_mask=src_pad))
  }
  forward(src, tgt) {
    let T = tgt.shape[1]
    let mask = nn.Transformer.generate_square_subsequent_mask(T, dtype=self.pos.dtype)
    let out = self.transformer(self.src_embed(src) * math.sqrt(self.d) + self.pos[:src.shape[1]],
                               self.tgt_embed(tgt) * math.sqrt(self.d) + self.pos[:T], tgt_mask=mask,
                               src_key_padding_mask=src == PAD, tgt_key_padding_mask=tgt == PAD,
                               memory_key_padding_mask=src == PAD)
    return self.generator(out)
  }
}

fn greedy(m, src, max_len) {
  let memory = m.encode(src)
  let ys = full([src.shape[0], 1], BOS, dtype=i64)
  for _ in range(max_len - 1) {
    let nxt = m.decode(ys, memory, src == PAD)[:, -1].argmax(-1)
    ys = cat([ys, nxt[:, none]], dim=1)
  }
  return ys
}

# one source sentence [1, S]; a beam that reaches EOS is done; scores are summed log-probs
fn beam_search(m, src, width, max_len) {
  let memory = m.encode(src)
  let beams = [([BOS], 0.0)]
  let done = []
  for _ in range(max_len - 1) {
    let cand = []
    for (toks, score) in beams {
      let logp = nn.functional.log_softmax(m.decode(tensor([toks]), memory, src == PAD)[0, -1], -1)
      let top = logp.topk(width)
      for (lp, k) in zip(top.values.tolist(), top.indices.tolist()) { cand.append((toks + [k], score + lp)) }
    }
    cand.sort(key=fn(c) = -c[1])
    beams = []
    for (toks, score) in cand[:width] {
      if toks[-1] == EOS { done.append((toks, score)) } else { beams.append((toks, score)) }
    }
    if not beams { break }
  }
  return max(done + beams, key=fn(c) = c[1])
}

test "nn.Transformer's logits, masked loss and gradients match PyTorch" {
  let m = Seq2Seq().double()
  m.load_state_dict({k: ref["s2s." + k] for k in m.state_dict().keys()})
  m.eval()
  let logits = m(ref["s2s.src"], ref["s2s.tgt_in"])
  expect_close(logits, ref["s2s.logits"], rtol=1e-11, atol=1e-13)
  let loss = nn.functional.cross_entropy(logits.reshape(-1, 7), ref["s2s.tgt_out"].reshape(-1), ignore_index=PAD)
  expect_close(loss, ref["s2s.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in m.named_parameters() { expect_close(p.grad, ref["s2s.grad." + name], rtol=1e-9, atol=1e-12) }
}

test "greedy decoding and a beam search of width 3 give PyTorch's sequences" {
  let m = Seq2Seq().double()
  m.load_state_dict({k: ref["s2s." + k] for k in m.state_dict().keys()})
  m.eval()
  no_grad {
    expect(greedy(m, ref["s2s.src"], 6).equal(ref["s2s.greedy"]))
    let (toks, score) = beam_search(m, ref["s2s.src"][:1], 3, 6)
    expect(toks == ref["s2s.beam"].tolist(), f"beam {toks} vs {ref['s2s.beam'].tolist()}")
    expect_close(score, ref["s2s.beam_score"].item(), rtol=1e-11)
  }
}

test "generate_square_subsequent_mask is -inf above the diagonal and 0 elsewhere" {
  let mask = nn.Transformer.generate_square_subsequent_mask(4)
  expect(mask.dtype == f32 and list(mask.shape) == [4, 4])
  expect((mask == float("-inf")).equal(triu(ones(4, 4), diagonal=1).bool()))
  expect((mask.tril() == 0).all().item())
}

# sequences of 3..5 tokens from 3..6; the target is each token shifted by one (6 wraps to 3), then EOS
fn reverse_batch(n) {
  let (src, tgt) = (full([n, 6], PAD, dtype=i64), full([n, 7], PAD, dtype=i64))
  for r in range(n) {
    let L = randint(3, 6, []).item()
    let s = randint(3, 7, [L])
    src[r, :L] = s
    src[r, L] = EOS
    tgt[r, 0] = BOS
    tgt[r, 1:L + 1] = (s - 3 + 1) % 4 + 3
    tgt[r, L + 1] = EOS
  }
  return (src, tgt)
}

test "the seq2seq Transformer learns a token-shift translation, and greedy decoding translates new sentences" {
  manual_seed(0)
  let m = Seq2Seq(d=32, nhead=4)
  let opt = optim.Adam(m.parameters(), lr=1e-2)
  for step in range(150) {
    let (src, tgt) = reverse_batch(32)
    let logits = m(src, tgt[:, :-1])
    let loss = nn.functional.cross_entropy(logits.reshape(-1, 7), tgt[:, 1:].reshape(-1), ignore_index=PAD)
    opt.zero_grad()
    loss.backward()
    opt.step()
  }
  m.eval()
  let (src, tgt) = reverse_batch(16)
  let out = zeros(1)
  no_grad { out = greedy(m, src, 7) }
  let keep = tgt != PAD
  let acc = ((out == tgt) & keep).sum().item() / keep.sum().item()
  expect(acc > 0.9, f"token accuracy {acc}")
}
