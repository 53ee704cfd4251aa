# BENCH line: a short scan (an RNN of 8 steps, hidden 32, batch 8, f32: 8 steps x 3
# body nodes, within the unroll pass's budget) compiled with the default passes, which
# unroll it, against the same passes without `unroll`, which keep it rolled: the
# median time per call of `rounds` rounds of 200 calls, interleaved.
#   ./build/nabla scripts/bench/unroll.dsl [rounds]
import time

let rounds = int(args[0]) if len(args) > 0 else 7
manual_seed(0)
let W = randn([32, 32]) * 0.2
fn rnn(xs) {
  let h = zeros([8, 32])
  for x in xs {
    h = tanh(h @ W + x)
  }
  return h
}
let xs = randn([8, 8, 32])
let rolled = compile(rnn, xs, mode="script")
rolled.optimize("fold,simplify,cse,licm,dce,fold_bn,lower_quant,fuse_epilogue,fuse,plan")
let unrolled = compile(rnn, xs, mode="script")
unrolled.optimize("default")
expect(rolled.ir().count(" = scan(") == 1 and unrolled.ir().count(" = scan(") == 0, "the two variants")

fn per_call_us(gm) {
  let t0 = time.perf_counter()
  for i in range(200) { gm(xs) }
  return (time.perf_counter() - t0) / 200 * 1e6
}
for i in range(50) { rolled(xs); unrolled(xs) }
let r = []
let u = []
for k in range(rounds) {
  r.append(per_call_us(rolled))
  u.append(per_call_us(unrolled))
}
let rm = sorted(r)[rounds // 2]
let um = sorted(u)[rounds // 2]
print(f"BENCH unroll_rnn_8_steps rolled={rm:.1f} unrolled={um:.1f} unit=us speedup={rm / um:.2f}")
