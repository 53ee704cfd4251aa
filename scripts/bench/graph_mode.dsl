# Graph mode against eager, in nabla: MLP and CNN inference at batch 64, an
# elementwise chain, and one MLP training step (forward, loss, gradients). Prints "name eager_us graph_us" lines;
# scripts/bench/graph_bench.py runs it beside PyTorch.
import nn
import time
manual_seed(0)

fn median_us(f, args, reps) {
  let times = []
  for r in range(5) {
    let t0 = time.perf_counter()
    for i in range(reps) { f(*args) }
    times.append((time.perf_counter() - t0) / reps * 1e6)
  }
  times.sort()
  return times[2]
}

fn compare(name, eager, graph, args, reps) {
  for i in range(3) { eager(*args); graph(*args) }
  print(f"{name} {median_us(eager, args, reps):.1f} {median_us(graph, args, reps):.1f}")
}

let mlp = nn.Sequential([nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10)])
let cnn = nn.Sequential([
  nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
  nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
  nn.Flatten(), nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10)])
mlp.eval()
cnn.eval()
let x = randn([64, 784])
let images = randn([64, 1, 28, 28])
let y = randint(0, 10, [64])
no_grad {
  let mlp_graph = compile(mlp, x)
  mlp_graph.optimize()
  let cnn_graph = compile(cnn, images)
  cnn_graph.optimize()
  compare("mlp_infer", mlp, mlp_graph, [x], 200)
  # How close graph mode is to what the machine's matmul can do: the MLP's FLOP/s
  # against a large matmul's (the same oneDNN kernels, where their overhead vanishes)
  let mlp_flops = 2.0 * 64 * (784 * 256 + 256 * 128 + 128 * 10)
  let mlp_gflops = mlp_flops / median_us(mlp_graph, [x], 200) / 1e3
  let big = randn([2048, 2048])
  let big_gflops = 2.0 * 2048 ** 3 / median_us(matmul, [big, big], 3) / 1e3
  print(f"BENCH graph_mlp_infer_efficiency graph_gflops={mlp_gflops:.0f} matmul_2048_gflops={big_gflops:.0f} fraction={mlp_gflops / big_gflops:.2f}")
  compare("cnn_infer", cnn, cnn_graph, [images], 10)
  # an elementwise chain on 1M elements: one fused loop against five kernels
  fn chain(a, b) = (a * 2.0 + b).sigmoid() * a - b.tanh()
  let a = randn([1024, 1024])
  let b = randn([1024, 1024])
  let chain_graph = compile(chain, a, b)
  chain_graph.optimize()
  compare("elementwise_chain", chain, chain_graph, [a, b], 20)
  # the same without the transcendental functions: memory-bound, where fusion pays most
  fn light(a, b) = (a * 2.0 + b) * a - b
  let light_graph = compile(light, a, b)
  light_graph.optimize()
  compare("elementwise_light", light, light_graph, [a, b], 20)
}
fn eager_step(xb, yb) {
  let loss = cross_entropy(mlp(xb), yb)
  loss.backward()
  return loss
}
fn loss_fn(xb, yb) = cross_entropy(mlp(xb), yb)
let step_graph = compile(loss_fn, x, y, train=true)
step_graph.optimize()
compare("mlp_train_step", eager_step, step_graph, [x, y], 100)
