# A shortened scripts/fashion_mnist_mlp.dsl: one epoch on 10000 training images.
# A broken gradient, optimizer or data pipeline cannot reach the thresholds (chance is
# 0.10; this run reaches about 0.80).
import nn
import optim
import data

test "the Fashion-MNIST MLP learns in one short epoch" {
  if not data.fashion_mnist_available() {
    print("skipped: the Debian package dataset-fashion-mnist is not installed")
    return
  }
  manual_seed(0)
  let train = data.fashion_mnist("train").subset(10000)
  let test = data.fashion_mnist("test").subset(2000)
  let net = nn.Sequential([nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10)])
  let opt = optim.Adam(net.parameters(), lr=1e-3)
  let first = none
  let last = 0.0
  for (xb, yb) in train.batches(64, shuffle=true) {
    let loss = cross_entropy(net(xb), yb)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if first == none { first = loss.item() }
    last = loss.item()
  }
  let right = 0
  no_grad {
    for (xb, yb) in test.batches(500) { right = right + sum(eq(argmax(net(xb), dim=1), yb)).item() }
  }
  let acc = right / len(test)
  expect(first > 2.0, f"the first loss should be near ln(10), got {first}")
  expect(last < 0.9, f"the loss should fall below 0.9 in one epoch, got {last}")
  expect(acc > 0.72, f"test accuracy after one short epoch: {acc}")
}
