# Errors of the function transforms found by a differential round against functorch
# (tests/func/test_transforms_vs_functorch.dsl): vmap's in_dims and out_dims as pytree
# prefixes, argnums counted from the end, random draws of unbatched inputs inside
# vmap, and the errors every transform must name at the user's line.

# case: vmap over arguments whose batch sizes differ, one of them inside a tuple (functorch: "Expected all tensors to have the same size in the mapped dimension")
# expect error: tests/lang/errors_transforms2.dsl:11:9: error: vmap: the batch sizes differ: 4 for argument 0[0] (shape [4, 3], in_dim 0) but 5 for argument 0[1] (shape [5, 3], in_dim 0)
# expect error line:   let y = vmap(fn(p) = p[0] + p[1])((x, ones([5, 3])))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = ones([4, 3])
let y = vmap(fn(p) = p[0] + p[1])((x, ones([5, 3])))
# ---
# case: an in_dim out of range for a tensor inside a nested in_dims
# expect error: tests/lang/errors_transforms2.dsl:18:9: error: vmap: in_dims[0][1][0] is 2 but argument 0[1][0] has 2 dims (shape [4, 3])
# expect error line:   let y = vmap(fn(p) = p[0] + p[1][0], in_dims=((0, (2,)),))((x, (x,)))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = ones([4, 3])
let y = vmap(fn(p) = p[0] + p[1][0], in_dims=((0, (2,)),))((x, (x,)))
# ---
# case: an in_dims tuple longer than the tuple argument it maps (functorch: "in_dims is not compatible with the structure of inputs")
# expect error: tests/lang/errors_transforms2.dsl:25:9: error: vmap: in_dims[0] is a tuple of 3 but argument 0 is a tuple of 2 (in_dims must match the structure it maps, or be an int or none for all of it)
# expect error line:   let y = vmap(fn(p) = p[0], in_dims=((0, 0, 0),))((x, x))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = ones([4, 3])
let y = vmap(fn(p) = p[0], in_dims=((0, 0, 0),))((x, x))
# ---
# case: an in_dims list for a tuple argument
# expect error: tests/lang/errors_transforms2.dsl:32:9: error: vmap: in_dims[0] is a list of 2 but argument 0 is a tuple of 2 (in_dims must match the structure it maps, or be an int or none for all of it)
# expect error line:   let y = vmap(fn(p) = p[0], in_dims=([0, 0],))((x, x))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = ones([4, 3])
let y = vmap(fn(p) = p[0], in_dims=([0, 0],))((x, x))
# ---
# case: an in_dims dict with a key the argument lacks
# expect error: tests/lang/errors_transforms2.dsl:39:9: error: vmap: in_dims[0] has the key 'w' but argument 0 does not
# expect error line:   let y = vmap(fn(d) = d["a"], in_dims=({"a": 0, "w": none},))({"a": x, "b": x})
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = ones([4, 3])
let y = vmap(fn(d) = d["a"], in_dims=({"a": 0, "w": none},))({"a": x, "b": x})
# ---
# case: a number inside a tuple argument given an in_dim (functorch: "We cannot vmap over non-Tensor arguments")
# expect error: tests/lang/errors_transforms2.dsl:46:9: error: vmap: in_dims[0] is 0 but argument 0[1] is float, not a tensor (give none for it)
# expect error line:   let y = vmap(fn(p) = p[0] * p[1])((x, 2.0))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = ones([4, 3])
let y = vmap(fn(p) = p[0] * p[1])((x, 2.0))
# ---
# case: out_dims none for an output that depends on the batch (it came back batched at dim 0)
# expect error: tests/lang/errors_transforms2.dsl:53:9: error: vmap: out_dims[0] is none but output 0 depends on the batch (none is for an output that is the same for every example)
# expect error line:   let y = vmap(fn(a) = a.sum(), out_dims=none)(x)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = ones([4, 3])
let y = vmap(fn(a) = a.sum(), out_dims=none)(x)
# ---
# case: a nested out_dims whose structure is not the output's
# expect error: tests/lang/errors_transforms2.dsl:60:9: error: vmap: out_dims[1] is a tuple of 2 but output 1 is a list of 2 (out_dims must match the structure it maps, or be an int or none for all of it)
# expect error line:   let y = vmap(fn(a) = (a, [a, a]), out_dims=(0, (0, 1)))(x)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = ones([4, 3])
let y = vmap(fn(a) = (a, [a, a]), out_dims=(0, (0, 1)))(x)
# ---
# case: grad of a function whose output has more than one element, under vmap
# expect error: tests/lang/errors_transforms2.dsl:67:9: error: grad: the function must return a single number (one element), got a tensor of shape [3]; use vjp or jacrev for other outputs
# expect error line:   let y = vmap(grad(fn(a) = a * 2.0))(x)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = ones([4, 3])
let y = vmap(grad(fn(a) = a * 2.0))(x)
# ---
# case: argnums past the arguments
# expect error: tests/lang/errors_transforms2.dsl:74:9: error: grad(): argnums 2 is out of range: the function was called with 2 positional arguments
# expect error line:   let y = g(ones([3]), ones([3]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~
let g = grad(fn(a, b) = (a * b).sum(), argnums=2)
let y = g(ones([3]), ones([3]))
# ---
# case: a negative argnums past the first argument
# expect error: tests/lang/errors_transforms2.dsl:81:9: error: jacrev(): argnums -3 is out of range: the function was called with 2 positional arguments
# expect error line:   let y = g(ones([3]), ones([3]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~
let g = jacrev(fn(a, b) = a * b, argnums=-3)
let y = g(ones([3]), ones([3]))
# ---
# case: argnums that name one argument twice once the negative one is counted from the end
# expect error: tests/lang/errors_transforms2.dsl:88:9: error: grad(): argnums holds 0 twice; give each argument once
# expect error line:   let y = g(ones([3]), ones([3]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~
let g = grad(fn(a, b) = (a * b).sum(), argnums=(0, -2))
let y = g(ones([3]), ones([3]))
# ---
# case: argnums given as a float (functorch: "argnums must be int or Tuple[int, ...]")
# expect error: tests/lang/errors_transforms2.dsl:94:9: error: hessian(): argnums must be an int or a tuple of ints, got float
# expect error line:   let g = hessian(fn(a) = (a * a).sum(), argnums=0.0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let g = hessian(fn(a) = (a * a).sum(), argnums=0.0)
# ---
# case: dropout of a tensor that is not batched, inside vmap with randomness="error" (it drew one mask for every example)
# expect error: tests/lang/errors_transforms2.dsl:103:26: error: vmap: dropout draws random numbers, and vmap was called with randomness="error"; pass randomness="different" (each batch element draws its own) or "same"
# expect error line:   let y = vmap(fn(a) = a + dropout(ones([3]), 0.5))(x)
# expect error line:                            ^~~~~~~~~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_transforms2.dsl:103:26 in <lambda>()
# expect error line:   at tests/lang/errors_transforms2.dsl:103:9 in <module>
let x = ones([4, 3])
let y = vmap(fn(a) = a + dropout(ones([3]), 0.5))(x)
# ---
# case: a random draw inside jacfwd (its vmap over the basis has randomness="error", as functorch's)
# expect error: tests/lang/errors_transforms2.dsl:111:28: error: vmap: rand draws random numbers, and vmap was called with randomness="error"; pass randomness="different" (each batch element draws its own) or "same" (one draw for the whole batch)
# expect error line:   let y = jacfwd(fn(a) = a + rand([3]))(ones([3]))
# expect error line:                              ^~~~~~~~~
# expect error line:   at tests/lang/errors_transforms2.dsl:111:28 in <lambda>()
# expect error line:   at tests/lang/errors_transforms2.dsl:111:9 in <module>
let y = jacfwd(fn(a) = a + rand([3]))(ones([3]))
# ---
# case: jacfwd with a randomness that is not one of the three
# expect error: tests/lang/errors_transforms2.dsl:117:9: error: jacfwd(): randomness must be "error", "different" or "same", got 'sometimes'
# expect error line:   let j = jacfwd(fn(a) = a, randomness="sometimes")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let j = jacfwd(fn(a) = a, randomness="sometimes")
# ---
# case: a branch on a batched value inside vmap
# expect error: tests/lang/errors_transforms2.dsl:126:6: error: cannot read the values of a tensor batched by vmap (item(), tolist(), printing, a number or a branch made from it): inside vmap each batch element has its own values; return the tensor from the function instead
# expect error line:     if a.sum() > 0 { return a }
# expect error line:        ^~~~~~~~~~~
# expect error line:   at tests/lang/errors_transforms2.dsl:126:6 in pick()
# expect error line:   at tests/lang/errors_transforms2.dsl:129:9 in <module>
fn pick(a) {
  if a.sum() > 0 { return a }
  return -a
}
let y = vmap(pick)(ones([4, 3]))
# ---
# case: float() of a batched value inside vmap
# expect error: tests/lang/errors_transforms2.dsl:137:26: error: cannot read the values of a tensor batched by vmap (item(), tolist(), printing, a number or a branch made from it): inside vmap each batch element has its own values; return the tensor from the function instead
# expect error line:   let y = vmap(fn(a) = a * float(a.sum()))(ones([4, 3]))
# expect error line:                            ^~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_transforms2.dsl:137:26 in <lambda>()
# expect error line:   at tests/lang/errors_transforms2.dsl:137:9 in <module>
let y = vmap(fn(a) = a * float(a.sum()))(ones([4, 3]))
# ---
# case: jvp's strict must be a bool
# expect error: tests/lang/errors_transforms2.dsl:143:9: error: jvp(): strict: expected a bool, got str
# expect error line:   let y = jvp(fn(a) = a, (ones([3]),), (ones([3]),), strict="no")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = jvp(fn(a) = a, (ones([3]),), (ones([3]),), strict="no")
# ---
