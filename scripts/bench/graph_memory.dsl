# Memory planning figures: the CNN of scripts/bench/graph_mode.dsl, one training step
# (forward, loss, gradients) at batch 64 captured as a graph and optimized with the
# default pipeline, whose last pass (plan) places the intermediates in one arena.
# naive_bytes: every intermediate its own buffer; planned_bytes: the arena;
# last_use_peak_bytes: the peak when each buffer is freed right after its last use
# (the executor's order without a plan). Prints one BENCH line; graph_bench.py runs it.
import nn
manual_seed(0)

let cnn = nn.Sequential([
  nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
  nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
  nn.Flatten(), nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10)])
let images = randn([64, 1, 28, 28])
let y = randint(0, 10, [64])
fn loss_fn(xb, yb) = cross_entropy(cnn(xb), yb)
let gm = compile(loss_fn, images, y, train=true)
gm.optimize("default")
gm(images, y)  # the planned graph runs
let p = gm.memory_plan()
let reduction = 1.0 - p["planned_bytes"] / p["naive_bytes"]
print(f"BENCH graph_memory_cnn_train naive_bytes={p['naive_bytes']} planned_bytes={p['planned_bytes']} reduction={reduction:.2f} last_use_peak_bytes={p['last_use_peak_bytes']} inplace={p['inplace']} slots={p['slots']} buffers={p['buffers']} batch=64")
