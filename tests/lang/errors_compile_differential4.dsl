# Compiled code either gives eager's answer or refuses at compile time naming the line
# (tests/graph/test_compile_differential4.dsl): the refusals of round 4. A random draw
# that a backward would have to draw again (Note [Random draws in a differentiated
# region], graph/control_flow_grad.cpp), and `a if cond else b` on a tensor whose sides
# cannot be one cond output (Note [A conditional expression on a tensor],
# interp/eval/script/regions.cpp).

# case: a dropout inside a while on a tensor in a training step
# expect error: tests/lang/errors_compile_differential4.dsl:15:3: error: gradient of the while_loop (tests/lang/errors_compile_differential4.dsl:15:3): its dropout node (tests/lang/errors_compile_differential4.dsl:16:9) draws random numbers, which the backward would draw again instead of reusing the forward's (Note [Random draws in a differentiated region]): draw them outside the lowered loop or branch and pass them in, or write the loop as a for over range(n)
# expect error line:     while h.abs().sum() > 1.0 {
# expect error line:     ^
let w = ones([3], requires_grad=true)
fn halve(x) {
  let h = x * w
  while h.abs().sum() > 1.0 {
    h = dropout(h, 0.5, true) * 0.5
  }
  return h.sum()
}
compile(halve, ones([3]), train=true, mode="script")
# ---
# case: a dropout in an if nested in an if on a tensor, in a training step
# expect error: tests/lang/errors_compile_differential4.dsl:34:1: error: gradient of the cond (tests/lang/errors_compile_differential4.dsl:29:3): its cond node (tests/lang/errors_compile_differential4.dsl:30:5) draws random numbers, which the backward would draw again instead of reusing the forward's (Note [Random draws in a differentiated region]): draw them outside the lowered loop or branch and pass them in
# expect error line:   compile(gated, ones([3]), train=true, mode="script")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let w = ones([3], requires_grad=true)
fn gated(x) {
  let h = x * w
  if h.sum() > 0 {
    if h.max() > 2 { h = dropout(h, 0.3, true) }
  }
  return h.sum()
}
compile(gated, ones([3]), train=true, mode="script")
# ---
# case: a dropout in an if on a tensor inside a lowered for, in a training step
# expect error: tests/lang/errors_compile_differential4.dsl:43:3: error: gradient of a loop step: its cond (tests/lang/errors_compile_differential4.dsl:44:5) draws random numbers inside a nested branch or loop, which the step's backward cannot reuse (Note [Random draws in a differentiated region]): draw them outside the nested statement
# expect error line:     for i in range(3) {
# expect error line:     ^
let w = ones([3], requires_grad=true)
fn steps(x) {
  let h = x * w
  for i in range(3) {
    if h.sum() > 0 { h = dropout(h, 0.5, true) * w } else { h = h * w }
  }
  return h.sum()
}
compile(steps, ones([3]), train=true, mode="script")
# ---
# case: a conditional expression on a tensor whose sides differ in shape
# expect error: tests/lang/errors_compile_differential4.dsl:54:14: error: `a if cond else b` on a tensor condition lowers to a cond, whose sides must give values of one type, but the then side gave f32[3] and the else side f32[]
# expect error line:   fn pick(x) = x if x.sum() > 0 else x.sum()
# expect error line:                ^
fn pick(x) = x if x.sum() > 0 else x.sum()
compile(pick, ones([3]), mode="script")
# ---
# case: a conditional expression on a tensor whose sides are strings
# expect error: tests/lang/errors_compile_differential4.dsl:61:15: error: `a if cond else b` on a tensor condition lowers to a cond, whose then side must give a tensor, a number, or tuples and lists of tensors; it gave 'pos'
# expect error line:   fn label(x) = "pos" if x.sum() > 0 else "neg"
# expect error line:                 ^
fn label(x) = "pos" if x.sum() > 0 else "neg"
compile(label, ones([3]), mode="script")
# ---
# case: an assert on a tensor's value inside a compiled function is named as an assert (it had the if/while lowering hint)
# expect error: tests/lang/errors_compile_differential4.dsl:73:9: error: compile: the function cannot be captured as a graph:
# expect error line:   tests/lang/errors_compile_differential4.dsl:70:3: assert() on a tensor's value (check it outside the compiled function) reads the value of %3 (made by gt at tests/lang/errors_compile_differential4.dsl:70:10), which a graph cannot replay (it would be baked in as a constant)
# expect error line:   let g = compile(checked, ones([2]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~
fn checked(x) {
  assert(x.sum() > 0, "positive")
  return x * 2.0
}
let g = compile(checked, ones([2]))
# ---
# case: a keyword argument to a graph module names the keyword
# expect error: tests/lang/errors_compile_differential4.dsl:81:1: error: graph module: keyword argument 'scale' is not taken: a graph module is called with its arguments by position, in the order the function declares them
# expect error line:   gs(ones([2]), scale=2.0)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~
fn scaled(x, scale=1.0) = x * scale
let gs = compile(scaled, ones([2]))
gs(ones([2]), scale=2.0)
# ---
