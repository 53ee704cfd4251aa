# FullyShardedDataParallel inside compile(step, x, y, train=true): the gathers and
# reduce-scatters are nodes of the compiled step (dist_shard_gather and its backward
# dist_shard_reduce), and under sharding="full" the reshard pass gathers each unit
# again for the backward, so the plan frees the forward's copies. 20 Adam steps of the
# char transformer (and of the CNN, "full") on N ranks equal one eager process in f64
# within 1e-12 under every sharding; bf16 gathers within 5e-2 of it (as the eager
# test, tests/dist/fsdp_equivalence.dsl). Compiled for inference, and with
# nn.checkpoint and clip_grad_norm_, it equals the eager wrapper.
#   nabla launch -n N tests/dist/fsdp_compile.dsl      (ctest dist_fsdp_compile_*)
import _dist
import dist
import nn
import optim
import "../../scripts/char_model.dsl" as char_model

dist.init(timeout=60)
let rank = dist.rank()
let W = dist.world_size()
let B = 2
let steps = 20

model CNN() {
  conv1 = nn.Conv2d(1, 4, 3, padding=1)
  conv2 = nn.Conv2d(4, 6, 3, padding=1)
  fc = nn.Linear(6 * 2 * 2, 5)
  forward(x) {
    let h = max_pool2d(relu(self.conv1(x)), 2)
    h = max_pool2d(relu(self.conv2(h)), 2)
    return self.fc(h.reshape([h.shape[0], -1]))
  }
}

fn transformer() = char_model.CharTransformer(11, 8, 2, 6)
fn transformer_loss(net, x, y) = cross_entropy(net(x).reshape([-1, 11]), y.reshape([-1]))
fn cnn_loss(net, x, y) = cross_entropy(net(x), y)

fn transformer_data() {
  manual_seed(99)
  let x = randint(0, 11, [steps, B * W, 6])
  return [x, (x + 1) % 11]
}
fn cnn_data() {
  manual_seed(98)
  return [randn([steps, B * W, 1, 8, 8], dtype=f64), randint(0, 5, [steps, B * W])]
}

# One eager process on the whole batch (eps as in fsdp_equivalence.dsl: the key
# bias's gradient is rounding noise).
fn train_single(make, loss_fn, data) {
  manual_seed(5)
  let net = make().to(f64)
  let opt = optim.Adam(net.parameters(), lr=3e-3, eps=1e-6)
  for s in range(steps) {
    opt.zero_grad()
    loss_fn(net, data[0][s], data[1][s]).backward()
    opt.step()
  }
  return net
}

# The compiled FSDP run on this rank's rows: [its graph module, the wrapper].
fn train_compiled(make, loss_fn, data, sharding, auto_wrap, mixed_precision) {
  manual_seed(5 + rank)  # rank 0's start is broadcast
  let fsdp = dist.FullyShardedDataParallel(make().to(f64), sharding=sharding, auto_wrap=auto_wrap,
                                           mixed_precision=mixed_precision)
  let opt = optim.Adam(fsdp.parameters(), lr=3e-3, eps=1e-6)
  let (lo, hi) = (rank * B, (rank + 1) * B)
  fn step(x, y) = loss_fn(fsdp, x, y)
  let gm = compile(step, data[0][0][lo:hi], data[1][0][lo:hi], train=true)
  gm.optimize()
  for s in range(steps) {
    opt.zero_grad()
    gm(data[0][s][lo:hi], data[1][s][lo:hi])
    opt.step()
  }
  expect(fsdp.comm_counts()["reduce"] == 0, f"every reduction ran in the graph: {fsdp.comm_counts()}")
  return [gm, fsdp]
}

fn worst_difference(fsdp, single) {
  let whole = fsdp.full_state_dict()
  let worst = 0.0
  for (n, p) in single.named_parameters() { worst = max(worst, (whole[n].to(f64) - p).abs().max().item()) }
  return worst
}

fn count(text, what) = len(text.split(what)) - 1

let queue_before = _dist.collective_queue_times()["run_us"]
let tdata = transformer_data()
let single = train_single(transformer, transformer_loss, tdata)
let planned = {}
for sharding in ["full", "grad_op", "none"] {
  let (gm, fsdp) = train_compiled(transformer, transformer_loss, tdata, sharding, ["Block"], none)
  let worst = worst_difference(fsdp, single)
  expect(worst < 1e-12, f"rank {rank}: compiled {sharding} char transformer differs by {worst}")
  # Three units: each gathers once in the forward and reduces once in the backward;
  # "full" gathers each again before the backward reads it.
  let ir = gm.ir()
  let gathers = count(ir, "dist_shard_gather(")
  expect(gathers == (6 if sharding == "full" else 3), f"{sharding}: {gathers} gathers in\n{ir}")
  expect(count(ir, "dist_shard_reduce(") == 3, f"{sharding}: reductions in\n{ir}")
  planned[sharding] = gm.memory_plan()["planned_bytes"]
}
# The graph's collectives ran on the collective queue's thread (Note [Collectives in a
# graph run]); the eager single-process runs make none.
expect(_dist.collective_queue_times()["run_us"] > queue_before, "the compiled steps' collectives went through the queue")
# ZeRO-3 keeps no unit's whole parameters from the forward to the backward: its plan
# holds fewer bytes than ZeRO-2's.
expect(planned["full"] < planned["grad_op"], f"planned bytes: {planned}")
let (b_gm, b_fsdp) = train_compiled(transformer, transformer_loss, tdata, "full", ["Block"],
                                    {"param_dtype": bf16, "reduce_dtype": f32})
let b_worst = worst_difference(b_fsdp, single)
expect(b_worst < 5e-2, f"rank {rank}: compiled bf16 char transformer differs by {b_worst}")

# The wrapper compiled for inference gives what its eager forward gives; a step with
# nn.checkpoint around a unit (inside compile() it runs the unit as it is) gives the
# eager step's loss and gradients, and clip_grad_norm_ clips them alike.
model Three() {
  a = nn.Linear(4, 8)
  b = nn.Linear(8, 8)
  c = nn.Linear(8, 3)
  forward(x) = self.c(relu(nn.checkpoint(self.b, relu(self.a(x)))))
}
manual_seed(7)
let three = dist.FullyShardedDataParallel(Three().to(f64), sharding="full", auto_wrap=["Linear"])
let x3 = randn([2 * W, 4], dtype=f64)[rank * 2:rank * 2 + 2]
let y3 = tensor([0, 2])
expect_close(compile(three, x3)(x3), three(x3).detach(), rtol=1e-12, atol=1e-12)
fn three_step(x, y) = cross_entropy(three(x), y)
let eager_loss = three_step(x3, y3)
eager_loss.backward()
let eager_norm = three.clip_grad_norm_(0.1)
let eager_grads = [p.grad.clone() for p in three.parameters()]
for p in three.parameters() { p.grad = none }
let g3 = compile(three_step, x3, y3, train=true)
g3.optimize()
expect_close(g3(x3, y3), eager_loss.detach(), rtol=1e-12, atol=1e-12)
expect(abs(three.clip_grad_norm_(0.1) - eager_norm) < 1e-12, "the clipped norm")
for (p, g) in zip(three.parameters(), eager_grads) { expect_close(p.grad, g, rtol=1e-12, atol=1e-14) }

let cdata = cnn_data()
let (c_gm, c_fsdp) = train_compiled(CNN, cnn_loss, cdata, "full", 30, none)
let c_worst = worst_difference(c_fsdp, train_single(CNN, cnn_loss, cdata))
expect(c_worst < 1e-12, f"rank {rank}: compiled full CNN differs by {c_worst}")
print(f"rank {rank}: compiled fsdp on {W} ranks equals one process: planned bytes {planned}, bf16 {b_worst}, cnn {c_worst}")
