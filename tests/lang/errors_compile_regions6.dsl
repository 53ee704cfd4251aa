# compile's lowering of branches and loops whose bodies call functions that write
# tensors made before them (Note [Tensors a lowered region's calls write],
# graph/capture_writes.cpp), and windows that run past the end at a replay (Note [A
# window a graph replays], interp/values/advanced_indexing.cpp): what stays refused,
# each at its line. (Whole tensors a called layer writes, as BatchNorm's running
# statistics, lower: tests/graph/test_compile_batchnorm_regions.dsl.)

# case: part of a closed-over tensor written inside a function a lowered if calls
# expect error: tests/lang/errors_compile_regions6.dsl:19:1: error: compile: the function cannot be captured as a graph:
# expect error line:   tests/lang/errors_compile_regions6.dsl:13:17: copy_ writes into a tensor the graph did not make ([] f32) in place, which a graph does not replay: a lowered branch or loop body writes in place only into tensors made inside it, its variables, the fields it names itself (self.buf[i] = ...) and whole tensors that the layers and functions it calls write (BatchNorm's running statistics), and this write is none of those (part of a tensor made before the branch or loop, reached through a method's result or written inside a function the body calls): write through a variable or a field the body names (let b = self.slot() before it, then b[i] = v), or assign the new value to a variable (y = ...)
# expect error line:   compile(f, ones([2]), mode="script")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
fn mark(b, v) { b[0] = v }
let buf = zeros([3])
fn f(x) {
  if x.sum() > 0 { mark(buf, x.sum()) }
  return x * 2.0
}
compile(f, ones([2]), mode="script")
# ---
# case: the caller's argument written inside a function a lowered if calls
# expect error: tests/lang/errors_compile_regions6.dsl:31:1: error: compile: the function cannot be captured as a graph:
# expect error line:   tests/lang/errors_compile_regions6.dsl:26:14: copy_ writes into the argument %acc in place, which would change the caller's tensor: a graph does not replay that (write into a clone() of it, or return the new value)
# expect error line:   compile(f, ones([2]), zeros([2]), mode="script")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
fn bump(t) { t.add_(1.0) }
fn f(x, acc) {
  if x.sum() > 0 { bump(acc) }
  return x * 2.0
}
compile(f, ones([2]), zeros([2]), mode="script")
# ---
# case: a window in a lowered loop that runs past the end at a later call
# expect error: tests/lang/errors_compile_regions6.dsl:44:1: error: tests/lang/errors_compile_regions6.dsl:39:35: a window x[t:t+w] (or an index x[i]) taken with a tensor runs past the end at this call (index_select: index 6 is out of bounds for dim 0 with size 6): a graph keeps the length the window had when it was captured, where eager would return a shorter slice; keep t + w within the dim's size (pad x, or stop the loop w - 1 steps earlier)
# expect error line:   gm(ones([6]), tensor(3))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~
fn f(x, s) {
  let acc = zeros([2])
  for k in range(3) { acc = acc + x[s + k:s + k + 2] }
  return acc
}
let gm = compile(f, ones([6]), tensor(0), mode="script")
gm(ones([6]), tensor(1))
gm(ones([6]), tensor(3))
# ---
# case: batch_norm's running statistics as views of one buffer that the lowered if also writes
# expect error: tests/lang/errors_compile_regions6.dsl:62:1: error: compile: the function cannot be captured as a graph:
# expect error line:   tests/lang/errors_compile_regions6.dsl:57:11: batch_norm writes in place into a part ([3] f32) of a tensor that the lowered branch or loop writes too, which a graph does not replay: give it a tensor of its own (its running statistics not views of one buffer)
# expect error line:   compile(Views(), ones([4, 3]), mode="script")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
model Views() {
  buf = zeros([2, 3])
  forward(x) {
    let y = x
    if x.sum() > 0 {
      self.buf.mul_(0.5)
      y = batch_norm(x, self.buf[0], self.buf[1], training=true)
    }
    return y
  }
}
compile(Views(), ones([4, 3]), mode="script")
# ---
