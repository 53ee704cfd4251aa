# compile's lowering of loops (Note [Fields written inside a lowered loop],
# interp/eval/script/field_writes.cpp; Note [A window a graph replays],
# interp/values/advanced_indexing.cpp): the forms that stay refused, each at its line.

# case: a slice whose length grows with a while_loop's counter
# expect error: tests/lang/errors_compile_loops5.dsl:19:1: error: compile: the function cannot be captured as a graph:
# expect error line:   tests/lang/errors_compile_loops5.dsl:14:13: a slice whose length depends on a tensor bound's value (y[i:], y[:i]; a window y[i:i+k] with a fixed k replays) reads the value of %3 (made by add at tests/lang/errors_compile_loops5.dsl:14:16), which a graph cannot replay (it would be baked in as a constant)
# expect error line:   compile(prefix, ones([8], dtype=f64), mode="script")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
fn prefix(x) {
  let i = 0
  let s = zeros([], dtype=f64)
  while s < 10.0 {
    s = s + x[:i + 1].sum()
    i = i + 1
  }
  return s
}
compile(prefix, ones([8], dtype=f64), mode="script")
# ---
# case: a slice from a 0-dim argument to the end
# expect error: tests/lang/errors_compile_loops5.dsl:27:1: error: compile: the function cannot be captured as a graph:
# expect error line:   tests/lang/errors_compile_loops5.dsl:26:17: a slice whose length depends on a tensor bound's value (y[i:], y[:i]; a window y[i:i+k] with a fixed k replays) reads the value of %i, which a graph cannot replay (it would be baked in as a constant)
# expect error line:   compile(tail, ones([5]), tensor(2))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
fn tail(x, i) = x[i:].sum()
compile(tail, ones([5]), tensor(2))
# ---
# case: a window that eager clamps at the traced start
# expect error: tests/lang/errors_compile_loops5.dsl:36:1: error: compile: the function cannot be captured as a graph:
# expect error line:   tests/lang/errors_compile_loops5.dsl:35:19: a slice whose length depends on a tensor bound's value (y[i:], y[:i]; a window y[i:i+k] with a fixed k replays) reads the value of %i, which a graph cannot replay (it would be baked in as a constant)
# expect error line:   tests/lang/errors_compile_loops5.dsl:35:19: a slice whose length depends on a tensor bound's value (y[i:], y[:i]; a window y[i:i+k] with a fixed k replays) reads the value of %3 (made by add at tests/lang/errors_compile_loops5.dsl:35:23), which a graph cannot replay (it would be baked in as a constant)
# expect error line:   compile(window, ones([5]), tensor(4))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
fn window(x, i) = x[i:i + 3].sum()
compile(window, ones([5]), tensor(4))
# ---
# case: a window that eager would clamp at a replay: the graph cannot shorten it
# expect error: tests/lang/errors_compile_loops5.dsl:44:1: error: tests/lang/errors_compile_loops5.dsl:42:19: a window x[t:t+w] (or an index x[i]) taken with a tensor runs past the end at this call (index_select: index 5 is out of bounds for dim 0 with size 5): a graph keeps the length the window had when it was captured, where eager would return a shorter slice; keep t + w within the dim's size (pad x, or stop the loop w - 1 steps earlier)
# expect error line:   gm(ones([5]), tensor(3))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~
fn window(x, i) = x[i:i + 3].sum()
let gm = compile(window, ones([5]), tensor(1))
gm(ones([5]), tensor(3))
# ---
# case: a field written through a method's result inside a lowered if
# expect error: tests/lang/errors_compile_loops5.dsl:61:1: error: compile: the function cannot be captured as a graph:
# expect error line:   tests/lang/errors_compile_loops5.dsl:55:7: copy_ writes into a tensor the graph did not make ([] f32) in place, which a graph does not replay: a lowered branch or loop body writes in place only into tensors made inside it, its variables, the fields it names itself (self.buf[i] = ...) and whole tensors that the layers and functions it calls write (BatchNorm's running statistics), and this write is none of those (part of a tensor made before the branch or loop, reached through a method's result or written inside a function the body calls): write through a variable or a field the body names (let b = self.slot() before it, then b[i] = v), or assign the new value to a variable (y = ...)
# expect error line:   compile(Store(), ones([2]), mode="script")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
model Store() {
  buf = zeros([4])
  forward(x) {
    if x.sum() > 0 {
      self.slot()[1] = x.sum()
    }
    return x
  }
  slot() { return self.buf }
}
compile(Store(), ones([2]), mode="script")
# ---
# case: a write into part of a row taken at a while_loop's counter
# expect error: tests/lang/errors_compile_loops5.dsl:78:1: error: compile: the function cannot be captured as a graph:
# expect error line:   tests/lang/errors_compile_loops5.dsl:72:5: copy_ writes into a part of a tensor taken with a tensor index (x[i][1:3] = v, i a 0-dim tensor): in eager that is a view of x, in a graph a copy taken for any i, so the write would not reach x: index x once (x[i, 1:3] = v, x[i] = ...)
# expect error line:   compile(part, ones([2]), mode="script")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
fn part(x) {
  let y = zeros([8, 3])
  let i = 0
  while x.sum() > 0.1 {
    y[i][1:3] = x
    x = x * 0.5
    i = i + 1
  }
  return y
}
compile(part, ones([2]), mode="script")
# ---
