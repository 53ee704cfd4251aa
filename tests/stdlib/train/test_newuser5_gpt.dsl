# A small GPT as a PyTorch user writes it: rotary position embeddings (sin/cos tables
# as non-persistent buffers, rotate_half), causal attention with a KV cache for
# generation, the LM head's weight tied to the token embedding
# (self.lm_head.weight = self.tok_emb.weight in the constructor) and top-p (nucleus)
# sampling. The loss and gradients from a fixed init, and a top-p filter, are checked
# against PyTorch 1.13 at f64 (tests/stdlib/reference/make_newuser5.py); cached
# generation gives the logits of a full forward; then the GPT learns a counting language.
import math
import nn
import optim

let ref = load("tests/stdlib/reference/newuser5.safetensors")

fn rope_tables(seq_len, head_dim, base=10000.0) {
  let inv_freq = 1.0 / (base ** (arange(0, head_dim, 2).double() / head_dim))
  let freqs = outer(arange(seq_len).double(), inv_freq)
  let emb = cat((freqs, freqs), dim=-1)
  return (emb.cos(), emb.sin())
}

fn rotate_half(x) {
  let half = x.shape[-1] // 2
  return cat((-x[..., half:], x[..., :half]), dim=-1)
}

model Attention(d, n_head) {
  n_head = n_head
  qkv = nn.Linear(d, 3 * d, bias=false)
  proj = nn.Linear(d, d, bias=false)
  # cache: the (k, v) of the positions before x's, or none
  forward(x, cos, sin, cache=none) {
    let (B, T, C) = x.shape
    let (q, k, v) = [z.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for z in self.qkv(x).split(C, dim=2)]
    let past = 0 if cache is none else cache[0].shape[2]
    (cos, sin) = (cos[past:past + T].to(x.dtype), sin[past:past + T].to(x.dtype))
    (q, k) = (q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin)
    if cache is not none { (k, v) = (cat([cache[0], k], dim=2), cat([cache[1], v], dim=2)) }
    let att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.shape[-1]))
    let S = k.shape[2]
    let mask = tril(ones(S, S, dtype=bool))[S - T:]
    att = nn.functional.softmax(att.masked_fill(~mask, float("-inf")), dim=-1)
    return (self.proj((att @ v).transpose(1, 2).contiguous().view(B, T, C)), (k, v))
  }
}

model GPTBlock(d, n_head) {
  ln1 = nn.LayerNorm(d)
  attn = Attention(d, n_head)
  ln2 = nn.LayerNorm(d)
  mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(approximate="tanh"), nn.Linear(4 * d, d))
  forward(x, cos, sin, cache=none) {
    let (a, new_cache) = self.attn(self.ln1(x), cos, sin, cache)
    x = x + a
    return (x + self.mlp(self.ln2(x)), new_cache)
  }
}

model GPT(vocab=16, d=16, n_head=2, n_layer=2, block_size=16) {
  tok_emb = nn.Embedding(vocab, d)
  blocks = nn.ModuleList([GPTBlock(d, n_head) for _ in range(n_layer)])
  ln_f = nn.LayerNorm(d)
  lm_head = nn.Linear(d, vocab, bias=false)
  self.lm_head.weight = self.tok_emb.weight
  let _init = nn.init.normal_(self.tok_emb.weight, std=0.3)
  let (cos, sin) = rope_tables(block_size, d // n_head)
  self.register_buffer("cos", cos, persistent=false)
  self.register_buffer("sin", sin, persistent=false)
  forward(idx, caches=none) {
    let x = self.tok_emb(idx)
    let new_caches = []
    for (i, blk) in enumerate(self.blocks) {
      let (y, c) = blk(x, self.cos, self.sin, none if caches is none else caches[i])
      x = y
      new_caches.append(c)
    }
    return (self.lm_head(self.ln_f(x)), new_caches)
  }
}

fn top_p_filter(logits, top_p) {
  let (sorted_logits, sorted_idx) = sort(logits, descending=true, dim=-1)
  let cum = cumsum(nn.functional.softmax(sorted_logits, dim=-1), dim=-1)
  let remove = cum > top_p
  remove[..., 1:] = remove[..., :-1].clone()
  remove[..., 0] = false
  return logits.masked_fill(remove.scatter(-1, sorted_idx, remove), float("-inf"))
}

# Samples n tokens after prompt: the prompt once, then one token at a time through the cache.
fn generate(m, prompt, n, temperature=0.8, top_p=0.9) {
  let out = prompt
  no_grad {
    let (logits, caches) = m(prompt)
    for step in range(n) {
      let probs = nn.functional.softmax(top_p_filter(logits[:, -1, :] / temperature, top_p), dim=-1)
      let next = multinomial(probs, num_samples=1)
      out = cat([out, next], dim=1)
      (logits, caches) = m(next, caches)
    }
  }
  return out
}

test "the tied LM head is one parameter, and the state_dict holds neither it twice nor the rope tables" {
  let m = GPT()
  expect(m.lm_head.weight is m.tok_emb.weight)
  let names = [n for (n, _) in m.named_parameters()]
  expect(not ("lm_head.weight" in names), f"{names}")
  expect(len(list(m.parameters())) == 1 + 2 * 10 + 2, f"{len(list(m.parameters()))}")
  # nanoGPT's count, a generator expression as the only argument (the tied weight once)
  let n_params = sum(p.numel() for p in m.parameters())
  expect(n_params == 16 * 16 + 2 * (2 * 16 + 3 * 16 * 16 + 16 * 16 + 2 * 16 + 16 * 64 + 64 + 64 * 16 + 16) + 2 * 16, f"{n_params}")
  expect(sum(p.numel() for p in m.parameters() if p.dim() >= 2) == n_params - sum(p.numel() for p in m.parameters() if p.dim() < 2))
  let keys = m.state_dict().keys()
  expect(not ("cos" in keys) and not ("sin" in keys))
  expect(m.cos.shape == (16, 8))
}

test "a RoPE GPT's loss and gradients (the tied weight's summed) match PyTorch" {
  let m = GPT().double()
  m.load_state_dict({k: ref["gpt." + k] for k in m.state_dict().keys()})
  expect_close(m.cos, ref["gpt.cos"], rtol=1e-14, atol=1e-15)
  expect_close(m.sin, ref["gpt.sin"], rtol=1e-14, atol=1e-15)
  let idx = ref["gpt.idx"]
  let (logits, _) = m(idx[:, :-1])
  expect_close(logits, ref["gpt.logits"], rtol=1e-11, atol=1e-13)
  let loss = nn.functional.cross_entropy(logits.reshape(-1, 16), idx[:, 1:].reshape(-1))
  expect_close(loss, ref["gpt.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in m.named_parameters() { expect_close(p.grad, ref["gpt.grad." + name], rtol=1e-9, atol=1e-12) }
}

test "the KV cache gives the full forward's logits, one token at a time" {
  let m = GPT().double()
  m.load_state_dict({k: ref["gpt." + k] for k in m.state_dict().keys()})
  m.eval()
  let idx = ref["gpt.idx"]
  no_grad {
    let (full, _) = m(idx)
    let (first, caches) = m(idx[:, :4])
    expect_close(first, full[:, :4], rtol=1e-12, atol=1e-13)
    for t in range(4, idx.shape[1]) {
      let (step, next_caches) = m(idx[:, t:t + 1], caches)
      expect_close(step[:, 0], full[:, t], rtol=1e-11, atol=1e-12)
      caches = next_caches
    }
    expect(caches[0][0].shape == (2, 2, 9, 8), f"{caches[0][0].shape}")
  }
}

test "top-p keeps the smallest set of tokens whose probability reaches p, as PyTorch" {
  let probs = nn.functional.softmax(top_p_filter(ref["gpt.scores"] / 0.8, 0.9), dim=-1)
  expect_close(probs, ref["gpt.top_p"], rtol=1e-13, atol=1e-15)
  # the most likely token is always kept, even when it alone passes p
  let peaked = top_p_filter(tensor([[10.0, 0.0, 0.0]]), 0.5)
  expect(peaked[0, 0].item() == 10.0 and isinf(peaked[0, 1:]).all().item())
}

# A counting language: each sequence counts up by 1 modulo 16 from a random start.
test "the GPT learns to count and generates the continuation through its cache" {
  manual_seed(0)
  let m = GPT()
  let opt = optim.AdamW(m.parameters(), lr=1e-2, weight_decay=0.01)
  for step in range(120) {
    let seqs = (randint(0, 16, [16, 1]) + arange(12)) % 16
    let (logits, _) = m(seqs[:, :-1])
    let loss = nn.functional.cross_entropy(logits.reshape(-1, 16), seqs[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
  }
  m.eval()
  let prompt = tensor([[3, 4, 5], [10, 11, 12]])
  let out = generate(m, prompt, 6, temperature=0.5, top_p=0.5)
  let want = (prompt[:, :1] + arange(9)) % 16
  let right = (out == want).float().mean().item()
  expect(right > 0.9, f"generated {out}")
}
