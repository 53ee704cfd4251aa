# compile(..., mode="script") lowers control flow on tensors by running each block once
# while it captures: what cannot lower is an error at the statement, with its line.

# case: a list made outside a lowered while is appended to inside it
# expect error: tests/lang/errors_script_mode.dsl:11:5: error: a lowered loop or branch (compile, script mode) runs its body once, while capturing, so it cannot append to a list made outside it: the change would happen once, not at every step or in the branch taken. Assign a variable instead and use it after the statement (a for over a range or rows may append one tensor per step to a list)
# expect error line:       hs.append(x)
# expect error line:       ^~~~~~~~~~~~
fn appends(x) {
  let hs = []
  while x.sum() > 1 {
    hs.append(x)
    x = x * 0.5
  }
  return stack(hs)
}
compile(appends, tensor([4.0, 4.0]), mode="script")
# ---
# case: a model's field set inside a lowered if
# expect error: tests/lang/errors_script_mode.dsl:26:7: error: a lowered loop or branch (compile, script mode) runs its body once, while capturing, so it cannot set attribute 'calls' of a Gate made outside it: the change would happen once, not at every step or in the branch taken. Assign a variable instead and use it after the statement (a for over a range or rows may append one tensor per step to a list)
# expect error line:         self.calls = self.calls + 1
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~
model Gate() {
  calls = 0
  forward(x) {
    if x.sum() > 0 {
      self.calls = self.calls + 1
    }
    return x
  }
}
compile(Gate(), ones([2]), mode="script")
# ---
# case: a return of a number inside a lowered loop
# expect error: tests/lang/errors_script_mode.dsl:40:7: error: a 'return' inside a loop that lowers to a while_loop or scan returns tensors, or tuples and lists of them, which the loop carries; this one returns 1 (expected a tensor)
# expect error line:         return 1
# expect error line:         ^~~~~~~~
fn early(x) {
  for k in range(3) {
    if x.sum() > 0 {
      return 1
    }
    x = x + 1.0
  }
  return x
}
compile(early, ones([2]), mode="script")
