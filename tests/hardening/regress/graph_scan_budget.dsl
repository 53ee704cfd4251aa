# args: --max-steps 5000
# status: 1
# A `for` over range(n) that compile(mode="script") lowers to a scan: 10^9 steps in the
# executor ran for hours past the budget; each step now counts.
# expect stderr: graph_scan_budget.dsl:7:3: error: step budget of 5000 exceeded
fn f(x) {
  for i in range(1000000000) { x = x + 1 }
  return x
}
compile(f, randn([3]), mode="script")
