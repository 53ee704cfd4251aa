# The Fashion-MNIST CNN's training step on a GPU three ways: eager, compiled with each
# kernel launched by the executor (cuda_graph=false), and compiled with its runs replayed
# as one CUDA graph (the default); milliseconds per step (forward, backward, Adam),
# best of 5 rounds of 50 steps on the same batch, then what the replayed module's
# explain() says. Run on a GPU machine (scripts/gpu_check.sh replay):
#   nabla scripts/bench/cuda_replay.dsl
import nn
import optim
import cuda
import time

manual_seed(0)
fn cnn() = nn.Sequential([
  nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
  nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
  nn.Flatten(), nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10)]).to("cuda")
let x = randn([64, 1, 28, 28], device="cuda")
let y = randint(0, 10, [64], device="cuda")

# ms per step of `step` (called as step(x, y), returns the loss) with its optimizer.
fn ms_per_step(step, opt) {
  let best = 1e9
  for r in range(5) {
    cuda.synchronize()
    let t0 = time.perf_counter()
    for i in range(50) {
      opt.zero_grad()
      step(x, y)
      opt.step()
    }
    cuda.synchronize()
    best = min(best, (time.perf_counter() - t0) / 50 * 1e3)
  }
  return best
}

let eager_net = cnn()
let eager_opt = optim.Adam(eager_net.parameters(), lr=1e-3)
fn eager_step(xb, yb) {
  let loss = cross_entropy(eager_net(xb), yb)
  loss.backward()
  return loss
}

# A compiled step over a fresh CNN: compile(..., train=true) with the default passes.
fn compiled(cuda_graph) {
  let net = cnn()
  fn loss_of(xb, yb) = cross_entropy(net(xb), yb)
  let step = compile(loss_of, x, y, train=true, cuda_graph=cuda_graph)
  step.optimize("default")
  return (step, optim.Adam(net.parameters(), lr=1e-3))
}
let (launched, launched_opt) = compiled(false)
let (replayed, replayed_opt) = compiled(true)

let eager_ms = ms_per_step(eager_step, eager_opt)
let launched_ms = ms_per_step(launched, launched_opt)
let replayed_ms = ms_per_step(replayed, replayed_opt)
print(f"BENCH cuda_cnn_step eager_ms={eager_ms:.3f} graph_launched_ms={launched_ms:.3f} graph_replayed_ms={replayed_ms:.3f} eager_over_replayed={eager_ms / replayed_ms:.2f}")
print(replayed.explain())
