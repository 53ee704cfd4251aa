# 1e5 additions of two 4-element tensors in a DSL loop (see dsl_scalar_add_1e6.dsl).
let a = randn([4])
let b = randn([4])
for i in range(100000) { let c = a + b }
