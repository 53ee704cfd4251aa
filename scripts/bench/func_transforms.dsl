# nabla's side of the func_transforms figure (scripts/bench/bench.py); PyTorch's is
# scripts/bench/func_transforms_torch.py, with the same functions and sizes. Prints one
# line of <case>=<median milliseconds per call>:
#   persample_vmap, persample_loop  per-example gradients of the 784-256-128-10 MLP at
#                                   batch 64 (a params dict): vmap(grad(loss)) against a
#                                   loop of grad over the 64 examples (each result
#                                   dropped before the next is made)
#   persample_loop_stacked          the loop keeping every example's gradients and
#                                   stacking them into vmap's layout (functorch's
#                                   per-sample-gradient tutorial)
#   hessian        hessian of a tanh MLP's loss in its 64 parameters (one flat vector)
#   jacrev, jacfwd the Jacobian of x -> tanh(W x + b), 256 -> 256
#   jvp, forward   jvp of the MLP at batch 64 (tangent for the input), and its forward
#   nabla scripts/bench/func_transforms.dsl [iterations]
import time

let iterations = int(args[0]) if len(args) > 0 else 20
manual_seed(0)

# The median milliseconds of `iterations` calls of f, after one warm-up call.
fn median_ms(f) {
  f()
  let times = []
  for i in range(iterations) {
    let t0 = time.perf_counter()
    f()
    times.append((time.perf_counter() - t0) * 1e3)
  }
  return sorted(times)[len(times) // 2]
}

# ---- the Fashion-MNIST MLP, 784-256-128-10 ----
let p = {"w1": randn([256, 784]) * 0.036, "b1": zeros([256]), "w2": randn([128, 256]) * 0.0625,
         "b2": zeros([128]), "w3": randn([10, 128]) * 0.088, "b3": zeros([10])}
fn mlp(p, x) = linear(relu(linear(relu(linear(x, p["w1"], p["b1"])), p["w2"], p["b2"])), p["w3"], p["b3"])
fn example_loss(p, x, t) = cross_entropy(mlp(p, x.unsqueeze(0)), t.unsqueeze(0))
let x = randn([64, 784])
let targets = randint(0, 10, [64])
let per_example = vmap(grad(example_loss), in_dims=(none, 0, 0))
let example_grad = grad(example_loss)
fn grad_loop() {
  for i in range(64) { example_grad(p, x[i], targets[i]) }
}
# The loop as functorch's per-sample-gradient tutorial writes it: every example's
# gradients kept, then stacked into vmap's layout.
fn grad_loop_stacked() {
  let per = []
  for i in range(64) { per.append(example_grad(p, x[i], targets[i])) }
  let out = {}
  for k in p.keys() { out[k] = stack([g[k] for g in per]) }
  return out
}
let v = randn([64, 784])
fn mlp_of_x(x) = mlp(p, x)

# ---- a tanh MLP with 64 parameters: 4 -> 8 (weight and bias, 40) -> 3 (weight, 24) ----
let hx = randn([16, 4])
let hy = randn([16, 3])
fn small_loss(theta) {
  let w1 = theta[0:32].reshape([8, 4])
  let b1 = theta[32:40]
  let w2 = theta[40:64].reshape([3, 8])
  return mse_loss(linear(tanh(linear(hx, w1, b1)), w2), hy)
}
let theta = randn([64]) * 0.5

# ---- a 256 -> 256 map ----
let W = randn([256, 256]) * 0.0625
let b = randn([256]) * 0.1
fn layer(x) = tanh(W @ x + b)
let x256 = randn([256])

let results = {
  "persample_vmap": median_ms(fn() = per_example(p, x, targets)),
  "persample_loop": median_ms(grad_loop),
  "persample_loop_stacked": median_ms(grad_loop_stacked),
  "hessian": median_ms(fn() = hessian(small_loss)(theta)),
  "jacrev": median_ms(fn() = jacrev(layer)(x256)),
  "jacfwd": median_ms(fn() = jacfwd(layer)(x256)),
  "jvp": median_ms(fn() = jvp(mlp_of_x, (x,), (v,))),
  "forward": median_ms(fn() = mlp_of_x(x)),
}
let fields = []
for (k, ms) in results.items() { fields.append(f"{k}={ms:.4f}") }
print(" ".join(fields))
