# PyTorch's factory arguments device= and dtype= on every nn layer that makes parameters
# or buffers (Note [Factory arguments] in stdlib/_nn_init.dsl): dtype=f64 gives f64
# parameters and floating buffers, integer buffers (num_batches_tracked) keep i64, the
# default stays f32 with the values it always had, and the layer runs on an f64 input.
# The list below is every `model` of stdlib/nn.dsl and stdlib/_nn_*.dsl that makes
# parameters or floating buffers (the losses' weight buffers are the user's tensors and
# take no factory arguments, as PyTorch's).
import nn

# Every tensor of a layer's output (a tensor, or tuples of them: RNN, LSTM, attention).
fn tensors_of(out) {
  if type(out) == "tensor" { return [out] }
  if type(out) in ["tuple", "list"] {
    let all = []
    for o in out { all = all + tensors_of(o) }
    return all
  }
  return []
}

fn r(shape, dt) = randn(shape, dtype=dt)

# [name, make(dtype) -> layer (lazy layers after their first call), run(layer, dtype) -> output].
let cases = [
  ["Linear", fn(dt) = nn.Linear(3, 4, dtype=dt), fn(m, dt) = m(r([2, 3], dt))],
  ["Bilinear", fn(dt) = nn.Bilinear(3, 2, 4, dtype=dt), fn(m, dt) = m(r([2, 3], dt), r([2, 2], dt))],
  ["LazyLinear", fn(dt) = nn.LazyLinear(4, dtype=dt), fn(m, dt) = m(r([2, 3], dt))],
  ["Conv1d", fn(dt) = nn.Conv1d(2, 3, 3, dtype=dt), fn(m, dt) = m(r([1, 2, 6], dt))],
  ["Conv2d", fn(dt) = nn.Conv2d(2, 3, 3, padding_mode="reflect", padding=1, dtype=dt), fn(m, dt) = m(r([1, 2, 5, 5], dt))],
  ["Conv3d", fn(dt) = nn.Conv3d(2, 3, 2, dtype=dt), fn(m, dt) = m(r([1, 2, 3, 3, 3], dt))],
  ["ConvTranspose1d", fn(dt) = nn.ConvTranspose1d(2, 3, 3, stride=2, dtype=dt), fn(m, dt) = m(r([1, 2, 4], dt))],
  ["ConvTranspose2d", fn(dt) = nn.ConvTranspose2d(2, 3, 3, dtype=dt), fn(m, dt) = m(r([1, 2, 4, 4], dt))],
  ["ConvTranspose3d", fn(dt) = nn.ConvTranspose3d(2, 3, 2, dtype=dt), fn(m, dt) = m(r([1, 2, 2, 2, 2], dt))],
  ["LazyConv1d", fn(dt) = nn.LazyConv1d(3, 3, dtype=dt), fn(m, dt) = m(r([1, 2, 6], dt))],
  ["LazyConv2d", fn(dt) = nn.LazyConv2d(3, 3, dtype=dt), fn(m, dt) = m(r([1, 2, 5, 5], dt))],
  ["LazyConv3d", fn(dt) = nn.LazyConv3d(3, 2, dtype=dt), fn(m, dt) = m(r([1, 2, 3, 3, 3], dt))],
  ["BatchNorm1d", fn(dt) = nn.BatchNorm1d(3, dtype=dt), fn(m, dt) = m(r([4, 3], dt))],
  ["BatchNorm2d", fn(dt) = nn.BatchNorm2d(3, dtype=dt), fn(m, dt) = m(r([2, 3, 4, 4], dt))],
  ["BatchNorm3d", fn(dt) = nn.BatchNorm3d(3, dtype=dt), fn(m, dt) = m(r([2, 3, 2, 2, 2], dt))],
  ["SyncBatchNorm", fn(dt) = nn.SyncBatchNorm(3, dtype=dt), fn(m, dt) = m(r([4, 3, 5], dt))],
  ["InstanceNorm1d", fn(dt) = nn.InstanceNorm1d(3, affine=true, track_running_stats=true, dtype=dt), fn(m, dt) = m(r([2, 3, 5], dt))],
  ["InstanceNorm2d", fn(dt) = nn.InstanceNorm2d(3, affine=true, track_running_stats=true, dtype=dt), fn(m, dt) = m(r([2, 3, 4, 4], dt))],
  ["InstanceNorm3d", fn(dt) = nn.InstanceNorm3d(3, affine=true, track_running_stats=true, dtype=dt), fn(m, dt) = m(r([2, 3, 2, 2, 2], dt))],
  ["GroupNorm", fn(dt) = nn.GroupNorm(2, 4, dtype=dt), fn(m, dt) = m(r([2, 4, 3], dt))],
  ["LayerNorm", fn(dt) = nn.LayerNorm([2, 3], dtype=dt), fn(m, dt) = m(r([4, 2, 3], dt))],
  ["RMSNorm", fn(dt) = nn.RMSNorm(3, dtype=dt), fn(m, dt) = m(r([4, 3], dt))],
  ["Embedding", fn(dt) = nn.Embedding(10, 4, padding_idx=0, dtype=dt), fn(m, dt) = m(tensor([[1, 0, 9]]))],
  ["EmbeddingBag", fn(dt) = nn.EmbeddingBag(10, 4, dtype=dt), fn(m, dt) = m(tensor([[1, 2], [3, 9]]))],
  ["RNN", fn(dt) = nn.RNN(3, 4, num_layers=2, dtype=dt), fn(m, dt) = m(r([5, 2, 3], dt))],
  ["LSTM", fn(dt) = nn.LSTM(3, 4, bidirectional=true, proj_size=2, dtype=dt), fn(m, dt) = m(r([5, 2, 3], dt))],
  ["GRU", fn(dt) = nn.GRU(3, 4, batch_first=true, dtype=dt), fn(m, dt) = m(r([2, 5, 3], dt))],
  ["RNNCell", fn(dt) = nn.RNNCell(3, 4, dtype=dt), fn(m, dt) = m(r([2, 3], dt))],
  ["LSTMCell", fn(dt) = nn.LSTMCell(3, 4, dtype=dt), fn(m, dt) = m(r([2, 3], dt))],
  ["GRUCell", fn(dt) = nn.GRUCell(3, 4, dtype=dt), fn(m, dt) = m(r([2, 3], dt))],
  ["MultiheadAttention", fn(dt) = nn.MultiheadAttention(4, 2, add_bias_kv=true, dtype=dt),
   fn(m, dt) = m(r([3, 2, 4], dt), r([5, 2, 4], dt), r([5, 2, 4], dt))],
  ["MultiheadAttention (kdim, vdim)", fn(dt) = nn.MultiheadAttention(4, 2, kdim=3, vdim=5, dtype=dt),
   fn(m, dt) = m(r([3, 2, 4], dt), r([5, 2, 3], dt), r([5, 2, 5], dt))],
  ["TransformerEncoderLayer", fn(dt) = nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dtype=dt),
   fn(m, dt) = m(r([3, 2, 4], dt))],
  ["TransformerDecoderLayer", fn(dt) = nn.TransformerDecoderLayer(4, 2, dim_feedforward=8, norm_first=true, dtype=dt),
   fn(m, dt) = m(r([3, 2, 4], dt), r([5, 2, 4], dt))],
  ["Transformer", fn(dt) = nn.Transformer(d_model=4, nhead=2, num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=8, dtype=dt),
   fn(m, dt) = m(r([5, 2, 4], dt), r([3, 2, 4], dt))],
  ["PReLU", fn(dt) = nn.PReLU(3, dtype=dt), fn(m, dt) = m(r([2, 3, 4], dt))],
]

# The layer made with dtype, after one call when it is lazy (its parameters are made then).
fn made(c, dt) {
  let m = c[1](dt)
  if type(m) in ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d"] { c[2](m, f32 if dt == none else dt) }
  return m
}

# Each parameter's and buffer's dtype by name, and how many there are.
fn dtypes(m) {
  let out = {}
  for (k, p) in m.named_parameters() { out[k] = p.dtype }
  for (k, b) in m.named_buffers() { out[k] = b.dtype }
  return out
}

test "every layer's parameters and floating buffers take dtype=f64; integer buffers keep i64" {
  for c in cases {
    let d = dtypes(made(c, f64))
    expect(len(d) > 0, f"{c[0]}: has no parameters or buffers")
    for k in d {
      let want = i64 if k.endswith("num_batches_tracked") else f64
      expect(d[k] == want, f"{c[0]}: {k} is {d[k]}, expected {want}")
    }
  }
}

test "the default (dtype none, or f32) stays f32" {
  for c in cases {
    for dt in [none, f32] {
      let d = dtypes(made(c, dt))
      for k in d {
        let want = i64 if k.endswith("num_batches_tracked") else f32
        expect(d[k] == want, f"{c[0]} (dtype={dt}): {k} is {d[k]}, expected {want}")
      }
    }
  }
}

test "an f64 layer runs on an f64 input and gives f64 outputs" {
  for c in cases {
    let m = made(c, f64)
    let outs = tensors_of(c[2](m, f64))
    expect(len(outs) > 0, f"{c[0]}: no output")
    for y in outs {
      expect(y.dtype == f64, f"{c[0]}: an output is {y.dtype}, expected f64")
    }
    # and trains: the gradients reach every parameter in f64
    let total = zeros([], dtype=f64)
    for y in outs { total = total + y.sum() }
    backward(total)
    for (k, p) in m.named_parameters() {
      expect(p.grad != none and p.grad.dtype == f64, f"{c[0]}: {k}'s gradient is not f64")
    }
  }
}

# A layer's values with dtype=f64 are the default's, widened (Note [Factory arguments]),
# but nn.Transformer's: it draws its xavier-uniform matrices again after building its
# layers, then in f64 (the same distribution, test below).
test "dtype=f64 draws the default layer's values (the same init, widened); explicit f32 the same bits" {
  for c in cases {
    if c[0] == "Transformer" { continue }
    manual_seed(11)
    let base = made(c, none).state_dict()
    manual_seed(11)
    let wide = made(c, f64).state_dict()
    manual_seed(11)
    let same = made(c, f32).state_dict()
    expect(sorted(list(base.keys())) == sorted(list(wide.keys())), f"{c[0]}: state_dict keys differ")
    for k in base {
      expect(equal(same[k], base[k]), f"{c[0]}: {k} differs with dtype=f32")
      let want = base[k].to(f64) if base[k].is_floating_point() else base[k]
      expect(equal(wide[k], want), f"{c[0]}: {k} of the f64 layer is not the default's values")
    }
  }
}

# The f64 layers' init distributions are PyTorch's: the bounds and spread of
# U(-1/sqrt(fan_in), 1/sqrt(fan_in)) (Linear, LSTM), N(0, 1) (Embedding) and
# xavier-uniform U(-sqrt(6 / (fan_in + fan_out)), ...) (the Transformer's matrices).
fn expect_uniform(name, w, bound) {
  expect(w.dtype == f64, f"{name}: {w.dtype}")
  expect(w.abs().max().item() <= bound, f"{name}: a value beyond the bound {bound}")
  expect(abs(w.std().item() / (bound / sqrt(3.0)) - 1.0) < 0.05, f"{name}: std {w.std().item()}, expected {bound / sqrt(3.0)}")
}

test "the f64 layers' init has PyTorch's distribution" {
  manual_seed(5)
  expect_uniform("Linear", nn.Linear(400, 300, dtype=f64).weight, 1.0 / sqrt(400.0))
  expect_uniform("LSTM", nn.LSTM(50, 400, dtype=f64).weight_hh_l0, 1.0 / sqrt(400.0))
  let t = nn.Transformer(d_model=64, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=512, dtype=f64)
  expect_uniform("Transformer", t.encoder.layers[0].linear1.weight, sqrt(6.0 / (64 + 512)))
  let e = nn.Embedding(400, 300, dtype=f64).weight
  expect(e.dtype == f64 and abs(e.mean().item()) < 0.01 and abs(e.std().item() - 1.0) < 0.01)
}

test "device='cpu' is taken (and passed on by the transformer layers)" {
  let l = nn.Linear(3, 4, device="cpu", dtype=f64)
  expect(l.weight.device == "cpu" and l.bias.device == "cpu" and l.weight.dtype == f64)
  let b = nn.BatchNorm1d(3, device="cpu")
  expect(b.running_mean.device == "cpu" and b.num_batches_tracked.device == "cpu")
  let t = nn.Transformer(d_model=4, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=8, device="cpu")
  for p in t.parameters() { expect(p.device == "cpu" and p.dtype == f32) }
  let z = nn.LazyLinear(2, device="cpu")
  z(randn([1, 3]))
  expect(z.weight.device == "cpu")
}

test "the parameters of an f64 layer stay leaves that require grad; an optimizer steps them" {
  import optim
  let l = nn.Linear(3, 4, dtype=f64)
  expect(l.weight.is_leaf and l.weight.requires_grad and l.bias.is_leaf and l.bias.requires_grad)
  let opt = optim.SGD(l.parameters(), lr=0.1)
  let before = l.weight.detach().clone()
  backward(l(randn([2, 3], dtype=f64)).sum())
  opt.step()
  expect(l.weight.dtype == f64 and not equal(l.weight, before))
}

test "state_dict and load_state_dict of an f64 layer; .double() gives the same dtypes" {
  let a = nn.BatchNorm1d(3, dtype=f64)
  a(randn([4, 3], dtype=f64))
  let sd = a.state_dict()
  expect(sd["weight"].dtype == f64 and sd["running_mean"].dtype == f64 and sd["num_batches_tracked"].dtype == i64)
  let b = nn.BatchNorm1d(3, dtype=f64)
  b.load_state_dict(sd)
  expect(equal(b.running_mean, a.running_mean) and b.num_batches_tracked.item() == 1)
  # an f32 state_dict loads into an f64 layer as PyTorch's (copied into the layer's dtype)
  let l = nn.Linear(3, 4, dtype=f64)
  let f = nn.Linear(3, 4)
  l.load_state_dict(f.state_dict())
  expect(l.weight.dtype == f64 and equal(l.weight, f.weight.to(f64)))
  # .double() of a default layer is the f64 layer's dtypes
  let d = nn.BatchNorm2d(3).double()
  expect(dtypes(d) == dtypes(nn.BatchNorm2d(3, dtype=f64)))
}

test "other floating dtypes: f16 and bf16" {
  let h = nn.Linear(3, 4, dtype=f16)
  expect(h.weight.dtype == f16 and h.bias.dtype == f16)
  let n = nn.BatchNorm1d(3, dtype=bf16)
  expect(n.weight.dtype == bf16 and n.running_var.dtype == bf16 and n.num_batches_tracked.dtype == i64)
}

test "a transformer passes the arguments to the layers it builds, not to a custom encoder" {
  let enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, dim_feedforward=8), 1)
  let t = nn.Transformer(d_model=4, nhead=2, num_decoder_layers=1, dim_feedforward=8, custom_encoder=enc, dtype=f64)
  expect(t.encoder.layers[0].linear1.weight.dtype == f32, "the user's encoder was converted")
  expect(t.decoder.layers[0].self_attn.in_proj_weight.dtype == f64 and t.decoder.norm.weight.dtype == f64)
}

test "printing a layer never shows device or dtype, as PyTorch's extra_repr" {
  let s = str(nn.Linear(3, 4, device="cpu", dtype=f64))
  expect(s.startswith("Linear(in_features=3, out_features=4, bias=true)"), s)
  expect(not ("dtype" in s) and not ("device" in s), s)
  let b = str(nn.BatchNorm2d(3, dtype=f64))
  expect(b.startswith("BatchNorm2d(num_features=3, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)"), b)
}

test "bad factory arguments: one error naming the layer and the argument" {
  expect_error(fn() = nn.Linear(3, 4, dtype="float"),
               "Linear: argument 'dtype' must be a floating dtype (f32, f64, f16 or bf16) or none, got 'float'")
  expect_error(fn() = nn.Embedding(3, 4, dtype=i64), "Embedding: argument 'dtype' must be a floating dtype")
  expect_error(fn() = nn.BatchNorm1d(3, dtype=i32), "BatchNorm1d: argument 'dtype' must be a floating dtype")
  expect_error(fn() = nn.LazyConv2d(3, 3, dtype=u8), "LazyConv2d: argument 'dtype' must be a floating dtype")
  expect_error(fn() = nn.MultiheadAttention(4, 2, device="gpu"),
               "MultiheadAttention: argument 'device' must be \"cpu\", \"cuda\", \"cuda:N\" or none, got 'gpu'")
  expect_error(fn() = nn.Transformer(d_model=4, nhead=2, dtype=i64), "Transformer: argument 'dtype'")
  expect_error(fn() = nn.LSTM(3, 4, device=0), "LSTM: argument 'device' must be")
}

test "a CUDA device the machine does not have: one error naming the layer and the argument" {
  import cuda
  if cuda.device_count() == 0 {
    expect_error(fn() = nn.Conv2d(1, 8, 3, device="cuda", dtype=f64),
                 "Conv2d: argument 'device' is 'cuda', but this machine has no GPU (cuda.is_available() is false)")
  } else {
    let n = cuda.device_count()
    expect_error(fn() = nn.Conv2d(1, 8, 3, device=f"cuda:{n}"), f"Conv2d: argument 'device' is 'cuda:{n}', but this machine has {n} GPU(s)")
    # and on a GPU every tensor moves, integer buffers keep their dtype
    let b = nn.BatchNorm1d(3, device="cuda", dtype=f64)
    expect(b.weight.device == "cuda:0" and b.running_mean.dtype == f64 and b.num_batches_tracked.device == "cuda:0")
  }
}
