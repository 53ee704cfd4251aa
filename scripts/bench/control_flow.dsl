# BENCH lines: an LSTM over a 256-step sequence, compiled rolled (mode="script": one
# scan node) against unrolled (trace mode: 256 copies of the cell): compile time
# (capture and the default passes), IR size and time per call, each the median of
# `rounds`; then the same for its training step (train=true: the loss and the
# weights' gradients; rolled, a forward scan and a reverse scan). The rolled compile
# includes running the scan once on the example (the program goes on with its values).
# Last, the rolled training step under each loop_checkpoint choice: time and peak memory.
#   ./build/nabla scripts/bench/control_flow.dsl [steps] [rounds]
import time

let steps = int(args[0]) if len(args) > 0 else 256
let rounds = int(args[1]) if len(args) > 1 else 5
let hidden = 64
manual_seed(0)
let wx = randn([32, 4 * hidden]) * 0.1
let wh = randn([hidden, 4 * hidden]) * 0.1
let b = zeros([4 * hidden])

fn lstm(xs) = lstm_on(xs, wx, wh, b)

# The training step's own weights, which need gradients.
let twx = wx.clone().requires_grad_()
let twh = wh.clone().requires_grad_()
let tb = b.clone().requires_grad_()
fn lstm_train(xs) = lstm_on(xs, twx, twh, tb)

fn lstm_on(xs, wx, wh, b) {
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
fn measure(f, mode, train, xs) {
  let compile_s = []
  let call_s = []
  let lines = 0
  for r in range(rounds) {
    let t0 = time.perf_counter()
    let gm = compile(f, xs, mode=mode, train=train)
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
let rolled = measure(lstm, "script", false, xs)
let unrolled = measure(lstm, "trace", false, xs)
print(f"BENCH lstm_compile_{steps} rolled_ms={rolled[0] * 1000:.1f} unrolled_ms={unrolled[0] * 1000:.1f} compile_speedup={unrolled[0] / rolled[0]:.1f}")
print(f"BENCH lstm_run_{steps} rolled_ms={rolled[1] * 1000:.2f} unrolled_ms={unrolled[1] * 1000:.2f} run_ratio={unrolled[1] / rolled[1]:.2f}")
print(f"BENCH lstm_ir_{steps} rolled_lines={rolled[2]} unrolled_lines={unrolled[2]}")

let rolled_train = measure(lstm_train, "script", true, xs)
let unrolled_train = measure(lstm_train, "trace", true, xs)
print(f"BENCH lstm_train_compile_{steps} rolled_ms={rolled_train[0] * 1000:.1f} unrolled_ms={unrolled_train[0] * 1000:.1f} compile_speedup={unrolled_train[0] / rolled_train[0]:.1f}")
print(f"BENCH lstm_train_run_{steps} rolled_ms={rolled_train[1] * 1000:.2f} unrolled_ms={unrolled_train[1] * 1000:.2f} run_ratio={unrolled_train[1] / rolled_train[1]:.2f}")
print(f"BENCH lstm_train_ir_{steps} rolled_lines={rolled_train[2]} unrolled_lines={unrolled_train[2]}")

# loop_checkpoint: the rolled training step with each choice of what its forward scan
# saves per step for the backward: the median time per step over `rounds` steps, and
# the step's planned memory (the arena, where the saved stacks live).
fn checkpointed(choice) {
  let gm = compile(lstm_train, xs, mode="script", train=true, loop_checkpoint=choice)
  gm.optimize("default")
  gm(xs)
  let times = []
  for r in range(rounds) {
    let t0 = time.perf_counter()
    gm(xs)
    times.append(time.perf_counter() - t0)
  }
  return [median(times), gm.memory_plan()["planned_bytes"]]
}
for choice in ["none", "auto", "full"] {
  let r = checkpointed(choice)
  print(f"BENCH lstm_train_checkpoint_{choice}_{steps} step_ms={r[0] * 1000:.2f} planned_MiB={r[1] / 1048576:.2f}")
}
