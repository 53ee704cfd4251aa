#!/usr/bin/python3
"""PyTorch's side of scripts/bench/cuda_ops.py: the ops of scripts/bench/cuda_ops.dsl,
same shapes and timing (the median of 7 repetitions, milliseconds per call), printing
`name=ms` lines.

    cuda_ops_torch.py [device]      (device: cuda, the default, or cpu)
"""
import sys
import time

import torch

DEVICE = sys.argv[1] if len(sys.argv) > 1 else "cuda"
F = torch.nn.functional
torch.manual_seed(0)
torch.backends.cuda.matmul.allow_tf32 = False  # f32 computes in f32, as nabla's default
torch.backends.cudnn.allow_tf32 = False


def sync():
    if DEVICE != "cpu":
        torch.cuda.synchronize()


def ms_per_call(f, inner):
    f()
    sync()
    times = []
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(inner):
            f()
        sync()
        times.append((time.perf_counter() - t0) / inner * 1e3)
    return sorted(times)[3]


def on(t):
    return t.to(DEVICE)


def main():
    x1, w1 = on(torch.randn(64, 64, 256)), on(torch.randn(128, 64, 3))
    print(f"conv1d={ms_per_call(lambda: F.conv1d(x1, w1, None, padding=1), 20):.4f}")
    xt, wt, bt = on(torch.randn(32, 64, 14, 14)), on(torch.randn(64, 32, 4, 4)), on(torch.randn(32))
    print(f"conv_transpose2d={ms_per_call(lambda: F.conv_transpose2d(xt, wt, bt, stride=2, padding=1), 20):.4f}")
    xg, wg, bg = on(torch.randn(32, 64, 28, 28)), on(torch.randn(64)), on(torch.randn(64))
    print(f"group_norm={ms_per_call(lambda: F.group_norm(xg, 8, wg, bg), 20):.4f}")
    xi = on(torch.randn(32, 32, 28, 28))
    print(f"interpolate_bilinear={ms_per_call(lambda: F.interpolate(xi, scale_factor=2, mode='bilinear'), 20):.4f}")
    m = on(torch.randn(2048, 2048))
    print(f"sort={ms_per_call(lambda: m.sort(1), 10):.4f}")
    print(f"topk={ms_per_call(lambda: m.topk(16, 1), 10):.4f}")
    q, k, v = (on(torch.randn(8, 8, 256, 64)).requires_grad_() for _ in range(3))
    keep = on(torch.cat([torch.ones(8, 1, 1, 1), torch.rand(8, 1, 1, 255)], dim=3) > 0.2)
    g = on(torch.randn(8, 8, 256, 64))

    def attention_step():
        return torch.autograd.grad(F.scaled_dot_product_attention(q, k, v, attn_mask=keep), [q, k, v], g)
    print(f"sdpa_mask={ms_per_call(attention_step, 10):.4f}")
    lstm = torch.nn.LSTM(256, 256, num_layers=2).to(DEVICE)
    xs = on(torch.randn(64, 32, 256))

    def lstm_step():
        y, _ = lstm(xs)
        y.sum().backward()
    print(f"lstm={ms_per_call(lstm_step, 5):.4f}")


if __name__ == "__main__":
    main()
