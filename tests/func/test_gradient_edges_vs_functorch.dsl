# Gradients at kinks, ties and non-finite points against PyTorch 1.13's functorch, in
# f64, under vmap(grad) and grad: abs, relu, clamp and hardtanh at their corners,
# maximum and minimum at ties (split evenly), max, min and median of all elements with
# ties (PyTorch's evenly_distribute_backward), prod with zeros, where with a NaN in the
# branch not taken, sqrt and pow at 0. Each check names the functorch call that gave its
# values (tests/func/functorch_checks.dsl compares them; NaN and inf must match too).

import "functorch_checks.dsl" as fc
let inp = fc.inp
let agree = fc.agree


test "gradients at kinks and ties (abs, relu, maximum, clamp, max, median, prod with zeros, where with NaN), under vmap" {
  let z = tensor([0.0, 1.0, -1.0, 2.0], dtype=f64)
  let w = tensor([0.0, 1.0, 0.5, 3.0], dtype=f64)
  # functorch: vmap(grad(lambda t: t.abs()))(z)
  agree(vmap(grad(fn(t) = t.abs()))(z), [[[4], [0.0, 1.0, -1.0, 1.0]]])
  # functorch: vmap(grad(lambda t: torch.relu(t)))(z)
  agree(vmap(grad(fn(t) = relu(t)))(z), [[[4], [0.0, 1.0, 0.0, 1.0]]])
  # functorch: vmap(grad(lambda t, u: torch.maximum(t, u), argnums=(0, 1)))(z, w)
  agree(vmap(grad(fn(t, u) = maximum(t, u), argnums=(0, 1)))(z, w), [[[4], [0.5, 0.5, 0.0, 0.0]], [[4], [0.5, 0.5, 1.0, 1.0]]])
  # functorch: vmap(grad(lambda t, u: torch.minimum(t, u), argnums=(0, 1)))(z, w)
  agree(vmap(grad(fn(t, u) = minimum(t, u), argnums=(0, 1)))(z, w), [[[4], [0.5, 0.5, 1.0, 1.0]], [[4], [0.5, 0.5, 0.0, 0.0]]])
  # functorch: vmap(grad(lambda t: t.clamp(0.0, 1.0)))(z)
  agree(vmap(grad(fn(t) = t.clamp(0.0, 1.0)))(z), [[[4], [1.0, 1.0, 0.0, 0.0]]])
  # functorch: vmap(grad(lambda t: torch.where(t > 0, t.sqrt(), torch.zeros(()))))(z)
  agree(vmap(grad(fn(t) = where(t > 0, t.sqrt(), zeros([], dtype=f64))))(z), [[[4], [float("nan"), 0.5, float("nan"), 0.35355339059327373]]])
  # functorch: vmap(grad(lambda t: t.sign() * t ** 2))(z)
  agree(vmap(grad(fn(t) = t.sign() * t ** 2))(z), [[[4], [0.0, 2.0, 2.0, 4.0]]])
  # functorch: vmap(grad(grad(lambda t: t.abs() ** 3)))(z)
  agree(vmap(grad(grad(fn(t) = t.abs() ** 3)))(z), [[[4], [0.0, 6.0, 6.0, 12.0]]])
  # functorch: grad(lambda v: torch.stack([v, v]).max())(torch.tensor(1.0, dtype=torch.float64))
  agree(grad(fn(v) = stack([v, v]).max())(tensor(1.0, dtype=f64)), [[[], [1.0]]])
  # functorch: grad(lambda v: v.max())(torch.tensor([1.0, 3.0, 3.0], dtype=torch.float64))
  agree(grad(fn(v) = v.max())(tensor([1.0, 3.0, 3.0], dtype=f64)), [[[3], [0.0, 0.5, 0.5]]])
  # functorch: grad(lambda v: v.amax())(torch.tensor([1.0, 3.0, 3.0], dtype=torch.float64))
  agree(grad(fn(v) = v.amax())(tensor([1.0, 3.0, 3.0], dtype=f64)), [[[3], [0.0, 0.5, 0.5]]])
  # functorch: grad(lambda v: v.norm())(torch.zeros(3, dtype=torch.float64))
  agree(grad(fn(v) = v.norm())(zeros(3, dtype=f64)), [[[3], [0.0, 0.0, 0.0]]])
  # functorch: vmap(grad(lambda t: t ** 0.5))(z.abs())
  agree(vmap(grad(fn(t) = t ** 0.5))(z.abs()), [[[4], [float("inf"), 0.5, 0.5, 0.35355339059327373]]])
  # functorch: vmap(grad(lambda t: F.leaky_relu(t, 0.1)))(z)
  agree(vmap(grad(fn(t) = leaky_relu(t, 0.1)))(z), [[[4], [0.1, 1.0, 0.1, 1.0]]])
  # functorch: vmap(grad(lambda t: t.round() + t.floor() * t))(z + 0.3)
  agree(vmap(grad(fn(t) = t.round() + t.floor() * t))(z + 0.3), [[[4], [0.0, 1.0, -1.0, 2.0]]])
  # functorch: grad(lambda v: v.median())(torch.tensor([1.0, 3.0, 2.0, 2.0], dtype=torch.float64))
  agree(grad(fn(v) = v.median())(tensor([1.0, 3.0, 2.0, 2.0], dtype=f64)), [[[4], [0.0, 0.0, 0.5, 0.5]]])
  # functorch: grad(lambda v: v.prod())(torch.tensor([1.0, 0.0, 2.0, 0.0], dtype=torch.float64))
  agree(grad(fn(v) = v.prod())(tensor([1.0, 0.0, 2.0, 0.0], dtype=f64)), [[[4], [0.0, 0.0, 0.0, 0.0]]])
  # functorch: grad(lambda v: v.prod())(torch.tensor([1.0, 0.0, 2.0, 3.0], dtype=torch.float64))
  agree(grad(fn(v) = v.prod())(tensor([1.0, 0.0, 2.0, 3.0], dtype=f64)), [[[4], [0.0, 6.0, 0.0, 0.0]]])
  # functorch: vmap(grad(lambda t: torch.atan2(t, t * 0)))(z)
  agree(vmap(grad(fn(t) = atan2(t, t * 0)))(z), [[[4], [float("nan"), 0.0, 0.0, 0.0]]])
  # functorch: grad(lambda v: torch.logsumexp(v, 0))(torch.tensor([float("-inf"), 0.0], dtype=torch.float64))
  agree(grad(fn(v) = logsumexp(v, 0))(tensor([float("-inf"), 0.0], dtype=f64)), [[[2], [0.0, 1.0]]])
  # functorch: grad(lambda v: v.min())(torch.tensor([2.0, 1.0, 1.0], dtype=torch.float64))
  agree(grad(fn(v) = v.min())(tensor([2.0, 1.0, 1.0], dtype=f64)), [[[3], [0.0, 0.5, 0.5]]])
}

test "median() and nanmedian() of all elements share the gradient among ties, and keep their value" {
  let nan = float("nan")
  # functorch: grad(lambda v: v.median())(torch.tensor([1.0, nan, 2.0, nan]))
  agree(grad(fn(v) = v.median())(tensor([1.0, nan, 2.0, nan], dtype=f64)), [[[4], [0.0, 0.5, 0.0, 0.5]]])
  # functorch: grad(lambda v: v.nanmedian())(torch.tensor([1.0, nan, 2.0, 2.0, 5.0]))
  agree(grad(fn(v) = v.nanmedian())(tensor([1.0, nan, 2.0, 2.0, 5.0], dtype=f64)), [[[5], [0.0, 0.0, 0.5, 0.5, 0.0]]])
  # functorch: vmap(grad(lambda v: v.median()))(torch.tensor([[1.0, 2.0, 2.0], [3.0, 3.0, 3.0]]))
  agree(vmap(grad(fn(v) = v.median()))(tensor([[1.0, 2.0, 2.0], [3.0, 3.0, 3.0]], dtype=f64)),
        [[[2, 3], [0.0, 0.5, 0.5, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333]]])
  # the value is the median itself, not three copies of it summed and divided
  expect(median(tensor([0.1, 0.1, 0.1, 5.0], dtype=f64)).item() == 0.1, "median(0.1, 0.1, 0.1, 5) != 0.1")
  expect(median(tensor([3, 1, 2])).dtype == i64, "median of ints keeps i64")
}
