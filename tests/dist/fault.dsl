# A rank that dies or hangs (issue 8): driven by tests/dist/fault_test.sh, which
# starts 2 ranks with FAULT=kill or FAULT=hang. Both join and all-reduce a few times;
# then rank 1 prints "ready" and sleeps: the driver kills it (kill) or lets it hang.
# Rank 0 keeps all-reducing and must stop within the timeout with an error naming
# rank 1.
import dist
import time

dist.init(init_method=env("DIST_INIT", "env://"), timeout=float(env("DIST_TIMEOUT", "5")))
let t = ones([1000])
for i in range(3) { dist.all_reduce(t) }
if dist.rank() == 1 {
  print("ready", flush=true)
  time.sleep(600)
}
while true { dist.all_reduce(t) }
