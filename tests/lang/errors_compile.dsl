# compile() runs the function once while it captures: a change it makes to a variable or
# model it did not make would happen once, not at every call, so it is an error at the
# statement (Note [What a capture read] in interp/eval/capture_reads.hpp).
# case: a global counter assigned inside the compiled function
# expect error: tests/lang/errors_compile.dsl:9:3: error: compile() runs the function once, while capturing, so it cannot assign to 'calls', a global variable made before the call: the graph would not make the change again at later calls. Return the new value instead, or change it outside the compiled function (or under `if not is_compiling() { }`)
# expect error line:     calls = calls + 1
# expect error line:     ^~~~~
fn counted(x) {
  calls = calls + 1
  return x * 2
}
let calls = 0
compile(counted, ones([2]))
# ---
# case: a model's number attribute changed in forward
# expect error: tests/lang/errors_compile.dsl:22:5: error: compile() runs the function once, while capturing, so it cannot set attribute 'n' of a Counter made before the call: the graph would not make the change again at later calls. Return the new value instead, or change it outside the compiled function (or under `if not is_compiling() { }`)
# expect error line:       self.n = self.n + 1
# expect error line:       ^~~~~~~~~~~~~~~~~~~
model Counter() {
  n = 0
  forward(x) {
    self.n = self.n + 1
    return x
  }
}
compile(Counter(), ones([2]))
# ---
# case: a variable of the enclosing function assigned by a closure
# expect error: tests/lang/errors_compile.dsl:35:5: error: compile() runs the function once, while capturing, so it cannot assign to 'total', a variable of an enclosing function made before the call: the graph would not make the change again at later calls. Return the new value instead, or change it outside the compiled function (or under `if not is_compiling() { }`)
# expect error line:       total = total + 1.0
# expect error line:       ^~~~~
fn make() {
  let total = 0.0
  fn f(x) {
    total = total + 1.0
    return x
  }
  return f
}
compile(make(), ones([2]))
# ---
# case: appending to a list made before the capture
# expect error: tests/lang/errors_compile.dsl:48:3: error: compile() runs the function once, while capturing, so it cannot append to a list made before the call: the graph would not make the change again at later calls. Return the new value instead, or change it outside the compiled function (or under `if not is_compiling() { }`)
# expect error line:     seen.append(x.sum())
# expect error line:     ^~~~~~~~~~~~~~~~~~~~
let seen = []
fn f(x) {
  seen.append(x.sum())
  return x
}
compile(f, ones([2]))
# ---
# case: a tensor field set to another shape after the function read it
# expect error: tests/lang/errors_compile.dsl:60:5: error: compile() runs the function once, while capturing, and the graph reads attribute 'state' of a Grows as the tensor it held then, so it cannot set it to f32[4]: the graph writes a field at each call only as an in-place copy into a tensor made before the call, of the same shape, dtype and device, that needs no gradient (found f32[2]). Return the new value instead, or keep the field's shape and dtype
# expect error line:       self.state = cat([self.state, x])
# expect error line:       ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
model Grows() {
  state = zeros([2])
  forward(x) {
    self.state = cat([self.state, x])
    return self.state.sum()
  }
}
compile(Grows(), ones([2]))
# ---
# case: an in-place write into the compiled function's argument
# expect error: tests/lang/errors_compile.dsl:73:1: error: compile: the function cannot be captured as a graph:
# expect error line:   tests/lang/errors_compile.dsl:70:3: copy_ writes into the argument %x in place, which would change the caller's tensor: a graph does not replay that (write into a clone() of it, or return the new value)
fn bumps(x) {
  x.add_(1.0)
  return x * 2.0
}
compile(bumps, ones([2]))
# ---
# case: a number read with item() kept in a variable and used as a range() bound
# expect error: tests/lang/errors_compile.dsl:84:1: error: compile: the function cannot be captured as a graph:
# expect error line:   tests/lang/errors_compile.dsl:80:15: item() reads the value of %1 (made by sum at tests/lang/errors_compile.dsl:80:15), which a graph cannot replay (it would be baked in as a constant)
# expect error line:   (a number read from a tensor the function computes can only decide an if or while directly, as in `if t.item() > 0`, which lowers to a cond; kept in a variable, or used as a shape, a range() bound or a string, it would be the captured run's number at every call: keep it a tensor)
fn repeats(x) {
  let n = int(x.sum().item())
  for k in range(n) { x = x * 2.0 }
  return x
}
compile(repeats, ones([2]))
