# Graph mode after the default pass pipeline (fold, simplify, cse, dce): the
# optimized graphs give eager's results, in inference and in training, where the
# graph also writes into BatchNorm's buffers (See Note [Writes in the graph] in
# graph/rewrite.hpp).
import nn
import optim

fn mlp() = nn.Sequential([nn.Linear(784, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10)])
fn cnn() = nn.Sequential([
  nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
  nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Dropout(0.3),
  nn.Flatten(), nn.Linear(16 * 7 * 7, 32), nn.ReLU(), nn.Linear(32, 10)])

fn count_nodes(ir) {
  let n = 0
  for line in ir.split("\n") {
    # top-level node lines, indented two spaces: "  %5 = relu(%4) : ..." and statements
    # "  copy_(...)"; not the signature, not a fused node's body (four spaces), not the plan
    let top = line.startswith("  ") and not line.startswith("   ")
    if top and (" = " in line or "copy_(" in line) { n += 1 }
  }
  return n
}

test "an optimized MLP graph equals eager" {
  manual_seed(10)
  let m = mlp()
  let x = randn([16, 784])
  let gm = compile(m, x)
  let report = gm.optimize()
  expect("fold" in report and "dce" in report, report)
  expect_close(gm(x), m(x), rtol=1e-6, atol=1e-6)
}

test "an optimized CNN in eval mode equals eager" {
  manual_seed(11)
  let net = cnn()
  net.eval()
  let x = randn([4, 1, 28, 28])
  let gm = compile(net, x)
  gm.optimize("default")
  expect_close(gm(x), net(x), rtol=1e-5, atol=1e-6)
}

test "an optimized training step: fewer nodes, the loss, gradients and buffers of eager" {
  manual_seed(12)
  let net = cnn()
  net[7].p = 0.0  # dropout off, so both runs see the same mask
  let x = randn([4, 1, 28, 28])
  let y = tensor([1, 0, 3, 9])
  fn step(xb, yb) = cross_entropy(net(xb), yb)
  let gm = compile(step, x, y, train=true)
  gm.optimize()
  expect(count_nodes(gm.ir()) < count_nodes(gm.ir(captured=true)), gm.ir())
  net.zero_grad()
  let mean_before = net[1].running_mean.clone()
  let tracked_before = net[1].num_batches_tracked.item()
  let loss = gm(x, y)
  let conv_grad = net[0].weight.grad.clone()
  let graph_mean = net[1].running_mean.clone()
  expect(net[1].num_batches_tracked.item() == tracked_before + 1, "the optimized graph keeps the buffer update")
  net[1].running_mean.copy_(mean_before)
  net.zero_grad()
  let eager = step(x, y)
  eager.backward()
  expect_close(loss, eager.detach(), rtol=1e-6, atol=1e-7)
  expect_close(conv_grad, net[0].weight.grad, rtol=1e-4, atol=1e-5)
  expect_close(graph_mean, net[1].running_mean, rtol=1e-6, atol=1e-7)
}

test "a training step reads its epilogue weights where they are; inference keeps them packed" {
  manual_seed(13)
  let net = nn.Sequential([nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 3)])
  let x = randn([5, 12])
  let y = tensor([0, 2, 1, 1, 0])
  fn step(xb, yb) = cross_entropy(net(xb), yb)
  let train = compile(step, x, y, train=true)
  train.optimize()
  expect("linear_relu" in train.ir() and "packed_weight=false" in train.ir(), train.ir())
  let infer = compile(net, x)
  infer.optimize()
  expect("linear_relu" in infer.ir() and not ("packed_weight" in infer.ir()), infer.ir())
  # Two steps in a row with the weights changed between them: the unpacked kernel reads
  # the new values, as eager does.
  let opt = optim.SGD(net.parameters(), lr=0.5)
  for i in range(2) {
    opt.zero_grad()
    let loss = train(x, y)
    let graph_grad = net[0].weight.grad.clone()
    opt.zero_grad()
    let eager = step(x, y)
    eager.backward()
    expect_close(loss, eager.detach(), rtol=1e-6, atol=1e-7)
    expect_close(graph_grad, net[0].weight.grad, rtol=1e-5, atol=1e-6)
    opt.step()
  }
  expect_close(infer(x), net(x), rtol=1e-5, atol=1e-6)
}

test "a training step pools straight from its convolutions: relu's mask moves before the pool's scatter" {
  manual_seed(14)
  let net = nn.Sequential([nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                           nn.Conv2d(4, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                           nn.Linear(8 * 2 * 2, 3)])
  let x = randn([5, 1, 8, 8])
  let y = tensor([0, 2, 1, 1, 0])
  fn step(xb, yb) = cross_entropy(net(xb), yb)
  let gm = compile(step, x, y, train=true)
  let report = gm.optimize(explain=true)
  expect("relu's mask taken on the pooled gradient" in report, report)
  expect(len(gm.ir().split("conv2d_relu_max_pool2d(")) - 1 == 2, gm.ir())
  # and each convolution's bias gradient comes out of its weight gradient's call
  expect(len(gm.ir().split("conv2d_backward_weight_bias(")) - 1 == 2, gm.ir())
  let loss = gm(x, y)
  let graph_grads = [p.grad.clone() for p in net.parameters()]
  net.zero_grad()
  let eager = step(x, y)
  eager.backward()
  expect_close(loss, eager.detach(), rtol=1e-6, atol=1e-7)
  for (g, p) in zip(graph_grads, net.parameters()) { expect_close(g, p.grad, rtol=1e-5, atol=1e-6) }
}
