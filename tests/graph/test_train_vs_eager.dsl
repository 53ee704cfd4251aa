# Compiled training steps against eager training, in f64: the same losses, .grad
# contents and parameter updates, bit for bit (the graph runs eager's kernels in
# eager's order), after each change a program makes between calls. Each change below
# once went unseen by the guards and gave silently different results.
import nn
import optim

fn mlp() {
  manual_seed(40)
  return nn.Sequential([nn.Linear(5, 6), nn.Tanh(), nn.Linear(6, 2)]).double()
}
fn batch(i) {
  manual_seed(300 + i)
  return randn([8, 5], dtype=f64)
}

# The largest difference between two models' parameters, and between their .grad
# (1e9 when one has a gradient where the other has none).
fn param_difference(a, b) {
  let d = 0.0
  for (p, q) in zip(a.parameters(), b.parameters()) { d = max(d, (p - q).abs().max().item()) }
  return d
}
fn grad_difference(a, b) {
  let d = 0.0
  for (p, q) in zip(a.parameters(), b.parameters()) {
    if (p.grad == none) != (q.grad == none) { return 1e9 }
    if p.grad != none { d = max(d, (p.grad - q.grad).abs().max().item()) }
  }
  return d
}

# Trains two copies of make()'s model with SGD (momentum), one eagerly and one with a
# step compiled with train=true, calling change(model, i) on both before step i;
# checks loss, gradients and parameters at every step. Returns the graph module.
fn train_both(make, change, steps) {
  let me = make()
  let mg = make()
  let oe = optim.SGD(me.parameters(), lr=0.1, momentum=0.9)
  let og = optim.SGD(mg.parameters(), lr=0.1, momentum=0.9)
  fn loss_eager(x) = me(x.to(me.parameters()[0].dtype)).pow(2).mean()
  fn loss_graph(x) = mg(x.to(mg.parameters()[0].dtype)).pow(2).mean()
  let gm = compile(loss_graph, batch(0), train=true)
  for i in range(steps) {
    change(me, i)
    change(mg, i)
    oe.zero_grad()
    og.zero_grad()
    let a = loss_eager(batch(i))
    a.backward()
    let b = gm(batch(i))
    expect(a.item() == b.item(), f"step {i}: eager loss {a.item()}, compiled {b.item()}")
    expect(grad_difference(me, mg) == 0.0, f"step {i}: gradients differ by {grad_difference(me, mg)}")
    oe.step()
    og.step()
  }
  expect(param_difference(me, mg) == 0.0, f"parameters differ by {param_difference(me, mg)}")
  return gm
}

fn freeze_first(m, i) {
  if i == 1 { m[0].weight.requires_grad_(false) }
  if i == 3 { m[0].weight.requires_grad_(true) }
}

test "a parameter frozen or unfrozen between calls: the step captures again (Note [What a bound tensor was])" {
  let gm = train_both(mlp, freeze_first, 5)
  # unfrozen again, the first graph fits again
  expect("no longer requires grad" in gm.explain() and "2 graphs cached" in gm.explain(), gm.explain())
}

fn to_f32_and_back(m, i) {
  if i == 1 { m.float() }
  if i == 3 { m.double() }
}

test "model.float() and model.double() between calls capture again instead of failing in the executor" {
  let gm = train_both(mlp, to_f32_and_back, 5)
  expect("is f32[6, 5] on cpu now, the graph was captured with f64[6, 5]" in gm.explain(), gm.explain())
}

fn hook_later(m, i) {
  if i == 1 { m[1].register_forward_hook(fn(mod, inp, out) = out * 2.0) }
  if i == 3 { m[0].register_forward_pre_hook(fn(mod, inp) = (inp[0] + 1.0,)) }
}

test "forward hooks and pre-hooks registered after the capture run in the next call (Note [A model's structure is a read too])" {
  let gm = train_both(mlp, hook_later, 5)
  expect("hooks of the Tanh the function used changed" in gm.explain(), gm.explain())
  expect("hooks of the Linear the function used changed" in gm.explain(), gm.explain())
}

fn hook_removed(m, i) {
  if i == 0 { m._handle = m[2].register_forward_hook(fn(mod, inp, out) = out + 1.0) }
  if i == 2 { m._handle.remove() }
}

test "a hook removed after the capture stops running in the graph too" {
  train_both(mlp, hook_removed, 4)
}

model Stack() {
  layers = nn.ModuleList([nn.Linear(5, 5), nn.Linear(5, 5)])
  heads = nn.ModuleDict({"a": nn.Linear(5, 2), "b": nn.Linear(5, 2)})
  forward(x) {
    for l in self.layers { x = tanh(l(x)) }
    let s = 0.0
    for (k, h) in self.heads.items() { s = s + h(x) }
    return s
  }
}
fn stack() {
  manual_seed(41)
  return Stack().double()
}
fn grow(m, i) {
  if i == 2 {
    manual_seed(42)
    m.layers.append(nn.Linear(5, 5).double())
  }
  if i == 3 {
    manual_seed(43)
    setattr(m.heads, "c", nn.Linear(5, 2).double())
  }
}

test "a layer appended to a ModuleList or added to a ModuleDict between calls runs in the next call" {
  let gm = train_both(stack, grow, 5)
  expect("ModuleList the function used changed" in gm.explain(), gm.explain())
}

fn no_change(m, i) = none

test "weight tying, ModuleList and ModuleDict iteration: gradients equal eager's" {
  model Tied() {
    a = nn.Linear(5, 5)
    b = nn.Linear(5, 5)
    forward(x) = self.b(tanh(self.a(x)))
  }
  fn tied() {
    manual_seed(44)
    let m = Tied().double()
    m.b.weight = m.a.weight  # tied: one parameter, two layers
    expect(m.b.weight is m.a.weight and len(m.parameters()) == 3)
    return m
  }
  train_both(tied, no_change, 4)
  train_both(stack, no_change, 4)
}

test "a call with more arguments than the examples (a defaulted parameter given) names them" {
  let m = mlp()
  fn loss(x, scale=1.0) = m(x).pow(2).mean() * scale
  let gm = compile(loss, batch(0), train=true)
  let l = gm(batch(1), 2.0)
  m.zero_grad()
  expect(l.item() == loss(batch(1), 2.0).item())
  expect("scale == 2.0" in gm.explain() and "2 arguments instead of 1" in gm.explain(), gm.explain())
}

test "a step with optimizer= leaves no stale .grad: it is zero_grad, backward and step (Note [The step's zero_grad])" {
  let m = mlp()
  let o = optim.Adam(m.parameters(), lr=0.1)
  fn loss(x) = m(x).pow(2).mean()
  loss(batch(0)).backward()   # an eager gradient, then compiled steps
  o.step()
  let gm = compile(loss, batch(1), train=true, optimizer=o)
  gm(batch(1))
  for p in m.parameters() { expect(p.grad == none, "the eager step's .grad must not outlive the compiled step") }
}
