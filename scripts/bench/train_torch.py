#!/usr/bin/python3
"""PyTorch's side of the training benchmark: the same model, data, batch, optimizer
and thread count as scripts/fashion_mnist_mlp.dsl and scripts/fashion_mnist_cnn.dsl, each epoch
timed (the fastest is printed).

    train_torch.py mlp|cnn [epochs] [device] [compile]   ->  prints epoch_seconds=<s> test_accuracy=<a>

compile: the model runs through torch.compile(mode="reduce-overhead") (Inductor's
kernels replayed as CUDA graphs); its first epoch includes compiling, so time 2 or more.

device is "cpu" (default) or "cuda"; on a GPU the data moves there once and each epoch
is timed up to a synchronisation, with TF32 off as in nabla. NABLA_FASHION_MNIST_DIR overrides the data folder.
"""
import gzip
import os
import sys
import time

import numpy as np
import torch

ROOT = os.environ.get("NABLA_FASHION_MNIST_DIR", "/usr/share/datasets/fashion-mnist")
torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", os.cpu_count())))
torch.manual_seed(0)


def read_idx(name):
    with gzip.open(os.path.join(ROOT, name)) as f:
        data = f.read()
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def load(split):
    prefix = "train" if split == "train" else "t10k"
    x = torch.tensor(read_idx(f"{prefix}-images-idx3-ubyte.gz"), dtype=torch.float32).reshape(-1, 784) / 255.0
    y = torch.tensor(read_idx(f"{prefix}-labels-idx1-ubyte.gz"), dtype=torch.int64)
    return x, y


def mlp():
    nn = torch.nn
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))


def cnn():
    nn = torch.nn
    return nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10))


def main():
    epochs = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    kind = sys.argv[1]
    device = sys.argv[3] if len(sys.argv) > 3 else "cpu"
    # Exact f32 on both sides: nabla's matmuls and convolutions use TF32 only after
    # cuda.set_allow_tf32(true), while recent PyTorch lets cuDNN use it by default.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    xtr, ytr = load("train")
    xte, yte = load("test")
    if kind == "cnn":
        xtr, xte = xtr.reshape(-1, 1, 28, 28), xte.reshape(-1, 1, 28, 28)
    xtr, ytr, xte, yte = xtr.to(device), ytr.to(device), xte.to(device), yte.to(device)
    model = (mlp() if kind == "mlp" else cnn()).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    if len(sys.argv) > 4 and sys.argv[4] == "compile":
        model = torch.compile(model, mode="reduce-overhead")
    sched = None
    if kind == "mlp":
        # As the MLP script: standardized images, a cosine decay over all the steps.
        xtr, xte = (xtr - 0.2860) / 0.3530, (xte - 0.2860) / 0.3530
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs * ((len(xtr) + 63) // 64))
    times = []
    for _ in range(epochs):
        t0 = time.perf_counter()
        perm = torch.randperm(len(xtr), device=device)
        for i in range(0, len(xtr), 64):
            idx = perm[i:i + 64]
            loss = torch.nn.functional.cross_entropy(model(xtr[idx]), ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            if sched:
                sched.step()
        if device != "cpu":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    model.eval()
    with torch.no_grad():
        acc = sum((model(xte[i:i + 500]).argmax(1) == yte[i:i + 500]).sum().item()
                  for i in range(0, len(xte), 500)) / len(xte)
    print(f"epoch_seconds={min(times):.3f} test_accuracy={acc:.4f}")


if __name__ == "__main__":
    main()
