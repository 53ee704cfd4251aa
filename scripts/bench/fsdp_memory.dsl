# Per-rank memory and step time of a ~20M-parameter MLP (5 Linear(2000, 2000), f32,
# Adam, batch 16 per rank) under one training mode:
#   single   one process, no group (the baseline)
#   ddp      dist.DistributedDataParallel
#   full     dist.FullyShardedDataParallel, sharding="full" (one unit per Linear)
#   grad_op  the same with sharding="grad_op"
#   full_sync  "full" with prefetch=false: each unit gathers when it starts
#   full_compiled, grad_op_compiled  the step compiled (compile(..., train=true), the
#              default passes): the graph's gathers run behind, issued a unit early
# Prints from rank 0, the largest figure over the ranks:
#   BENCH fsdp_memory mode=.. ranks=N params=.. exact_MB=.. state_MB=.. peak_MB=.. step_ms=..
# exact_MB: the bytes of this rank's parameters, gradients and Adam state (numel x 4);
# state_MB: what stays allocated after a step (the same, as the caching allocator
# rounds each block up to a quarter of a power of two, and whatever else lives);
# peak_MB: the most allocated during a step (gathered units, activations too);
# comm_ms, waited_ms (FSDP): the time per step its collectives ran on their thread,
# and the part of it the step waited for (the rest overlapped compute).
#   nabla scripts/bench/fsdp_memory.dsl single
#   nabla launch -n N scripts/bench/fsdp_memory.dsl full          (scripts/bench/fsdp_memory.sh runs all)
import _dist
import dist
import nn
import optim
import time

let mode = args[0]
let distributed = mode != "single"
if distributed { dist.init(timeout=120) }
let rank = dist.rank() if distributed else 0
let world = dist.world_size() if distributed else 1
let D = 2000

manual_seed(0)
let x = randn(16, D)
let y = randn(16, D)
let base = memory_allocated()
let net = nn.Sequential([nn.Linear(D, D), nn.ReLU(), nn.Linear(D, D), nn.ReLU(), nn.Linear(D, D), nn.ReLU(),
                         nn.Linear(D, D), nn.ReLU(), nn.Linear(D, D)])
let params = nn.count_parameters(net)
let wrapped = net
if mode == "ddp" { wrapped = dist.DistributedDataParallel(net) }
let compiled = mode.endswith("_compiled")
let sharding = mode.replace("_compiled", "")
if sharding == "full" or sharding == "grad_op" {
  wrapped = dist.FullyShardedDataParallel(net, sharding=sharding, auto_wrap=["Linear"])
}
if mode == "full_sync" {
  wrapped = dist.FullyShardedDataParallel(net, sharding="full", auto_wrap=["Linear"], prefetch=false)
}
let opt = optim.Adam(wrapped.parameters(), lr=1e-4)

fn loss_of(xb, yb) = mse_loss(wrapped(xb), yb)
let gm = compile(loss_of, x, y, train=true) if compiled else none
if compiled { gm.optimize() }
fn step() {
  opt.zero_grad()
  if compiled { gm(x, y) } else { loss_of(x, y).backward() }
  opt.step()
}
step()  # Adam's state exists after the first step
reset_peak_memory_stats()
let queued0 = _dist.collective_queue_times()
let t0 = time.perf_counter()
let steps = 3
for i in range(steps) { step() }
let step_ms = (time.perf_counter() - t0) / steps * 1000
let queued1 = _dist.collective_queue_times()
# FSDP's collectives per step: the time they ran, and what the steps waited for them.
let comm_ms = (queued1["run_us"] - queued0["run_us"]) / steps / 1000
let waited_ms = (queued1["wait_us"] - queued0["wait_us"]) / steps / 1000
# The bytes of the tensors this rank keeps for training.
fn kept_bytes() {
  let n = 0
  for p in wrapped.parameters() {
    n = n + 2 * p.numel() * 4  # the parameter and its gradient
  }
  for st in opt.state {
    for (k, v) in st.items() {
      if type(v) == "tensor" { n = n + v.numel() * 4 }
    }
  }
  return n
}
let figures = tensor([kept_bytes() / 1e6, (memory_allocated() - base) / 1e6, (max_memory_allocated() - base) / 1e6, step_ms,
                       comm_ms, waited_ms], dtype=f64)
if distributed { dist.all_reduce(figures, op="max") }
if rank == 0 {
  let comm = ""
  if mode != "single" and mode != "ddp" {
    comm = f" comm_ms={round(figures[4].item(), 1)} waited_ms={round(figures[5].item(), 1)}"
  }
  print(f"BENCH fsdp_memory mode={mode} ranks={world} params={params} exact_MB={round(figures[0].item(), 1)} " +
        f"state_MB={round(figures[1].item(), 1)} peak_MB={round(figures[2].item(), 1)} step_ms={round(figures[3].item(), 1)}" +
        comm)
}
