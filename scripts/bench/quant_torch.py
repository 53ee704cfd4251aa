#!/usr/bin/python3
"""PyTorch's side of the quant_mlp figure (scripts/bench/bench.py): the same MLP in
f32 and after torch.quantization.quantize_dynamic (qint8 Linear weights; Debian's
PyTorch 1.13 has no FBGEMM, so its quantized engine is oneDNN), timed at batch 64 and
batch 1 as scripts/bench/quant_mlp.dsl times nabla's; prints the same key=value line."""
import os
import statistics
import time

import torch

torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", os.cpu_count())))
torch.manual_seed(0)
nn = torch.nn
model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10)).eval()
int8 = torch.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)


def time_pair(x, calls, rounds=9):
    tf, tq = [], []
    with torch.no_grad():
        for _ in range(50):
            model(x)
            int8(x)
        for _ in range(rounds):
            t0 = time.perf_counter()
            for _ in range(calls):
                model(x)
            tf.append((time.perf_counter() - t0) / calls * 1e6)
            t0 = time.perf_counter()
            for _ in range(calls):
                int8(x)
            tq.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(tf), statistics.median(tq)


f64_, q64 = time_pair(torch.randn(64, 784), 200)
f1, q1 = time_pair(torch.randn(1, 784), 1000)
print(f"b64_f32={f64_:.2f} b64_int8={q64:.2f} b1_f32={f1:.2f} b1_int8={q1:.2f}")
