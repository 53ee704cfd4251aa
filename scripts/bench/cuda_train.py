#!/usr/bin/env python3
"""GPU training figures, nabla against PyTorch on the same GPU (run on a GPU machine;
see README, "Building on a GPU machine"):

  - Fashion-MNIST epochs of the MLP and the CNN (scripts/fashion_mnist_{mlp,cnn}.dsl
    against scripts/bench/train_torch.py, same model, data, batch, optimizer), each run
    for EPOCHS epochs and timed by its fastest epoch, with its test accuracy;
  - the same epochs with each step compiled (`--compile`: one graph for forward and
    backward, replayed as a CUDA graph), against the same PyTorch eager epochs, and with
    --torch-compile against PyTorch's torch.compile(mode="reduce-overhead") too; and
    with Adam's step inside the graph (`--compile --step-in-graph`: one replay per
    training step, docs/passes.md);
  - small-op launch overhead: microseconds per `x + y` on 4-element GPU tensors,
    queued back to back (the time of one op when the GPU is not the limit);
  - a chain of 50 elementwise ops on a small tensor, eager against its compiled graph
    replayed as one CUDA graph, without passes (50 kernels) and with the default ones
    (one fused kernel), and PyTorch eager.

Runs are interleaved, ROUNDS rounds, medians printed as BENCH lines:

    python3 scripts/bench/cuda_train.py [--rounds 3] [--epochs 2] [--nabla build-gpu/nabla]
"""
import argparse
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]

LAUNCH_DSL = """
import cuda
import time
let x = randn([4], device="cuda")
let y = randn([4], device="cuda")
for i in range(1000) { let z = x + y }
cuda.synchronize()
let times = []
for r in range(5) {
  let t0 = time.perf_counter()
  for i in range(20000) { let z = x + y }
  cuda.synchronize()
  times.append((time.perf_counter() - t0) / 20000 * 1e6)
}
times.sort()
print(f"launch_us={times[2]:.2f}")

# 50 elementwise ops; the graph has no passes, so it keeps 50 kernels.
fn chain(v) {
  let y = v
  for i in range(25) {
    y = y * 1.0001
    y = y - 0.0001
  }
  return y
}
let a = randn([1024], device="cuda")
let gm = compile(chain, a)
let fused = compile(chain, a)
fused.optimize("default")  # one fused kernel
fn time_calls(f) {
  let best = 1e9
  for r in range(5) {
    cuda.synchronize()
    let t0 = time.perf_counter()
    for i in range(400) { let z = f(a) }
    cuda.synchronize()
    best = min(best, (time.perf_counter() - t0) / 400 * 1e6)
  }
  return best
}
time_calls(chain)
time_calls(gm)
time_calls(fused)
print(f"chain_eager_us={time_calls(chain):.2f} chain_graph_us={time_calls(gm):.2f} chain_fused_us={time_calls(fused):.2f}")
"""


def torch_launch_us():
    import torch
    x, y = torch.randn(4, device="cuda"), torch.randn(4, device="cuda")
    for _ in range(1000):
        x + y
    torch.cuda.synchronize()
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(20000):
            x + y
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) / 20000 * 1e6)
    return statistics.median(times)


def torch_chain_us():
    import torch
    a = torch.randn(1024, device="cuda")

    def chain(v):
        for _ in range(25):
            v = v * 1.0001
            v = v - 0.0001
        return v
    best = 1e9
    for _ in range(6):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(400):
            chain(a)
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - t0) / 400 * 1e6)
    return best


def figures(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT).stdout
    return {k: float(v) for k, v in re.findall(r"(\w+)=([0-9.]+)", out)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--nabla", default=str(ROOT / "build" / "nabla"))
    parser.add_argument("--torch-compile", action="store_true",
                        help='also time PyTorch with torch.compile(mode="reduce-overhead") (needs 2+ epochs)')
    args = parser.parse_args()
    with tempfile.NamedTemporaryFile("w", suffix=".dsl", delete=False) as f:
        f.write(LAUNCH_DSL)
        launch_dsl = f.name
    results = {}
    for _ in range(args.rounds):
        for kind in ("mlp", "cnn"):
            ours = figures([args.nabla, f"scripts/fashion_mnist_{kind}.dsl", str(args.epochs), "60000", "cuda"])
            compiled = figures([args.nabla, f"scripts/fashion_mnist_{kind}.dsl", str(args.epochs), "60000", "cuda",
                                "--compile"])
            whole_step = figures([args.nabla, f"scripts/fashion_mnist_{kind}.dsl", str(args.epochs), "60000", "cuda",
                                  "--compile", "--step-in-graph"])
            ref = figures([sys.executable, "scripts/bench/train_torch.py", kind, str(args.epochs), "cuda"])
            results.setdefault(kind, []).append((ours, ref))
            results.setdefault(kind + "_compiled", []).append((compiled, ref))
            results.setdefault(kind + "_step_in_graph", []).append((whole_step, ref))
            if args.torch_compile:
                ref_compiled = figures([sys.executable, "scripts/bench/train_torch.py", kind, str(args.epochs), "cuda",
                                        "compile"])
                results.setdefault(kind + "_vs_torch_compile", []).append((compiled, ref_compiled))
        small = figures([args.nabla, launch_dsl])
        results.setdefault("launch", []).append((small["launch_us"], torch_launch_us()))
        results.setdefault("chain", []).append((small, torch_chain_us()))
    os.unlink(launch_dsl)
    print(f"# rounds={args.rounds} epochs={args.epochs} (medians; nabla and PyTorch interleaved)")
    for kind in ("mlp", "cnn", "mlp_compiled", "cnn_compiled", "mlp_step_in_graph", "cnn_step_in_graph",
                 "mlp_vs_torch_compile", "cnn_vs_torch_compile"):
        if kind not in results:
            continue
        runs = results[kind]
        n_s = statistics.median(o["epoch_seconds"] for o, _ in runs)
        t_s = statistics.median(r["epoch_seconds"] for _, r in runs)
        n_acc = statistics.median(o["test_accuracy"] for o, _ in runs)
        t_acc = statistics.median(r["test_accuracy"] for _, r in runs)
        print(f"BENCH cuda_{kind}_epoch nabla_s={n_s:.3f} torch_s={t_s:.3f} torch_over_nabla={t_s / n_s:.2f} "
              f"nabla_acc={n_acc:.4f} torch_acc={t_acc:.4f}", flush=True)
    n_us = statistics.median(n for n, _ in results["launch"])
    t_us = statistics.median(t for _, t in results["launch"])
    print(f"BENCH cuda_small_op nabla_us={n_us:.2f} torch_us={t_us:.2f} torch_over_nabla={t_us / n_us:.2f}", flush=True)
    eager_us = statistics.median(o["chain_eager_us"] for o, _ in results["chain"])
    graph_us = statistics.median(o["chain_graph_us"] for o, _ in results["chain"])
    fused_us = statistics.median(o["chain_fused_us"] for o, _ in results["chain"])
    torch_us = statistics.median(t for _, t in results["chain"])
    print(f"BENCH cuda_chain50 nabla_eager_us={eager_us:.2f} nabla_graph_us={graph_us:.2f} nabla_fused_graph_us={fused_us:.2f} "
          f"torch_eager_us={torch_us:.2f} eager_over_graph={eager_us / graph_us:.2f} "
          f"eager_over_fused_graph={eager_us / fused_us:.2f}", flush=True)


if __name__ == "__main__":
    main()
