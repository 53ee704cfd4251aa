#!/usr/bin/python3
"""Runs nabla_bench and bench_torch.py interleaved, FIGURE by FIGURE, for several
rounds, and prints the median of each side as

    BENCH <name> nabla=<value> ref=<value> unit=<unit> speedup=<x>

where speedup > 1 means nabla is faster. Both sides get the same OMP_NUM_THREADS
(default: every core). This machine is noisy; compare ratios, not absolutes.

The dsl_* figures measure the interpreter: nabla runs scripts/bench/interp/FIGURE.dsl
as a whole process, timed from here, less the median start-up of `nabla -e ""` (so
the figure is the loop, in ms); PyTorch runs the same loop in Python, in-process.
Usage: bench.py [--rounds N] [FIGURE ...]
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

# name -> (unit, higher_is_better)
FIGURES = {
    "sgemm_256": ("GFLOP/s", True),
    "sgemm_1024": ("GFLOP/s", True),
    "sgemm_2048": ("GFLOP/s", True),
    "conv2d": ("GFLOP/s", True),
    "conv1d": ("GFLOP/s", True),
    "conv_transpose2d": ("GFLOP/s", True),
    "tiny_add": ("us", False),
    "tiny_fwd_bwd": ("us", False),
    "hvp": ("us", False),
    "exp_4m": ("ms", False),
    "tanh_4m": ("ms", False),
    "sum_4m": ("ms", False),
    "softmax_2048": ("ms", False),
    "transpose_2048": ("ms", False),
    "batchnorm": ("ms", False),
    "max_pool": ("ms", False),
    # The gradients of the CNN's first pool and relu on [64, 32, 28, 28] f32: nabla's
    # max_pool2d_backward and threshold_backward against PyTorch's
    # aten.max_pool2d_with_indices_backward and aten.threshold_backward.
    "max_pool_backward": ("ms", False),
    "relu_backward": ("ms", False),
    # The gradient through the CNN's first ReLU and 2x2 pool, [64, 32, 28, 28] f32, each
    # side in its training step's order: nabla's compiled step masks the pooled gradient
    # (threshold_backward on a quarter of the elements), then scatters it
    # (max_pool2d_backward); PyTorch scatters, then masks the full-size gradient.
    "relu_pool_backward": ("ms", False),
    # The same, with nabla's operands as a compiled step keeps them between two
    # convolutions: nChw16c, the pool's indices as window codes (one byte a window).
    "relu_pool_backward_step": ("ms", False),
    # sort (values and indices) and topk (k = 16) along the rows of a 2048 x 2048 f32 matrix.
    "sort": ("ms", False),
    "topk": ("ms", False),
    "group_norm": ("ms", False),
    "interpolate_bilinear": ("ms", False),
    # Attention forward + backward with a bool key-padding mask, [8, 8, 256, 64] f32:
    # nabla's scaled_dot_product_attention against PyTorch 1.13's composition (it has no
    # fused op): masked_fill, softmax and two matmuls.
    "sdpa_mask": ("ms", False),
    "dsl_scalar_add_1e6": ("ms", False),
    "dsl_tiny_add_1e5": ("ms", False),
    "dsl_fwd_bwd_1e4": ("ms", False),
    # One training epoch of scripts/fashion_mnist_{mlp,cnn}.dsl against the same model, data,
    # batch, optimizer and threads in PyTorch (scripts/bench/train_torch.py); both
    # final test accuracies are printed too.
    "mlp_epoch": ("s", False),
    "cnn_epoch": ("s", False),
    # The epochs with a compiled training step (fashion_mnist_{mlp,cnn}.dsl --compile:
    # forward and backward as one graph, fused and planned) against the same eager PyTorch.
    "cnn_epoch_compiled": ("s", False),
    "mlp_epoch_compiled": ("s", False),
    # The CNN epoch with Adam's step inside the compiled graph too (--compile
    # --step-in-graph: compile(..., optimizer=opt), one call per training step).
    "cnn_epoch_step_in_graph": ("s", False),
    # Inference of the Fashion-MNIST MLP in f32 and int8 (dynamic quantization) at
    # batch 64 and 1: nabla (scripts/bench/quant_mlp.dsl, quant.quantize_dynamic) and
    # PyTorch (scripts/bench/quant_torch.py, torch.quantization.quantize_dynamic), the
    # two processes interleaved round by round; prints two BENCH lines.
    "quant_mlp": ("us", False),
    # The two convolutions of the Fashion-MNIST CNN at batch 64 in f32 and int8:
    # nabla's conv2d and quantized_conv2d (scripts/bench/quant_conv.dsl) against
    # PyTorch's F.conv2d and quantized::conv2d (scripts/bench/quant_conv_torch.py),
    # interleaved round by round; prints two BENCH lines (l1: 1 -> 32 channels on
    # 28 x 28, l2: 32 -> 64 on 14 x 14).
    "quant_conv": ("us", False),
    # Loading a 100 MB checkpoint (25 tensors of 2**20 f32) from the page cache: nabla
    # with its CRC-32 checks and without (tensor/safetensors.hpp), and torch.load of
    # the same tensors; prints check_cost, the checked time over the unchecked one.
    "checkpoint_load": ("ms", False),
    # The convolutions of the Fashion-MNIST CNN's training step at batch 64 (conv1: 1 -> 32
    # channels on 28 x 28, conv2: 32 -> 64 on 14 x 14; forward, backward_input, and
    # backward_weight): one BENCH line per op with nabla's and PyTorch's GFLOP/s and
    # nabla's fraction of the sgemm rate (n = 1024) measured in the same process.
    "cnn_conv_ops": ("GFLOP/s", True),
    # Inference of the Fashion-MNIST CNN at batch 64 in f32 and static int8: nabla eager
    # and compiled (scripts/bench/quant_cnn.dsl, quant.quantize_static) and PyTorch's
    # eager static quantization (scripts/bench/quant_cnn_torch.py), interleaved.
    "quant_cnn": ("ms", False),
    # nn.LSTM(256, 256, num_layers=2) forward+backward, seq 64, batch 32, f32: nabla
    # (scripts/bench/lstm.dsl) against torch.nn.LSTM (scripts/bench/lstm_torch.py),
    # milliseconds per iteration.
    "lstm": ("ms", False),
    # A tanh RNN cell over seq 256, batch 16, hidden 64 writing out[t] = h each step
    # (scripts/bench/rnn_rows.dsl, rnn_rows_torch.py): forward and backward eager, and
    # the forward compiled in script mode against PyTorch's under no_grad; ms per iteration.
    "rnn_rows": ("ms", False),
    "rnn_rows_compiled": ("ms", False),
    # The function transforms, nabla (scripts/bench/func_transforms.dsl) against PyTorch
    # 1.13's functorch (scripts/bench/func_transforms_torch.py), interleaved; prints five
    # BENCH lines (milliseconds per call): per-example gradients of the 784-256-128-10 MLP
    # at batch 64 by vmap(grad) (and nabla's loop of grad), hessian of a 64-parameter
    # tanh MLP, jacrev and jacfwd of a 256 -> 256 map, jvp of the MLP (and its forward).
    "func_transforms": ("ms", False),
}

# The int8 figures: nabla's script, PyTorch's script, and the cases each prints
# (<case>_f32=... <case>_int8=... microseconds; nabla may add more keys).
QUANT_FIGURES = {
    "quant_mlp": ("quant_mlp.dsl", "quant_torch.py", ("b64", "b1")),
    "quant_conv": ("quant_conv.dsl", "quant_conv_torch.py", ("l1", "l2")),
}


# Figures measured by a script on each side, each printing one number (the unit of
# FIGURES) as its last line: name -> (nabla script, PyTorch script[, arguments of
# both]), in scripts/bench/.
SCRIPT_FIGURES = {
    "lstm": ("lstm.dsl", "lstm_torch.py"),
    "rnn_rows": ("rnn_rows.dsl", "rnn_rows_torch.py", ["eager"]),
    "rnn_rows_compiled": ("rnn_rows.dsl", "rnn_rows_torch.py", ["compiled"]),
}


# Memory-bound figures: the bytes one call reads and writes (the op's cost rule: each
# input and output once; a max pool's indices are i64), so their lines add each side's
# GB/s and nabla's as a fraction of the copy bandwidth nabla measures (bw_fraction,
# the profiler's BW%).
_POOLED_CNN = 64 * 32 * 28 * 28  # elements of the first block's activation
BANDWIDTH_FIGURES = {
    "max_pool": _POOLED_CNN * 4 + _POOLED_CNN // 4 * (4 + 8),           # x in; values and indices out
    "max_pool_backward": _POOLED_CNN // 4 * (4 + 8) + _POOLED_CNN * 4,  # grad and indices in; dx out
    "relu_backward": _POOLED_CNN * 4 * 3,                               # grad and result in; dx out
}


def bandwidth_fields(name, nabla_ms, ref_ms, copy_gbs):
    moved = BANDWIDTH_FIGURES[name]
    gbs, ref_gbs = moved / nabla_ms / 1e6, moved / ref_ms / 1e6
    return f" GB/s={gbs:.2f} ref_GB/s={ref_gbs:.2f} copy_GB/s={copy_gbs:.2f} bw_fraction={gbs / copy_gbs:.2f}"


def train_run(cmd, env):
    """(epoch seconds, test accuracy) from a training script's last line."""
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    fields = dict(kv.split("=") for kv in out.strip().splitlines()[-1].split())
    return float(fields["epoch_seconds"]), float(fields["test_accuracy"])


def measure_training(name, rounds, env):
    model = name.split("_")[0]
    flags = (["--compile"] if name.endswith("_compiled") else
             ["--compile", "--step-in-graph"] if name.endswith("_step_in_graph") else [])
    ours, ref = [], []
    for _ in range(rounds):
        ours.append(train_run([str(BUILD / "nabla"), str(ROOT / "scripts" / f"fashion_mnist_{model}.dsl"), "1"] + flags,
                              env))
        ref.append(train_run([sys.executable, str(ROOT / "scripts" / "bench" / "train_torch.py"), model, "1"], env))
    a = statistics.median(t for t, _ in ours)
    b = statistics.median(t for t, _ in ref)
    print(f"BENCH {name} nabla={a:.3f} ref={b:.3f} unit=s speedup={b / a:.2f} "
          f"nabla_test_accuracy={ours[-1][1]:.4f} ref_test_accuracy={ref[-1][1]:.4f}", flush=True)


def key_values(cmd, env):
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    return {k: float(v) for k, v in (kv.split("=") for kv in out.strip().splitlines()[-1].split())}


def openblas_core_type():
    """The OpenBLAS core type for this CPU's widest vectors, from /proc/cpuinfo."""
    try:
        flags = set(next(line for line in open("/proc/cpuinfo") if line.startswith("flags")).split())
    except (OSError, StopIteration):
        return None
    if "avx512f" in flags:
        return "SkylakeX"
    if "avx2" in flags:
        return "Haswell"
    return None


def with_openblas_core_type(env):
    """env with OPENBLAS_CORETYPE set for PyTorch's f32 at its best, whatever the
    environment says. PyTorch's f32 Linear runs on Debian's OpenBLAS, which misdetects
    an AVX-512 CPU as Prescott (about 6x slow) unless told its core type; on one,
    SkylakeX is its fastest (with Haswell the MLP took 1.35x as long at batch 64 and
    3.8x at batch 1). Never SkylakeX on a CPU without AVX-512: PyTorch dies of SIGILL."""
    core = openblas_core_type()
    return {**env, "OPENBLAS_CORETYPE": core} if core else env


def measure_quant(name, rounds, env):
    """BENCH <name>_<case>: microseconds per call of f32 and int8 in nabla and PyTorch
    (medians over rounds), int8's speedup over f32 on each side, and nabla's int8
    against PyTorch's int8; keys that only nabla prints (e.g. int8_f32out) are added
    as nabla_<key>."""
    env = with_openblas_core_type(env)
    nabla_script, torch_script, cases = QUANT_FIGURES[name]
    ours, ref = [], []
    for _ in range(rounds):
        ours.append(key_values([str(BUILD / "nabla"), str(ROOT / "scripts" / "bench" / nabla_script)], env))
        ref.append(key_values([sys.executable, str(ROOT / "scripts" / "bench" / torch_script)], env))
    for case in cases:
        med = {f"{side}_{kind}": statistics.median(r[f"{case}_{kind}"] for r in runs)
               for side, runs in (("nabla", ours), ("ref", ref)) for kind in ("f32", "int8")}
        extra = sorted(k[len(case) + 1:] for k in ours[0] if k.startswith(case + "_")
                       and k[len(case) + 1:] not in ("f32", "int8"))
        extra_text = "".join(f"nabla_{k}={statistics.median(r[f'{case}_{k}'] for r in ours):.1f} " for k in extra)
        print(f"BENCH {name}_{case} nabla_f32={med['nabla_f32']:.1f} nabla_int8={med['nabla_int8']:.1f} "
              f"{extra_text}ref_f32={med['ref_f32']:.1f} ref_int8={med['ref_int8']:.1f} unit=us "
              f"int8_speedup={med['nabla_f32'] / med['nabla_int8']:.2f} "
              f"ref_int8_speedup={med['ref_f32'] / med['ref_int8']:.2f} "
              f"int8_vs_ref_int8={med['ref_int8'] / med['nabla_int8']:.2f}", flush=True)


def measure_cnn_conv_ops(rounds, env):
    """BENCH cnn_<conv>_<op>: GFLOP/s of each convolution op of the CNN step in nabla and
    PyTorch (medians over rounds), and nabla's fraction of its own sgemm rate; then
    cnn_<conv>_<op>_step, the kernel the compiled step runs (its layout kept, the
    forward with ReLU, pooling and indices) against the same PyTorch op."""
    ours, ref = [], []
    for _ in range(rounds):
        ours.append(key_values([str(BUILD / "nabla_bench"), "cnn_conv_ops"], env))
        ref.append(key_values([sys.executable, str(ROOT / "scripts" / "bench" / "bench_torch.py"), "cnn_conv_ops"],
                              with_openblas_core_type(env)))
    ops = [k for k in ours[0] if k != "sgemm" and not k.endswith("_frac")]
    for op in ops:
        a = statistics.median(r[op] for r in ours)
        # <op>_step: the compiled step's kernel, against PyTorch's same eager op
        b = statistics.median(r[op.removesuffix("_step")] for r in ref)
        frac = statistics.median(r[f"{op}_frac"] for r in ours)
        sgemm = statistics.median(r["sgemm"] for r in ours)
        print(f"BENCH cnn_{op} nabla={a:.1f} ref={b:.1f} unit=GFLOP/s speedup={a / b:.2f} "
              f"nabla_sgemm={sgemm:.1f} fraction_of_sgemm={frac:.2f}", flush=True)


def measure_checkpoint_load(rounds, env):
    """BENCH checkpoint_load: nabla's load with and without checksums, torch.load."""
    ours, ref = [], []
    for _ in range(rounds):
        ours.append(key_values([str(BUILD / "nabla_bench"), "checkpoint_load"], env))
        ref.append(measure([sys.executable, str(ROOT / "scripts" / "bench" / "bench_torch.py"), "checkpoint_load"], env))
    checked = statistics.median(r["checked_ms"] for r in ours)
    unchecked = statistics.median(r["unchecked_ms"] for r in ours)
    torch_ms = statistics.median(ref)
    print(f"BENCH checkpoint_load nabla={checked:.1f} nabla_unchecked={unchecked:.1f} ref={torch_ms:.1f} unit=ms "
          f"check_cost={checked / unchecked:.2f} speedup={torch_ms / checked:.2f}", flush=True)


def measure_script_figure(name, rounds, env):
    """A SCRIPT_FIGURES figure: the two scripts in turns, medians of their last lines.
    PyTorch gets its best OpenBLAS core type (with_openblas_core_type)."""
    unit, higher_better = FIGURES[name]
    nabla_script, torch_script, *rest = SCRIPT_FIGURES[name]
    script_args = rest[0] if rest else []
    bench_dir = ROOT / "scripts" / "bench"
    ours, ref = [], []
    for _ in range(rounds):
        ours.append(measure([str(BUILD / "nabla"), str(bench_dir / nabla_script)] + script_args, env))
        ref.append(measure([sys.executable, str(bench_dir / torch_script)] + script_args, with_openblas_core_type(env)))
    a, b = statistics.median(ours), statistics.median(ref)
    speedup = a / b if higher_better else b / a
    print(f"BENCH {name} nabla={a:.3f} ref={b:.3f} unit={unit} speedup={speedup:.2f}", flush=True)


def measure_quant_cnn(rounds, env):
    """BENCH quant_cnn_b64: milliseconds per batch of 64 of the CNN in f32 and static
    int8, nabla eager and as a compiled graph, PyTorch eager (medians over rounds);
    int8's speedup over f32 on each side, and nabla's int8 against PyTorch's int8."""
    env = with_openblas_core_type(env)
    ours, ref = [], []
    for _ in range(rounds):
        ours.append(key_values([str(BUILD / "nabla"), str(ROOT / "scripts" / "bench" / "quant_cnn.dsl")], env))
        ref.append(key_values([sys.executable, str(ROOT / "scripts" / "bench" / "quant_cnn_torch.py")], env))
    med = {f"nabla_{k}": statistics.median(r[k] for r in ours) for k in ("f32", "int8", "f32_graph", "int8_graph")}
    med.update({f"ref_{k}": statistics.median(r[k] for r in ref) for k in ("f32", "int8")})
    print("BENCH quant_cnn_b64 " + " ".join(f"{k}={v:.3f}" for k, v in med.items()) + " unit=ms "
          f"int8_speedup={med['nabla_f32'] / med['nabla_int8']:.2f} "
          f"graph_int8_speedup={med['nabla_f32_graph'] / med['nabla_int8_graph']:.2f} "
          f"ref_int8_speedup={med['ref_f32'] / med['ref_int8']:.2f} "
          f"int8_vs_ref_int8={med['ref_int8'] / med['nabla_int8']:.2f} "
          f"graph_int8_vs_ref_int8={med['ref_int8'] / med['nabla_int8_graph']:.2f}", flush=True)


def measure_func_transforms(rounds, env):
    """BENCH func_*: the medians over rounds of each case's milliseconds per call; speedup
    is PyTorch's time over nabla's, and the per-example gradient and jvp lines add
    nabla's ratios to its loop of grad and to its forward pass (and PyTorch's)."""
    env = with_openblas_core_type(env)
    bench_dir = ROOT / "scripts" / "bench"
    ours, ref = [], []
    for _ in range(rounds):
        ours.append(key_values([str(BUILD / "nabla"), str(bench_dir / "func_transforms.dsl")], env))
        ref.append(key_values([sys.executable, str(bench_dir / "func_transforms_torch.py")], env))
    n = {k: statistics.median(r[k] for r in ours) for k in ours[0]}
    t = {k: statistics.median(r[k] for r in ref) for k in ref[0]}

    def line(name, case, extra=""):
        print(f"BENCH {name} nabla={n[case]:.3f} ref={t[case]:.3f} unit=ms speedup={t[case] / n[case]:.2f}{extra}",
              flush=True)

    line("func_persample_grad_b64", "persample_vmap",
         f" nabla_loop={n['persample_loop']:.3f} ref_loop={t['persample_loop']:.3f}"
         f" vmap_over_loop={n['persample_loop'] / n['persample_vmap']:.2f}"
         f" ref_vmap_over_loop={t['persample_loop'] / t['persample_vmap']:.2f}"
         f" nabla_stacked_loop={n['persample_loop_stacked']:.3f} ref_stacked_loop={t['persample_loop_stacked']:.3f}"
         f" vmap_over_stacked_loop={n['persample_loop_stacked'] / n['persample_vmap']:.2f}"
         f" ref_vmap_over_stacked_loop={t['persample_loop_stacked'] / t['persample_vmap']:.2f}")
    line("func_hessian_64", "hessian")
    line("func_jacrev_256", "jacrev")
    line("func_jacfwd_256", "jacfwd")
    line("func_jvp_mlp_b64", "jvp",
         f" nabla_forward={n['forward']:.3f} ref_forward={t['forward']:.3f}"
         f" jvp_over_forward={n['jvp'] / n['forward']:.2f} ref_jvp_over_forward={t['jvp'] / t['forward']:.2f}")


def measure(cmd, env):
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    return float(out.strip().splitlines()[-1])


def process_ms(cmd, env):
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    return (time.perf_counter() - t0) * 1e3


def measure_dsl(name, env):
    """One run of an interpreter figure: the script's process less nabla's start-up."""
    nabla = str(BUILD / "nabla")
    startup = statistics.median(process_ms([nabla, "-e", ""], env) for _ in range(3))
    return process_ms([nabla, str(ROOT / "scripts" / "bench" / "interp" / f"{name}.dsl")], env) - startup


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("figures", nargs="*", default=list(FIGURES))
    args = parser.parse_args()
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", str(os.cpu_count()))
    nabla_cmd = [str(BUILD / "nabla_bench")]
    torch_cmd = [sys.executable, str(ROOT / "scripts" / "bench" / "bench_torch.py")]
    print(f"# threads={env['OMP_NUM_THREADS']} rounds={args.rounds} (median; nabla and PyTorch interleaved)")
    copy_gbs = None
    if any(name in BANDWIDTH_FIGURES for name in args.figures):
        copy_gbs = measure(nabla_cmd + ["copy_bandwidth"], env)
        print(f"# copy bandwidth {copy_gbs:.2f} GB/s (a memcpy on every thread over buffers larger than the LLC)")
    for name in args.figures:
        unit, higher_better = FIGURES[name]
        if name.endswith("_epoch") or name.endswith("_epoch_compiled") or name.endswith("_step_in_graph"):
            measure_training(name, args.rounds, env)
            continue
        if name in QUANT_FIGURES:
            measure_quant(name, args.rounds, env)
            continue
        if name == "checkpoint_load":
            measure_checkpoint_load(args.rounds, env)
            continue
        if name == "cnn_conv_ops":
            measure_cnn_conv_ops(args.rounds, env)
            continue
        if name == "quant_cnn":
            measure_quant_cnn(args.rounds, env)
            continue
        if name == "func_transforms":
            measure_func_transforms(args.rounds, env)
            continue
        if name in SCRIPT_FIGURES:
            measure_script_figure(name, args.rounds, env)
            continue
        ours, ref = [], []
        for _ in range(args.rounds):
            ours.append(measure_dsl(name, env) if name.startswith("dsl_") else measure(nabla_cmd + [name], env))
            ref.append(measure(torch_cmd + [name], env))
        a, b = statistics.median(ours), statistics.median(ref)
        speedup = a / b if higher_better else b / a
        extra = bandwidth_fields(name, a, b, copy_gbs) if name in BANDWIDTH_FIGURES else ""
        print(f"BENCH {name} nabla={a:.3f} ref={b:.3f} unit={unit} speedup={speedup:.2f}{extra}", flush=True)


if __name__ == "__main__":
    main()
