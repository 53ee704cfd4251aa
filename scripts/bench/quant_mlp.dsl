# nabla's side of the quant_mlp figure (scripts/bench/bench.py): the MLP of
# scripts/fashion_mnist_mlp.dsl in f32 and after quant.quantize_dynamic, timed at
# batch 64 and batch 1 with the two models taking turns in each round; prints
# microseconds per call (medians) as key=value pairs. Weights are PyTorch's default
# initialization: speed does not depend on training (scripts/quantize_mlp.dsl
# measures trained models and their accuracy).
import nn
import quant
import time

manual_seed(0)
let model = nn.Sequential([nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10)])
model.eval()
let int8 = quant.quantize_dynamic(model)

fn median(xs) {
  let s = sorted(xs)
  return s[len(s) // 2]
}

# Microseconds per call of f32 and int8 on x: rounds of `calls` calls each, in turns.
fn time_pair(x, calls, rounds=9) {
  let tf = []
  let tq = []
  no_grad {
    for i in range(50) { model(x); int8(x) }
    for r in range(rounds) {
      let t0 = time.perf_counter()
      for i in range(calls) { model(x) }
      tf.append((time.perf_counter() - t0) / calls * 1e6)
      t0 = time.perf_counter()
      for i in range(calls) { int8(x) }
      tq.append((time.perf_counter() - t0) / calls * 1e6)
    }
  }
  return (median(tf), median(tq))
}

let (f64_, q64) = time_pair(randn([64, 784]), 200)
let (f1, q1) = time_pair(randn([1, 784]), 1000)
print(f"b64_f32={f64_:.2f} b64_int8={q64:.2f} b1_f32={f1:.2f} b1_int8={q1:.2f}")
