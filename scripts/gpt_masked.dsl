# A small GPT trained on padded, variable-length batches: the lines of a licence text
# every Debian machine has (/usr/share/common-licenses/GPL-3), each batch padded to
# its longest line, the padding hidden from attention by key_padding_mask and from the
# loss by ignore_index. The blocks are nn.TransformerEncoderLayer (pre-norm, GELU) run
# causally. Checks that padding changes nothing (a padded line's logits equal the
# unpadded line's), then generates text with top-k sampling.
#   nabla scripts/gpt_masked.dsl [steps]
import nn
import optim
import time

let steps = int(args[0]) if len(args) > 0 else 500
let batch = 24
let dim = 64
let heads = 4
let layers = 2
let max_len = 64
manual_seed(0)

# ---- the lines as character codes; code 0 is padding ----
let lines = []
for l in read_text("/usr/share/common-licenses/GPL-3").split("\n") {
  let s = l.strip()
  if len(s) >= 8 { lines.append(s[0:max_len]) }
}
let seen = {}
for l in lines {
  for c in l { seen[c] = true }
}
let chars = ["<pad>"] + sorted(list(seen.keys()))
let code_of = {}
for i in range(1, len(chars)) { code_of[chars[i]] = i }
let vocab = len(chars)
let encoded = []
for l in lines {
  let codes = []
  for c in l { codes.append(code_of[c]) }
  encoded.append(codes)
}
print(f"{len(lines)} lines of 8 to {max_len} characters, {vocab - 1} distinct characters")

# ---- the model ----
fn blocks_of(dim, heads, layers) {
  let bs = []
  for i in range(layers) {
    bs.append(nn.TransformerEncoderLayer(dim, heads, dim_feedforward=4 * dim, dropout=0.0, activation="gelu",
                                         batch_first=true, norm_first=true))
  }
  return bs
}

model GPT(vocab, dim, heads, layers, max_len) {
  tok = nn.Embedding(vocab, dim)
  pos = nn.Embedding(max_len, dim)
  blocks = nn.Sequential(blocks_of(dim, heads, layers))
  ln = nn.LayerNorm(dim)
  head = nn.Linear(dim, vocab)
  # idx [B, T] codes, padding [B, T] true at padded positions (or none) -> logits [B, T, vocab]
  forward(idx, padding=none) {
    let x = self.tok(idx) + self.pos(arange(idx.shape[1]))
    for i in range(len(self.blocks)) { x = self.blocks[i](x, src_key_padding_mask=padding, is_causal=true) }
    return self.head(self.ln(x))
  }
}

# A batch of random lines padded to the longest: inputs, targets (-100 where padded,
# ignored by the loss) and the key padding mask.
fn padded_batch(picks) {
  let longest = 0
  for i in picks { longest = max(longest, len(encoded[i]) - 1) }
  let xs = []
  let ys = []
  for i in picks {
    let c = encoded[i]
    let n = len(c) - 1
    xs.append(c[0:n] + [0] * (longest - n))
    ys.append(c[1:n + 1] + [-100] * (longest - n))
  }
  let x = tensor(xs)
  return (x, tensor(ys), x == 0)
}

let net = GPT(vocab, dim, heads, layers, max_len)
let opt = optim.AdamW(net.parameters(), lr=3e-3, weight_decay=0.01)
let schedule = optim.CosineAnnealingLR(opt, steps)
print(f"{nn.count_parameters(net)} parameters")

let t0 = time.perf_counter()
let first = none
let recent = 0.0
for step in range(steps) {
  let picks = randint(0, len(encoded), [batch]).tolist()
  let (x, y, padding) = padded_batch(picks)
  let loss = cross_entropy(net(x, padding).reshape([-1, vocab]), y.reshape([-1]), ignore_index=-100)
  opt.zero_grad()
  loss.backward()
  nn.clip_grad_norm_(net.parameters(), 1.0)
  opt.step()
  schedule.step()
  if first == none { first = loss.item() }
  recent = loss.item()
  if step % 100 == 0 or step == steps - 1 { print(f"step {step:4d}  loss {recent:.3f}") }
}
print(f"loss {first:.3f} -> {recent:.3f} in {time.perf_counter() - t0:.1f} s")

# ---- padding changes nothing: the shortest line alone and padded among longer ones ----
net.eval()
let shortest = 0
let longest = 0
for i in range(len(encoded)) {
  if len(encoded[i]) < len(encoded[shortest]) { shortest = i }
  if len(encoded[i]) > len(encoded[longest]) { longest = i }
}
no_grad {
  let (x, y, padding) = padded_batch([shortest, longest])
  let n = len(encoded[shortest]) - 1
  let alone = net(tensor([encoded[shortest][0:n]]))
  let diff = (net(x, padding)[0, 0:n] - alone[0]).abs().max().item()
  print(f"padding_max_diff={diff:.2e}")
  assert(diff < 1e-4, f"a padded line's logits must equal the unpadded line's, differ by {diff}")
}

# ---- sampling: the next character among the k most likely, by softmax(logits / temperature) ----
fn sample_top_k(logits, k, temperature) {
  let (values, indices) = topk(logits / temperature, k)
  return int(indices[multinomial(softmax(values, dim=-1), 1)[0]].item())
}

fn generate(prompt, n, k=8, temperature=0.8) {
  let out = []
  for c in prompt { out.append(code_of[c]) }
  no_grad {
    for i in range(n) {
      let window = tensor([out[max(0, len(out) - max_len):len(out)]])
      out.append(sample_top_k(net(window)[0, -1], k, temperature))
    }
  }
  let s = ""
  for c in out { s = s + chars[c] }
  return s
}

print("sample:")
print(generate("This License ", 120))
assert(recent < first * 0.7, f"the loss should fall by 30% or more, got {first} -> {recent}")
