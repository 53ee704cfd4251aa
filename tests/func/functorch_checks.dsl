# The comparisons of tests/func/test_transforms_vs_functorch.dsl. Import it:
#
#   import "functorch_checks.dsl" as fc
#   fc.agree(vmap(f)(fc.inp([4, 3], 0.1)), [[[4, 3], [...]]])

# sin(arange(n) * 0.37 + k) in the given shape.
fn inp(shape, k) {
  let n = 1
  for s in shape { n = n * s }
  return (arange(n, dtype=f64) * 0.37 + k).sin().reshape(shape)
}

# The leaves of a result in functorch's order: tuples and lists in order, dicts by
# sorted key; a number becomes a 0-dim tensor.
fn leaves(v, out) {
  let ty = type(v)
  if ty == "tuple" or ty == "list" {
    for item in v { leaves(item, out) }
  } elif ty == "dict" {
    for k in sorted(list(v.keys())) { leaves(v[k], out) }
  } elif ty == "Tensor" {
    out.append(v)
  } else {
    out.append(tensor(v, dtype=f64))
  }
  return out
}

fn digest(t) {
  let f = t.flatten()
  let w = (arange(f.numel(), dtype=f64) * 0.61).cos()
  return stack([f.sum(), (f * w).sum(), f.abs().sum()])
}

# `got`'s leaves against [shape, values] pairs: the values themselves, or the digest.
fn agree(got, want) {
  let g = leaves(got, [])
  expect(len(g) == len(want), f"{len(g)} results where {len(want)} were expected")
  for i in range(min(len(g), len(want))) {
    let t = g[i].detach().to(f64)
    let (shape, vals) = want[i]
    expect(list(t.shape) == shape, f"result {i}: shape {list(t.shape)} where {shape} was expected")
    if list(t.shape) == shape {
      let have = t.flatten() if len(vals) == t.numel() else digest(t)
      let w = tensor(vals, dtype=f64).reshape([-1])
      # NaN and inf (a gradient at a kink) must be where functorch has them
      let odd = (w != w) | (w.abs() == float("inf"))
      expect(((have == w) | ((have != have) & (w != w)) | ~odd).all().item(), f"result {i}: NaN or inf differ: {have} vs {w}")
      expect_close(where(odd, 0.0, have), where(odd, 0.0, w), rtol=1e-10, atol=1e-11)
    }
  }
}

