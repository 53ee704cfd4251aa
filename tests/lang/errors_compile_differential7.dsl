# fail() and assert() on one side of a lowered if, of a conditional expression, or in
# the body of a lowered while the example does not enter (Note [A failing side of a
# lowered if], interp/eval/script/raising.cpp): the compiled function raises the
# program's error, at the fail() or assert() line, in a call that takes that side, and
# only then (before: the capture failed whenever a side failed on the example's values,
# taken or not). A check that reads a traced value is still the capture's problem,
# named at its line.

# case: a call that takes the failing side of an if on a tensor
# expect error: tests/lang/errors_compile_differential7.dsl:18:5: error: negative input
# expect error line:       fail("negative input")
# expect error line:       ^~~~~~~~~~~~~~~~~~~~~~
fn f(x) {
  let h = x
  if x.sum() > 0 {
    h = h * 2.0
  } else {
    fail("negative input")
  }
  return h
}
let gm = compile(f, ones([3]), mode="script")
gm(ones([3]))
gm(-ones([3]))
# ---
# case: an assert in a scan's step, failing at a later step of a call
# expect error: tests/lang/errors_compile_differential7.dsl:33:28: error: assertion failed: a row is too big
# expect error line:       if x[t].sum() > 50.0 { assert(false, "a row is too big") }
# expect error line:                              ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
fn f(x) {
  let h = zeros([3])
  for t in range(x.shape[0]) {
    if x[t].sum() > 50.0 { assert(false, "a row is too big") }
    h = h + x[t]
  }
  return h
}
let gm = compile(f, ones([4, 3]), mode="script")
let big = ones([4, 3])
big[2] = big[2] * 100.0
gm(big)
# ---
# case: the example takes the failing side: compile raises eager's error
# expect error: tests/lang/errors_compile_differential7.dsl:49:20: error: diverged
# expect error line:     if x.sum() > 5 { fail("diverged") }
# expect error line:                      ^~~~~~~~~~~~~~~~
fn f(x) {
  let h = x
  if x.sum() > 5 { fail("diverged") }
  return h * 2.0
}
compile(f, ones([3]) * 10, mode="script")
# ---
# case: an assert on a traced value in a side the example does not take
# expect error: tests/lang/errors_compile_differential7.dsl:64:1: error: compile: the function cannot be captured as a graph:
# expect error line:   tests/lang/errors_compile_differential7.dsl:61:41: assert() on a tensor's value (check it outside the compiled function) reads the value of %3 (made by lt at tests/lang/errors_compile_differential7.dsl:61:48), which a graph cannot replay (it would be baked in as a constant)
# expect error line:   compile(f, ones([3]), mode="script")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
fn f(x) {
  let h = x
  if x.sum() > 0 { h = h * 2.0 } else { assert(x.max() < 0, "mixed signs") }
  return h
}
compile(f, ones([3]), mode="script")
# ---
# case: the body of a while the example did not enter, run by a later call
# expect error: tests/lang/errors_compile_differential7.dsl:73:5: error: no progress
# expect error line:       fail("no progress")
# expect error line:       ^~~~~~~~~~~~~~~~~~~
fn f(x) {
  let h = x
  while h.sum() > 100.0 {
    fail("no progress")
  }
  return h
}
let gm = compile(f, ones([3]), mode="script")
gm(ones([3]) * 50)
# ---
# case: fail() as the value of a conditional expression a call takes
# expect error: tests/lang/errors_compile_differential7.dsl:86:32: error: negative sum
# expect error line:     return h * 2.0 if h > 0 else fail("negative sum")
# expect error line:                                  ^~~~~~~~~~~~~~~~~~~~
fn f(x) {
  let h = x.sum()
  return h * 2.0 if h > 0 else fail("negative sum")
}
let gm = compile(f, ones([3]), mode="script")
gm(-ones([3]))
# ---
