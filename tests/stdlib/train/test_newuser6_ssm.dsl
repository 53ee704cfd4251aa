# A state-space sequence model as a PyTorch user writes one from tensor ops: a diagonal
# SSM (S4D-style, A = -exp(log_a), discretized with a learned step dt) whose recurrence
# h_t = exp(dt A) h_{t-1} + dt B u_t is computed for all steps at once, a parallel scan by
# cumsum (h_t = exp(dt A t) cumsum_s exp(-dt A s) dt B u_s), inside a Mamba-like block
# (LayerNorm, an input projection split into u and a gate z, a causal depthwise Conv1d,
# SiLU, y * silu(z), an output projection, a residual); and causal linear attention
# (the elu + 1 feature map, running sums of k v^T and k by cumsum). The logits, loss and
# gradients from a fixed init are checked against PyTorch 1.13 at f64
# (tests/stdlib/reference/make_newuser6.py); the scan against the step-by-step
# recurrence, linear attention against its quadratic masked form, causality by a
# perturbed future; then the model learns to recall the token two steps back.
import nn
import optim

let ref = load("tests/stdlib/reference/newuser6.safetensors")

model DiagSSM(d, n) {
  log_a = nn.Parameter(log(0.5 + rand(d, n)))
  B = nn.Parameter(0.5 * randn(d, n))
  C = nn.Parameter(0.5 * randn(d, n))
  log_dt = nn.Parameter(log(full([d], 0.1)))
  D = nn.Parameter(ones(d))
  forward(u) {
    let dt = self.log_dt.exp()
    let dA = dt[:, none] * -self.log_a.exp()
    let t = arange(u.shape[1], dtype=u.dtype)
    let decay = exp(dA[none] * t[:, none, none])
    let x = (dt[:, none] * self.B) * u[..., none]
    let h = decay * cumsum(x / decay, dim=1)
    return (h * self.C).sum(-1) + self.D * u
  }
}

# the same SSM one step at a time, the recurrence the scan must equal
fn ssm_recurrent(ssm, u) {
  let dt = ssm.log_dt.exp()
  let a_bar = exp(dt[:, none] * -ssm.log_a.exp())
  let h = zeros(u.shape[0], u.shape[2], ssm.B.shape[1], dtype=u.dtype)
  let ys = []
  for step in range(u.shape[1]) {
    h = a_bar * h + dt[:, none] * ssm.B * u[:, step, :, none]
    ys.append((h * ssm.C).sum(-1) + ssm.D * u[:, step])
  }
  return stack(ys, dim=1)
}

model MambaBlock(d, n=4, expand=2, kernel=3) {
  let e = expand * d
  norm = nn.LayerNorm(d)
  in_proj = nn.Linear(d, 2 * e)
  conv = nn.Conv1d(e, e, kernel, groups=e, padding=kernel - 1)
  ssm = DiagSSM(e, n)
  out_proj = nn.Linear(e, d)
  forward(x) {
    let T = x.shape[1]
    let (u, z) = self.in_proj(self.norm(x)).chunk(2, dim=-1)
    u = nn.functional.silu(self.conv(u.transpose(1, 2))[..., :T].transpose(1, 2))
    return x + self.out_proj(self.ssm(u) * nn.functional.silu(z))
  }
}

model LinearAttention(d, heads) {
  heads = heads
  qkv = nn.Linear(d, 3 * d)
  out = nn.Linear(d, d)
  forward(x) {
    let (B, T, C) = x.shape
    let (q, k, v) = self.qkv(x).chunk(3, dim=-1)
    (q, k, v) = [z.view(B, T, self.heads, C // self.heads).transpose(1, 2) for z in (q, k, v)]
    (q, k) = (nn.functional.elu(q) + 1, nn.functional.elu(k) + 1)
    let kv = einsum("bhtd,bhte->bhtde", k, v).cumsum(2)
    let num = einsum("bhtd,bhtde->bhte", q, kv)
    let den = (q * k.cumsum(2)).sum(-1, keepdim=true) + 1e-6
    return self.out((num / den).transpose(1, 2).reshape(B, T, C))
  }
}

# causal linear attention written the quadratic way: phi(q) phi(k)^T masked, normalized by its row sums
fn linear_attention_quadratic(att, x) {
  let (B, T, C) = x.shape
  let (q, k, v) = att.qkv(x).chunk(3, dim=-1)
  (q, k, v) = [z.view(B, T, att.heads, C // att.heads).transpose(1, 2) for z in (q, k, v)]
  let scores = (nn.functional.elu(q) + 1) @ (nn.functional.elu(k) + 1).transpose(-2, -1)
  scores = scores * tril(ones(T, T, dtype=x.dtype))
  let y = (scores @ v) / (scores.sum(-1, keepdim=true) + 1e-6)
  return att.out(y.transpose(1, 2).reshape(B, T, C))
}

model SSMNet(vocab=6, d=8, heads=2) {
  embed = nn.Embedding(vocab, d)
  mamba = MambaBlock(d)
  attn = LinearAttention(d, heads)
  head = nn.Linear(d, vocab)
  forward(tokens) {
    let x = self.mamba(self.embed(tokens))
    return self.head(x + self.attn(x))
  }
}

fn loaded(m, name) {
  m.double()
  m.load_state_dict({k: ref[name + "." + k] for k in m.state_dict().keys()})
  return m
}

test "the SSM + linear-attention model's logits, loss and gradients match PyTorch" {
  let m = loaded(SSMNet(), "ssm")
  let logits = m(ref["ssm.tokens"])
  expect_close(logits, ref["ssm.logits"], rtol=1e-11, atol=1e-13)
  let loss = nn.functional.cross_entropy(logits.reshape(-1, 6), ref["ssm.target"].reshape(-1))
  expect_close(loss, ref["ssm.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in m.named_parameters() { expect_close(p.grad, ref["ssm.grad." + name], rtol=1e-9, atol=1e-12) }
}

test "the cumsum scan equals the step-by-step recurrence, values and gradients" {
  manual_seed(1)
  let ssm = DiagSSM(3, 4).double()
  let u = randn(2, 9, 3, dtype=f64)
  let scan = ssm(u)
  let rec = ssm_recurrent(ssm, u)
  expect_close(scan, rec, rtol=1e-10, atol=1e-12)
  let g = randn(2, 9, 3, dtype=f64)
  let params = list(ssm.parameters())
  let gs = grad((scan * g).sum(), params)
  let gr = grad((rec * g).sum(), params)
  for i in range(len(params)) { expect_close(gs[i], gr[i], rtol=1e-9, atol=1e-12) }
}

test "linear attention equals its quadratic masked form and is causal" {
  manual_seed(2)
  let att = LinearAttention(8, 2).double()
  let x = randn(2, 6, 8, dtype=f64)
  expect_close(att(x), linear_attention_quadratic(att, x), rtol=1e-10, atol=1e-12)
  let m = SSMNet().double()
  let tokens = randint(0, 6, [1, 7])
  let changed = tokens.clone()
  changed[0, 5] = (tokens[0, 5] + 1) % 6
  let (a, b) = (m(tokens), m(changed))
  expect_close(a[:, :5], b[:, :5], rtol=1e-12, atol=1e-13)
  expect((a[:, 5] - b[:, 5]).abs().max().item() > 1e-6, "position 5 sees its own token")
}

test "the SSM model learns to recall the token two steps back" {
  manual_seed(0)
  let m = SSMNet(vocab=6, d=16)
  let opt = optim.Adam(m.parameters(), lr=1e-2)
  let final = 0.0
  for step in range(120) {
    let tokens = randint(0, 6, [16, 12])
    let target = roll(tokens, 2, dims=1)
    let logits = m(tokens)[:, 2:]
    let loss = nn.functional.cross_entropy(logits.reshape(-1, 6), target[:, 2:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(m.parameters(), 1.0)
    opt.step()
    final = loss.item()
  }
  expect(final < 0.5, f"recall loss {final} (chance is {log(tensor(6.0)).item()})")
}
