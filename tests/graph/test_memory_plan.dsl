# The memory plan (the plan pass, last in the default pipeline): a CNN training step
# planned into one arena needs at most 70% of the bytes its intermediates would take
# each on its own, and the planned graph gives the loss and gradients of the
# unplanned one bit for bit (the convolutions' bias gradients within rounding), and
# eager's within rounding.
import nn

fn cnn() = nn.Sequential([
  nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
  nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
  nn.Flatten(), nn.Linear(16 * 7 * 7, 32), nn.ReLU(), nn.Linear(32, 10)])

fn grads_of(net) {
  let gs = []
  for p in net.parameters() { gs.append(p.grad.clone()) }
  return gs
}

test "a planned CNN training step: under 70% of naive memory, the same loss and gradients" {
  manual_seed(20)
  let net = cnn()
  let x = randn([16, 1, 28, 28])
  let y = randint(0, 10, [16])
  fn step(xb, yb) = cross_entropy(net(xb), yb)
  let gm = compile(step, x, y, train=true)

  gm.optimize("fold,simplify,cse,dce")
  net.zero_grad()
  let unplanned_loss = gm(x, y)
  let unplanned = grads_of(net)

  let report = gm.optimize("default")
  expect("plan: naive " in report and " in place" in report, report)
  let plan = gm.memory_plan()
  expect(plan["planned_bytes"] <= 0.7 * plan["naive_bytes"], f"{plan}")
  expect(plan["inplace"] > 0 and plan["slots"] < plan["buffers"], f"{plan}")
  net.zero_grad()
  let loss = gm(x, y)
  let planned = grads_of(net)
  expect_close(loss, unplanned_loss, rtol=0, atol=0)
  # Bit for bit, but the convolutions' bias gradients: the default pipeline computes
  # each in the weight gradient's oneDNN call, which sums in its own order (Note [The
  # bias gradient with the weight gradient] in passes/fuse_epilogue.cpp).
  let names = [n for (n, p) in net.named_parameters()]
  for k in range(len(planned)) {
    let conv_bias = names[k] in ["0.bias", "3.bias"]
    expect_close(planned[k], unplanned[k], rtol=1e-5 if conv_bias else 0, atol=1e-7 if conv_bias else 0)
  }

  net.zero_grad()
  let eager = step(x, y)
  eager.backward()
  expect_close(loss, eager.detach(), rtol=1e-6, atol=1e-7)
  let k = 0
  for p in net.parameters() {
    expect_close(planned[k], p.grad, rtol=1e-4, atol=1e-6)
    k += 1
  }
}

test "a second call reuses nothing of the first: results the caller keeps stay as they were" {
  manual_seed(21)
  let net = nn.Sequential([nn.Linear(20, 30), nn.ReLU(), nn.Linear(30, 5), nn.Tanh()])
  let gm = compile(net, randn([4, 20]))
  gm.optimize()
  let a = randn([4, 20])
  let first = gm(a)
  let kept = first.clone()
  gm(randn([4, 20]))
  expect_close(first, kept, rtol=0, atol=0)
  expect_close(first, net(a), rtol=1e-6, atol=1e-7)
}

test "the plan in the IR text and as a drawing" {
  manual_seed(22)
  let w = randn([20, 20])
  fn f(x) = (tanh(exp(x) @ w) * 2.0 + x).sum(1)
  let gm = compile(f, randn([4, 20]))
  gm.optimize()
  let ir = gm.ir()
  # fuse makes tanh(...) * 2 + x one fused node, which takes over the matmul's buffer
  expect("plan(arena=" in ir and "in place of %" in ir, ir)
  # Without Graphviz (NABLA_GRAPHVIZ=OFF) the DOT, which holds the same labels.
  let path = "/tmp/nabla_memory_plan_test.svg" if graphviz_available() else "/tmp/nabla_memory_plan_test.dot"
  if not graphviz_available() {
    print("built without Graphviz (NABLA_GRAPHVIZ=OFF): checking the DOT instead of the SVG")
  }
  gm.render(path, memory=true)
  let drawing = read_text(path)
  expect("memory plan of f" in drawing and "fused (in place)" in drawing, drawing)
}

let small = nn.Sequential([nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2)])
let unplanned_gm = compile(small, zeros([2, 4]))

test "without the plan pass there is no plan, and memory_plan() says how to get one" {
  unplanned_gm.optimize("fold,dce")
  expect_error("unplanned_gm.memory_plan()", "graph module: memory_plan(): the graph has no memory plan; optimize it with a pipeline that ends in plan (\"default\" does)")
  expect(not ("plan(" in unplanned_gm.ir()), unplanned_gm.ir())
}
