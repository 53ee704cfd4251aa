# compile's lowering of a while loop on a tensor whose condition writes a tensor in
# place (Note [Writes in a while loop's condition], interp/eval/script/control_flow.cpp):
# a while_loop node's condition yields only whether to go on, so such a loop is refused
# at its line, naming what the condition wrote. (Before: a BatchNorm in the condition
# left its running statistics unmoved, and a condition waiting for its own write hung
# the capture.) A plain condition that writes runs as eager's:
# tests/graph/test_compile_differential6.dsl. Also refused, at their lines: train() or
# eval() switching a model made outside a lowered branch (Note [Objects changed inside
# a lowered region]) or .requires_grad (Note [Flags changed inside a lowered region])
# on one side of it, and manual_seed() in a compiled function (Note [Untraced effects]).

# case: a BatchNorm called in the condition of a while on a tensor
# expect error: tests/lang/errors_compile_differential6.dsl:22:5: error: the condition of a while loop on a tensor (tests/lang/errors_compile_differential6.dsl:22:11) writes bn.num_batches_tracked, by bn (tests/lang/errors_compile_differential6.dsl:22:11), in place, which a while_loop node's condition cannot carry (it yields only whether to go on), so a graph would drop the write at every trip: make the write in the loop's body, or test a value the body computes
# expect error line:       while self.bn(h).sum() > -100.0 and k < 3 {
# expect error line:       ^
import nn
model Settle() {
  bn = nn.BatchNorm1d(3)
  forward(x) {
    let h = x
    let k = 0
    while self.bn(h).sum() > -100.0 and k < 3 {
      h = h * 0.5
      k = k + 1
    }
    return h
  }
}
compile(Settle(), ones([4, 3]), mode="script")
# ---
# case: a closed-over tensor written by a function the condition calls
# expect error: tests/lang/errors_compile_differential6.dsl:42:3: error: the condition of a while loop on a tensor (tests/lang/errors_compile_differential6.dsl:42:9) writes a tensor made before the loop ([3] f32), by tests/lang/errors_compile_differential6.dsl:37:3, in place, which a while_loop node's condition cannot carry (it yields only whether to go on), so a graph would drop the write at every trip: make the write in the loop's body, or test a value the body computes
# expect error line:     while tick(seen) < 10.0 { h = h * 1.1 }
# expect error line:     ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let seen = zeros([3])
fn tick(b) {
  b.add_(1.0)
  return b.sum()
}
fn f(x) {
  let h = x
  while tick(seen) < 10.0 { h = h * 1.1 }
  return h
}
compile(f, ones([3]), mode="script")
# ---
# case: the loop's own variable written in place by its condition
# expect error: tests/lang/errors_compile_differential6.dsl:53:3: error: the condition of a while loop on a tensor (tests/lang/errors_compile_differential6.dsl:53:9) writes variable 'h' in place, which a while_loop node's condition cannot carry (it yields only whether to go on), so a graph would drop the write at every trip: make the write in the loop's body, or test a value the body computes
# expect error line:     while h.add_(1.0).sum() < 10.0 { h = h * 0.5 }
# expect error line:     ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
fn f(x) {
  let h = x
  while h.add_(1.0).sum() < 10.0 { h = h * 0.5 }
  return h
}
compile(f, ones([3]), mode="script")
# ---
# case: a plain condition that writes, once a break on a tensor makes the loop lower
# expect error: tests/lang/errors_compile_differential6.dsl:70:3: error: the condition of a while loop on a tensor (tests/lang/errors_compile_differential6.dsl:70:9) writes a tensor made before the loop ([3] f32), by tests/lang/errors_compile_differential6.dsl:64:3, in place, which a while_loop node's condition cannot carry (it yields only whether to go on), so a graph would drop the write at every trip: make the write in the loop's body, or test a value the body computes
# expect error line:     while tick(seen, k) < 4 {
# expect error line:     ^
let seen = zeros([3])
fn tick(b, k) {
  b.add_(1.0)
  return k
}
fn f(x) {
  let k = 0
  let h = x
  while tick(seen, k) < 4 {
    if h.sum() > 20.0 { break }
    h = h * 2.0
    k = k + 1
  }
  return h
}
compile(f, ones([3]), mode="script")
# ---

# case: eval() and train() on the two sides of a lowered if (the mode was set once, at capture)
# expect error: tests/lang/errors_compile_differential6.dsl:88:22: error: a lowered loop or branch (compile, script mode) runs its body once, while capturing, so it cannot switch to eval mode a BatchNorm1d made outside it: the change would happen once, not at every step or in the branch taken. Assign a variable instead and use it after the statement (a for over a range or rows may append one tensor per step to a list)
# expect error line:       if x.sum() > 0 { self.bn.eval() } else { self.bn.train() }
# expect error line:                        ^~~~~~~~~~~~~~
import nn
model Switch() {
  bn = nn.BatchNorm1d(3)
  forward(x) {
    if x.sum() > 0 { self.bn.eval() } else { self.bn.train() }
    return self.bn(x)
  }
}
compile(Switch(), ones([4, 3]), mode="script")
# ---
# case: manual_seed inside a compiled function (the calls drew other numbers than eager's)
# expect error: tests/lang/errors_compile_differential6.dsl:103:1: error: compile: the function cannot be captured as a graph:
# expect error line:   tests/lang/errors_compile_differential6.dsl:100:20: manual_seed() resets the random generator, which a graph does not replay
# expect error line:   compile(noisy, ones([3]), mode="script")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
fn noisy(x) {
  if x.sum() > 0 { manual_seed(3) }
  return x + rand([3])
}
compile(noisy, ones([3]), mode="script")
# ---
# case: requires_grad switched on one side of a lowered if (set once, at capture)
# expect error: tests/lang/errors_compile_differential6.dsl:115:1: error: compile: the function cannot be captured as a graph:
# expect error line:   tests/lang/errors_compile_differential6.dsl:112:6: setting .requires_grad of a tensor made before the lowered branch or loop, which the node does not replay (it is set once, at capture, whichever side or trip a call takes): set it before the statement
# expect error line:   compile(frozen, ones([3]), mode="script")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let w = ones([3], requires_grad=true)
fn frozen(x) {
  if x.sum() > 0 { w.requires_grad = false } else { w.requires_grad = true }
  return x * w
}
compile(frozen, ones([3]), mode="script")
# ---
