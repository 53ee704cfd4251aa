# nabla's side of the lstm figure (scripts/bench/bench.py): nn.LSTM(256, 256,
# num_layers=2) forward and backward on a [64, 32, 256] f32 input (seq 64, batch 32),
# the loss the sum of the outputs; prints the median milliseconds per iteration
# (scripts/bench/lstm_torch.py is PyTorch's side).
#   nabla scripts/bench/lstm.dsl [iterations]
import nn
import time

let iterations = int(args[0]) if len(args) > 0 else 7
manual_seed(0)
let m = nn.LSTM(256, 256, num_layers=2)
let x = randn([64, 32, 256])

fn step() {
  let (y, hc) = m(x)
  y.sum().backward()
}

step()  # warm-up: primitive caches, allocator
let times = []
for i in range(iterations) {
  let t0 = time.perf_counter()
  step()
  times.append((time.perf_counter() - t0) * 1e3)
}
print(f"{sorted(times)[len(times) // 2]:.3f}")
