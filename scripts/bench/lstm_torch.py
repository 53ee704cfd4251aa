"""PyTorch's side of the lstm figure (scripts/bench/bench.py): torch.nn.LSTM(256, 256,
num_layers=2) forward and backward on a [64, 32, 256] f32 input, the loss the sum of
the outputs; prints the median milliseconds per iteration (as scripts/bench/lstm.dsl)."""
import statistics
import sys
import time

import torch

torch.set_num_threads(int(__import__("os").environ.get("OMP_NUM_THREADS", torch.get_num_threads())))
iterations = int(sys.argv[1]) if len(sys.argv) > 1 else 7
torch.manual_seed(0)
m = torch.nn.LSTM(256, 256, num_layers=2)
x = torch.randn(64, 32, 256)


def step():
    y, _ = m(x)
    y.sum().backward()


step()
times = []
for _ in range(iterations):
    t0 = time.perf_counter()
    step()
    times.append((time.perf_counter() - t0) * 1e3)
print(f"{statistics.median(times):.3f}")
