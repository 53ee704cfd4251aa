# BENCH line: the Fashion-MNIST CNN's inference at batch 64 compiled with the default
# passes (block_layout hands the first pooled convolution's result to the second in
# oneDNN's nChw16c: Note [Blocked activations between convolutions]) against the same
# passes without block_layout; microseconds per call, median of 9 rounds of 30 calls,
# interleaved. The output is the same either way (tests/graph/test_block_layout.dsl).
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
fn us(gm) {
  let t0 = time.perf_counter()
  for i in range(30) { gm(x) }
  return (time.perf_counter() - t0) / 30 * 1e6
}
no_grad {
  let a = compile(cnn, x)
  a.optimize("default")
  let b = compile(cnn, x)
  b.optimize("unroll,fold,simplify,cse,licm,dce,fold_bn,lower_quant,fuse_epilogue,fuse,plan")
  for i in range(10) { a(x); b(x) }
  let ta = []
  let tb = []
  for r in range(9) { ta.append(us(a)); tb.append(us(b)) }
  ta.sort()
  tb.sort()
  print(f"BENCH block_layout_cnn_b64 blocked_us={ta[4]:.1f} planar_us={tb[4]:.1f} speedup={tb[4] / ta[4]:.3f}")
}
