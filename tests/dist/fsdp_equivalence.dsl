# FullyShardedDataParallel on N ranks equals one process on the N-fold batch: 20 Adam
# steps of the char transformer and of the CNN, in f64, parameters within 1e-12;
# with bf16 gathers and compute (f32 reduction) within 5e-2 of the f64 run (the
# parameters move up to 0.06; measured 0.027 on the key bias, whose gradient is
# noise, and under 0.007 elsewhere).
#   nabla launch -n N tests/dist/fsdp_equivalence.dsl SHARDING     (ctest dist_fsdp_*)
import dist
import nn
import optim
import "../../scripts/char_model.dsl" as char_model

dist.init(timeout=60)
let rank = dist.rank()
let W = dist.world_size()
let sharding = args[0] if len(args) > 0 else "full"
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

# The batches of every step, the same on every rank (each takes its slice).
fn transformer_data() {
  manual_seed(99)
  let x = randint(0, 11, [steps, B * W, 6])
  return [x, (x + 1) % 11]
}
fn cnn_data() {
  manual_seed(98)
  return [randn([steps, B * W, 1, 8, 8], dtype=f64), randint(0, 5, [steps, B * W])]
}

# Trains `net` (wrapped or not) for `steps` Adam steps on rows [lo, hi) of each batch.
# The attention's key bias has a true gradient of 0 (softmax ignores a shift), so its
# gradient is rounding noise (~1e-17) that differs with the order of the sums; Adam
# divides it by sqrt(v) + eps, and with eps 1e-8 that noise alone moves the bias by
# ~1e-11 in 20 steps (sharding="none", DistributedDataParallel's arithmetic, shows
# the same). eps 1e-6 keeps it below the tolerance.
fn train(net, params, loss_fn, data, lo, hi) {
  let opt = optim.Adam(params, lr=3e-3, eps=1e-6)
  for s in range(steps) {
    opt.zero_grad()
    loss_fn(net, data[0][s][lo:hi], data[1][s][lo:hi]).backward()
    opt.step()
  }
}

# The largest difference between the FSDP run's parameters and one process's.
fn compare(make, loss_fn, data, auto_wrap, mixed_precision, prefetch=true) {
  manual_seed(5 + rank)  # rank 0's start is broadcast
  let net = make().to(f64)
  let fsdp = dist.FullyShardedDataParallel(net, sharding=sharding, auto_wrap=auto_wrap, mixed_precision=mixed_precision,
                                           prefetch=prefetch)
  train(fsdp, fsdp.parameters(), loss_fn, data, rank * B, (rank + 1) * B)
  manual_seed(5)
  let single = make().to(f64)
  let start = {}
  for (n, p) in single.named_parameters() { start[n] = p.detach().clone() }
  train(single, single.parameters(), loss_fn, data, 0, B * W)
  let whole = fsdp.full_state_dict()
  let worst = 0.0
  let moved = 0.0
  for (n, p) in single.named_parameters() {
    worst = max(worst, (whole[n].to(f64) - p).abs().max().item())
    moved = max(moved, (start[n] - p).abs().max().item())
  }
  expect(moved > 5e-3, f"the parameters did not move ({moved})")
  return [worst, fsdp]
}

let tdata = transformer_data()
let cdata = cnn_data()
let (t_worst, t_fsdp) = compare(transformer, transformer_loss, tdata, ["Block"], none)
expect(len(t_fsdp.units) == 3, f"units: {[u.path for u in t_fsdp.units]}")
expect(t_worst < 1e-12, f"rank {rank}: {sharding} char transformer differs by {t_worst}")
# Gathers per step: "full" gathers each unit for forward and again for backward,
# "grad_op" once, "none" never; one reduction per unit and step.
let counts = t_fsdp.comm_counts()
let per_step = {"full": 2, "grad_op": 1, "none": 0}[sharding]
expect(counts["all_gather"] == per_step * 3 * steps, f"{sharding}: all-gathers {counts}")
expect(counts["reduce"] == 3 * steps, f"{sharding}: reductions {counts}")
# Prefetch: from the second step (the first records the orders) the root's forward
# queues block 0's gather and block 0's block 1's; in backward ("full" only: "grad_op"
# keeps its gathered vectors) the root, which starts first, queues block 1's, and
# block 1 block 0's.
let prefetched = {"full": 4 * (steps - 1), "grad_op": 2 * (steps - 1), "none": 0}[sharding]
expect(counts["prefetched"] == prefetched, f"{sharding}: prefetched gathers {counts}, expected {prefetched}")
# Without prefetch: the same calls in the same order, so the same parameters, bit for bit.
let (s_worst, s_fsdp) = compare(transformer, transformer_loss, tdata, ["Block"], none, false)
expect(s_fsdp.comm_counts()["prefetched"] == 0 and s_fsdp.comm_counts()["all_gather"] == counts["all_gather"],
       f"without prefetch: {s_fsdp.comm_counts()}")
let with_prefetch = t_fsdp.full_state_dict()
for (n, p) in s_fsdp.full_state_dict().items() {
  expect((with_prefetch[n] - p).abs().max().item() == 0.0, f"{sharding}: prefetch changed {n}")
}

let (c_worst, c_fsdp) = compare(CNN, cnn_loss, cdata, 30, none)  # conv2 and fc are units of their own
expect(len(c_fsdp.units) == 3, f"units: {[u.path for u in c_fsdp.units]}")
expect(c_worst < 1e-12, f"rank {rank}: {sharding} CNN differs by {c_worst}")

let (b_worst, b_fsdp) = compare(transformer, transformer_loss, tdata, ["Block"], {"param_dtype": bf16, "reduce_dtype": f32})
expect(b_worst < 5e-2, f"rank {rank}: bf16 char transformer differs by {b_worst}")
print(f"rank {rank}: fsdp {sharding} on {W} ranks equals one process: transformer {t_worst}, cnn {c_worst}, bf16 {b_worst}")
