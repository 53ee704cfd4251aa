#!/usr/bin/python3
"""nabla's graph mode against ONNX Runtime on the same exported models: the MLP and CNN of
scripts/bench/graph_mode.dsl at batch 1 and 64, exported once by nabla (gm.export_onnx),
timed by nabla (compile + default passes, OMP_NUM_THREADS=2) and by ONNX Runtime through
node (onnxruntime-node from scripts/setup.sh, 2 intra-op threads, sessions made before the
clock starts). Rounds alternate the two processes; each reports a median of 5 runs, and
the figure is the median over rounds.

    /usr/bin/python3 scripts/bench/onnx_bench.py [--rounds N] [--reps N]
prints  BENCH onnx_<case> nabla_graph=.. onnx_runtime=.. ratio=.. unit=us threads=2
(ratio = nabla / ONNX Runtime: below 1 nabla is faster). add_b1, one addition on [1, 784],
is the cost of a call beside its work in each (for ONNX Runtime, mostly node's binding).
"""
import argparse
import os
import pathlib
import statistics
import subprocess
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
NABLA = ROOT / "build" / "nabla"
CASES = ["mlp_b1", "mlp_b64", "cnn_b1", "cnn_b64", "add_b1"]


def figures(command, env):
    run = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
    return {name: float(us) for name, us in (line.split() for line in run.stdout.strip().splitlines())}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--reps", type=int, default=200)
    args = parser.parse_args()
    env = dict(os.environ, OMP_NUM_THREADS="2")
    with tempfile.TemporaryDirectory(prefix="nabla_onnx_bench.") as tmp:
        subprocess.run([str(NABLA), str(ROOT / "scripts" / "bench" / "onnx_bench.dsl"), tmp, "export"], check=True,
                       env=env)
        ours, theirs = [], []
        for _ in range(args.rounds):
            ours.append(figures([str(NABLA), str(ROOT / "scripts" / "bench" / "onnx_bench.dsl"), tmp, "time",
                                 str(args.reps)], env))
            theirs.append(figures(["node", str(ROOT / "scripts" / "bench" / "ort_bench.js"), tmp, str(args.reps)] + CASES,
                                  env))
    print(f"# threads=2 rounds={args.rounds} (median; nabla and ONNX Runtime interleaved)")
    for name in CASES:
        nabla = statistics.median(o[name] for o in ours)
        ort = statistics.median(t[name] for t in theirs)
        print(f"BENCH onnx_{name} nabla_graph={nabla:.1f} onnx_runtime={ort:.1f} ratio={nabla / ort:.2f} unit=us "
              f"threads=2", flush=True)


if __name__ == "__main__":
    main()
