#!/usr/bin/python3
"""PyTorch's side of the quant_cnn figure (scripts/bench/bench.py): the same CNN in f32
and after PyTorch 1.13's eager-mode static quantization (QuantStub/DeQuantStub,
fuse_modules of conv + bn + relu and linear + relu, prepare with the engine's default
qconfig, calibration on 4 batches, convert), timed at batch 64 as
scripts/bench/quant_cnn.dsl times nabla's; prints the same key=value line (f32, int8).
Debian's PyTorch has no FBGEMM: its quantized engine here is oneDNN (the x86 default
would be fbgemm)."""
import os
import statistics
import time

import torch
from torch import nn
from torch.ao import quantization as tq

torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", os.cpu_count())))
torch.backends.quantized.engine = "onednn"
torch.manual_seed(0)


def make_cnn():
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10))


model = make_cnn()
with torch.no_grad():
    for _ in range(3):
        model(torch.randn(64, 1, 28, 28))  # running statistics
model.eval()

quantizable = nn.Sequential(tq.QuantStub(), make_cnn(), tq.DeQuantStub()).eval()
quantizable[1].load_state_dict(model.state_dict())
tq.fuse_modules(quantizable[1], [["0", "1", "2"], ["4", "5", "6"], ["9", "10"]], inplace=True)
quantizable.qconfig = tq.get_default_qconfig("onednn")
tq.prepare(quantizable, inplace=True)
with torch.no_grad():
    for _ in range(4):
        quantizable(torch.randn(64, 1, 28, 28))
int8 = tq.convert(quantizable)
x = torch.randn(64, 1, 28, 28)


def time_turns(fns, calls, rounds=9):
    times = [[] for _ in fns]
    with torch.no_grad():
        for f in fns:
            for _ in range(10):
                f(x)
        for _ in range(rounds):
            for k, f in enumerate(fns):
                t0 = time.perf_counter()
                for _ in range(calls):
                    f(x)
                times[k].append((time.perf_counter() - t0) / calls * 1e3)
    return [statistics.median(t) for t in times]


t = time_turns([model, int8], 20)
print(f"f32={t[0]:.3f} int8={t[1]:.3f}")
