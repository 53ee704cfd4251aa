"""PyTorch's side of the rnn_rows figures (scripts/bench/bench.py): the same tanh RNN
cell over a [256, 16, 64] f32 input writing out[t] = h; "eager": forward and
backward, "compiled": the forward under no_grad (PyTorch 1.13 has no compile to
compare with). Prints the median milliseconds per iteration."""
import statistics
import sys
import time

import torch

torch.set_num_threads(int(__import__("os").environ.get("OMP_NUM_THREADS", torch.get_num_threads())))
mode = sys.argv[1] if len(sys.argv) > 1 else "eager"
iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 9
torch.manual_seed(0)
cell = torch.nn.Linear(64, 64)
x = torch.randn(256, 16, 64)


def forward():
    out = torch.zeros(x.shape[0], x.shape[1], 64)
    h = torch.zeros(x.shape[1], 64)
    for t in range(x.shape[0]):
        h = torch.tanh(cell(h) + x[t])
        out[t] = h
    return out


def step():
    if mode == "compiled":
        with torch.no_grad():
            forward()
    else:
        forward().sum().backward()


step()
times = []
for _ in range(iterations):
    t0 = time.perf_counter()
    step()
    times.append((time.perf_counter() - t0) * 1e3)
print(f"{statistics.median(times):.3f}")
