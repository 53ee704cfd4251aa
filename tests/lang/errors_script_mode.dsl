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
# case: a return inside an if on a tensor in a loop
# expect error: tests/lang/errors_script_mode.dsl:39:5: error: a 'return' inside an if on a tensor condition cannot be lowered to a cond here: it lowers in a function's body, outside loops and context blocks; in a loop, assign the result to a variable, break, and return it after the loop
# expect error line:       if x.sum() > 0 {
# expect error line:       ^
fn early(x) {
  for k in range(3) {
    if x.sum() > 0 {
      return x
    }
    x = x + 1.0
  }
  return x
}
compile(early, ones([2]), mode="script")
