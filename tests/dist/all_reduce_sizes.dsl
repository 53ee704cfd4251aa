# All-reduce at the sizes where Gloo's algorithm changes (Note [Small all-reduces],
# tensor/dist/gloo_communicator.cpp: BCube up to 256 KiB, the ring above), on 3 ranks
# (BCube's direct exchange) and 4 (its two halving/doubling steps), with fewer
# elements than ranks, odd counts, every op and every Gloo dtype. Rank r holds (r + 1) * [1, 2, ..., n], so over
# W ranks the sum is W (W + 1) / 2 times [1..n], the max W times, the min once, and the
# average the sum divided by W (rounded toward zero for integers, as Gloo's backend does).
#   nabla launch -n 3 tests/dist/all_reduce_sizes.dsl    (ctest dist_all_reduce_sizes_3, _4)
import dist

dist.init(timeout=60)
let rank = dist.rank()
let world = dist.world_size()
# 65536 f32 are the 256 KiB boundary; 65537 the first ring size (f64: 32768 and 32769)
let counts = [1, 2, 3, 5, 1000, 32768, 32769, 65536, 65537]
let sum_factor = world * (world + 1) // 2
let factor = {"sum": sum_factor, "max": world, "min": 1}

fn expected(base, op, dt) {
  if op != "avg" { return base.to(f64) * factor[op] }
  let sums = base.to(f64) * sum_factor
  if dt == f32 or dt == f64 { return sums / world }
  return (sums / world).to(i64).to(f64)   # the conversion rounds toward zero
}
let failures = 0
for n in counts {
  for dt in [f32, f64, i64, i32] {
    for op in ["sum", "avg", "max", "min"] {
      let base = arange(n) + 1
      let t = (base * (rank + 1)).to(dt)
      dist.all_reduce(t, op=op)
      let worst = (t.to(f64) - expected(base, op, dt)).abs().max().item()
      if worst != 0 {
        print(f"rank {rank}: all_reduce {op} of {n} {dt} is off by {worst}")
        failures += 1
      }
    }
  }
}
dist.barrier()
if rank == 0 and failures == 0 {
  print(f"rank 0: all_reduce agrees at {len(counts)} sizes x 4 dtypes x 4 ops on {world} ranks")
}
dist.destroy()
