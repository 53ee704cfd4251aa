#!/usr/bin/python3
"""PyTorch's side of the quant_conv figure (scripts/bench/bench.py): the two
convolutions of the Fashion-MNIST CNN at batch 64 in f32 (F.conv2d, oneDNN) and in
int8 (torch.ops.quantized.conv2d: quint8 input, per-channel qint8 weights, a quint8
output; Debian's PyTorch 1.13 has no FBGEMM, so its quantized engine is oneDNN),
timed as scripts/bench/quant_conv.dsl times nabla's; prints the same key=value line
(without the f32-output int8 variant, which PyTorch does not have)."""
import os
import statistics
import time

import torch
import torch.nn.functional as F

torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", os.cpu_count())))
torch.backends.quantized.engine = "onednn"
torch.manual_seed(0)


def per_call(f, calls):
    t0 = time.perf_counter()
    for _ in range(calls):
        f()
    return (time.perf_counter() - t0) / calls * 1e6


def time_layer(c_in, c_out, size, calls, rounds=9):
    x = torch.randn(64, c_in, size, size).relu()
    w = torch.randn(c_out, c_in, 3, 3) * 0.1
    b = torch.randn(c_out) * 0.1
    xq = torch._make_per_tensor_quantized_tensor(torch.randint(0, 256, (64, c_in, size, size), dtype=torch.uint8),
                                                 0.02, 0)
    wq = torch._make_per_channel_quantized_tensor(torch.randint(-127, 128, (c_out, c_in, 3, 3), dtype=torch.int8),
                                                  torch.rand(c_out, dtype=torch.float64) * 0.001 + 0.001,
                                                  torch.zeros(c_out, dtype=torch.int64), 0)
    packed = torch.ops.quantized.conv2d_prepack(wq, b, [1, 1], [1, 1], [1, 1], 1)
    f32 = lambda: F.conv2d(x, w, b, padding=1)
    int8 = lambda: torch.ops.quantized.conv2d(xq, packed, 0.05, 0)
    tf, tq = [], []
    with torch.no_grad():
        for _ in range(20):
            f32()
            int8()
        for _ in range(rounds):
            tf.append(per_call(f32, calls))
            tq.append(per_call(int8, calls))
    return statistics.median(tf), statistics.median(tq)


f1, q1 = time_layer(1, 32, 28, 50)
f2, q2 = time_layer(32, 64, 14, 50)
print(f"l1_f32={f1:.2f} l1_int8={q1:.2f} l2_f32={f2:.2f} l2_int8={q2:.2f}")
