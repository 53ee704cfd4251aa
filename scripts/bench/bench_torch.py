#!/usr/bin/python3
"""PyTorch's side of the benchmark: `bench_torch.py FIGURE` prints one number, the
median of timed repetitions, for the same figure as `nabla_bench FIGURE` measures
(same shapes, same thread count). PyTorch is Debian's python3-torch 1.13."""
import os
import sys
import time

import torch

torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", os.cpu_count())))
torch.manual_seed(0)


def median_seconds(fn, reps, inner):
    fn()  # warm-up
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        times.append((time.perf_counter() - t0) / inner)
    times.sort()
    return times[len(times) // 2]


def sgemm_gflops(n):
    a, b = torch.randn(n, n), torch.randn(n, n)
    inner = 50 if n <= 256 else 5 if n <= 1024 else 1
    return 2.0 * n ** 3 / median_seconds(lambda: torch.mm(a, b), 7, inner) / 1e9


def conv2d_gflops():
    x, w = torch.randn(64, 32, 28, 28), torch.randn(64, 32, 3, 3)
    s = median_seconds(lambda: torch.nn.functional.conv2d(x, w, padding=1), 7, 3)
    return 2.0 * 64 * 64 * 28 * 28 * 32 * 9 / s / 1e9


def conv1d_gflops():
    x, w = torch.randn(64, 64, 256), torch.randn(128, 64, 3)
    s = median_seconds(lambda: torch.nn.functional.conv1d(x, w, padding=1), 7, 3)
    return 2.0 * 64 * 128 * 256 * 64 * 3 / s / 1e9


def conv_transpose2d_gflops():
    x, w, b = torch.randn(32, 64, 14, 14), torch.randn(64, 32, 4, 4), torch.randn(32)
    s = median_seconds(lambda: torch.nn.functional.conv_transpose2d(x, w, b, stride=2, padding=1), 7, 3)
    return 2.0 * 32 * 64 * 14 * 14 * 32 * 16 / s / 1e9


def tiny_add_us():
    a, b = torch.randn(4), torch.randn(4)
    return median_seconds(lambda: torch.add(a, b), 9, 20000) * 1e6


def tiny_fwd_bwd_us():
    x = torch.randn(4, requires_grad=True)

    def step():
        y = (x * x).sum()
        y.backward()
        x.grad = None
    return median_seconds(step, 9, 5000) * 1e6


def hvp_us():
    x = torch.randn(16, 8)
    w1 = torch.randn(32, 8, requires_grad=True)
    w2 = torch.randn(1, 32, requires_grad=True)
    v1, v2 = torch.randn(32, 8), torch.randn(1, 32)
    F = torch.nn.functional

    def step():
        loss = F.linear(torch.tanh(F.linear(x, w1)), w2).pow(2).sum()
        g1, g2 = torch.autograd.grad(loss, (w1, w2), create_graph=True)
        gv = (g1 * v1).sum() + (g2 * v2).sum()
        torch.autograd.grad(gv, (w1, w2))
    return median_seconds(step, 9, 200) * 1e6


def batchnorm_ms():
    x = torch.randn(64, 32, 28, 28, requires_grad=True)
    g = torch.randn(64, 32, 28, 28)
    w, b = torch.ones(32, requires_grad=True), torch.zeros(32, requires_grad=True)
    rm, rv = torch.zeros(32), torch.ones(32)
    F = torch.nn.functional
    return median_seconds(lambda: F.batch_norm(x, rm, rv, w, b, training=True).backward(g), 7, 10) * 1e3


def max_pool_ms():
    x = torch.randn(64, 32, 28, 28)
    F = torch.nn.functional
    return median_seconds(lambda: F.max_pool2d(x, 2, return_indices=True), 7, 20) * 1e3


def max_pool_backward_ms():
    x = torch.randn(64, 32, 28, 28)
    _, indices = torch.nn.functional.max_pool2d(x, 2, return_indices=True)
    grad = torch.randn(indices.shape)
    backward = torch.ops.aten.max_pool2d_with_indices_backward
    return median_seconds(lambda: backward(grad, x, [2, 2], [2, 2], [0, 0], [1, 1], False, indices), 7, 20) * 1e3


def relu_backward_ms():
    y, grad = torch.relu(torch.randn(64, 32, 28, 28)), torch.randn(64, 32, 28, 28)
    return median_seconds(lambda: torch.ops.aten.threshold_backward(grad, y, 0.0), 7, 20) * 1e3


def relu_pool_backward_ms():
    y = torch.relu(torch.randn(64, 32, 28, 28))
    _, indices = torch.nn.functional.max_pool2d(y, 2, return_indices=True)
    grad = torch.randn(indices.shape)
    backward, threshold = torch.ops.aten.max_pool2d_with_indices_backward, torch.ops.aten.threshold_backward
    return median_seconds(
        lambda: threshold(backward(grad, y, [2, 2], [2, 2], [0, 0], [1, 1], False, indices), y, 0.0), 7, 20) * 1e3


def group_norm_ms():
    x, w, b = torch.randn(32, 64, 28, 28), torch.randn(64), torch.randn(64)
    return median_seconds(lambda: torch.nn.functional.group_norm(x, 8, w, b), 7, 10) * 1e3


def sdpa_mask_ms():
    q, k, v = (torch.randn(8, 8, 256, 64, requires_grad=True) for _ in range(3))
    keep = torch.rand(8, 1, 1, 256) > 0.2
    keep[..., 0] = True
    g = torch.randn(8, 8, 256, 64)

    def step():
        s = (q @ k.transpose(-1, -2) * 0.125).masked_fill(~keep, float("-inf"))
        torch.autograd.grad(s.softmax(-1) @ v, [q, k, v], g)
    return median_seconds(step, 7, 3) * 1e3


def interpolate_bilinear_ms():
    x = torch.randn(32, 32, 28, 28)
    return median_seconds(lambda: torch.nn.functional.interpolate(x, scale_factor=2, mode="bilinear"), 7, 10) * 1e3


def kernel_ms(which):
    a, m = torch.randn(1 << 22), torch.randn(2048, 2048)
    fn = {"exp_4m": lambda: a.exp(), "tanh_4m": lambda: a.tanh(), "sum_4m": lambda: a.sum(),
          "softmax_2048": lambda: m.softmax(1), "transpose_2048": lambda: m.t().contiguous()}[which]
    return median_seconds(fn, 7, 10) * 1e3


def ordering_ms(which):
    m = torch.randn(2048, 2048)
    fn = {"sort": lambda: m.sort(1), "topk": lambda: m.topk(16, 1)}[which]
    return median_seconds(fn, 7, 5) * 1e3


# The interpreter figures: the loops of scripts/bench/interp/*.dsl, written in
# Python, each timed whole (ms per run), as nabla's side is.
def dsl_scalar_add():
    s = 0.0
    for i in range(1000000):
        s = s + 1.0


def dsl_tiny_add():
    a, b = torch.randn(4), torch.randn(4)
    for i in range(100000):
        c = a + b


def dsl_fwd_bwd():
    x = torch.randn(4, requires_grad=True)
    for i in range(10000):
        y = (x * x).sum()
        y.backward()


def cnn_conv_ops():
    """The convolutions of the Fashion-MNIST CNN's step at batch 64, as nabla_bench
    cnn_conv_ops measures them: one line of "name=GFLOP/s" fields, the sgemm (n = 1024)
    rate as sgemm=. The backward ops are aten's convolution_backward with one output
    asked for (the input's or the weight's gradient)."""
    fields = {"sgemm": sgemm_gflops(1024)}
    for name, c, oc, hw in (("conv1", 1, 32, 28), ("conv2", 32, 64, 14)):
        x, w, b = torch.randn(64, c, hw, hw), torch.randn(oc, c, 3, 3), torch.randn(oc)
        gy = torch.randn(64, oc, hw, hw)
        flops = 2.0 * 64 * oc * hw * hw * c * 9

        def backward(mask):
            return torch.ops.aten.convolution_backward(gy, x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1, mask)

        ops = {"fwd": lambda: torch.nn.functional.conv2d(x, w, b, padding=1),
               "bwd_weight": lambda: backward([False, True, False])}
        if c > 1:
            ops["bwd_input"] = lambda: backward([True, False, False])
        for op, fn in ops.items():
            fields[f"{name}_{op}"] = flops / median_seconds(fn, 9, 5) / 1e9
    return " ".join(f"{k}={v:.1f}" for k, v in fields.items())


def loop_ms(fn):
    return median_seconds(fn, 3, 1) * 1e3


def checkpoint_load_ms():
    """torch.load of 25 tensors of 2**20 f32 (100 MB) from the page cache: the same
    data as nabla_bench checkpoint_load, in PyTorch's own format."""
    import tempfile
    tensors = {f"t{k}": torch.randn(1 << 20) for k in range(25)}
    with tempfile.NamedTemporaryFile(suffix=".pt") as f:
        torch.save(tensors, f.name)
        return median_seconds(lambda: torch.load(f.name), 9, 1) * 1e3


FIGURES = {
    "checkpoint_load": checkpoint_load_ms,
    "sgemm_256": lambda: sgemm_gflops(256),
    "sgemm_1024": lambda: sgemm_gflops(1024),
    "sgemm_2048": lambda: sgemm_gflops(2048),
    "conv2d": conv2d_gflops,
    "conv1d": conv1d_gflops,
    "conv_transpose2d": conv_transpose2d_gflops,
    "tiny_add": tiny_add_us,
    "tiny_fwd_bwd": tiny_fwd_bwd_us,
    "hvp": hvp_us,
    "dsl_scalar_add_1e6": lambda: loop_ms(dsl_scalar_add),
    "dsl_tiny_add_1e5": lambda: loop_ms(dsl_tiny_add),
    "dsl_fwd_bwd_1e4": lambda: loop_ms(dsl_fwd_bwd),
    "batchnorm": batchnorm_ms,
    "max_pool": max_pool_ms,
    "max_pool_backward": max_pool_backward_ms,
    "relu_backward": relu_backward_ms,
    "relu_pool_backward": relu_pool_backward_ms,
    "relu_pool_backward_step": relu_pool_backward_ms,
    "sort": lambda: ordering_ms("sort"),
    "topk": lambda: ordering_ms("topk"),
    "group_norm": group_norm_ms,
    "sdpa_mask": sdpa_mask_ms,
    "interpolate_bilinear": interpolate_bilinear_ms,
    **{k: (lambda k=k: kernel_ms(k)) for k in ["exp_4m", "tanh_4m", "sum_4m", "softmax_2048", "transpose_2048"]},
}

if __name__ == "__main__":
    if sys.argv[1] == "cnn_conv_ops":
        print(cnn_conv_ops())
    else:
        print(f"{FIGURES[sys.argv[1]]():.4f}")
