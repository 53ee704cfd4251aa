# nabla's side of the quant_conv figure (scripts/bench/bench.py): the two convolutions
# of scripts/fashion_mnist_cnn.dsl at batch 64 (1 -> 32 channels on 28 x 28, 32 -> 64
# on 14 x 14, 3 x 3, padding 1) in f32 (conv2d) and in int8 (quantized_conv2d: u8
# input, i8 weights per channel, requantized u8 output, as PyTorch's
# quantized::conv2d computes; and with an f32 output), timed with the variants taking
# turns in each round; prints microseconds per call (medians) as key=value pairs.
# Speed does not depend on the values, so they are random.
import time

manual_seed(0)

fn median(xs) {
  let s = sorted(xs)
  return s[len(s) // 2]
}

# Microseconds per call of f(), median of `rounds` rounds of `calls` calls.
fn per_call(f, calls) {
  let t0 = time.perf_counter()
  for i in range(calls) { f() }
  return (time.perf_counter() - t0) / calls * 1e6
}

# One layer: f32, int8 with a u8 output, int8 with an f32 output, in turns.
fn time_layer(c_in, c_out, size, calls, rounds=9) {
  let x = relu(randn([64, c_in, size, size]))
  let w = randn([c_out, c_in, 3, 3]) * 0.1
  let b = randn([c_out]) * 0.1
  let xq = randint(0, 256, [64, c_in, size, size]).to(u8)
  let wq = randint(-127, 128, [c_out, c_in, 3, 3]).to(i8)
  let ws = rand([c_out]) * 0.001 + 0.001
  let f32 = fn() = conv2d(x, w, b, padding=[1, 1])
  let int8 = fn() = quantized_conv2d(xq, wq, ws, b, input_scale=0.02, input_zero_point=0, padding=[1, 1],
                                      output_scale=0.05, output_zero_point=0)
  let int8_f32 = fn() = quantized_conv2d(xq, wq, ws, b, input_scale=0.02, input_zero_point=0, padding=[1, 1])
  let tf = []
  let tq = []
  let tqf = []
  no_grad {
    for i in range(20) { f32(); int8(); int8_f32() }
    for r in range(rounds) {
      tf.append(per_call(f32, calls))
      tq.append(per_call(int8, calls))
      tqf.append(per_call(int8_f32, calls))
    }
  }
  return (median(tf), median(tq), median(tqf))
}

let (f1, q1, qf1) = time_layer(1, 32, 28, 50)
let (f2, q2, qf2) = time_layer(32, 64, 14, 50)
print(f"l1_f32={f1:.2f} l1_int8={q1:.2f} l1_int8_f32out={qf1:.2f} l2_f32={f2:.2f} l2_int8={q2:.2f} l2_int8_f32out={qf2:.2f}")
