# 1e6 scalar additions in a DSL loop. scripts/bench/bench.py times the whole process
# and subtracts nabla's start-up; bench_torch.py times the same loop in Python.
let s = 0.0
for i in range(1000000) { s = s + 1.0 }
