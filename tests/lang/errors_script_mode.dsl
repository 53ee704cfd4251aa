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
# ---
# case: a variable written in place in one branch of a lowered if and assigned in the other
# expect error: tests/lang/errors_script_mode.dsl:54:3: error: an if on a tensor condition lowers to a cond, but variable 'y' is written in place in one branch and assigned in the other, so after it the variable would be its old tensor or a new one: assign it in both (y = ...), or write into it in both
# expect error line:     if x.sum() > 0 {
# expect error line:     ^
fn mixed(x) {
  let y = zeros([2])
  if x.sum() > 0 {
    y[0] = 1.0
  } else {
    y = ones([2])
  }
  return y
}
compile(mixed, ones([2]), mode="script")
# ---
# case: a variable written in place and then assigned in a lowered while
# expect error: tests/lang/errors_script_mode.dsl:69:3: error: a while loop on a tensor condition lowers to a node that either writes into variable 'y' in place or assigns it, but its body does both (a write, then an assignment): write into a copy (let y = y.clone()), or assign only
# expect error line:     while x.sum() > 0.5 {
# expect error line:     ^
fn write_then_assign(x) {
  let y = zeros([2])
  while x.sum() > 0.5 {
    y[0] = x.sum()
    y = y * 2.0
    x = x * 0.5
  }
  return y
}
compile(write_then_assign, ones([2]), mode="script")
