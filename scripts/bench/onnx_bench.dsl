# nabla's side of scripts/bench/onnx_bench.py: the MLP and CNN of graph_mode.dsl in
# eval mode at batch 1 and 64, compiled with the default passes, and one addition on
# [1, 784] (add_b1): what a call costs beside its work, in each runtime.
#   nabla scripts/bench/onnx_bench.dsl DIR export     writes DIR/<case>.onnx and its input
#   nabla scripts/bench/onnx_bench.dsl DIR time REPS  prints "<case> <us per call>" lines
#                                                     (median of 5 runs of REPS calls)
import nn
import time
manual_seed(0)

let dir = args[0]
let mode = args[1]
let mlp = nn.Sequential([nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10)])
let cnn = nn.Sequential([
  nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
  nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
  nn.Flatten(), nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10)])
mlp.eval()
cnn.eval()
let cases = [["mlp_b1", mlp, randn([1, 784])], ["mlp_b64", mlp, randn([64, 784])],
             ["cnn_b1", cnn, randn([1, 1, 28, 28])], ["cnn_b64", cnn, randn([64, 1, 28, 28])],
             ["add_b1", fn(x) = x + 1.0, randn([1, 784])]]

fn median_us(gm, x, reps) {
  let times = []
  for r in range(5) {
    let t0 = time.perf_counter()
    for i in range(reps) { gm(x) }
    times.append((time.perf_counter() - t0) / reps * 1e6)
  }
  times.sort()
  return times[2]
}

no_grad {
  for c in cases {
    let (name, net, x) = (c[0], c[1], c[2])
    let gm = compile(net, x)
    gm.optimize()
    if mode == "export" {
      gm.export_onnx(f"{dir}/{name}.onnx")
      save({"input0": x}, f"{dir}/{name}.safetensors")
    } else {
      let reps = max(2, int(args[2]) // (16 if name == "cnn_b64" else 1))
      for i in range(3) { gm(x) }
      print(f"{name} {median_us(gm, x, reps):.2f}")
    }
  }
}
