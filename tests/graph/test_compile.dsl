# Graph mode: compile() captures eager code; the graph's results equal eager's.
import nn
import optim

fn mlp() = nn.Sequential([nn.Linear(784, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10)])
fn cnn() = nn.Sequential([
  nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
  nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Dropout(0.3),
  nn.Flatten(), nn.Linear(16 * 7 * 7, 32), nn.ReLU(), nn.Linear(32, 10)])

test "MLP inference: the graph equals eager, also on inputs it was not captured with" {
  manual_seed(0)
  let m = mlp()
  let x = randn([16, 784])
  let gm = compile(m, x)
  expect_close(gm(x), m(x), rtol=1e-6, atol=1e-6)
  let x2 = randn([16, 784])
  expect_close(gm(x2), m(x2), rtol=1e-6, atol=1e-6)
}

test "CNN inference in eval mode (BatchNorm with running stats, no dropout)" {
  manual_seed(1)
  let net = cnn()
  net.eval()
  let x = randn([4, 1, 28, 28])
  let gm = compile(net, x)
  expect_close(gm(x), net(x), rtol=1e-5, atol=1e-6)
}

test "a new input shape re-captures, and explain() says why" {
  manual_seed(2)
  let m = mlp()
  let gm = compile(m, randn([8, 784]))
  let x = randn([3, 784])
  expect_close(gm(x), m(x), rtol=1e-6, atol=1e-6)
  let report = gm.explain()
  expect("2 graphs cached" in report, report)
  expect("argument 'x' is f32[3, 784], the graph was captured with f32[8, 784]" in report, report)
}

test "switching train/eval re-captures: the guards include the modules' training flags" {
  manual_seed(3)
  let net = cnn()
  let x = randn([2, 1, 28, 28])
  net.eval()
  let gm = compile(net, x)
  net.train()
  gm(x)
  expect("training flags are 1" in gm.explain(), gm.explain())
}

test "train mode: one graph gives the loss and the gradients eager backward gives" {
  manual_seed(4)
  let m = mlp()
  let x = randn([8, 784])
  let y = tensor([0, 1, 2, 3, 4, 5, 6, 7])
  fn step(xb, yb) = cross_entropy(m(xb), yb)
  let gm = compile(step, x, y, train=true)
  let loss = gm(x, y)
  let graph_grads = []
  for p in m.parameters() { graph_grads.append(p.grad.clone()) }
  m.zero_grad()
  let eager = step(x, y)
  eager.backward()
  expect_close(loss, eager.detach(), rtol=1e-6, atol=1e-7)
  let k = 0
  for p in m.parameters() {
    expect_close(graph_grads[k], p.grad, rtol=1e-5, atol=1e-6)
    k += 1
  }
}

test "train mode on the CNN with BatchNorm: gradients and running stats as in eager" {
  manual_seed(5)
  let net = cnn()
  net[7].p = 0.0  # dropout off, so both runs see the same mask
  let x = randn([4, 1, 28, 28])
  let y = tensor([1, 0, 3, 9])
  fn step(xb, yb) = cross_entropy(net(xb), yb)
  let gm = compile(step, x, y, train=true)
  net.zero_grad()
  let mean_before = net[1].running_mean.clone()
  let tracked_before = net[1].num_batches_tracked.item()
  gm(x, y)
  let conv_grad = net[0].weight.grad.clone()
  let graph_mean = net[1].running_mean.clone()
  expect(net[1].num_batches_tracked.item() == tracked_before + 1, "the graph replays the buffer update")
  net[1].running_mean.copy_(mean_before)
  net.zero_grad()
  step(x, y).backward()
  expect_close(conv_grad, net[0].weight.grad, rtol=1e-4, atol=1e-5)
  expect_close(graph_mean, net[1].running_mean, rtol=1e-6, atol=1e-7)
}

fn branchy(v) {
  if v.sum().item() > 0 { return v * 2 }
  return v
}

test "item() driving a branch lowers as eager branches; a trace reports it with its line" {
  # Note [Numbers read for a condition]
  let gm = compile(branchy, ones([2]))
  for s in [1.0, -1.0] { expect_close(gm(ones([2]) * s), branchy(ones([2]) * s), rtol=0, atol=0) }
  expect_error("compile(branchy, ones([2]), mode=\"trace\")", "tests/graph/test_compile.dsl:96:6: item() reads the value of %1 (made by sum at tests/graph/test_compile.dsl:96:6)")
}

test "the IR text names ops, shapes and parameters" {
  manual_seed(6)
  let m = mlp()
  let gm = compile(m, randn([2, 784]))
  let ir = gm.ir()
  expect("%0.weight: param f32[64, 784]" in ir, ir)
  expect("linear(" in ir and "relu(" in ir, ir)
  expect(": f32[2, 10]" in ir, ir)
}

test "cuda_graph=false is accepted everywhere; on the CPU no run is a CUDA graph replay" {
  manual_seed(9)
  let m = mlp()
  let x = randn([4, 784])
  let gm = compile(m, x, cuda_graph=false)
  for i in range(3) { expect_close(gm(x), m(x), rtol=1e-6, atol=1e-6) }
  expect("CUDA graph: off (compile(..., cuda_graph=false))" in gm.explain(), gm.explain())
  let on_cpu = compile(m, x)
  for i in range(3) { on_cpu(x) }
  expect(not ("CUDA graph" in on_cpu.explain()), on_cpu.explain())
  expect_error("compile(m, x, cuda_graphs=false)", "cuda_graph")
  expect_error("compile(m, x, cuda_graph=\"yes\")", "compile(): cuda_graph")
}

test "a function that calls backward() and opt.step() is refused by name, not silently captured without them" {
  manual_seed(10)
  let m = nn.Linear(4, 2)
  let opt = optim.SGD(m.parameters(), lr=0.1)
  fn whole_step(x, y) {
    opt.zero_grad()
    let loss = mse_loss(m(x), y)
    loss.backward()
    opt.step()
    return loss
  }
  let x = randn([3, 4])
  let y = randn([3, 2])
  expect_error(fn() = compile(whole_step, x, y), "backward() writes the leaves' .grad, which a graph does not replay")
  expect_error(fn() = compile(whole_step, x, y), "opt.step() (optim_sgd_step_multi_()) updates the parameters")
  expect_error(fn() = compile(whole_step, x, y), "assigning .grad, which a graph does not replay")
  expect_error(fn() = compile(whole_step, x, y), "compile(loss_fn, x, y, train=true)")
  # the supported form: the loss compiled with train=true, the step outside
  let gm = compile(fn(xb, yb) = mse_loss(m(xb), yb), x, y, train=true)
  let before = m.weight.clone()
  opt.zero_grad()
  gm(x, y)
  opt.step()
  expect(sum(ne(m.weight, before)).item() > 0)
}

test "nn.checkpoint inside a compiled training step: it runs f as it is, with eager's loss and gradients" {
  manual_seed(41)
  let a = nn.Linear(4, 8)
  let b = nn.Linear(8, 3)
  let seen = []
  fn body(h) {
    if not is_compiling() {
      seen.append(false)  # appending to an outside list under compile() is an error (it would happen once)
    }
    return relu(b(h))
  }
  fn step(x, y) = cross_entropy(nn.checkpoint(body, relu(a(x))), y)
  let x = randn([5, 4])
  let y = tensor([0, 1, 2, 0, 1])
  let eager = step(x, y)
  eager.backward()
  let grads = [a.weight.grad.clone(), a.bias.grad.clone(), b.weight.grad.clone(), b.bias.grad.clone()]
  expect(seen == [false, false], f"eager runs body in the forward and again in the backward: {seen}")
  for p in [a.weight, a.bias, b.weight, b.bias] { p.grad = none }
  let gm = compile(step, x, y, train=true)
  expect_close(gm(x, y), eager.detach(), rtol=1e-6, atol=1e-7)
  expect(len(seen) == 2 and not is_compiling(), f"compile() records body without running its eager branch: {seen}")
  let k = 0
  for p in [a.weight, a.bias, b.weight, b.bias] {
    expect_close(p.grad, grads[k], rtol=1e-5, atol=1e-6)
    k += 1
  }
}

# Note [Gradients through an inference graph] (interp/builtins/builtins_graph.cpp)
test "an argument that requires grad runs the function eagerly: grad() and backward() through a graph module are eager's" {
  fn f(x, w) = tanh(x @ w).sum()
  manual_seed(5)
  let w = randn([3, 3], dtype=f64, requires_grad=true)
  let x = randn([2, 3], dtype=f64)
  let gm = compile(f, x, w.detach())
  let want = grad(fn(w) = f(x, w))(w)
  expect_close(grad(fn(w) = gm(x, w))(w), want, rtol=0, atol=0)
  let out = gm(x, w)
  expect(out.requires_grad)
  out.backward()
  expect_close(w.grad, want, rtol=0, atol=0)
  expect("ran eagerly: argument 'w' requires grad" in gm.explain(), gm.explain())
  no_grad { expect_close(gm(x, w), f(x, w), rtol=1e-12, atol=0) }   # the graph itself runs under no_grad
  expect(len(gm.explain().split("ran eagerly")) == 2, "said once: " + gm.explain())
}

test "vmap() and jvp() through a graph module are eager's: the batch and the tangents are kept" {
  fn f(x) = tanh(x * 2.0).sum()
  let gm = compile(f, randn([3], dtype=f64))
  let xs = randn([4, 3], dtype=f64)
  expect_close(vmap(fn(x) = gm(x))(xs), vmap(f)(xs), rtol=0, atol=0)
  let x = randn([3], dtype=f64)
  let v = randn([3], dtype=f64)
  let (out, tangent) = jvp(fn(x) = gm(x), [x], [v])
  let (want, want_tangent) = jvp(f, [x], [v])
  expect_close(tangent, want_tangent, rtol=0, atol=0)
  expect("called inside grad(), jvp(), vmap()" in gm.explain(), gm.explain())
  # the module itself is a function to the transforms
  expect_close(vmap(gm)(xs), vmap(f)(xs), rtol=0, atol=0)
  expect_close(grad(gm)(x), grad(f)(x), rtol=0, atol=0)
  expect_close(jvp(gm, [x], [v])[1], want_tangent, rtol=0, atol=0)
}

test "a function whose result's places come from its inputs' values is an error to compile, never a graph that keeps one call's places" {
  # index_copy writes by ops while a graph captures (tests/graph/test_compile_index_data.dsl)
  fn copies(x, idx) = zeros([5]).index_copy(0, idx, x)
  let gc = compile(copies, ones([2]), tensor([0, 1]))
  expect_close(gc(tensor([2.0, 5.0]), tensor([4, 4])), copies(tensor([2.0, 5.0]), tensor([4, 4])), rtol=0, atol=0)
  expect_error(fn() = compile(fn(x) = nonzero(x), tensor([0.0, 1.0])), "nonzero() reads the value of %x")
  expect_error(fn() = compile(fn(x) = x[x > 0], tensor([-1.0, 1.0])), "indexing with a bool mask reads the value")
  expect_error(fn() = compile(fn(x) = unique(x), tensor([3.0, 1.0, 3.0])), "unique(): input reads the value of")
  # index_add is scatter_add on the index as an input: it compiles, and follows each call's index
  fn adds(x, idx) = zeros([5]).index_add(0, idx, x)
  let ga = compile(adds, ones([2]), tensor([0, 1]))
  for idx in [tensor([3, 4]), tensor([-1, 0]), tensor([2, 2])] {
    expect_close(ga(tensor([2.0, 5.0]), idx), adds(tensor([2.0, 5.0]), idx), rtol=0, atol=0)
  }
  expect_error(fn() = ga(ones([2]), tensor([0, 7])), "out of bounds")
  # with a constant index the places are fixed: compiled and eager agree for any x
  let idx = tensor([3, 4])
  let gm = compile(fn(x) = zeros([5]).index_add(0, idx, x), ones([2]))
  expect_close(gm(tensor([2.0, 5.0])), tensor([0.0, 0.0, 0.0, 2.0, 5.0]), rtol=0, atol=0)
}

test "a graph module returns its function's result as it nests: an LSTM's (output, (h_n, c_n)), lists in lists" {
  import nn
  manual_seed(0)
  let m = nn.LSTM(4, 5, num_layers=2).double()
  let x = randn([6, 3, 4], dtype=f64)
  let gm = compile(m, x)
  no_grad {
    let (y, (h, c)) = gm(x)
    let (want_y, (want_h, want_c)) = m(x)
    expect_close(y, want_y, rtol=0, atol=0)
    expect_close(h, want_h, rtol=0, atol=0)
    expect_close(c, want_c, rtol=0, atol=0)
  }
  let nested = compile(fn(x) = [x * 2.0, [x + 1.0, (x,)]], ones([2]))
  let out = nested(ones([2]))
  expect(type(out) == "list" and type(out[1]) == "list" and type(out[1][1]) == "tuple", f"{out}")
  expect_close(out[1][1][0], ones([2]), rtol=0, atol=0)
  # A plain number among the results is a constant of the capture; a dict nests as the others.
  let with_count = compile(fn(x) = [x, x.shape[0] * 2], ones([2]))
  expect(with_count(ones([2]))[1] == 4, f"{with_count(ones([2]))}")
  let with_dict = compile(fn(x) = [x, {"n": 3, "y": x + 1.0}], ones([2]))
  let got = with_dict(ones([2]))
  expect(type(got[1]) == "dict" and got[1]["n"] == 3, f"{got}")
  expect_close(got[1]["y"], full([2], 2.0), rtol=0, atol=0)
}

# Note [Writes into tensors the graph has not made]
let written_buffer = zeros([3], dtype=f64)
fn writes_whole(x) {
  let y = zeros([3], dtype=f64)
  y.copy_(x * 2.0)
  let z = ones([3], dtype=f64)
  z.add_(x)
  return y + z
}
fn writes_buffer(x) {
  written_buffer.copy_(x * 3.0)
  return x + 1.0
}
fn writes_outer_in_loop(x) {
  let acc = zeros([3])
  while x.sum() > 1 {
    acc.copy_(x)
    x = x * 0.5
  }
  return acc
}

test "in-place writes into tensors no op made: whole ones become the value, buffers are written at every call" {
  let gm = compile(writes_whole, zeros([3], dtype=f64))
  let x = tensor([1.0, -2.0, 0.5], dtype=f64)
  expect_close(gm(x), writes_whole(x), rtol=0, atol=0)
  let gb = compile(writes_buffer, zeros([3], dtype=f64))
  written_buffer.copy_(zeros([3], dtype=f64))
  gb(x)
  expect_close(written_buffer, x * 3.0, rtol=0, atol=0)
  gb(x * 2.0)
  expect_close(written_buffer, x * 6.0, rtol=0, atol=0)
  # a lowered loop's write into a variable's tensor: the loop carries it (Note [Variables
  # written in place inside a lowered region])
  let gl = compile(writes_outer_in_loop, tensor([4.0, 4.0, 4.0]), mode="script")
  for v in [tensor([4.0, 4.0, 4.0]), tensor([0.1, 0.2, 0.3]), tensor([9.0, -1.0, 2.0])] {
    expect_close(gl(v), writes_outer_in_loop(v), rtol=0, atol=0)
  }
}

test "entering or leaving autocast re-captures: a graph keeps the dtypes of its capture's region" {
  let w = randn(4, 4)
  fn f(x) = relu(matmul(x, w)).softmax(-1)
  let gm = compile(f, randn(2, 4))
  let x = randn(2, 4)
  autocast("cpu", dtype=bf16) {
    expect(gm(x).dtype == f(x).dtype and f(x).dtype == bf16, f"{gm(x).dtype}")
    expect(equal(gm(x), f(x)))
  }
  autocast(dtype=bf16) { expect(gm(x).dtype == f(x).dtype and f(x).dtype == f32, "PyTorch's CUDA lists: softmax in f32") }
  expect(gm(x).dtype == f32 and equal(gm(x), f(x)))
  let report = gm.explain()
  expect("3 graphs cached" in report, report)
  expect("autocast is bf16 (cpu lists) around this call, the graph was captured with autocast off" in report, report)
}
