# Compiled code either gives eager's answer or refuses naming the line
# (tests/graph/test_compile_differential5.dsl): the refusals of round 5. x.detach_() on
# a view (PyTorch refuses it too; interp/builtins/builtins_tensor.cpp), a while on a
# tensor that writes a model's field, differentiated over its recorded trip count, a
# BatchNorm (whose running statistics are written inside nn) on one side of a lowered
# if, and a step that runs backward() and opt.step() itself.

# case: x.detach_() on a view of a tensor with history
# expect error: tests/lang/errors_compile_differential5.dsl:14:1: error: detach_(): this tensor is a view of another, which cannot leave the graph in place (as in PyTorch): use x = x.detach()
# expect error line:   r.detach_()
# expect error line:   ^~~~~~~~~~~
let w = ones([4, 3], requires_grad=true)
let r = (w * 2)[0]
r.detach_()
# ---
# case: a while on a tensor that writes a buffer, called with another trip count
# expect error: tests/lang/errors_compile_differential5.dsl:35:1: error: while_loop at tests/lang/errors_compile_differential5.dsl:26:5: the loop runs more than 2 iterations, but its gradient was recorded over 2 (a while loop on a tensor is differentiated over the trip count it had when the graph was captured): compile the step again for these inputs, or write the loop as a for over range(n)
# expect error line:   gm(ones([2]) * 100)
# expect error line:   ^~~~~~~~~~~~~~~~~~~
import nn
model Halver() {
  a = nn.Linear(2, 2)
  count = zeros([])
  forward(x) {
    let h = x
    while h.abs().sum() > 0.5 {
      h = h * 0.5 + self.a(h) * 0.0
      self.count.add_(1.0)
    }
    return h.sum()
  }
}
let m = Halver()
let gm = compile(m, ones([2]), train=true, mode="script")
gm(ones([2]) * 100)
# ---
# case: a step that calls backward() and opt.step() itself
# expect error: tests/lang/errors_compile_differential5.dsl:56:1: error: compile: the function cannot be captured as a graph:
# expect error line:   SGD (tests/lang/errors_compile_differential5.dsl:50:3): assigning .grad, which a graph does not replay
# expect error line:   tests/lang/errors_compile_differential5.dsl:52:3: backward() writes the leaves' .grad, which a graph does not replay
# expect error line:   SGD (tests/lang/errors_compile_differential5.dsl:53:3): opt.step() (optim_sgd_step_multi_()) updates the parameters in place outside the op table, which a graph does not replay
# expect error line:   (a training step compiles as compile(loss_fn, x, y, train=true): each call returns the loss and sets every parameter's .grad, as loss.backward() would, and opt.step() follows each call; with optimizer=opt the step is inside the graph too)
# expect error line:   compile(step, randn([2, 3]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
import optim
let m = nn.Linear(3, 1)
let opt = optim.SGD(m.parameters(), lr=0.1)
fn step(x) {
  opt.zero_grad()
  let l = m(x).sum()
  l.backward()
  opt.step()
  return l.detach()
}
compile(step, randn([2, 3]))
# ---
