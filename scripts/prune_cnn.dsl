# Pruning the Fashion-MNIST CNN (two conv + batch-norm + pool blocks, a dense head;
# scripts/compress_common.dsl): its size, test accuracy and inference speed before and
# after
#   (a) unstructured magnitude pruning: global_unstructured over the conv and linear
#       weights to `sparsity` zeros, in `rounds` steps (each prunes the same fraction
#       of what is left, then fine-tunes with the masks kept), then remove();
#   (b) structured pruning: shrink_channels removes half of each conv's output
#       channels (smallest L1 filters), with their batch-norm entries and the inputs
#       that read them, then fine-tunes the smaller network.
#   nabla scripts/prune_cnn.dsl [epochs] [finetune_epochs] [train_items] [sparsity] [rounds] [checkpoint]
# Defaults: 3 epochs, 1 fine-tuning epoch per round (2 for the structured model),
# 60000 images, 0.8, 2 rounds, and the trained CNN kept in /tmp (checkpoint "none":
# always train). Ends with a summary table and a `prune_summary` line.
import nn
import prune
import "compress_common.dsl" as common

let epochs = int(args[0]) if len(args) > 0 else 3
let finetune = int(args[1]) if len(args) > 1 else 1
let train_items = int(args[2]) if len(args) > 2 else 60000
let sparsity = float(args[3]) if len(args) > 3 else 0.8
let rounds = int(args[4]) if len(args) > 4 else 2
let checkpoint = args[5] if len(args) > 5 else common.cnn_checkpoint(epochs, train_items)

manual_seed(0)
let (train, test) = common.load_data(train_items)
let batch64 = test.x[0:64]
let rows = []

# Measures a model's size and adds its row to the summary (speeds come at the end,
# all models in turn).
let nets = []
fn measure(name, net, acc) {
  let s = common.size(net)
  nets.append(net)
  rows.append([name, s["parameters"], s["nonzero"], s["bytes"], acc])
  print(f"{name}: {s['parameters']} parameters ({s['nonzero']} nonzero), {s['bytes'] / 1e6:.2f} MB, accuracy {acc:.4f}")
}

# ---- the unpruned CNN ---------------------------------------------------------------
let trained = common.trained_cnn(train, epochs, checkpoint) if checkpoint != "none" else none
let base = common.make_cnn()
if trained != none {
  base = trained[0]
  print(f"cnn: {'loaded from' if trained[2] else 'trained ' + str(epochs) + ' epochs, saved to'} {checkpoint}")
} else {
  common.fit(base, train, epochs, desc="cnn")
}
manual_seed(1)  # what follows does not depend on whether the CNN was loaded
let base_acc = common.accuracy(base, test)
measure("cnn", base, base_acc)

# ---- (a) unstructured: global magnitude pruning of the weights, masks kept ---------
print(f"\n(a) unstructured: {sparsity * 100:.0f}% of the conv and linear weights, {rounds} rounds")
let a = deepcopy(base)
let weights = []
for l in a.children() {
  if isinstance(l, nn.Conv2d) or isinstance(l, nn.Linear) { weights.append((l, "weight")) }
}
let per_round = 1.0 - (1.0 - sparsity) ** (1.0 / rounds)  # of what is left, each round
for r in range(rounds) {
  prune.global_unstructured(weights, amount=per_round)
  let zeros_before = prune.sparsity_report(a, show=false)["zeros"]
  print(f"round {r + 1}: {zeros_before} zeros, accuracy {common.accuracy(a, test):.4f} before fine-tuning")
  common.fit(a, train, finetune, lr=5e-4, desc=f"fine-tune (masked) {r + 1}")
  let zeros_after = prune.sparsity_report(a, show=false)["zeros"]
  assert(zeros_after >= zeros_before, f"the masks did not hold: {zeros_before} zeros before fine-tuning, {zeros_after} after")
}
let report = prune.sparsity_report(a)
let a_acc = common.accuracy(a, test)
prune.remove_all(a)  # dense tensors with zeros: what would be deployed
measure("unstructured", a, a_acc)
let nonzero = report["numel"] - report["zeros"]
print(f"stored sparse (f32 values + a 1-bit mask per entry) the weights would take " +
      f"{(nonzero * 4 + report['numel'] / 8) / 1e6:.2f} MB instead of {report['numel'] * 4 / 1e6:.2f} MB; " +
      "dense kernels run no faster")

# ---- (b) structured: half of each conv's channels, really removed -----------------
print("\n(b) structured: 50% of each conv's output channels (smallest L1 filters)")
let plan = prune.channel_plan(base, amount=0.5, n=1)
for step in plan {
  print(f"conv {step['conv']}: {step['channels']} -> {len(step['keep'])} channels")
}
let b = prune.shrink_channels(base, plan=plan)
print(f"accuracy {common.accuracy(b, test):.4f} before fine-tuning")
common.fit(b, train, 2 * finetune, lr=5e-4, desc="fine-tune (shrunk)")
let b_acc = common.accuracy(b, test)
measure("structured", b, b_acc)

# ---- summary ---------------------------------------------------------------------------
let times = common.speeds(nets, batch64)
print("\nmodel         parameters    nonzero      bytes  accuracy  ms/batch64  images/s  graph ms")
for k in range(len(rows)) {
  let (name, params, nz, bytes, acc) = rows[k]
  let t = times[k]
  print(f"{name:<12} {params:>11} {nz:>10} {bytes:>10} {acc:>9.4f} {t['eager']:>11.2f} {64000.0 / t['eager']:>9.0f} {t['graph']:>9.2f}")
}
print(f"prune_summary base_accuracy={base_acc:.4f} unstructured_accuracy={a_acc:.4f} " +
      f"unstructured_sparsity={report['sparsity']:.1f} structured_accuracy={b_acc:.4f} " +
      f"structured_drop={(base_acc - b_acc) * 100:.2f} structured_parameters={rows[2][1]} " +
      f"structured_speedup={times[0]['eager'] / times[2]['eager']:.2f}")
