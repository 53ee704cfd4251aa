#!/usr/bin/python3
"""The profiler off against compiled out (see profiler_overhead.sh, which calls this).

    profiler_overhead.py BUILD NOPROF_BUILD [--rounds N]
"""
import argparse
import pathlib
import statistics
import subprocess
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]


def bench_figure(build, name):
    """A figure of nabla_bench (microseconds per iteration)."""
    out = subprocess.run([str(pathlib.Path(build) / "nabla_bench"), name], check=True, capture_output=True, text=True)
    return float(out.stdout.split()[-1])


def dsl_figure(build, name):
    """A DSL loop of scripts/bench/interp/ run as a process (milliseconds, start-up included:
    both builds start alike)."""
    t0 = time.perf_counter()
    subprocess.run([str(pathlib.Path(build) / "nabla"), str(ROOT / "scripts" / "bench" / "interp" / f"{name}.dsl")],
                   check=True, capture_output=True)
    return (time.perf_counter() - t0) * 1e3


FIGURES = [("tiny_add", bench_figure, "us"), ("tiny_fwd_bwd", bench_figure, "us"),
           ("dsl_tiny_add_1e5", dsl_figure, "ms"), ("dsl_fwd_bwd_1e4", dsl_figure, "ms")]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("noprof")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    print(f"# rounds={args.rounds} (median; the two builds interleaved)")
    for name, measure, unit in FIGURES:
        hook, out = [], []
        for _ in range(args.rounds):
            hook.append(measure(args.build, name))
            out.append(measure(args.noprof, name))
        h, o = statistics.median(hook), statistics.median(out)
        print(f"BENCH profiler_off_{name} hook_off={h:.3f} compiled_out={o:.3f} unit={unit} ratio={h / o:.3f}",
              flush=True)


if __name__ == "__main__":
    main()
