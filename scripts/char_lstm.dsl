# A 2-layer LSTM language model on a licence text every Debian machine has
# (/usr/share/common-licenses/GPL-3): embedding -> nn.LSTM -> linear, trained with
# Adam, then text sampled with a temperature and top-k.
#
# It is the model of scripts/reference/char_lstm_torch.py, started from the same
# weights (scripts/char_lstm_init.safetensors, PyTorch's initialization, written by
# that script) and fed the same batches in the same order, so the two loss curves can
# be compared: that file also holds PyTorch's losses.
#   nabla scripts/char_lstm.dsl [steps] [dtype]
#   nabla scripts/char_lstm.dsl 400          # f32: must reach the loss PyTorch reaches
#   nabla scripts/char_lstm.dsl 50 f64       # f64: each loss within 1e-4 relative of PyTorch's
import nn
import optim
import time

let steps = int(args[0]) if len(args) > 0 else 400
let dtype = f64 if len(args) > 1 and args[1] == "f64" else f32
let seq = 64
let batch = 32
let stride = 7919  # batch b of step s starts at ((s * batch + b) * stride) mod (N - seq - 1)
manual_seed(0)

# ---- the text as a tensor of character codes ----
let text = read_text("/usr/share/common-licenses/GPL-3")
let seen = {}
for c in text { seen[c] = true }
let chars = sorted(list(seen.keys()))
let code_of = {}
for i in range(len(chars)) { code_of[chars[i]] = i }
let codes = []
for c in text { codes.append(code_of[c]) }
let corpus = tensor(codes)
let vocab = len(chars)
print(f"{len(text)} characters, {vocab} distinct")

# ---- the model ----
model CharLSTM(vocab, embedding_dim, hidden) {
  embed = nn.Embedding(vocab, embedding_dim)
  lstm = nn.LSTM(embedding_dim, hidden, num_layers=2, batch_first=true)
  head = nn.Linear(hidden, vocab)
  # idx [batch, t] -> (logits [batch, t, vocab], the LSTM's final (h, c))
  forward(idx, state=none) {
    let (y, s) = self.lstm(self.embed(idx), state)
    return (self.head(y), s)
  }
}

# PyTorch's initial weights and losses: the model's entries, and "reference.*".
let init = load("scripts/char_lstm_init.safetensors")
let weights = {}
for k in init.keys() {
  if not k.startswith("reference.") { weights[k] = init[k] }
}
let net = CharLSTM(vocab, init["embed.weight"].shape[1], init["lstm.weight_hh_l0"].shape[1])
net.load_state_dict(weights)
net.to(dtype)
let opt = optim.Adam(net.parameters(), lr=1e-2)
print(f"{nn.count_parameters(net)} parameters, {dtype}")

# The batch of step s: windows of the text at fixed starts, and the same shifted by one.
fn batch_at(s) {
  let span = len(codes) - seq - 1
  let starts = []
  for b in range(batch) { starts.append(((s * batch + b) * stride) % span) }
  let idx = reshape(tensor(starts), [batch, 1]) + arange(seq)
  let x = reshape(index_select(corpus, 0, reshape(idx, [-1])), [batch, seq])
  let y = reshape(index_select(corpus, 0, reshape(idx + 1, [-1])), [batch, seq])
  return (x, y)
}

let t0 = time.perf_counter()
let losses = []
for step in range(steps) {
  let (x, y) = batch_at(step)
  let loss = cross_entropy(reshape(net(x)[0], [-1, vocab]), reshape(y, [-1]))
  opt.zero_grad()
  loss.backward()
  opt.step()
  losses.append(loss.item())
  if step % 50 == 0 or step == steps - 1 { print(f"step {step:4d}  loss {losses[-1]:.6f}") }
}
print(f"loss {losses[0]:.4f} -> {losses[-1]:.4f} in {time.perf_counter() - t0:.1f} s")

# ---- against PyTorch ----
fn mean(xs) = sum(xs) / len(xs)

if dtype == f64 {
  let ref = init["reference.losses_f64"].tolist()
  let n = min(steps, len(ref))
  let worst = 0.0
  for i in range(n) { worst = max(worst, abs(losses[i] - ref[i]) / abs(ref[i])) }
  assert(worst <= 1e-4, f"the f64 losses should equal PyTorch's within 1e-4 relative, got {worst}")
  print(f"f64_parity steps={n} max_rel_diff={worst:.3e} within_1e-4")
} else {
  let ref = init["reference.losses_f32"].tolist()
  if steps >= len(ref) {
    let ours = mean(losses[len(ref) - 20:len(ref)])
    let theirs = mean(ref[len(ref) - 20:])
    assert(ours <= theirs * 1.02, f"nabla should reach PyTorch's loss {theirs}, got {ours}")
    print(f"f32_final mean_last20 nabla={ours:.4f} torch={theirs:.4f} reached")
  }
}

# ---- sampling ----
# The next character's code from logits [vocab]: one draw among the k most likely
# characters, by softmax(logits / temperature) over them.
fn sample_top_k(logits, k, temperature=1.0) {
  let (values, indices) = topk(logits / temperature, k)
  return int(indices[multinomial(softmax(values, dim=-1), 1)[0]].item())
}

# Feeds the prompt, then one sampled character at a time, carrying the LSTM's state.
fn generate(prompt, n, k=10, temperature=0.8) {
  let out = []
  for c in prompt { out.append(code_of[c]) }
  net.eval()
  no_grad {
    let (logits, state) = net(unsqueeze(tensor(out), 0))
    for i in range(n) {
      let next = sample_top_k(logits[0, -1], k, temperature)
      out.append(next)
      let (l2, s2) = net(tensor([[next]]), state)
      logits = l2
      state = s2
    }
  }
  net.train()
  let s = ""
  for code in out { s = s + chars[code] }
  return s
}

print("sample (temperature 0.8, top-k 10):")
print(generate("This License ", 200))
assert(losses[-1] < losses[0] * 0.8, f"the loss should fall by 20% or more, got {losses[0]} -> {losses[-1]}")
