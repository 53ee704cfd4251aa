# One figure of scripts/bench/cuda_bench.py, timed inside this run (so start-up, CUDA
# initialisation and the libraries' first calls stay out of it):
#   nabla scripts/bench/cuda_bench.dsl OP DTYPE TF32 REPS ITERS [BENCHMARK]
# OP is gemm (a 4096 x 4096 matmul) or conv2d (a 3x3 convolution, 64 -> 64 channels,
# on [32, 64, 56, 56] with padding 1); DTYPE is f32, bf16 or f16; TF32 is 1 or 0;
# BENCHMARK 1 turns on cuda.set_benchmark (algorithms chosen by timing).
# After a warm-up, each of REPS repetitions times ITERS back-to-back calls between two
# cuda.synchronize() and prints `seconds=S`, S being the time of one call.
import cuda
import time

let op = args[0]
let dt = f32 if args[1] == "f32" else (bf16 if args[1] == "bf16" else f16)
cuda.set_allow_tf32(args[2] == "1")
let reps = int(args[3])
let iters = int(args[4])
cuda.set_benchmark(len(args) > 5 and args[5] == "1")

let gemm = op == "gemm"
let x = (randn([4096, 4096], dtype=dt) if gemm else randn([32, 64, 56, 56], dtype=dt)).to("cuda")
let w = (randn([4096, 4096], dtype=dt) if gemm else randn([64, 64, 3, 3], dtype=dt)).to("cuda")

fn once() = matmul(x, w) if gemm else conv2d(x, w, none, padding=1)

for i in range(3) {
  let y = once()
}
cuda.synchronize()
for r in range(reps) {
  let t0 = time.perf_counter()
  for i in range(iters) {
    let y = once()
  }
  cuda.synchronize()
  print(f"seconds={(time.perf_counter() - t0) / iters}")
}
