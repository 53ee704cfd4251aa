# nabla's side of the quant_cnn figure (scripts/bench/bench.py): the Fashion-MNIST CNN
# of scripts/compress_common.dsl (conv + batch norm + relu + pool, twice; a dense
# head) in f32 and after quant.quantize_static (batch norms folded, every Conv2d and
# Linear int8, input scales calibrated on 4 batches), each eager and as a compiled
# graph (compile + the default passes), timed at batch 64 with the four taking turns in
# each round; prints milliseconds per batch (medians) as key=value pairs. Weights are
# PyTorch's default initialization with running statistics from a few batches: speed
# does not depend on training (scripts/quantize_cnn.dsl measures trained models).
import nn
import quant
import time
import "../compress_common.dsl" as common

manual_seed(0)
let model = common.make_cnn()
no_grad { for i in range(3) { model(randn([64, 1, 28, 28])) } }   # running statistics
model.eval()
let calibration = []
for i in range(4) { calibration.append(randn([64, 1, 28, 28])) }
let int8 = quant.quantize_static(model, calibration)
let x = randn([64, 1, 28, 28])

fn compiled(m) {
  let gm = compile(m, x)
  gm.optimize("default")
  return gm
}

# Milliseconds per call of each of fns on x: rounds of `calls` calls each, in turns.
fn time_turns(fns, calls, rounds=9) {
  let times = []
  for f in fns { times.append([]) }
  no_grad {
    for f in fns { for i in range(10) { f(x) } }
    for r in range(rounds) {
      for k in range(len(fns)) {
        let t0 = time.perf_counter()
        for i in range(calls) { fns[k](x) }
        times[k].append((time.perf_counter() - t0) / calls * 1e3)
      }
    }
  }
  let out = []
  for t in times { out.append(common.median(t)) }
  return out
}

let t = time_turns([model, int8, compiled(model), compiled(int8)], 20)
print(f"f32={t[0]:.3f} int8={t[1]:.3f} f32_graph={t[2]:.3f} int8_graph={t[3]:.3f}")
