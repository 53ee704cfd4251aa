#!/usr/bin/env python3
"""The model-coverage ops on a GPU, nabla against PyTorch on the same card: conv1d,
conv_transpose2d, group_norm, bilinear interpolate, sort, topk, attention with a key
padding mask (forward and backward) and a 2-layer LSTM (seq 64, batch 32, hidden 256,
forward and backward), at the shapes of the CPU figures (scripts/bench/bench.py).
Rounds interleave the two sides (the order flips every round); each side times every
figure inside one process (scripts/bench/cuda_ops.dsl, scripts/bench/cuda_ops_torch.py).
Prints, with medians over the rounds,

    BENCH cuda_<name> nabla_ms=<x> torch_ms=<y> torch_over_nabla=<y/x>

    python3 scripts/bench/cuda_ops.py [--rounds 3] [--nabla build-gpu/nabla]
"""
import argparse
import pathlib
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def figures(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT).stdout
    return {k: float(v) for k, v in (line.split("=") for line in out.split() if "=" in line)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--nabla", default=str(ROOT / "build" / "nabla"))
    args = parser.parse_args()
    sides = [("nabla", [args.nabla, "scripts/bench/cuda_ops.dsl", "cuda"]),
             ("torch", [sys.executable, "scripts/bench/cuda_ops_torch.py", "cuda"])]
    samples = {"nabla": [], "torch": []}
    for r in range(args.rounds):
        for side, cmd in sides if r % 2 == 0 else reversed(sides):
            samples[side].append(figures(cmd))
    print(f"# rounds={args.rounds} (medians; nabla and PyTorch interleaved)")
    for name in samples["nabla"][0]:
        ours = statistics.median(s[name] for s in samples["nabla"])
        ref = statistics.median(s[name] for s in samples["torch"])
        print(f"BENCH cuda_{name} nabla_ms={ours:.4f} torch_ms={ref:.4f} torch_over_nabla={ref / ours:.2f}", flush=True)


if __name__ == "__main__":
    main()
