# args: --max-steps 5000
# status: 1
# compile(mode="script") runs the lowered loop on the example: an example for which it
# never ends spun forever there too; now the budget stops it at the loop's line.
# expect stderr: graph_while_budget_capture.dsl:9:3: error: step budget of 5000 exceeded
# expect stderr:     while h.sum() < 1 { h = h * 1 }
fn spin(x) {
  let h = x
  while h.sum() < 1 { h = h * 1 }
  return h
}
compile(spin, -ones([3]), mode="script")
