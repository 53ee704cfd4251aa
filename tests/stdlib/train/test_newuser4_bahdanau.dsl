# Seq2seq with Bahdanau (additive) attention as a PyTorch user writes it: a
# bidirectional GRU encoder over padded sources, a decoder GRUCell fed the previous
# token and the attention context, scores v^T tanh(W_q s + W_k h) masked at the padding,
# a teacher forcing ratio (random.random() < ratio, as PyTorch's tutorial), and greedy and beam search decoding. One teacher-forced step
# is checked against PyTorch 1.13 at f64 (tests/stdlib/reference/make_newuser4.py); then
# the model learns to reverse sequences and both decoders get them right.
import nn
import optim
import random

let ref = load("tests/stdlib/reference/newuser4.safetensors")
let SOS = 1
let EOS = 2

model Encoder(vocab=10, d=6, hidden=8) {
  embedding = nn.Embedding(vocab, d)
  rnn = nn.GRU(d, hidden, batch_first=true, bidirectional=true)
  bridge = nn.Linear(2 * hidden, hidden)
  forward(src) {
    let (out, h) = self.rnn(self.embedding(src))
    return (out, tanh(self.bridge(cat([h[0], h[1]], dim=1))))
  }
}

model AdditiveAttention(q_dim, k_dim, d) {
  W_q = nn.Linear(q_dim, d, bias=false)
  W_k = nn.Linear(k_dim, d, bias=false)
  v = nn.Linear(d, 1, bias=false)
  forward(query, keys, mask) {
    let scores = self.v(tanh(self.W_q(query).unsqueeze(1) + self.W_k(keys))).squeeze(-1)
    scores = scores.masked_fill(~mask, float("-inf"))
    let weights = nn.functional.softmax(scores, dim=-1)
    return (bmm(weights.unsqueeze(1), keys).squeeze(1), weights)
  }
}

model Decoder(vocab=10, d=6, hidden=8) {
  embedding = nn.Embedding(vocab, d)
  attention = AdditiveAttention(hidden, 2 * hidden, hidden)
  rnn = nn.GRUCell(d + 2 * hidden, hidden)
  out = nn.Linear(hidden + 2 * hidden + d, vocab)
  forward(token, h, enc_out, mask) {
    let emb = self.embedding(token)
    let (context, weights) = self.attention(h, enc_out, mask)
    h = self.rnn(cat([emb, context], dim=1), h)
    return (self.out(cat([h, context, emb], dim=1)), h, weights)
  }
}

model Seq2Seq(vocab=10, d=6, hidden=8) {
  encoder = Encoder(vocab, d, hidden)
  decoder = Decoder(vocab, d, hidden)

  # teacher forcing with probability teacher_forcing_ratio at each step (1.0: always)
  forward(src, tgt, mask, teacher_forcing_ratio=1.0) {
    let (enc_out, h) = self.encoder(src)
    let token = tgt[:, 0]
    let logits = []
    let attn = []
    for i in range(1, tgt.shape[1]) {
      let (out, h2, w) = self.decoder(token, h, enc_out, mask)
      h = h2
      logits.append(out)
      attn.append(w)
      token = tgt[:, i] if random.random() < teacher_forcing_ratio else out.argmax(1)
    }
    return (stack(logits, 1), stack(attn, 1))
  }

  greedy(src, mask, max_len) {
    let (enc_out, h) = self.encoder(src)
    let token = full([src.shape[0]], SOS, dtype=i64)
    let out_tokens = []
    for i in range(max_len) {
      let (out, h2, _) = self.decoder(token, h, enc_out, mask)
      h = h2
      token = out.argmax(1)
      out_tokens.append(token)
    }
    return stack(out_tokens, 1)
  }

  # beam search for one source ([1, S]): the beam_width best partial sequences by
  # summed log-probability; a beam that emits EOS is finished
  beam_search(src, mask, beam_width, max_len) {
    let (enc_out, h) = self.encoder(src)
    let beams = [([SOS], 0.0, h)]
    let finished = []
    for step in range(max_len) {
      let candidates = []
      for (tokens, score, hb) in beams {
        let (out, h2, _) = self.decoder(tensor([tokens[-1]]), hb, enc_out, mask)
        let logp = nn.functional.log_softmax(out, dim=-1)[0]
        let (top_v, top_i) = logp.topk(beam_width)
        for k in range(beam_width) {
          candidates.append((tokens + [top_i[k].item()], score + top_v[k].item(), h2))
        }
      }
      candidates = sorted(candidates, key=fn(c) = -c[1])
      beams = []
      for c in candidates {
        if len(beams) == beam_width { break }
        if c[0][-1] == EOS { finished.append(c) } else { beams.append(c) }
      }
      if len(finished) >= beam_width { break }
    }
    let best = sorted(finished + beams, key=fn(c) = -c[1])[0]
    return best[0][1:]
  }
}

test "one teacher-forced step matches PyTorch: masked attention weights, logits, gradients" {
  let m = Seq2Seq().double()
  m.load_state_dict({k: ref["bahdanau." + k] for k in m.state_dict().keys()})
  let mask = ref["bahdanau.mask"]
  let (logits, attn) = m(ref["bahdanau.src"], ref["bahdanau.tgt"], mask)
  expect_close(attn, ref["bahdanau.attn"], rtol=1e-12, atol=1e-14)
  expect((attn.masked_select(~mask.unsqueeze(1).expand(-1, 4, -1)) == 0).all().item(), "no weight on padding")
  expect_close(logits, ref["bahdanau.logits"], rtol=1e-12, atol=1e-13)
  let tgt = ref["bahdanau.tgt"]
  let loss = nn.functional.cross_entropy(logits.reshape(-1, 10), tgt[:, 1:].reshape(-1))
  expect_close(loss, ref["bahdanau.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in m.named_parameters() { expect_close(p.grad, ref["bahdanau.grad." + name], rtol=1e-9, atol=1e-12) }
}

fn reversal_batch(n, length, vocab) {
  let src = randint(3, vocab, (n, length))
  let tgt = cat([full([n, 1], SOS, dtype=i64), src.flip(1), full([n, 1], EOS, dtype=i64)], dim=1)
  return (src, tgt)
}

test "a Bahdanau seq2seq learns to reverse sequences; greedy and beam search decode them" {
  manual_seed(0)
  let vocab = 10
  let m = Seq2Seq(vocab=vocab, d=16, hidden=32)
  let opt = optim.Adam(m.parameters(), lr=1e-2)
  let mask = ones(64, 5, dtype=bool)
  for step in range(200) {
    let (src, tgt) = reversal_batch(64, 5, vocab)
    let ratio = max(0.5, 1.0 - step / 200)        # teacher forcing annealed from 1 to 0.5
    let (logits, _) = m(src, tgt, mask, teacher_forcing_ratio=ratio)
    let loss = nn.functional.cross_entropy(logits.reshape(-1, vocab), tgt[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(m.parameters(), 1.0)
    opt.step()
  }
  m.eval()
  no_grad {
    let (src, tgt) = reversal_batch(32, 5, vocab)
    let out = m.greedy(src, ones(32, 5, dtype=bool), 6)
    let acc = (out == tgt[:, 1:]).all(1).float().mean().item()
    expect(acc > 0.8, f"greedy gets {acc} of the sequences exactly right")
    let right = 0
    for k in range(8) {
      let seq = m.beam_search(src[k:k + 1], ones(1, 5, dtype=bool), 3, 7)
      if seq == tgt[k, 1:].tolist() { right = right + 1 }
    }
    expect(right >= 6, f"beam search gets {right} of 8 right")
  }
}
