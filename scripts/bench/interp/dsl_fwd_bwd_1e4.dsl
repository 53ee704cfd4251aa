# 1e4 tiny forward+backward passes in a DSL loop (see dsl_scalar_add_1e6.dsl). The
# gradient accumulates into x.grad, in PyTorch too.
let x = randn([4], requires_grad=true)
for i in range(10000) {
  let y = (x * x).sum()
  y.backward()
}
