# The functions whose transforms tests/func/reference/transforms.safetensors holds,
# written as scripts/reference/func_transforms.py writes them for PyTorch (see its
# docstring for each reference's functorch call and the language's equivalent). The
# networks take a params dict keyed as a state_dict ("fc1.weight", ...), so a
# transform can run over the parameters. Import it:
#
#   import "models.dsl" as models
#   let ref = load("tests/func/reference/transforms.safetensors")
#   let p = models.params(ref, "mlp")
#   models.mlp_loss(p, ref["mlp.x"], ref["mlp.targets"])

# The tensors of `ref` named "<prefix>.params.<key>", as a dict keyed by <key>.
fn params(ref, prefix) = prefixed(ref, prefix + ".params.")

# The tensors of `ref` whose names start with `start`, keyed by the rest of the name
# ("mlp.grad." gives {"fc1.weight": ..., ...}).
fn prefixed(ref, start) {
  let out = {}
  for (name, t) in ref.items() {
    if name.startswith(start) { out[name[len(start):]] = t }
  }
  return out
}

# A copy of the dict p with p[key] = value: a function of one parameter tensor.
fn with_key(p, key, value) {
  let q = p.copy()
  q[key] = value
  return q
}

# 8 -> 16 -> 4, tanh.
fn mlp(p, x) = tanh(x @ p["fc1.weight"].T + p["fc1.bias"]) @ p["fc2.weight"].T + p["fc2.bias"]
fn mlp_loss(p, x, t) = cross_entropy(mlp(p, x), t)
# One sample: x of shape [8], t a 0-d class index.
fn mlp_loss_one(p, x, t) = mlp_loss(p, x.unsqueeze(0), t.unsqueeze(0))

# conv2d 1 -> 3 (3x3), relu, flatten, linear 48 -> 5; x of shape [N, 1, 6, 6].
fn cnn(p, x) {
  let h = relu(conv2d(x, p["conv.weight"], p["conv.bias"]))
  return linear(h.flatten(1), p["fc.weight"], p["fc.bias"])
}
fn cnn_loss(p, x, t) = cross_entropy(cnn(p, x), t)
fn cnn_loss_one(p, x, t) = cnn_loss(p, x.unsqueeze(0), t.unsqueeze(0))

# Normalized over the last dim, with weight and bias.
fn layer_norm_fn(x, w, b) = layer_norm(x, [x.shape[-1]], weight=w, bias=b, eps=1e-5)

fn softmax_ce(logits, t) = cross_entropy(logits, t)

# A scalar function of two 3-vectors.
fn two_arg(x, y) = (sin(x) * y ** 2).sum() + (x * y).exp().sum()

# The vmap references' functions: W is the reference's "vmap.W" (f and h close over it).
fn vmap_g(x, W) = (x @ W).tanh().sum()
fn vmap_functions(W) = (fn(x) = vmap_g(x, W), fn(x) = (x @ W).tanh())
