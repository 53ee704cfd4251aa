# nabla's side of the rnn_rows figures (scripts/bench/bench.py): a tanh RNN cell
# (Linear(64, 64)) over a [256, 16, 64] f32 input that writes each step's state into a
# preallocated tensor, out[t] = h, as PyTorch code often does. "eager": forward and
# backward (the loss the sum of out); "compiled": the forward as compile(...,
# mode="script") runs it, a scan whose rows are a stacked output (Note [Rows written
# at a step's index]), PyTorch's side under no_grad. Prints the median milliseconds
# per iteration (scripts/bench/rnn_rows_torch.py is PyTorch's side).
#   nabla scripts/bench/rnn_rows.dsl eager|compiled [iterations]
import nn
import time

let mode = args[0] if len(args) > 0 else "eager"
let iterations = int(args[1]) if len(args) > 1 else 9
manual_seed(0)

model Rows() {
  cell = nn.Linear(64, 64)
  forward(x) {
    let out = zeros([x.shape[0], x.shape[1], 64])
    let h = zeros([x.shape[1], 64])
    for t in range(x.shape[0]) {
      h = tanh(self.cell(h) + x[t])
      out[t] = h
    }
    return out
  }
}

let m = Rows()
let x = randn([256, 16, 64])
let run = m
if mode == "compiled" { run = compile(m, x, mode="script") }

fn step() {
  if mode == "compiled" {
    no_grad { run(x) }
  } else {
    run(x).sum().backward()
  }
}

step()  # warm-up
let times = []
for i in range(iterations) {
  let t0 = time.perf_counter()
  step()
  times.append((time.perf_counter() - t0) * 1e3)
}
print(f"{sorted(times)[len(times) // 2]:.3f}")
