# nabla's side of scripts/bench/cuda_ops.py: the model-coverage ops on a GPU, each
# timed inside this run (start-up and first calls left out), printing `name=ms` lines
# (the median of 7 repetitions, milliseconds per call). The shapes are those of the
# CPU figures of scripts/bench/bench.py; scripts/bench/cuda_ops_torch.py is PyTorch's side.
#   nabla scripts/bench/cuda_ops.dsl [device]      (device: cuda, the default, or cpu)
import nn
import cuda
import time

let device = args[0] if len(args) > 0 else "cuda"
manual_seed(0)

fn sync() {
  if device != "cpu" { cuda.synchronize() }
}

# Milliseconds per call of f: the median of 7 repetitions of `inner` calls.
fn ms_per_call(f, inner) {
  f()
  sync()
  let times = []
  for r in range(7) {
    let t0 = time.perf_counter()
    for i in range(inner) { f() }
    sync()
    times.append((time.perf_counter() - t0) / inner * 1e3)
  }
  return sorted(times)[3]
}

fn on(t) = t.to(device)

let x1 = on(randn([64, 64, 256]))
let w1 = on(randn([128, 64, 3]))
print(f"conv1d={ms_per_call(fn() = conv1d(x1, w1, none, padding=1), 20):.4f}")

let xt = on(randn([32, 64, 14, 14]))
let wt = on(randn([64, 32, 4, 4]))
let bt = on(randn([32]))
print(f"conv_transpose2d={ms_per_call(fn() = conv_transpose2d(xt, wt, bt, stride=2, padding=1), 20):.4f}")

let xg = on(randn([32, 64, 28, 28]))
let wg = on(randn([64]))
let bg = on(randn([64]))
print(f"group_norm={ms_per_call(fn() = group_norm(xg, 8, wg, bg), 20):.4f}")

let xi = on(randn([32, 32, 28, 28]))
fn upsample() = interpolate(xi, scale_factor=2, mode="bilinear")
print(f"interpolate_bilinear={ms_per_call(upsample, 20):.4f}")

let m = on(randn([2048, 2048]))
print(f"sort={ms_per_call(fn() = sort(m, dim=1), 10):.4f}")
print(f"topk={ms_per_call(fn() = topk(m, 16, dim=1), 10):.4f}")

# Attention with a key padding mask (the first key always kept), forward and backward.
let q = on(randn([8, 8, 256, 64])).requires_grad_()
let k = on(randn([8, 8, 256, 64])).requires_grad_()
let v = on(randn([8, 8, 256, 64])).requires_grad_()
let keep = on(gt(cat([ones([8, 1, 1, 1]), rand([8, 1, 1, 255])], dim=3), 0.2))
let g = on(randn([8, 8, 256, 64]))
fn attention_step() = grad([scaled_dot_product_attention(q, k, v, attn_mask=keep)], [q, k, v], [g])
print(f"sdpa_mask={ms_per_call(attention_step, 10):.4f}")

# A 2-layer LSTM, seq 64, batch 32, hidden 256: forward and backward.
let lstm = nn.LSTM(256, 256, num_layers=2).to(device)
let xs = on(randn([64, 32, 256]))
fn lstm_step() {
  let (y, hc) = lstm(xs)
  y.sum().backward()
}
print(f"lstm={ms_per_call(lstm_step, 5):.4f}")
