# A custom function applied 2 * 10^5 times: each node's ctx holds the input it saved,
# whose grad_fn is the node before (a chain through saved tensors, not only
# next_edges). Backward through it, then freed at exit (issue 25).
# status: 0
# timeout: 120
# expect: 1.0
function Id {
  forward(ctx, x) {
    ctx.save(x)
    return x * 1.0
  }
  backward(ctx, g) {
    let (x,) = ctx.saved
    return g
  }
}
let x = ones([1], requires_grad=true)
let y = x
for i in range(200000) { y = Id(y) }
y.backward()
print(x.grad.item())
