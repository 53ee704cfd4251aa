"""Reference values for the function transforms, from PyTorch 1.13's functorch.

    /usr/bin/python3 scripts/reference/func_transforms.py

writes, in float64 with fixed seeds (the class targets are i64):

- tests/func/reference/transforms.safetensors: the tensors below, by name;
- tests/func/reference/transforms.json: each name with its shape and the exact call
  that made it (the `calls` dict of this script), for a reader of the tests;
- tests/func/reference/functional_call.safetensors: a model with batch norm, its own
  state and another state, and what torch.nn.utils.stateless.functional_call gives
  with the other state (tests/func/test_functional_call.dsl).

tests/func/models.dsl writes the same functions in the language, each taking a params
dict with the keys below (`models.params(ref, "mlp")` reads one from the file), and
tests/func/test_models_match.dsl checks their values and loss gradients against this file.

The functions (F is torch.nn.functional; every one is also in tests/func/models.dsl):

  mlp(p, x)        = tanh(x @ p["fc1.weight"].T + p["fc1.bias"]) @ p["fc2.weight"].T + p["fc2.bias"]
                     (8 -> 16 -> 4)
  mlp_loss(p, x, t) = F.cross_entropy(mlp(p, x), t)                  (the mean)
  mlp_loss_one(p, x, t) = mlp_loss(p, x[None], t[None])              (one sample)
  cnn(p, x)        = F.linear(relu(F.conv2d(x, p["conv.weight"], p["conv.bias"])).flatten(1),
                              p["fc.weight"], p["fc.bias"])          ([N,1,6,6] -> 3x4x4 -> 5)
  cnn_loss, cnn_loss_one: as the MLP's
  layer_norm_fn(x, w, b) = F.layer_norm(x, [5], w, b, eps=1e-5)      (x [3, 5])
  softmax_ce(logits, t)  = F.cross_entropy(logits, t)                (logits [2, 3])
  two_arg(x, y)    = (sin(x) * y**2).sum() + (x * y).exp().sum()     (x, y [3])
  vmap_f(x)        = (x @ W).tanh().sum(),  W = "vmap.W" [4, 3]
  vmap_g(x, W)     = (x @ W).tanh().sum()
  vmap_h(x)        = (x @ W).tanh()                                  (a [3] output)

Each tensor's name says what it is; `calls` below gives the functorch call. How the
language's tests call the same transform (grad(f, argnums=0, has_aux=false) returns a
function; vjp(f, *primals) -> (out, vjp_fn); jvp(f, primals, tangents) -> (out,
tangent_out); jacrev/jacfwd(f, argnums=0); hessian(f, argnums=0); hvp(f, primals,
tangents) -> (out, hvp); vmap(f, in_dims=0, out_dims=0); a dict argument gives a dict
result with the same keys):

With ref = load("tests/func/reference/transforms.safetensors"), p =
models.params(ref, "mlp"), x = ref["mlp.x"], t = ref["mlp.targets"] (likewise for
"cnn"); a dict result compares with models.prefixed(ref, "mlp.grad."). The functions
of today's tensor grad give every value below within rtol=1e-9 (models_match.dsl).

  mlp.out, mlp.loss       models.mlp(p, x), models.mlp_loss(p, x, t)
  mlp.grad.*              grad(fn(p) = models.mlp_loss(p, x, t))(p)
  mlp.per_sample_grads.*  vmap(grad(models.mlp_loss_one), in_dims=(none, 0, 0))(p, x, t)
  mlp.jacrev, mlp.jacfwd  jacrev(fn(r) = models.mlp(p, r.unsqueeze(0))[0])(mlp.x_row)   (and jacfwd; x_row = x[0])
  mlp.hessian_fc1_bias    hessian(fn(b) = models.mlp_loss(models.with_key(p, "fc1.bias", b), x, t))(p["fc1.bias"])
  mlp.jvp.*               jvp(fn(x) = models.mlp(p, x), (x,), (mlp.jvp.tangent,))
  mlp.jvp_params.*        jvp(fn(q) = models.mlp(q, x), (p,), (tangent dict mlp.jvp_params.tangent.*,))
  mlp.vjp.*               let (out, f) = vjp(fn(x) = models.mlp(p, x), x); f(mlp.vjp.cotangent)
  mlp.hvp.*               hvp(fn(b) = models.mlp_loss(models.with_key(p, "fc1.bias", b), x, t), (b,), (mlp.hvp.vector,))
  cnn.*                   the same for the CNN (cnn.x_row is one image, [1, 6, 6]; the Hessian is
                          w.r.t. fc.bias, the hvp w.r.t. conv.bias)
  layer_norm.jacrev_x     jacrev(models.layer_norm_fn)(x, w, b)      [3, 5, 3, 5]
  layer_norm.jacrev_w     jacrev(models.layer_norm_fn, argnums=1)(x, w, b)   [3, 5, 5]
  layer_norm.jvp.*        jvp(models.layer_norm_fn, (x, w, b), (tx, tw, tb))
  softmax_ce.grad         grad(models.softmax_ce)(logits, t)
  softmax_ce.hessian      hessian(models.softmax_ce)(logits, t)      [2, 3, 2, 3]
                          (PyTorch made this one, and the networks' Hessians, as jacrev of
                          jacrev: 1.13 has no forward rule for log_softmax's backward, which
                          functorch.hessian's jacfwd needs; same values)
  softmax.jacrev          jacrev(fn(z) = softmax(z, dim=-1))(softmax.z)   [3, 3]
  two_arg.grad_x/_y       grad(models.two_arg, argnums=(0, 1))(x, y)
  two_arg.hessian_xx/xy/yx/yy  hessian(models.two_arg, argnums=(0, 1))(x, y): ((xx, xy), (yx, yy))
  two_arg.jvp.*           jvp(models.two_arg, (x, y), (tx, ty))
  two_arg.vjp.*           let (out, f) = vjp(models.two_arg, x, y); f(two_arg.vjp.cotangent)  (a 0-d tensor)
  two_arg.jacfwd_x/_y     jacfwd(models.two_arg, argnums=(0, 1))(x, y)
  (vmap_f, vmap_h: `let (vmap_f, vmap_h) = models.vmap_functions(ref["vmap.W"])`)
  vmap.f                  vmap(vmap_f)(vmap.X)                              [5]
  vmap.g_in_dims_0_none   vmap(models.vmap_g, in_dims=(0, none))(vmap.X, vmap.W)   [5]
  vmap.f_in_dims_1        vmap(vmap_f, in_dims=1)(vmap.XT)                  [5]
  vmap.h_out_dims_1       vmap(vmap_h, out_dims=1)(vmap.X)                  [3, 5]
  vmap.nested             vmap(vmap(vmap_f))(vmap.X3)                       [2, 5]
"""
import json
import pathlib
import sys

import functorch
import torch
import torch.nn.functional as F

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from safetensors_file import write_safetensors  # noqa: E402

OUT_DIR = pathlib.Path(__file__).parents[2] / "tests" / "func" / "reference"

tensors = {}  # name -> tensor, written in this order
calls = {}    # name (or name prefix) -> the functorch call that made it


def put(name, value, call=None):
    """Stores a tensor, or each tensor of a dict or tuple under name.key / name.k."""
    if isinstance(value, dict):
        for k, v in value.items():
            put(f"{name}.{k}", v)
    elif isinstance(value, (tuple, list)):
        for k, v in enumerate(value):
            put(f"{name}.{k}", v)
    else:
        tensors[name] = value.detach().clone()
    if call:
        calls[name] = call


def hessian(f, argnums=0):
    """functorch.hessian(f, argnums) (jacfwd over jacrev); where this PyTorch lacks a
    forward-mode rule on the way (1.13 has none for log_softmax's backward, which the
    cross-entropy Hessians meet), jacrev over jacrev: the same second derivatives.
    """
    def value(*args):
        try:
            return functorch.hessian(f, argnums)(*args)
        except NotImplementedError:
            return functorch.jacrev(functorch.jacrev(f, argnums), argnums)(*args)
    return value


def with_key(p, key, value):
    q = dict(p)
    q[key] = value
    return q


# ---- the functions (the same math as tests/func/models.dsl) ----------------------------

def mlp(p, x):
    return torch.tanh(x @ p["fc1.weight"].T + p["fc1.bias"]) @ p["fc2.weight"].T + p["fc2.bias"]


def mlp_loss(p, x, t):
    return F.cross_entropy(mlp(p, x), t)


def mlp_loss_one(p, x, t):
    return mlp_loss(p, x[None], t[None])


def cnn(p, x):
    h = torch.relu(F.conv2d(x, p["conv.weight"], p["conv.bias"]))
    return F.linear(h.flatten(1), p["fc.weight"], p["fc.bias"])


def cnn_loss(p, x, t):
    return F.cross_entropy(cnn(p, x), t)


def cnn_loss_one(p, x, t):
    return cnn_loss(p, x[None], t[None])


def layer_norm_fn(x, w, b):
    return F.layer_norm(x, [x.shape[-1]], w, b, eps=1e-5)


def softmax_ce(logits, t):
    return F.cross_entropy(logits, t)


def two_arg(x, y):
    return (torch.sin(x) * y**2).sum() + (x * y).exp().sum()


# ---- the references ---------------------------------------------------------------------

def network_references(name, forward, loss, loss_one, p, x, t, hess_key, hvp_key):
    """The transforms of one network (the MLP or the CNN), under `name.`."""
    put(f"{name}.params", p)
    put(f"{name}.x", x)
    put(f"{name}.targets", t)
    put(f"{name}.out", forward(p, x), f"{name}(p, x)")
    put(f"{name}.loss", loss(p, x, t), f"{name}_loss(p, x, t)")
    put(f"{name}.grad", functorch.grad(loss)(p, x, t), f"functorch.grad({name}_loss)(p, x, t)")
    put(f"{name}.per_sample_grads", functorch.vmap(functorch.grad(loss_one), in_dims=(None, 0, 0))(p, x, t),
        f"functorch.vmap(functorch.grad({name}_loss_one), in_dims=(None, 0, 0))(p, x, t)")
    row = x[0]
    put(f"{name}.x_row", row)
    one = lambda r: forward(p, r[None])[0]  # noqa: E731
    put(f"{name}.jacrev", functorch.jacrev(one)(row), f"functorch.jacrev(lambda r: {name}(p, r[None])[0])(x[0])")
    put(f"{name}.jacfwd", functorch.jacfwd(one)(row), f"functorch.jacfwd(lambda r: {name}(p, r[None])[0])(x[0])")
    of_key = lambda v: loss(with_key(p, hess_key, v), x, t)  # noqa: E731
    put(f"{name}.hessian_{hess_key.replace('.', '_')}", hessian(of_key)(p[hess_key]),
        f"functorch.jacrev(functorch.jacrev(lambda v: {name}_loss(p with {hess_key} = v, x, t)))(p['{hess_key}'])"
        " (functorch.hessian's jacfwd meets log_softmax's backward, which has no forward rule in 1.13)")
    tangent = torch.randn_like(x)
    out, tangent_out = functorch.jvp(lambda x_: forward(p, x_), (x,), (tangent,))
    put(f"{name}.jvp.tangent", tangent)
    put(f"{name}.jvp.out", out)
    put(f"{name}.jvp.tangent_out", tangent_out,
        f"functorch.jvp(lambda x: {name}(p, x), (x,), ({name}.jvp.tangent,))")
    param_tangent = {k: torch.randn_like(v) for k, v in p.items()}
    out, tangent_out = functorch.jvp(lambda q: forward(q, x), (p,), (param_tangent,))
    put(f"{name}.jvp_params.tangent", param_tangent)
    put(f"{name}.jvp_params.tangent_out", tangent_out,
        f"functorch.jvp(lambda q: {name}(q, x), (p,), ({name}.jvp_params.tangent,))")
    out, vjp_fn = functorch.vjp(lambda x_: forward(p, x_), x)
    cotangent = torch.randn_like(out)
    put(f"{name}.vjp.cotangent", cotangent)
    put(f"{name}.vjp.grad_x", vjp_fn(cotangent)[0],
        f"functorch.vjp(lambda x: {name}(p, x), x)[1]({name}.vjp.cotangent)[0]")
    vector = torch.randn_like(p[hvp_key])
    of_hvp_key = lambda v: loss(with_key(p, hvp_key, v), x, t)  # noqa: E731
    value, hvp = torch.autograd.functional.hvp(of_hvp_key, p[hvp_key], vector)
    put(f"{name}.hvp.vector", vector)
    put(f"{name}.hvp.value", value)
    put(f"{name}.hvp.hvp", hvp,
        f"torch.autograd.functional.hvp(lambda v: {name}_loss(p with {hvp_key} = v, x, t), p['{hvp_key}'], "
        f"{name}.hvp.vector)")


def mlp_references():
    torch.manual_seed(38)
    p = {"fc1.weight": torch.randn(16, 8) / 8**0.5, "fc1.bias": torch.randn(16) * 0.1,
         "fc2.weight": torch.randn(4, 16) / 16**0.5, "fc2.bias": torch.randn(4) * 0.1}
    x = torch.randn(5, 8)
    t = torch.tensor([0, 3, 1, 2, 3])
    network_references("mlp", mlp, mlp_loss, mlp_loss_one, p, x, t, "fc1.bias", "fc1.bias")


def cnn_references():
    torch.manual_seed(39)
    p = {"conv.weight": torch.randn(3, 1, 3, 3) / 3, "conv.bias": torch.randn(3) * 0.1,
         "fc.weight": torch.randn(5, 48) / 48**0.5, "fc.bias": torch.randn(5) * 0.1}
    x = torch.randn(4, 1, 6, 6)
    t = torch.tensor([4, 0, 2, 1])
    network_references("cnn", cnn, cnn_loss, cnn_loss_one, p, x, t, "fc.bias", "conv.bias")


def layer_norm_references():
    torch.manual_seed(40)
    x, w, b = torch.randn(3, 5), 1 + 0.3 * torch.randn(5), 0.1 * torch.randn(5)
    put("layer_norm.x", x)
    put("layer_norm.weight", w)
    put("layer_norm.bias", b)
    put("layer_norm.out", layer_norm_fn(x, w, b), "layer_norm_fn(x, w, b)")
    put("layer_norm.jacrev_x", functorch.jacrev(layer_norm_fn)(x, w, b), "functorch.jacrev(layer_norm_fn)(x, w, b)")
    put("layer_norm.jacrev_w", functorch.jacrev(layer_norm_fn, argnums=1)(x, w, b),
        "functorch.jacrev(layer_norm_fn, argnums=1)(x, w, b)")
    tangents = (torch.randn(3, 5), torch.randn(5), torch.randn(5))
    out, tangent_out = functorch.jvp(layer_norm_fn, (x, w, b), tangents)
    put("layer_norm.jvp.tangent_x", tangents[0])
    put("layer_norm.jvp.tangent_w", tangents[1])
    put("layer_norm.jvp.tangent_b", tangents[2])
    put("layer_norm.jvp.tangent_out", tangent_out,
        "functorch.jvp(layer_norm_fn, (x, w, b), (tangent_x, tangent_w, tangent_b))")


def softmax_references():
    torch.manual_seed(41)
    logits, t = torch.randn(2, 3), torch.tensor([2, 0])
    put("softmax_ce.logits", logits)
    put("softmax_ce.targets", t)
    put("softmax_ce.loss", softmax_ce(logits, t), "softmax_ce(logits, t)")
    put("softmax_ce.grad", functorch.grad(softmax_ce)(logits, t), "functorch.grad(softmax_ce)(logits, t)")
    put("softmax_ce.hessian", hessian(softmax_ce)(logits, t),
        "functorch.jacrev(functorch.jacrev(softmax_ce))(logits, t) (functorch.hessian needs a forward rule for "
        "log_softmax's backward, which 1.13 lacks)")
    z = torch.randn(3)
    put("softmax.z", z)
    put("softmax.jacrev", functorch.jacrev(lambda z_: torch.softmax(z_, dim=-1))(z),
        "functorch.jacrev(lambda z: torch.softmax(z, dim=-1))(z)")


def two_arg_references():
    torch.manual_seed(42)
    x, y = torch.randn(3), torch.randn(3)
    put("two_arg.x", x)
    put("two_arg.y", y)
    put("two_arg.value", two_arg(x, y), "two_arg(x, y)")
    gx, gy = functorch.grad(two_arg, argnums=(0, 1))(x, y)
    put("two_arg.grad_x", gx)
    put("two_arg.grad_y", gy, "functorch.grad(two_arg, argnums=(0, 1))(x, y)")
    (hxx, hxy), (hyx, hyy) = hessian(two_arg, argnums=(0, 1))(x, y)
    for name, h in (("xx", hxx), ("xy", hxy), ("yx", hyx), ("yy", hyy)):
        put(f"two_arg.hessian_{name}", h)
    calls["two_arg.hessian_*"] = "functorch.hessian(two_arg, argnums=(0, 1))(x, y) = ((xx, xy), (yx, yy))"
    tx, ty = torch.randn(3), torch.randn(3)
    out, tangent_out = functorch.jvp(two_arg, (x, y), (tx, ty))
    put("two_arg.jvp.tangent_x", tx)
    put("two_arg.jvp.tangent_y", ty)
    put("two_arg.jvp.tangent_out", tangent_out, "functorch.jvp(two_arg, (x, y), (tangent_x, tangent_y))")
    out, vjp_fn = functorch.vjp(two_arg, x, y)
    cotangent = torch.tensor(1.5)
    vx, vy = vjp_fn(cotangent)
    put("two_arg.vjp.cotangent", cotangent)
    put("two_arg.vjp.grad_x", vx)
    put("two_arg.vjp.grad_y", vy, "functorch.vjp(two_arg, x, y)[1](cotangent)")
    fx, fy = functorch.jacfwd(two_arg, argnums=(0, 1))(x, y)
    put("two_arg.jacfwd_x", fx)
    put("two_arg.jacfwd_y", fy, "functorch.jacfwd(two_arg, argnums=(0, 1))(x, y)")


def vmap_references():
    torch.manual_seed(43)
    W, X, X3 = torch.randn(4, 3), torch.randn(5, 4), torch.randn(2, 5, 4)
    f = lambda x: (x @ W).tanh().sum()  # noqa: E731
    g = lambda x, W_: (x @ W_).tanh().sum()  # noqa: E731
    h = lambda x: (x @ W).tanh()  # noqa: E731
    put("vmap.W", W)
    put("vmap.X", X)
    put("vmap.XT", X.T.contiguous())
    put("vmap.X3", X3)
    put("vmap.f", functorch.vmap(f)(X), "functorch.vmap(vmap_f)(X)")
    put("vmap.g_in_dims_0_none", functorch.vmap(g, in_dims=(0, None))(X, W),
        "functorch.vmap(vmap_g, in_dims=(0, None))(X, W)")
    put("vmap.f_in_dims_1", functorch.vmap(f, in_dims=1)(X.T.contiguous()), "functorch.vmap(vmap_f, in_dims=1)(XT)")
    put("vmap.h_out_dims_1", functorch.vmap(h, out_dims=1)(X), "functorch.vmap(vmap_h, out_dims=1)(X)")
    put("vmap.nested", functorch.vmap(functorch.vmap(f))(X3), "functorch.vmap(functorch.vmap(vmap_f))(X3)")
    # a reverse transform inside a jvp inside vmap (nabla's reverse level)
    V = torch.randn(5, 4)
    put("vmap.V", V)
    put("vmap.hessians", functorch.vmap(functorch.jacfwd(functorch.jacrev(f)))(X),
        "functorch.vmap(functorch.jacfwd(functorch.jacrev(vmap_f)))(X)")
    jvp_of_grad = lambda x, v: functorch.jvp(functorch.grad(f), (x,), (v,))[1]  # noqa: E731
    put("vmap.jvp_of_grad", functorch.vmap(jvp_of_grad)(X, V),
        "functorch.vmap(lambda x, v: functorch.jvp(functorch.grad(vmap_f), (x,), (v,))[1])(X, V)")


# ---- functional_call ----------------------------------------------------------------------

class BatchNormNet(torch.nn.Module):
    """tests/func/test_functional_call.dsl's Net: Linear(4, 6), BatchNorm1d(6), tanh, Linear(6, 3)."""

    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 6)
        self.bn = torch.nn.BatchNorm1d(6)
        self.fc2 = torch.nn.Linear(6, 3)

    def forward(self, x):
        return self.fc2(torch.tanh(self.bn(self.fc1(x))))


def functional_call_references():
    """The net's own state_dict under own.*, another state under other.* (what the dict
    gives), the outputs in training mode (the dict's running statistics move, as
    PyTorch updates the tensors it was given) and in eval mode, the dict's buffers after
    the training call, and the gradient of out_train.sum() w.r.t. the dict's parameters."""
    torch.manual_seed(44)
    net = BatchNormNet()
    other = {k: (v + 0.3 * torch.randn_like(v)) if v.is_floating_point() else v.clone()
             for k, v in net.state_dict().items()}
    other["bn.running_var"] = other["bn.running_var"].abs() + 0.5
    own = {k: v.clone() for k, v in net.state_dict().items()}
    x = torch.randn(7, 4)
    out = {"input": x, "out_own": net.eval()(x)}
    params = {k: v.clone().requires_grad_(k in dict(net.named_parameters())) for k, v in other.items()}
    out["out_other_eval"] = torch.nn.utils.stateless.functional_call(net.eval(), params, (x,))
    net.train()
    y = torch.nn.utils.stateless.functional_call(net, params, (x,))
    out["out_other_train"] = y
    grads = torch.autograd.grad(y.sum(), [params[k] for k, _ in net.named_parameters()])
    for (k, _), g in zip(net.named_parameters(), grads):
        out[f"grad.{k}"] = g
    for k in ("bn.running_mean", "bn.running_var", "bn.num_batches_tracked"):
        out[f"after_train.{k}"] = params[k]
    assert all(torch.equal(v, own[k]) for k, v in net.state_dict().items()), "functional_call changed the net"
    written = {f"own.{k}": v for k, v in own.items()}
    written.update({f"other.{k}": v for k, v in other.items()})
    written.update(out)
    write_safetensors(OUT_DIR / "functional_call.safetensors", written)
    return written


def check_consistency():
    """What must hold between the references whatever the transform's implementation:
    jacrev == jacfwd, Hessians symmetric, jvp == J @ tangent, vjp == cotangent @ J."""
    close = lambda a, b: torch.allclose(a, b, rtol=1e-10, atol=1e-12)  # noqa: E731
    for net in ("mlp", "cnn"):
        assert close(tensors[f"{net}.jacrev"], tensors[f"{net}.jacfwd"])
    for name in ("mlp.hessian_fc1_bias", "cnn.hessian_fc_bias"):
        assert close(tensors[name], tensors[name].T)
    h = tensors["softmax_ce.hessian"].reshape(6, 6)
    assert close(h, h.T)
    assert close(tensors["two_arg.hessian_xy"], tensors["two_arg.hessian_yx"].T)
    assert close(tensors["mlp.hvp.hvp"], tensors["mlp.hessian_fc1_bias"] @ tensors["mlp.hvp.vector"])
    j = tensors["layer_norm.jacrev_x"].reshape(15, 15)
    assert close(tensors["layer_norm.jvp.tangent_out"].reshape(15), j @ tensors["layer_norm.jvp.tangent_x"].reshape(15)
                 + tensors["layer_norm.jacrev_w"].reshape(15, 5) @ tensors["layer_norm.jvp.tangent_w"]
                 + tensors["layer_norm.jvp.tangent_b"].repeat(3))
    assert close(tensors["two_arg.vjp.grad_x"], 1.5 * tensors["two_arg.grad_x"])
    assert close(tensors["two_arg.jacfwd_y"], tensors["two_arg.grad_y"])


def main():
    torch.set_default_dtype(torch.float64)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    mlp_references()
    cnn_references()
    layer_norm_references()
    softmax_references()
    two_arg_references()
    vmap_references()
    check_consistency()
    write_safetensors(OUT_DIR / "transforms.safetensors", tensors)
    manifest = {"tensors": {k: list(v.shape) for k, v in tensors.items()}, "calls": calls,
                "torch": torch.__version__}
    (OUT_DIR / "transforms.json").write_text(json.dumps(manifest, indent=1) + "\n")
    fc = functional_call_references()
    print(f"wrote {len(tensors)} tensors to transforms.safetensors, {len(fc)} to functional_call.safetensors")


if __name__ == "__main__":
    main()
