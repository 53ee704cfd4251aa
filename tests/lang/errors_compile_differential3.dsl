# Compiled code either gives eager's answer or refuses at compile time naming the line
# (tests/graph/test_compile_differential3.dsl): the refusals of round 3.

# case: a write into part of x[i] through a part taken with a tensor index
# expect error: tests/lang/errors_compile_differential3.dsl:14:1: error: compile: the function cannot be captured as a graph:
# expect error line:   tests/lang/errors_compile_differential3.dsl:11:3: copy_ writes into a part of a tensor taken with a tensor index (x[i][1:3] = v, i a 0-dim tensor): in eager that is a view of x, in a graph a copy taken for any i, so the write would not reach x: index x once (x[i, 1:3] = v, x[i] = ...)
# expect error line:   compile(chained, ones([3, 4]), tensor(1), tensor(2))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
fn chained(x, i, j) {
  let y = x.clone()
  y[i][1:3] = 100.0
  return y
}
compile(chained, ones([3, 4]), tensor(1), tensor(2))
# ---
# case: x[i] taken with a tensor index, read after a write into x
# expect error: tests/lang/errors_compile_differential3.dsl:27:1: error: compile: the function cannot be captured as a graph:
# expect error line:   tests/lang/errors_compile_differential3.dsl:25:10: a part of a tensor taken with a tensor index (r = x[i], i a 0-dim tensor) is read after a write into that tensor: in eager r is a view and sees the write, in a graph it is a copy taken for any i: take x[i] again after the write, or r = x[i].clone() before it for the old values
# expect error line:   compile(stale, ones([3, 4]), tensor(1))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
fn stale(x, i) {
  let y = x.clone()
  let r = y[i]
  y[i] = 0.0
  return r.sum()
}
compile(stale, ones([3, 4]), tensor(1))
# ---
# case: an int argument given as a tensor the function computes
# expect error: tests/lang/errors_compile_differential3.dsl:38:1: error: compile: the function cannot be captured as a graph:
# expect error line:   tests/lang/errors_compile_differential3.dsl:36:10: narrow(): argument 'length' reads the value of %1 (made by argmax at tests/lang/errors_compile_differential3.dsl:35:11), which a graph cannot replay (it would be baked in as a constant)
# expect error line:   compile(window, tensor([0.0, 2.0, 1.0]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
fn window(x) {
  let k = x.argmax()
  return x.narrow(0, 0, k).sum()
}
compile(window, tensor([0.0, 2.0, 1.0]))
# ---
# case: a view written in a lowered while while its base is read there
# expect error: tests/lang/errors_compile_differential3.dsl:58:1: error: compile: the function cannot be captured as a graph:
# expect error line:   tests/lang/errors_compile_differential3.dsl:52:13: a lowered loop or branch reads a tensor that shares memory with a view that it writes in place through a variable (v = x[0], then v[i] = ... and x read in the body), which a graph does not replay: read it through that variable, or write into the whole tensor
# expect error line:   compile(view_base, tensor([0.3, 0.0]), mode="script")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
fn view_base(x) {
  let out = zeros([2, 3])
  let v = out[1]
  let s = zeros([])
  let k = 0
  while x.sum() > 0.1 {
    v[k] = x.sum()
    s = s + out.sum()
    x = x * 0.5
    k = k + 1
  }
  return s
}
compile(view_base, tensor([0.3, 0.0]), mode="script")
# ---
# case: two overlapping views of one tensor written in a lowered while
# expect error: tests/lang/errors_compile_differential3.dsl:76:1: error: compile: the function cannot be captured as a graph:
# expect error line:   tests/lang/errors_compile_differential3.dsl:69:9: a lowered loop or branch writes in place into two variables that are overlapping views of one tensor (v = x[0:2], w = x[1:3], made before it), which a graph does not replay: write through one of them, or through x
# expect error line:   compile(overlap, tensor([0.3, 0.0]), mode="script")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
fn overlap(x) {
  let out = zeros([4])
  let a = out[0:3]
  let b = out[1:4]
  while x.sum() > 0.1 {
    a[0] = x.sum()
    b[0] = x.sum()
    x = x * 0.5
  }
  return out
}
compile(overlap, tensor([0.3, 0.0]), mode="script")
# ---
# case: an alias of a variable read in a while that reassigns the variable, written in place by another loop
# expect error: tests/lang/errors_compile_differential3.dsl:89:3: error: a while loop on a tensor condition lowers to a node that carries variable 'out', and its body reads a tensor made before it that shares memory with the variable's (a = out, v = out[0]), which holds the tensor from before the loop at every step: read it through the variable, or clone() it before the loop
# expect error line:     while x.sum() > 0.1 {
# expect error line:     ^
# expect error line:   at tests/lang/errors_compile_differential3.dsl:89:3 in reassigned()
# expect error line:   at tests/lang/errors_compile_differential3.dsl:96:1 in <module>
fn reassigned(x) {
  let out = zeros([3])
  for i in range(3) { out[i] = x[i] }
  let a = out
  let s = zeros([])
  while x.sum() > 0.1 {
    out = out * 2.0
    s = s + a.sum()
    x = x * 0.5
  }
  return s
}
compile(reassigned, tensor([0.3, 0.0, 0.0]), mode="script")
