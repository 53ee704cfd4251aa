# args: --max-steps 5000
# status: 1
# A `while` on a tensor that compile(mode="script") lowers runs its iterations in the
# graph executor, which neither counted steps nor checked for Ctrl-C: a call whose loop
# never ends spun forever under any step budget (Note [Loop polls] in
# graph/executor.hpp). Each iteration is now a step, as in the language's own loops,
# and the error is the budget's, at the user's call.
# expect: tensor([1., 1., 1.])
# expect stderr: graph_while_budget.dsl:18:1: error: step budget of 5000 exceeded
fn spin(x) {
  let h = x
  while h.sum() < 1 { h = h * 1 }
  return h
}
let gm = compile(spin, ones([3]), mode="script")
print(gm(ones([3])))
# the loop never ends for this input
gm(-ones([3]))
