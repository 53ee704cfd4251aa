# A WaveNet-style model as a PyTorch user writes it: causal dilated nn.Conv1d (left
# padding with nn.functional.pad), gated tanh * sigmoid units, residual and skip 1x1
# convolutions summed over dilations 1, 2, 4, 8; and an N-BEATS stack (fully connected
# blocks emitting a backcast subtracted from the input and a forecast summed over
# blocks). The WaveNet's output, loss and gradients from a fixed init are checked
# against PyTorch 1.13 at f64 (tests/stdlib/reference/make_newuser5.py); the receptive
# field is causal and as wide as the dilations say; then both models learn to forecast
# a sum of sines.
import math
import nn
import optim

let ref = load("tests/stdlib/reference/newuser5.safetensors")

model CausalConv1d(c_in, c_out, kernel_size, dilation=1) {
  pad = (kernel_size - 1) * dilation
  conv = nn.Conv1d(c_in, c_out, kernel_size, dilation=dilation)
  forward(x) = self.conv(nn.functional.pad(x, (self.pad, 0)))
}

model ResidualBlock(res_ch, skip_ch, dilation) {
  filter = CausalConv1d(res_ch, res_ch, 2, dilation)
  gate = CausalConv1d(res_ch, res_ch, 2, dilation)
  res = nn.Conv1d(res_ch, res_ch, 1)
  skip = nn.Conv1d(res_ch, skip_ch, 1)
  forward(x) {
    let z = tanh(self.filter(x)) * sigmoid(self.gate(x))
    return (x + self.res(z), self.skip(z))
  }
}

model WaveNet(in_ch=1, res_ch=8, skip_ch=8, dilations=[1, 2, 4, 8], out_ch=1) {
  inp = CausalConv1d(in_ch, res_ch, 2)
  blocks = nn.ModuleList([ResidualBlock(res_ch, skip_ch, d) for d in dilations])
  out = nn.Sequential(nn.ReLU(), nn.Conv1d(skip_ch, skip_ch, 1), nn.ReLU(), nn.Conv1d(skip_ch, out_ch, 1))
  forward(x) {
    x = self.inp(x)
    let skips = 0
    for b in self.blocks {
      let (res, s) = b(x)
      x = res
      skips = skips + s
    }
    return self.out(skips)
  }
}

test "a WaveNet's output, next-step loss and gradients match PyTorch" {
  let m = WaveNet().double()
  m.load_state_dict({k: ref["wavenet." + k] for k in m.state_dict().keys()})
  let x = ref["wavenet.x"]
  let y = m(x)
  expect_close(y, ref["wavenet.y"], rtol=1e-12, atol=1e-14)
  let loss = nn.functional.mse_loss(y[:, :, :-1], x[:, :, 1:])
  expect_close(loss, ref["wavenet.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in m.named_parameters() {
    # the last block's residual output is never read: PyTorch leaves its grad None, and so do we
    if name.startswith("blocks.3.res.") { expect(p.grad is none and not (("wavenet.grad." + name) in ref), name) }
    else { expect_close(p.grad, ref["wavenet.grad." + name], rtol=1e-9, atol=1e-12) }
  }
}

test "the receptive field is causal and spans 1 + 1 + 2 + 4 + 8 steps" {
  manual_seed(0)
  let m = WaveNet().double()
  let x = randn(1, 1, 40, dtype=f64, requires_grad=true)
  m(x)[0, 0, 30].backward()
  let seen = (x.grad[0, 0] != 0).nonzero().squeeze(1)
  expect(seen.max().item() == 30, f"output 30 sees {seen}")
  expect(seen.min().item() == 30 - 16, f"output 30 sees {seen}")
  # the same layer as PyTorch users also write it: symmetric padding, the right end chomped
  let c = CausalConv1d(2, 3, 3, dilation=2)
  let sym = nn.Conv1d(2, 3, 3, dilation=2, padding=4)
  no_grad {
    sym.weight.copy_(c.conv.weight)
    sym.bias.copy_(c.conv.bias)
  }
  let z = randn(2, 2, 10)
  expect_close(c(z), sym(z)[:, :, :-4], rtol=1e-6, atol=1e-6)
}

model NBeatsBlock(backcast=16, forecast=4, hidden=32) {
  fc = nn.Sequential(nn.Linear(backcast, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
  theta_b = nn.Linear(hidden, backcast, bias=false)
  theta_f = nn.Linear(hidden, forecast, bias=false)
  forward(x) {
    let h = self.fc(x)
    return (self.theta_b(h), self.theta_f(h))
  }
}

model NBeats(n_blocks=3, backcast=16, forecast=4) {
  blocks = nn.ModuleList([NBeatsBlock(backcast, forecast) for _ in range(n_blocks)])
  forward(x) {
    let forecast = 0
    for b in self.blocks {
      let (bc, fc) = b(x)
      x = x - bc
      forecast = forecast + fc
    }
    return forecast
  }
}

# windows of a sum of two sines with random phases: [n, 1, length]
fn sines(n, length) {
  let t = arange(length).float().unsqueeze(0)
  let (p1, p2) = (rand(n, 1) * 2 * math.pi, rand(n, 1) * 2 * math.pi)
  return (sin(0.3 * t + p1) + 0.5 * sin(0.7 * t + p2)).unsqueeze(1)
}

test "the WaveNet learns next-step prediction of a sum of sines" {
  manual_seed(0)
  let m = WaveNet()
  let opt = optim.Adam(m.parameters(), lr=5e-3)
  let x_test = sines(16, 48)
  let first = nn.functional.mse_loss(m(x_test)[:, :, 15:-1], x_test[:, :, 16:]).item()
  for step in range(150) {
    let x = sines(16, 48)
    # only outputs with a full receptive field are scored
    let loss = nn.functional.mse_loss(m(x)[:, :, 15:-1], x[:, :, 16:])
    opt.zero_grad()
    loss.backward()
    opt.step()
  }
  let last = 0.0
  no_grad { last = nn.functional.mse_loss(m(x_test)[:, :, 15:-1], x_test[:, :, 16:]).item() }
  expect(last < 0.05 * first, f"test mse {first} -> {last}")
}

test "N-BEATS learns to forecast four steps from sixteen" {
  manual_seed(0)
  let m = NBeats()
  let opt = optim.Adam(m.parameters(), lr=2e-3)
  let split = fn(w) = (w[:, 0, :16], w[:, 0, 16:])
  let (xt, yt) = split(sines(64, 20))
  let first = nn.functional.mse_loss(m(xt), yt).item()
  for step in range(200) {
    let (x, y) = split(sines(32, 20))
    let loss = nn.functional.mse_loss(m(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
  }
  let last = 0.0
  no_grad { last = nn.functional.mse_loss(m(xt), yt).item() }
  expect(last < 0.05 * first, f"forecast mse {first} -> {last}")
}
