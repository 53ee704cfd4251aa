#!/usr/bin/python3
"""Graph mode figures: nabla's graph against nabla's eager mode (scripts/bench/graph_mode.dsl)
and against PyTorch eager and torch.jit.trace (+ freeze for modules), for MLP and CNN
inference at batch 64, an elementwise chain on 1M elements and one MLP training step. Runs are interleaved, medians over rounds.

    /usr/bin/python3 scripts/bench/graph_bench.py [--rounds N]
prints  BENCH graph_<name> nabla_graph=.. nabla_eager=.. torch_eager=.. torch_jit=.. unit=us
and, from scripts/bench/graph_memory.dsl, the memory plan of the CNN training step:
        BENCH graph_memory_cnn_train naive_bytes=.. planned_bytes=.. reduction=0.xx ...
"""
import argparse
import os
import pathlib
import statistics
import subprocess
import time

import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", os.cpu_count())))


def median_us(f, args, reps):
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(reps):
            f(*args)
        times.append((time.perf_counter() - t0) / reps * 1e6)
    return statistics.median(times)


def torch_figures():
    nn = torch.nn
    mlp = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10)).eval()
    cnn = nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Flatten(), nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10)).eval()
    x, images = torch.randn(64, 784), torch.randn(64, 1, 28, 28)
    y = torch.randint(0, 10, (64,))
    out = {}
    with torch.no_grad():
        for name, model, inp, reps in [("mlp_infer", mlp, x, 200), ("cnn_infer", cnn, images, 10)]:
            jit = torch.jit.freeze(torch.jit.trace(model, inp))
            for _ in range(3):
                model(inp)
                jit(inp)
            out[name] = (median_us(model, [inp], reps), median_us(jit, [inp], reps))

        def chain(a, b):
            return (a * 2.0 + b).sigmoid() * a - b.tanh()
        a, b = torch.randn(1024, 1024), torch.randn(1024, 1024)
        jit = torch.jit.trace(chain, (a, b))  # a function: nothing to freeze
        for _ in range(3):
            chain(a, b)
            jit(a, b)
        out["elementwise_chain"] = (median_us(chain, [a, b], 20), median_us(jit, [a, b], 20))

        def light(a, b):
            return (a * 2.0 + b) * a - b
        jit = torch.jit.trace(light, (a, b))
        for _ in range(3):
            light(a, b)
            jit(a, b)
        out["elementwise_light"] = (median_us(light, [a, b], 20), median_us(jit, [a, b], 20))

    def step(xb, yb):
        loss = nn.functional.cross_entropy(mlp(xb), yb)
        loss.backward()
        return loss
    out["mlp_train_step"] = (median_us(step, [x, y], 100), None)
    return out


def nabla_figures():
    run = subprocess.run([str(ROOT / "build" / "nabla"), str(ROOT / "scripts" / "bench" / "graph_mode.dsl")],
                         check=True, capture_output=True, text=True)
    out = {}
    for line in run.stdout.strip().splitlines():
        if line.startswith("BENCH "):
            print(line, flush=True)
            continue
        name, eager, graph = line.split()
        out[name] = (float(eager), float(graph))
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    ours, ref = [], []
    for _ in range(args.rounds):
        ours.append(nabla_figures())
        ref.append(torch_figures())
    print(f"# threads={torch.get_num_threads()} rounds={args.rounds} (median; nabla and PyTorch interleaved)")
    for name in ours[0]:
        eager = statistics.median(o[name][0] for o in ours)
        graph = statistics.median(o[name][1] for o in ours)
        t_eager = statistics.median(r[name][0] for r in ref)
        jits = [r[name][1] for r in ref if r[name][1] is not None]
        jit = f"{statistics.median(jits):.1f}" if jits else "n/a"
        print(f"BENCH graph_{name} nabla_graph={graph:.1f} nabla_eager={eager:.1f} torch_eager={t_eager:.1f} "
              f"torch_jit={jit} unit=us graph_vs_eager={eager / graph:.2f}", flush=True)
    memory = subprocess.run([str(ROOT / "build" / "nabla"), str(ROOT / "scripts" / "bench" / "graph_memory.dsl")],
                            check=True, capture_output=True, text=True)
    for line in memory.stdout.splitlines():
        if line.startswith("BENCH "):
            print(line, flush=True)


if __name__ == "__main__":
    main()
