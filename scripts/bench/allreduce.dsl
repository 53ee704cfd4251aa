# All-reduce bus bandwidth against message size (issue 8), Gloo on loopback:
#   nabla launch -n 2 scripts/bench/allreduce.dsl [reps]
# For f32 messages of 4 KiB to 64 MiB: the median time of `reps` all-reduces (41; a
# third of that above 1 MiB) after a warm-up, and the bus bandwidth as NCCL's tests
# define it, 2 (n-1)/n × bytes / time, which is the same for any rank count. Small
# messages take ~0.3 ms or, when a woken thread waits a scheduler tick for a core on
# a busy machine, ~4 ms: a median of few samples flips between the two, hence 41.
# scripts/bench/allreduce_compare.sh runs this against PyTorch. Rank 0 prints
#   BENCH allreduce_<size> time_us=.. busbw_GBps=.. ranks=N
import dist
import time

dist.init()
let reps = int(args[0]) if len(args) > 0 else 41
let n = dist.world_size()
let sizes = [4096, 65536, 1048576, 16777216, 67108864]
let names = ["4KiB", "64KiB", "1MiB", "16MiB", "64MiB"]
for k in range(len(sizes)) {
  let t = ones([sizes[k] // 4])
  dist.all_reduce(t)
  let times = []
  let r = reps if sizes[k] <= 1048576 else max(3, reps // 3)
  for i in range(r) {
    dist.barrier()
    let t0 = time.perf_counter()
    dist.all_reduce(t)
    times.append(time.perf_counter() - t0)
  }
  let med = sorted(times)[len(times) // 2]
  let busbw = 2.0 * (n - 1) / n * sizes[k] / med / 1e9
  if dist.rank() == 0 {
    print(f"BENCH allreduce_{names[k]} time_us={med * 1e6:.1f} busbw_GBps={busbw:.3f} ranks={n}")
  }
}
dist.destroy()
