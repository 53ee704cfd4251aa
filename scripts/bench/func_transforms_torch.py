"""PyTorch's side of the func_transforms figure (scripts/bench/bench.py): the functions
and sizes of scripts/bench/func_transforms.dsl, with PyTorch 1.13's functorch (vmap,
grad, hessian, jacrev, jacfwd, jvp). Prints one line of <case>=<median milliseconds>."""
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F
from functorch import grad, hessian, jacfwd, jacrev, jvp, vmap

torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", torch.get_num_threads())))
iterations = int(sys.argv[1]) if len(sys.argv) > 1 else 20
torch.manual_seed(0)


def median_ms(f):
    f()
    times = []
    for _ in range(iterations):
        t0 = time.perf_counter()
        f()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


# The Fashion-MNIST MLP, 784-256-128-10.
p = {"w1": torch.randn(256, 784) * 0.036, "b1": torch.zeros(256), "w2": torch.randn(128, 256) * 0.0625,
     "b2": torch.zeros(128), "w3": torch.randn(10, 128) * 0.088, "b3": torch.zeros(10)}


def mlp(p, x):
    h = F.relu(F.linear(x, p["w1"], p["b1"]))
    return F.linear(F.relu(F.linear(h, p["w2"], p["b2"])), p["w3"], p["b3"])


def example_loss(p, x, t):
    return F.cross_entropy(mlp(p, x.unsqueeze(0)), t.unsqueeze(0))


x = torch.randn(64, 784)
targets = torch.randint(0, 10, (64,))
per_example = vmap(grad(example_loss), in_dims=(None, 0, 0))
example_grad = grad(example_loss)


def grad_loop():
    for i in range(64):
        example_grad(p, x[i], targets[i])


def grad_loop_stacked():
    """The loop of functorch's per-sample-gradient tutorial: every example's gradients
    kept, then stacked into vmap's layout."""
    per = [example_grad(p, x[i], targets[i]) for i in range(64)]
    return {k: torch.stack([g[k] for g in per]) for k in p}


v = torch.randn(64, 784)


def mlp_of_x(x):
    return mlp(p, x)


# A tanh MLP with 64 parameters: 4 -> 8 (weight and bias, 40) -> 3 (weight, 24).
hx, hy = torch.randn(16, 4), torch.randn(16, 3)


def small_loss(theta):
    w1, b1, w2 = theta[0:32].reshape(8, 4), theta[32:40], theta[40:64].reshape(3, 8)
    return F.mse_loss(F.linear(torch.tanh(F.linear(hx, w1, b1)), w2), hy)


theta = torch.randn(64) * 0.5

# A 256 -> 256 map.
W, b = torch.randn(256, 256) * 0.0625, torch.randn(256) * 0.1


def layer(x):
    return torch.tanh(W @ x + b)


x256 = torch.randn(256)

with torch.no_grad():
    forward_ms = median_ms(lambda: mlp_of_x(x))
results = {
    "persample_vmap": median_ms(lambda: per_example(p, x, targets)),
    "persample_loop": median_ms(grad_loop),
    "persample_loop_stacked": median_ms(grad_loop_stacked),
    "hessian": median_ms(lambda: hessian(small_loss)(theta)),
    "jacrev": median_ms(lambda: jacrev(layer)(x256)),
    "jacfwd": median_ms(lambda: jacfwd(layer)(x256)),
    "jvp": median_ms(lambda: jvp(mlp_of_x, (x,), (v,))),
    "forward": forward_ms,
}
print(" ".join(f"{k}={ms:.4f}" for k, ms in results.items()))
