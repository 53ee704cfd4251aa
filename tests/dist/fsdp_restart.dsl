# Training that survives a lost rank: 20 Adam steps under FSDP on the ranks of one
# launch, a sharded checkpoint every 5 steps (DIR/stepS), which the launcher notes.
# With KILL set, rank 1 of the first run waits in step 7 to be killed (it writes its
# pid to DIR/kill_me; tests/dist/fsdp_restart_test.sh sends SIGKILL); nabla launch
# --max-restarts 1 starts both ranks again, they resume from the step-5 checkpoint
# (dist.elastic_state()["last_checkpoint"]), and the final parameters must equal one
# process's uninterrupted 20 steps.
#   nabla launch -n 2 --max-restarts 1 tests/dist/fsdp_restart.dsl DIR [kill]
import dist
import nn
import optim
import time

let dir = args[0]
let kill = len(args) > 1 and args[1] == "kill"
dist.init(timeout=10)
let rank = dist.rank()
let W = dist.world_size()
let restart = dist.elastic_state()["restart_count"]
let B = 2

model Net() {
  a = nn.Linear(6, 8)
  b = nn.Linear(8, 3)
  forward(x) = self.b(tanh(self.a(x)))
}
manual_seed(21)
let X = randn([20, B * W, 6], dtype=f64)
let Y = randn([20, B * W, 3], dtype=f64)

fn train(net, opt, first, lo, hi, on_step) {
  for s in range(first, 20) {
    opt.zero_grad()
    mse_loss(net(X[s][lo:hi]), Y[s][lo:hi]).backward()
    opt.step()
    on_step(s + 1)
  }
}

manual_seed(4)
let fsdp = dist.FullyShardedDataParallel(Net().to(f64), auto_wrap=["Linear"])
let opt = optim.Adam(fsdp.parameters(), lr=1e-2)
let first = 0
let last = dist.elastic_state()["last_checkpoint"]  # the launcher's note of the last finished checkpoint
if last != none {
  first = int(last.split("/step")[-1])
  dist.load_sharded(last, fsdp, optimizer=opt)
  print(f"rank {rank}: restart {restart}: resumed from the step-{first} checkpoint")
}

fn after_step(done) {
  if done % 5 == 0 {
    dist.save_sharded(fsdp, f"{dir}/step{done}", optimizer=opt)
  }
  if kill and restart == 0 and rank == 1 and done == 6 {  # in step 7: wait to be killed
    write_text(f"{dir}/kill_me", read_text("/proc/self/stat").split(" ")[0])
    time.sleep(60)
  }
}
train(fsdp, opt, first, rank * B, (rank + 1) * B, after_step)

manual_seed(4)
let single = Net().to(f64)
train(single, optim.Adam(single.parameters(), lr=1e-2), 0, 0, B * W, fn(done) = none)
let whole = fsdp.full_state_dict()
let worst = 0.0
for (n, p) in single.named_parameters() { worst = max(worst, (whole[n] - p).abs().max().item()) }
expect(worst < 1e-12, f"rank {rank}: training with a restart differs from one process by {worst}")
print(f"rank {rank}: 20 steps (restart {restart}) equal one process: {worst}")
