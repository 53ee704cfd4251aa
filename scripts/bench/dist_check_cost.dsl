# What the comparison of the ranks' calls (Note [Collective checks],
# tensor/dist/call_check.hpp) costs each collective: all-reduces of f32 at the sizes
# of tests/dist/all_reduce_sizes.dsl and a DDP-sized bucket, back to back as a
# training loop makes them (`reps` of each, the median), and 4 KiB broadcasts and
# send/recv pairs. Run this build and one without the checks on the same machine:
#   nabla launch -n 2 scripts/bench/dist_check_cost.dsl [reps]
# Rank 0 prints "BENCH dist_<call>_<elements> time_us=..".
import dist
import time

dist.init()
let reps = int(args[0]) if len(args) > 0 else 201
let rank = dist.rank()

fn median_us(f) {
  f()
  let times = []
  for i in range(reps) {
    let t0 = time.perf_counter()
    f()
    times.append(time.perf_counter() - t0)
  }
  return sorted(times)[len(times) // 2] * 1e6
}

fn report(name, us) {
  if rank == 0 { print(f"BENCH dist_{name} time_us={us:.1f}") }
}

for n in [1, 1000, 32768, 65537, 262144, 6553600] {
  let t = ones([n])
  report(f"all_reduce_{n}", median_us(fn() = dist.all_reduce(t)))
}
let b = ones([1024])
report("broadcast_1024", median_us(fn() = dist.broadcast(b, src=0)))
let m = ones([1024])
fn ping() {
  if rank == 0 {
    dist.send(m, 1)
    dist.recv(m, 1)
  } else {
    dist.recv(m, 0)
    dist.send(m, 0)
  }
}
report("send_recv_1024", median_us(ping))
dist.destroy()
