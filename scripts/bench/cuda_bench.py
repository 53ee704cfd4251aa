#!/usr/bin/python3
"""nabla's CUDA backend against PyTorch on the same GPU: a 4096 x 4096 GEMM in f32,
TF32 and bf16, and a 3x3 convolution (64 -> 64 channels on [32, 64, 56, 56]) in f32,
TF32 and bf16. Each round runs every figure on both sides, interleaved (the order
flips every round), and each side times REPS repetitions of ITERS calls between two
synchronisations; the figure is the median over all repetitions of all rounds:

    BENCH cuda_sgemm n=4096 nabla_tflops=<x> torch_tflops=<y> ratio=<x/y>

ratio > 1 means nabla is faster. nabla runs scripts/bench/cuda_bench.dsl with
build/nabla (NABLA_BUILD_DIR to change), timed inside the run; PyTorch runs in this
process with cuDNN's heuristics (benchmark mode off, as nabla's; the *_benchmark
figures turn it on for both) and its TF32 flags set as nabla's. Needs a GPU, a CUDA build of nabla and PyTorch with CUDA.
Usage: cuda_bench.py [--rounds N] [--reps N] [--iters N] [FIGURE ...]
"""
import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("NABLA_BUILD_DIR", ROOT / "build"))
DSL = ROOT / "scripts" / "bench" / "cuda_bench.dsl"

GEMM_N = 4096
CONV_X = (32, 64, 56, 56)  # N, C, H, W; padding 1 keeps H and W
CONV_W = (64, 64, 3, 3)    # OC, C, KH, KW

# name -> (op, dtype, tf32, benchmark): benchmark turns on algorithm choice by timing on
# both sides (cuda.set_benchmark, torch.backends.cudnn.benchmark).
FIGURES = {
    "cuda_sgemm": ("gemm", "f32", False, False),
    "cuda_sgemm_tf32": ("gemm", "f32", True, False),
    "cuda_gemm_bf16": ("gemm", "bf16", False, False),
    "cuda_conv2d": ("conv2d", "f32", False, False),
    "cuda_conv2d_tf32": ("conv2d", "f32", True, False),
    "cuda_conv2d_bf16": ("conv2d", "bf16", False, False),
    "cuda_conv2d_tf32_benchmark": ("conv2d", "f32", True, True),
    "cuda_conv2d_bf16_benchmark": ("conv2d", "bf16", False, True),
}


def flops(op):
    if op == "gemm":
        return 2 * GEMM_N**3
    n, c, h, w = CONV_X
    oc, _, kh, kw = CONV_W
    return 2 * n * oc * h * w * c * kh * kw


def describe(op):
    if op == "gemm":
        return f"n={GEMM_N}"
    return f"x={'x'.join(map(str, CONV_X))} w={'x'.join(map(str, CONV_W))}"


def nabla_seconds(op, dtype, tf32, benchmark, reps, iters):
    cmd = [str(BUILD / "nabla"), str(DSL), op, dtype, "1" if tf32 else "0", str(reps), str(iters),
           "1" if benchmark else "0"]
    run = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if run.returncode != 0:
        sys.exit(f"cuda_bench.py: {' '.join(cmd)} failed (status {run.returncode}):\n{run.stderr}")
    out = run.stdout
    times = [float(line.split("=", 1)[1]) for line in out.splitlines() if line.startswith("seconds=")]
    if len(times) != reps:
        sys.exit(f"cuda_bench.py: expected {reps} 'seconds=' lines from {' '.join(cmd)}, got:\n{out}")
    return times


def torch_seconds(op, dtype, tf32, benchmark, reps, iters):
    import torch

    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    torch.backends.cudnn.benchmark = benchmark
    dt = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}[dtype]
    if op == "gemm":
        x = torch.randn(GEMM_N, GEMM_N, dtype=dt, device="cuda")
        w = torch.randn(GEMM_N, GEMM_N, dtype=dt, device="cuda")
        once = lambda: torch.matmul(x, w)  # noqa: E731
    else:
        x = torch.randn(*CONV_X, dtype=dt, device="cuda")
        w = torch.randn(*CONV_W, dtype=dt, device="cuda")
        once = lambda: torch.nn.functional.conv2d(x, w, None, padding=1)  # noqa: E731
    with torch.no_grad():
        for _ in range(3):
            once()
        torch.cuda.synchronize()
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            for _ in range(iters):
                once()
            torch.cuda.synchronize()
            times.append((time.perf_counter() - t0) / iters)
    del x, w
    torch.cuda.empty_cache()  # leave the GPU's memory to the next nabla run
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("figures", nargs="*", default=list(FIGURES))
    args = parser.parse_args()
    unknown = [f for f in args.figures if f not in FIGURES]
    if unknown:
        sys.exit(f"cuda_bench.py: unknown figure(s) {', '.join(unknown)}; known: {', '.join(FIGURES)}")
    samples = {name: ([], []) for name in args.figures}
    for r in range(args.rounds):
        for name in args.figures:
            op, dtype, tf32, benchmark = FIGURES[name]
            nabla, ref = samples[name]
            sides = [(nabla, nabla_seconds), (ref, torch_seconds)]
            for times, run in sides if r % 2 == 0 else reversed(sides):
                times.extend(run(op, dtype, tf32, benchmark, args.reps, args.iters))
    for name in args.figures:
        op = FIGURES[name][0]
        nabla, ref = (flops(op) / statistics.median(t) / 1e12 for t in samples[name])
        print(f"BENCH {name} {describe(op)} nabla_tflops={nabla:.1f} torch_tflops={ref:.1f} "
              f"ratio={nabla / ref:.2f}", flush=True)


if __name__ == "__main__":
    main()
