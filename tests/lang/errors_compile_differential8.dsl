# Compile against eager, round 8 (tests/graph/test_compile_differential8*.dsl). The
# message of a failing side that formats a value the compiled function computes or
# takes (Note [A failing side of a lowered if], interp/eval/script/raising.cpp): the
# raise node could only repeat the capture's number, where eager formats the call's,
# so the capture is refused, naming the formatted value (before: the capture went
# through, and every call's error showed the example's number, `tensor(0)` for a
# while's counter, or the example's input). Then a dict whose keys differ between a
# cond's sides, a training step called inside another capture (Note [A graph module
# called inside a capture]) and a gradient hook inside a lowered side (Note [Gradient
# hooks inside a lowered region]; its gradient went without the hook before), and
# Python's max() ordering tensors (interp/values/operators.cpp: the example's order before).

# case: a counter carried by a lowered while, formatted into a failing side's message
# expect error: tests/lang/errors_compile_differential8.dsl:28:10: error: compile: the function cannot be captured as a graph:
# expect error line:   tests/lang/errors_compile_differential8.dsl:22:45: printing reads the value of %k, which a graph cannot replay (it would be baked in as a constant)
# expect error line:   let gm = compile(f, ones([3]), mode="script")
# expect error line:            ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
fn f(x) {
  let h = x
  let k = 0
  while h.sum() < 100.0 and k < 5 {
    if h.sum() < -100.0 { fail(f"iteration {k}: too low") }
    h = h * 2.0
    k = k + 1
  }
  return h
}
let gm = compile(f, ones([3]), mode="script")
# ---
# case: the function's input formatted into the message of a side the example does not take
# expect error: tests/lang/errors_compile_differential8.dsl:41:10: error: compile: the function cannot be captured as a graph:
# expect error line:   tests/lang/errors_compile_differential8.dsl:37:46: printing reads the value of %x, which a graph cannot replay (it would be baked in as a constant)
fn f(x) {
  let h = x * 2.0
  if x.sum() > 100.0 {
    let limit = 100
    fail(f"the input's sum is over {limit}: {x}")
  }
  return h
}
let gm = compile(f, ones([3]), mode="script")
# ---
# case: a value computed in a scan's step, formatted by an assert on an untaken side
# expect error: tests/lang/errors_compile_differential8.dsl:55:10: error: compile: the function cannot be captured as a graph:
# expect error line:   tests/lang/errors_compile_differential8.dsl:50:50: printing reads the value of %5 (made by sum at tests/lang/errors_compile_differential8.dsl:49:13), which a graph cannot replay (it would be baked in as a constant)
fn f(x) {
  let h = zeros([3])
  for row in x {
    let s = row.sum()
    if s > 50.0 { assert(false, f"a row sums to {s}") }
    h = h + row
  }
  return h
}
let gm = compile(f, ones([4, 3]), mode="script")
# ---
# case: a dict carried by a cond whose sides give its keys in another order
# expect error: tests/lang/errors_compile_differential8.dsl:61:3: error: an if on a tensor condition lowers to a cond, whose branches yield the same types, but variable 'st' is {'h': f32[3], 'c': f32[3]} after the then-branch and {'c': f32[3], 'h': f32[3]} after the else-branch
fn f(x) {
  let st = {"h": x, "c": x}
  if x.sum() > 0 { st = {"h": x * 2.0, "c": x} } else { st = {"c": x, "h": x * 3.0} }
  return st["h"]
}
let gm = compile(f, ones([3]), mode="script")
# ---
# case: a training step called while compile() records another function
# expect error: tests/lang/errors_compile_differential8.dsl:73:29: error: a training step compiled with train=true is called while compile() records another function: the outer graph cannot record its gradients and optimizer step; call it outside, or call its function inside
# expect error line:   let outer = compile(fn(v) = step(v) * 2.0, ones([2, 3]))
# expect error line:                               ^~~~~~~
import nn
let lin = nn.Linear(3, 1)
let step = compile(fn(v) = lin(v).sum(), ones([2, 3]), train=true)
let outer = compile(fn(v) = step(v) * 2.0, ones([2, 3]))
# ---
# case: a backward hook on a layer called on one side of an if in a training step
# expect error: tests/lang/errors_compile_differential8.dsl:86:12: error: compile: the function cannot be captured as a graph:
# expect error line:   Linear (tests/lang/errors_compile_differential8.dsl:83:24): a gradient hook registered inside a lowered loop or branch (register_hook, a module's backward hook) runs in eager's backward, which a graph does not replay
import nn
let lin = nn.Linear(3, 3)
let hook = lin.register_backward_hook(fn(m, g) = g * 2.0)
fn loss(x) {
  let h = x
  if x.sum() > 0 { h = lin(x) }
  return h.sum()
}
let step = compile(loss, ones([2, 3]), train=true, mode="script")
# ---
# case: Python's max() over tensors inside a compiled function (it picked the example's largest at every call)
# expect error: tests/lang/errors_compile_differential8.dsl:92:10: error: compile: the function cannot be captured as a graph:
# expect error line:   tests/lang/errors_compile_differential8.dsl:91:11: max() reads the value of %5 (made by sum at tests/lang/errors_compile_differential8.dsl:91:16), which a graph cannot replay (it would be baked in as a constant)
fn f(x) = max([r.sum() for r in x])
let gm = compile(f, ones([3, 2]))
# ---
# case: compile(f) with no example inputs, as torch.compile(f) is written, names f's arguments
# expect error: tests/lang/errors_compile_differential8.dsl:98:10: error: compile(): no example inputs: compile records one call of f(x, y), so give an example for each argument after it, as compile(f, x, y)
# expect error line:   let gm = compile(f)
fn f(x, y, scale=2.0) = x * y * scale
let gm = compile(f)
# ---
# case: compile(model) with no example inputs names its forward's arguments
# expect error: tests/lang/errors_compile_differential8.dsl:106:10: error: compile(): no example inputs: compile records one call of Lin.forward(x), so give an example for each argument after it, as compile(model, x)
# expect error line:   let gm = compile(Lin())
model Lin() {
  forward(x) = x * 2.0
}
let gm = compile(Lin())
# ---
