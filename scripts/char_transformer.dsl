# A small character-level transformer language model, trained on a licence text that
# every Debian machine has (/usr/share/common-licenses/GPL-3). Prints the falling loss
# and a sample of generated text.
#   nabla scripts/char_transformer.dsl [steps]
import nn
import optim
import time
import "char_model.dsl" as char_model

let steps = int(args[0]) if len(args) > 0 else 600
let seq = 64
let batch = 32
let dim = 96
let heads = 4
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

# ---- the model (scripts/char_model.dsl: pre-norm blocks of causal self-attention) ----
let net = char_model.CharTransformer(vocab, dim, heads, seq)
let opt = optim.AdamW(net.parameters(), lr=3e-3, weight_decay=0.01)
let schedule = optim.CosineAnnealingLR(opt, steps)
print(f"{nn.count_parameters(net)} parameters")

# A batch of random windows: inputs and the same windows shifted by one character.
fn sample_batch() {
  let starts = randint(0, len(codes) - seq - 1, [batch, 1])
  let idx = starts + arange(seq)
  let x = reshape(index_select(corpus, 0, reshape(idx, [-1])), [batch, seq])
  let y = reshape(index_select(corpus, 0, reshape(idx + 1, [-1])), [batch, seq])
  return (x, y)
}

let t0 = time.perf_counter()
let first = none
let recent = 0.0
for step in range(steps) {
  let (x, y) = sample_batch()
  let loss = cross_entropy(reshape(net(x), [-1, vocab]), reshape(y, [-1]))
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

# ---- sampling: the next character from softmax(logits / 0.8), by the Gumbel trick ----
fn generate(prompt, n) {
  let out = []
  for c in prompt { out.append(code_of[c]) }
  net.eval()
  no_grad {
    for i in range(n) {
      let window = tensor(out[max(0, len(out) - seq):len(out)])
      let logits = net(unsqueeze(window, 0))[0, -1] / 0.8
      out.append(int(argmax(logits - log(-log(rand([vocab])))).item()))
    }
  }
  net.train()
  let s = ""
  for k in out { s = s + chars[k] }
  return s
}

print("sample:")
print(generate("This License ", 240))
assert(recent < first * 0.6, f"the loss should fall by 40% or more, got {first} -> {recent}")
