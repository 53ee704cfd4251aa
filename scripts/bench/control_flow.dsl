# BENCH lines: an LSTM over a 256-step sequence, compiled rolled (mode="script": one
# scan node) against unrolled (trace mode: 256 copies of the cell): compile time
# (capture and the default passes), IR size and time per call, each the median of
# `rounds`. The rolled compile includes running the scan once on the example (the
# program goes on with its values).
#   ./build/nabla scripts/bench/control_flow.dsl [steps] [rounds]
import time

let steps = int(args[0]) if len(args) > 0 else 256
let rounds = int(args[1]) if len(args) > 1 else 5
let hidden = 64
manual_seed(0)
let wx = randn([32, 4 * hidden]) * 0.1
let wh = randn([hidden, 4 * hidden]) * 0.1
let b = zeros([4 * hidden])

fn lstm(xs) {
  let h = zeros([16, hidden])
  let c = zeros([16, hidden])
  let loss = zeros([])
  for x in xs {
    let gates = x @ wx + h @ wh + b
    let i = sigmoid(gates[:, 0:hidden])
    let f = sigmoid(gates[:, hidden:2 * hidden])
    let g = tanh(gates[:, 2 * hidden:3 * hidden])
    let o = sigmoid(gates[:, 3 * hidden:4 * hidden])
    c = f * c + i * g
    h = o * tanh(c)
    loss = loss + (h * h).mean()
  }
  return loss
}

fn median(xs) {
  let s = sorted(xs)
  return s[len(s) // 2]
}

# (compile seconds, call seconds, IR lines) for one mode, medians over rounds.
fn measure(mode, xs) {
  let compile_s = []
  let call_s = []
  let lines = 0
  for r in range(rounds) {
    let t0 = time.perf_counter()
    let gm = compile(lstm, xs, mode=mode)
    gm.optimize("default")
    compile_s.append(time.perf_counter() - t0)
    lines = gm.ir().count("\n")
    let t1 = time.perf_counter()
    gm(xs)
    call_s.append(time.perf_counter() - t1)
  }
  return [median(compile_s), median(call_s), lines]
}

let xs = randn([steps, 16, 32])
let rolled = measure("script", xs)
let unrolled = measure("trace", xs)
print(f"BENCH lstm_compile_{steps} rolled_ms={rolled[0] * 1000:.1f} unrolled_ms={unrolled[0] * 1000:.1f} compile_speedup={unrolled[0] / rolled[0]:.1f}")
print(f"BENCH lstm_run_{steps} rolled_ms={rolled[1] * 1000:.2f} unrolled_ms={unrolled[1] * 1000:.2f} run_ratio={unrolled[1] / rolled[1]:.2f}")
print(f"BENCH lstm_ir_{steps} rolled_lines={rolled[2]} unrolled_lines={unrolled[2]}")
