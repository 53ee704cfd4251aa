# Milliseconds per Adam step (weight decay 0.01) over four f32 parameters of 1M, 256K,
# 4K and 64 elements: the fused kernel (tensor/optim.hpp) against optim.dsl's path
# written with tensor ops; the median and the best of 7 rounds of 50 steps.
#   nabla scripts/bench/adam_step.dsl [device]      (cpu, the default, or cuda)
import optim
import time
import cuda

let device = args[0] if len(args) > 0 else "cpu"

fn sync() {
  if device != "cpu" { cuda.synchronize() }
}

fn ms_per_step(fused) {
  optim._use_fused(fused)
  let ps = []
  for shape in [[1000, 1000], [256, 1000], [4096], [64]] {
    ps.append(randn(shape, device=device, requires_grad=true))
  }
  for p in ps { (p * p).sum().backward() }
  let opt = optim.Adam(ps, lr=1e-3, weight_decay=0.01)
  for i in range(5) { opt.step() }
  sync()
  let times = []
  for r in range(7) {
    let t0 = time.perf_counter()
    for i in range(50) { opt.step() }
    sync()
    times.append((time.perf_counter() - t0) / 50 * 1000)
  }
  optim._use_fused(true)
  times = sorted(times)
  return [times[3], times[0]]
}

for fused in [true, false] {
  let t = ms_per_step(fused)
  print(f"BENCH adam_step device={device} path={'fused' if fused else 'tensor_ops'} median_ms={t[0]} best_ms={t[1]}")
}
