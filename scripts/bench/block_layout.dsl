# BENCH lines: the Fashion-MNIST CNN at batch 64 compiled with the default passes
# (block_layout keeps the values between its convolutions and pools in oneDNN's
# nChw16c: Note [Blocked activations between convolutions]) against the same passes
# without block_layout; microseconds per call, median of 9 rounds of 30 calls,
# interleaved. Inference, then the training step (forward and backward, compile(...,
# train=true)). The results are the same either way (tests/graph/test_block_layout.dsl).
#   ./build/nabla scripts/bench/block_layout.dsl
import nn
import time
manual_seed(0)
let cnn = nn.Sequential([
  nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
  nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
  nn.Flatten(), nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10)])
cnn.eval()
let x = randn([64, 1, 28, 28])
let y = randint(0, 10, [64])
let planar_passes = "unroll,fold,simplify,cse,licm,dce,reshard,fold_bn,lower_quant,fuse_epilogue,fuse,plan"

# The median microseconds per call of `call` on the graphs a (blocked) and b (planar).
fn interleaved(call, a, b) {
  fn us(gm) {
    let t0 = time.perf_counter()
    for i in range(30) { call(gm) }
    return (time.perf_counter() - t0) / 30 * 1e6
  }
  for i in range(10) { call(a); call(b) }
  let ta = []
  let tb = []
  for r in range(9) { ta.append(us(a)); tb.append(us(b)) }
  ta.sort()
  tb.sort()
  return f"blocked_us={ta[4]:.1f} planar_us={tb[4]:.1f} speedup={tb[4] / ta[4]:.3f}"
}

no_grad {
  let a = compile(cnn, x)
  a.optimize("default")
  let b = compile(cnn, x)
  b.optimize(planar_passes)
  print(f"BENCH block_layout_cnn_b64 {interleaved(fn(gm) = gm(x), a, b)}")
}
cnn.train()
fn loss_of(xb, yb) = cross_entropy(cnn(xb), yb)
let a = compile(loss_of, x, y, train=true)
a.optimize("default")
let b = compile(loss_of, x, y, train=true)
b.optimize(planar_passes)
print(f"BENCH block_layout_cnn_train_b64 {interleaved(fn(gm) = gm(x, y), a, b)}")
