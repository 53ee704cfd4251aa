# nn.Transformer (encoder-decoder) as a PyTorch user trains it on a copy task: token
# and sinusoidal position embeddings, a causal tgt_mask from
# generate_square_subsequent_mask, src/tgt/memory key padding masks for sequences of
# different lengths, teacher forcing with cross_entropy(ignore_index=PAD), then greedy
# decoding one token at a time.
import nn
import optim
import math

let PAD = 0
let BOS = 1
let EOS = 2
let V = 10     # tokens 3..9 carry the content

model PositionalEncoding(d_model, max_len=64) {
  let position = arange(max_len).unsqueeze(1).float()
  let div_term = exp(arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
  let pe = zeros(max_len, d_model)
  pe[:, 0::2] = sin(position * div_term)
  pe[:, 1::2] = cos(position * div_term)
  buffer pe = pe.unsqueeze(0)                       # [1, max_len, d_model]
  forward(x) = x + self.pe[:, :x.size(1)]
}

model Seq2SeqTransformer(vocab, d_model=32, nhead=4) {
  d_model = d_model
  src_emb = nn.Embedding(vocab, d_model, padding_idx=PAD)
  tgt_emb = nn.Embedding(vocab, d_model, padding_idx=PAD)
  pos = PositionalEncoding(d_model)
  transformer = nn.Transformer(d_model=d_model, nhead=nhead, num_encoder_layers=2, num_decoder_layers=2,
                               dim_feedforward=64, dropout=0.0, batch_first=true)
  generator = nn.Linear(d_model, vocab)
  embed(emb, tokens) = self.pos(emb(tokens) * math.sqrt(self.d_model))
  encode(src, src_padding_mask) =
    self.transformer.encoder(self.embed(self.src_emb, src), src_key_padding_mask=src_padding_mask)
  decode(tgt, memory, src_padding_mask, tgt_padding_mask=none) {
    let tgt_mask = nn.Transformer.generate_square_subsequent_mask(tgt.size(1))
    return self.transformer.decoder(self.embed(self.tgt_emb, tgt), memory, tgt_mask=tgt_mask,
                                    tgt_key_padding_mask=tgt_padding_mask,
                                    memory_key_padding_mask=src_padding_mask)
  }
  forward(src, tgt_in) {
    let src_padding_mask = src == PAD
    let tgt_padding_mask = tgt_in == PAD
    let tgt_mask = nn.Transformer.generate_square_subsequent_mask(tgt_in.size(1))
    let out = self.transformer(self.embed(self.src_emb, src), self.embed(self.tgt_emb, tgt_in),
                               tgt_mask=tgt_mask, src_key_padding_mask=src_padding_mask,
                               tgt_key_padding_mask=tgt_padding_mask,
                               memory_key_padding_mask=src_padding_mask)
    return self.generator(out)
  }
}

# n sequences of 3..6 content tokens, padded: src = tokens PAD..., the decoder's input
# BOS tokens PAD..., its target tokens EOS PAD...
fn copy_batch(n, max_len=6) {
  let lengths = randint(3, max_len + 1, [n])
  let content = arange(max_len).unsqueeze(0) < lengths.unsqueeze(1)
  let src = where(content, randint(3, V, [n, max_len]), PAD)
  let tgt_in = cat([full([n, 1], BOS, dtype=i64), src], dim=1)
  let tgt_out = cat([src, full([n, 1], PAD, dtype=i64)], dim=1)
  tgt_out.scatter_(1, lengths.unsqueeze(1), EOS)
  return (src, tgt_in, tgt_out)
}

# greedy decoding: the memory once, then one token at a time until every row ended
fn greedy_decode(m, src, max_len) {
  let src_padding_mask = src == PAD
  let memory = m.encode(src, src_padding_mask)
  let ys = full([src.size(0), 1], BOS, dtype=i64)
  for i in range(max_len) {
    let out = m.decode(ys, memory, src_padding_mask)
    let next_word = m.generator(out[:, -1]).argmax(dim=-1)
    ys = cat([ys, next_word.unsqueeze(1)], dim=1)
    if (ys == EOS).any(dim=1).all().item() { break }
  }
  return ys[:, 1:]
}

test "generate_square_subsequent_mask is PyTorch's float causal mask" {
  let mask = nn.Transformer.generate_square_subsequent_mask(3)
  let inf = float("inf")
  expect(equal(mask, tensor([[0.0, -inf, -inf], [0.0, 0.0, -inf], [0.0, 0.0, 0.0]])), f"{mask}")
  expect(mask.dtype == f32)
}

let ref = load("tests/stdlib/reference/newuser2.safetensors")

test "nn.Transformer with causal and padding masks matches PyTorch's output and gradients" {
  # tests/stdlib/reference/make_newuser2.py: d_model 8, 2 heads, one layer each, batch_first
  let m = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16,
                         dropout=0.0, batch_first=true, dtype=f64)
  m.load_state_dict({k: ref["transformer." + k] for k in m.state_dict().keys()})
  let src_pad = ref["transformer.src_pad"]
  let out = m(ref["transformer.src"], ref["transformer.tgt"], tgt_mask=nn.Transformer.generate_square_subsequent_mask(4, dtype=f64),
              src_key_padding_mask=src_pad, tgt_key_padding_mask=ref["transformer.tgt_pad"],
              memory_key_padding_mask=src_pad)
  expect_close(out, ref["transformer.out"], rtol=1e-10, atol=1e-12)
  let loss = (out * ref["transformer.w"]).sum()
  loss.backward()
  for (name, p) in m.named_parameters() {
    expect_close(p.grad, ref["transformer.grad." + name], rtol=1e-8, atol=1e-11)
  }
}

test "nn.Transformer learns to copy padded sequences and decodes them greedily" {
  manual_seed(0)
  let m = Seq2SeqTransformer(V)
  let opt = optim.Adam(m.parameters(), lr=3e-3, betas=(0.9, 0.98), eps=1e-9)
  let loss_fn = nn.CrossEntropyLoss(ignore_index=PAD)
  let (pool_src, pool_in, pool_out) = copy_batch(1024)
  let losses = []
  for step in range(400) {
    let idx = randint(0, 1024, [64])
    let (src, tgt_in, tgt_out) = (pool_src[idx], pool_in[idx], pool_out[idx])
    let logits = m(src, tgt_in)
    let loss = loss_fn(logits.reshape(-1, V), tgt_out.reshape(-1))
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(m.parameters(), 1.0)
    opt.step()
    losses.append(loss.item())
  }
  expect(losses[0] > 2.0, f"{losses[0]}")
  expect(losses[-1] < 0.3, f"the copy loss should fall below 0.3, got {losses[-1]}")
  m.eval()
  no_grad {
    let (fresh, _, fresh_out) = copy_batch(32)
    let ys = greedy_decode(m, fresh, 7)
    let n = ys.size(1)
    let want = fresh_out[:, :n]
    let keep = want != PAD
    let acc = ((ys == want) & keep).sum().item() / keep[:, :n].sum().item()
    expect(acc > 0.8, f"greedy decoding copies fresh sequences (chance is 1/7): {acc}")
  }
}

test "a padded key changes nothing: the padding masks hide it" {
  manual_seed(2)
  let m = Seq2SeqTransformer(V)
  m.eval()
  let src = tensor([[4, 5, 6, PAD]])
  let tgt_in = tensor([[BOS, 4, 5, PAD]])
  let a = m(src, tgt_in)
  # the embeddings of the padding rows are zeros, but the positions are not: what the
  # masks hide may differ without changing the outputs at real positions
  no_grad {
    m.src_emb.weight[PAD] = randn(32)
    m.tgt_emb.weight[PAD] = randn(32)
  }
  let b = m(src, tgt_in)
  expect_close(a[:, :3], b[:, :3], atol=1e-5)
}
