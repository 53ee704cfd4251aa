# A Perceiver / Set Transformer as a PyTorch user writes it: learned latents attend to a
# padded set through nn.MultiheadAttention(batch_first=true, kdim=, vdim=) (the set's
# features narrower than the latents) with key_padding_mask marking the padding, then
# self-attention and an MLP over the latents, pooled for a set-level label. One loss,
# its attention weights and gradients are checked against PyTorch 1.13 at f64
# (tests/stdlib/reference/make_newuser5.py); padding is ignored whatever it holds; then
# the model learns a set function (does the set's largest first feature pass 0.5?)
# over sets of 2..8 items.
import nn
import optim

let ref = load("tests/stdlib/reference/newuser5.safetensors")

model Perceiver(d_in=3, d_latent=8, n_latents=4, heads=2, n_classes=2) {
  latents = nn.Parameter(randn(n_latents, d_latent) * 0.2)
  cross = nn.MultiheadAttention(d_latent, heads, batch_first=true, kdim=d_in, vdim=d_in)
  self_attn = nn.MultiheadAttention(d_latent, heads, batch_first=true)
  ln1 = nn.LayerNorm(d_latent)
  ln2 = nn.LayerNorm(d_latent)
  mlp = nn.Sequential(nn.Linear(d_latent, 16), nn.GELU(), nn.Linear(16, d_latent))
  head = nn.Linear(d_latent, n_classes)
  forward(x, key_padding_mask=none) {
    let q = self.latents.unsqueeze(0).expand(x.shape[0], -1, -1)
    let (h, w) = self.cross(q, x, x, key_padding_mask=key_padding_mask)
    h = h + q
    let hn = self.ln1(h)
    let (s, _) = self.self_attn(hn, hn, hn, need_weights=false)
    h = h + s
    h = h + self.mlp(self.ln2(h))
    return (self.head(h.mean(dim=1)), w)
  }
}

fn padding_mask(lengths, max_len) = arange(max_len).unsqueeze(0) >= lengths.unsqueeze(1)

test "cross-attention with kdim/vdim keeps PyTorch's separate projection weights" {
  let m = Perceiver()
  let keys = m.cross.state_dict().keys()
  expect(keys == ["q_proj_weight", "k_proj_weight", "v_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"], f"{keys}")
  expect(m.cross.k_proj_weight.shape == (8, 3) and m.cross.q_proj_weight.shape == (8, 8))
  expect("in_proj_weight" in m.self_attn.state_dict().keys())
}

test "a Perceiver's output, attention weights and gradients over a padded set match PyTorch" {
  let m = Perceiver().double()
  m.load_state_dict({k: ref["perceiver." + k] for k in m.state_dict().keys()})
  let mask = padding_mask(ref["perceiver.lengths"], 5)
  let (out, w) = m(ref["perceiver.x"], key_padding_mask=mask)
  expect_close(out, ref["perceiver.out"], rtol=1e-12, atol=1e-14)
  expect_close(w, ref["perceiver.weights"], rtol=1e-12, atol=1e-14)
  expect((w.masked_select(mask.unsqueeze(1).expand(-1, 4, -1)) == 0).all().item(), "no weight on padding")
  let loss = nn.functional.cross_entropy(out, ref["perceiver.y"])
  expect_close(loss, ref["perceiver.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in m.named_parameters() { expect_close(p.grad, ref["perceiver.grad." + name], rtol=1e-9, atol=1e-12) }
}

test "what the padding holds changes neither the output nor any gradient" {
  manual_seed(0)
  let m = Perceiver()
  let x = randn(3, 6, 3, requires_grad=true)
  let mask = padding_mask(tensor([6, 4, 1]), 6)
  let (out, _) = m(x, key_padding_mask=mask)
  let junk = x.detach().masked_fill(mask.unsqueeze(-1), 1e3)
  let (out2, _) = m(junk, key_padding_mask=mask)
  expect_close(out, out2, rtol=1e-5, atol=1e-6)
  out.sum().backward()
  expect((x.grad.masked_select(mask.unsqueeze(-1).expand(-1, -1, 3)) == 0).all().item(), "padding gets no gradient")
  # per-head weights, unaveraged
  let (_, heads) = m.cross(m.latents.unsqueeze(0).expand(3, -1, -1), x, x, key_padding_mask=mask, average_attn_weights=false)
  expect(heads.shape == (3, 2, 4, 6))
}

# Sets of 2..8 points in [-1, 1]^3, padded with -1 (past every real item's first
# feature): label 1 when the largest first feature passes 0.5.
fn set_batch(n, max_len=8) {
  let lengths = randint(2, max_len + 1, [n])
  let x = rand(n, max_len, 3) * 2 - 1
  let mask = padding_mask(lengths, max_len)
  x = x.masked_fill(mask.unsqueeze(-1), -1.0)
  return (x, mask, (x[..., 0].amax(dim=1) > 0.5).long())
}

test "the Perceiver learns a set function over padded sets of varying size" {
  manual_seed(0)
  let m = Perceiver(d_latent=16, heads=4)
  let opt = optim.Adam(m.parameters(), lr=5e-3)
  for step in range(150) {
    let (x, mask, y) = set_batch(32)
    let (out, _) = m(x, key_padding_mask=mask)
    let loss = nn.functional.cross_entropy(out, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
  }
  let (x, mask, y) = set_batch(400)
  let acc = 0.0
  no_grad { acc = (m(x, key_padding_mask=mask)[0].argmax(-1) == y).float().mean().item() }
  let base = max(y.float().mean().item(), 1 - y.float().mean().item())
  expect(acc > base + 0.1, f"accuracy {acc}, majority class {base}")
}
