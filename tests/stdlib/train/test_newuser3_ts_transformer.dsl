# A time-series Transformer forecaster as a PyTorch user writes it: a Linear input
# embedding scaled by sqrt(d_model), a sinusoidal positional encoding held as a
# non-persistent buffer (register_buffer(..., persistent=false)), a
# TransformerEncoder with the causal mask of nn.Transformer.generate_square_subsequent_mask,
# and a head that forecasts the next steps from the last position. One step is checked
# against PyTorch 1.13 at f64 (tests/stdlib/reference/make_newuser3.py); then it learns
# to forecast noisy sinusoids several steps ahead.
import nn
import optim
import math

let ref = load("tests/stdlib/reference/newuser3.safetensors")

fn sinusoidal(max_len, d, dtype=f32) {
  let pos = arange(max_len, dtype=dtype).unsqueeze(1)
  let div = exp(arange(0, d, 2, dtype=dtype) * (-math.log(10000.0) / d))
  let pe = zeros(max_len, d, dtype=dtype)
  pe[:, 0::2] = sin(pos * div)
  pe[:, 1::2] = cos(pos * div)
  return pe
}

model Forecaster(d=16, heads=2, horizon=3, max_len=32, layers=2, pe_dtype=f32) {
  inp = nn.Linear(1, d)
  encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, heads, dim_feedforward=32, dropout=0.0,
                                                             batch_first=true), num_layers=layers)
  head = nn.Linear(d, horizon)
  let _ = self.register_buffer("pe", sinusoidal(max_len, d, pe_dtype), persistent=false)
  forward(x) {                                                  # [B, T, 1] -> [B, horizon]
    let t = x.shape[1]
    let h = self.inp(x) * math.sqrt(d) + self.pe[:t]
    let mask = nn.Transformer.generate_square_subsequent_mask(t)
    h = self.encoder(h, mask=mask)
    return self.head(h[:, -1])
  }
}

test "the positional encoding, and one forecasting step, match PyTorch's" {
  expect(Forecaster().double().pe.dtype == f64, "to() and double() move a non-persistent buffer too")
  let m = Forecaster(pe_dtype=f64).double()     # the encoding computed at f64, as PyTorch's reference
  expect(not ("pe" in m.state_dict()), "a non-persistent buffer stays out of the state_dict")
  expect(len(m.buffers()) == 1 and not ("pe" in deepcopy(m).state_dict()), "a copy keeps it non-persistent")
  expect_close(m.pe, ref["ts.pe"], rtol=1e-12, atol=1e-14)
  m.load_state_dict({k: ref["ts." + k] for k in m.state_dict().keys()})
  let out = m(ref["ts.x"])
  expect_close(out, ref["ts.out"], rtol=1e-10, atol=1e-12)
  let loss = nn.functional.mse_loss(out, ref["ts.y"])
  expect_close(loss, ref["ts.loss"], rtol=1e-10, atol=1e-12)
  loss.backward()
  for (name, p) in m.named_parameters() {
    expect_close(p.grad, ref["ts.grad." + name], rtol=1e-8, atol=1e-12)
  }
}

test "the causal mask keeps the future out: a change after step t leaves the encoding at t" {
  manual_seed(0)
  let m = Forecaster()
  let x = randn(2, 10, 1)
  let y = x.clone()
  y[:, 7:] = randn(2, 3, 1)
  no_grad {
    let encode = fn(v) = m.encoder(m.inp(v) * 4.0 + m.pe[:10], mask=nn.Transformer.generate_square_subsequent_mask(10))
    let (a, b) = (encode(x), encode(y))
    expect_close(a[:, :7], b[:, :7], rtol=1e-6, atol=1e-6)
    expect((a[:, 7:] - b[:, 7:]).abs().max().item() > 1e-3)
  }
}

# windows of noisy sinusoids with random frequency and phase: 16 steps in, 3 out
fn windows(n) {
  let freq = 0.2 + 0.3 * rand(n, 1)
  let phase = 2 * math.pi * rand(n, 1)
  let t = arange(19).float().unsqueeze(0)
  let s = sin(freq * t + phase) + 0.05 * randn(n, 19)
  return (s[:, :16].unsqueeze(-1), s[:, 16:])
}

test "the forecaster learns to continue sinusoids three steps ahead" {
  manual_seed(0)
  let m = Forecaster(layers=1)
  let opt = optim.Adam(m.parameters(), lr=3e-3)
  let (test_x, test_y) = windows(128)
  let baseline = nn.functional.mse_loss(test_x[:, -1].expand(-1, 3), test_y).item()  # repeat the last value
  for step in range(100) {
    let (x, y) = windows(16)
    let loss = nn.functional.mse_loss(m(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
  }
  no_grad {
    let err = nn.functional.mse_loss(m(test_x), test_y).item()
    expect(err < 0.5 * baseline, f"better than repeating the last value: {err} vs {baseline}")
  }
}
