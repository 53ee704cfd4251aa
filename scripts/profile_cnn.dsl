# Profiles the Fashion-MNIST CNN's training step (the model of fashion_mnist_cnn.dsl,
# batches of 64 real images): two warm-up steps, then `steps` steps under the
# profiler. Prints the ops by time, then each line of this file with its forward and
# backward time, and writes a Chrome trace (open it in Perfetto or chrome://tracing).
# --compile: the step's forward and backward run as one compiled graph (compile(...,
# train=true), default passes), each node of it a row of the table.
#   nabla scripts/profile_cnn.dsl [steps] [trace.json] [--compile]
import nn
import optim
import data

let compile_step = "--compile" in args
if compile_step { args.remove("--compile") }
let steps = int(args[0]) if len(args) > 0 else 5
let trace_path = args[1] if len(args) > 1 else "cnn_trace.json"
manual_seed(0)

let train = data.fashion_mnist("train", flatten=false).subset(64 * (steps + 2))
# The layers of fashion_mnist_cnn.dsl's nn.Sequential, one line each here, so that
# the table by line shows each layer's forward and backward time.
model CNN() {
  conv1 = nn.Conv2d(1, 32, 3, padding=1)
  conv2 = nn.Conv2d(32, 64, 3, padding=1)
  fc1 = nn.Linear(64 * 7 * 7, 128)
  fc2 = nn.Linear(128, 10)
  forward(x) {
    let h = max_pool2d(relu(conv1(x)), 2)
    h = max_pool2d(relu(conv2(h)), 2)
    h = relu(fc1(h.reshape([h.shape[0], -1])))
    return fc2(h)
  }
}
let net = CNN()
let opt = optim.Adam(net.parameters(), lr=1e-3)

fn loss_of(xb, yb) = cross_entropy(net(xb), yb)
let compiled = none
if compile_step {
  compiled = compile(loss_of, zeros([64, 1, 28, 28]), zeros([64], dtype=i64), train=true)
  compiled.optimize("default")
}

fn train_step(xb, yb) {
  opt.zero_grad()
  let loss = none
  if compiled == none {
    loss = loss_of(xb, yb)
    loss.backward()
  } else {
    loss = compiled(xb, yb)
  }
  opt.step()
  return loss
}

let batches = []
for b in train.batches(64) { batches.append(b) }
for (xb, yb) in batches[0:2] { train_step(xb, yb) }  # warm-up: caches, primitives

profile(sort="time", rows=16, trace=trace_path) {
  for (xb, yb) in batches[2:] { train_step(xb, yb) }
}
print(last_profile().table(group="line", rows=12))
print(f"trace: {trace_path} ({len(last_profile().events())} events)")
