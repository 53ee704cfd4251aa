# Round 7 against PyTorch 1.13: torch.autograd.functional's jacobian, hessian, vjp, jvp,
# hvp and vhp (`import autograd`, stdlib/_autograd_functional.dsl, Note
# [autograd.functional over the transforms]), for a tensor and a tuple of inputs, with
# create_graph both ways. Each check loads tests/stdlib/reference/vs_torch7.safetensors
# (written by tests/stdlib/reference/make_vs_torch7.py, where each case's torch call is,
# under the same name): with create_graph=true the gradients of the first result are
# second (or third) derivatives, compared too; with false the results are detached.
import autograd
import "vs_torch5_check.inc" as v5

let ref = load("tests/stdlib/reference/vs_torch7.safetensors")
let F = autograd.functional
let v3 = ref["af.v"]

fn cube(a) = a ** 3 * a.sin()
fn two(a, b) = (a * b.exp(), (a ** 2 * b).sum())
fn scalar2(a, b) = (a ** 3 * b + b.sin() * a).sum()

# The results as make_layer_options.record lists them: a tuple's entries in place.
fn flat(result) {
  let out = []
  for r in result {
    if type(r) == "tensor" { out.append(r) } else { for t in r { out.append(t) } }
  }
  return out
}
fn reversed_pair(p) = [p[1], p[0]]

fn check(name, n, f, cg) {
  v5.check_in(ref, name, n, fn(xs) = f(xs), 1e-10, 1e-12)
  if not cg {
    let xs = [ref[f"{name}.x{k}"].clone().requires_grad_(true) for k in range(n)]
    for y in f(xs) { expect(not y.requires_grad, f"{name}: a result needs no grad without create_graph") }
  }
}

test "jacobian and hessian of a tensor and of a tuple of inputs, create_graph both ways" {
  for cg in [true, false] {
    let tag = "cg" if cg else "nocg"
    check(f"af_jacobian_{tag}", 1, fn(xs) = [F.jacobian(cube, xs[0], create_graph=cg)], cg)
    check(f"af_jacobian_tuple_{tag}", 2, fn(xs) = flat(F.jacobian(two, (xs[0], xs[1]), create_graph=cg)), cg)
    check(f"af_hessian_{tag}", 1, fn(xs) = [F.hessian(fn(t) = cube(t).sum(), xs[0], create_graph=cg)], cg)
    check(f"af_hessian_tuple_{tag}", 2, fn(xs) = flat(F.hessian(scalar2, (xs[0], xs[1]), create_graph=cg)), cg)
  }
}

test "vjp, jvp, hvp and vhp, create_graph both ways, and v left out for one element" {
  for cg in [true, false] {
    let tag = "cg" if cg else "nocg"
    check(f"af_vjp_{tag}", 1, fn(xs) = reversed_pair(F.vjp(cube, xs[0], v3, create_graph=cg)), cg)
    check(f"af_jvp_{tag}", 1, fn(xs) = reversed_pair(F.jvp(cube, xs[0], v3, create_graph=cg)), cg)
    check(f"af_hvp_{tag}", 2, fn(xs) = flat(reversed_pair(F.hvp(scalar2, (xs[0], xs[1]), (v3, v3), create_graph=cg))), cg)
    check(f"af_vhp_{tag}", 2, fn(xs) = flat(reversed_pair(F.vhp(scalar2, (xs[0], xs[1]), (v3, v3), create_graph=cg))), cg)
  }
  check("af_vjp_scalar", 1, fn(xs) = reversed_pair(F.vjp(fn(t) = cube(t).sum(), xs[0], create_graph=true)), true)
}

test "autograd.grad is the builtin grad" {
  let x = tensor([1.0, 2.0], dtype=f64, requires_grad=true)
  let (g,) = autograd.grad((x * x).sum(), [x])
  expect_close(g, 2.0 * x.detach())
}
