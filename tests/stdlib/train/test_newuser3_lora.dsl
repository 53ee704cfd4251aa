# LoRA fine-tuning as a PyTorch user writes it: a pretrained network is frozen with
# requires_grad_(false), each Linear is wrapped with a low-rank adapter (A: r x in,
# B: out x r, scaled by alpha / r), the optimizer gets only the parameters that require
# grad, and after training the adapters are merged into the base weights
# (W + scale * B @ A), which computes the same function. One step is checked against
# PyTorch 1.13 at f64 (tests/stdlib/reference/make_newuser3.py).
import nn
import optim

let ref = load("tests/stdlib/reference/newuser3.safetensors")

model LoRALinear(base, r=2, alpha=4.0) {
  base = base
  lora_A = nn.Parameter(randn(r, base.in_features) * 0.1)
  lora_B = nn.Parameter(zeros(base.out_features, r))
  scaling = alpha / r
  forward(x) = self.base(x) + (x @ self.lora_A.t() @ self.lora_B.t()) * self.scaling

  # the plain Linear with the adapter folded into its weight
  merged() {
    let out = nn.Linear(self.base.in_features, self.base.out_features, dtype=self.base.weight.dtype)
    no_grad {
      out.weight.copy_(self.base.weight + self.scaling * self.lora_B @ self.lora_A)
      out.bias.copy_(self.base.bias)
    }
    return out
  }
}

model LoRANet() {
  fc1 = LoRALinear(nn.Linear(6, 16))
  fc2 = LoRALinear(nn.Linear(16, 3))
  forward(x) = self.fc2(relu(self.fc1(x)))
}

fn freeze_base(m) {
  for (name, p) in m.named_parameters() {
    if not ("lora" in name) { p.requires_grad_(false) }
  }
}

test "gradients reach only the adapters, and one AdamW step matches PyTorch's" {
  let m = LoRANet().double()
  m.load_state_dict({k: ref["lora." + k] for k in m.state_dict().keys()})
  freeze_base(m)
  let trainable = [p for p in m.parameters() if p.requires_grad]
  expect(len(trainable) == 4, f"{len(trainable)} trainable tensors")
  let loss = nn.functional.cross_entropy(m(ref["lora.x"]), ref["lora.y"])
  expect_close(loss, ref["lora.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in m.named_parameters() {
    if "lora" in name { expect_close(p.grad, ref["lora.grad." + name], rtol=1e-9, atol=1e-12) }
    else { expect(p.grad == none, f"{name} is frozen") }
  }
  let opt = optim.AdamW(trainable, lr=1e-2)
  opt.step()
  expect_close(m.fc1.lora_A, ref["lora.after_A"], rtol=1e-10, atol=1e-12)
  expect_close(m.fc1.lora_B, ref["lora.after_B"], rtol=1e-10, atol=1e-12)
  no_grad { expect_close(m(ref["lora.x"]), ref["lora.out_after"], rtol=1e-10, atol=1e-12) }
}

test "LoRA fine-tuning adapts a frozen classifier to a new task, and the merged model agrees" {
  manual_seed(0)
  # "pretraining": a plain MLP learns task 1 (the sign of the first feature)
  let base = LoRANet()
  let x = randn(256, 6)
  let y1 = (x[:, 0] > 0).long()
  let y2 = (x[:, 1] + x[:, 2] > 0).long() * 2   # task 2: another direction, another class
  let opt = optim.Adam(base.parameters(), lr=1e-2)
  for step in range(100) {
    let loss = nn.functional.cross_entropy(base(x), y1)
    opt.zero_grad()
    loss.backward()
    opt.step()
  }
  freeze_base(base)
  let frozen = {k: v.clone() for (k, v) in base.state_dict().items() if not ("lora" in k)}
  fn accuracy(m, y) = (m(x).argmax(1) == y).float().mean().item()
  let before = accuracy(base, y2)
  let opt2 = optim.Adam(filter(fn(p) = p.requires_grad, base.parameters()), lr=2e-2)
  for step in range(150) {
    let loss = nn.functional.cross_entropy(base(x), y2)
    opt2.zero_grad()
    loss.backward()
    opt2.step()
  }
  let after = accuracy(base, y2)
  expect(after > 0.9 and after > before + 0.3, f"the adapters learn task 2: {before} -> {after}")
  for (k, v) in frozen.items() { expect(equal(base.state_dict()[k], v), f"{k} stayed frozen") }
  # merging: plain Linears with W + scale * B @ A compute the same outputs
  let merged = nn.Sequential(base.fc1.merged(), nn.ReLU(), base.fc2.merged())
  no_grad { expect_close(merged(x), base(x), rtol=1e-5, atol=1e-5) }
  expect(sum([p.numel() for p in merged.parameters()]) == 6 * 16 + 16 + 16 * 3 + 3)
}

test "adapters swapped into a frozen TransformerEncoderLayer train only themselves" {
  manual_seed(0)
  let layer = nn.TransformerEncoderLayer(8, 2, 16, 0.0, batch_first=true)
  layer.requires_grad_(false)
  let x = randn(4, 5, 8)
  let target = randn(4, 5, 8)
  let y0 = layer(x)
  layer.linear1 = LoRALinear(layer.linear1)
  layer.linear2 = LoRALinear(layer.linear2)
  let names = [n for (n, p) in layer.named_parameters() if p.requires_grad]
  expect(names == ["linear1.lora_A", "linear1.lora_B", "linear2.lora_A", "linear2.lora_B"], f"{names}")
  expect(equal(layer(x), y0), "B = 0: the adapted layer starts as the pretrained one")
  let opt = optim.Adam(filter(fn(p) = p.requires_grad, layer.parameters()), lr=1e-2)
  let first = nn.functional.mse_loss(layer(x), target).item()
  for step in range(30) {
    let loss = nn.functional.mse_loss(layer(x), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
  }
  expect(nn.functional.mse_loss(layer(x), target).item() < first, "the adapters lower the loss")
  expect(layer.self_attn.in_proj_weight.grad == none and layer.linear1.base.weight.grad == none)
}
