# Fashion-MNIST's MLP (scripts/fashion_mnist_mlp.dsl) trained data-parallel:
#   nabla launch -n 2 scripts/fashion_mnist_ddp.dsl [epochs] [train_items] [checkpoint] [--logdir DIR]
# Each rank trains on its share of every epoch (dist.DistributedSampler) with batches
# of 64 / world_size, so that the global batch is 64 as in the single-process script;
# dist.DistributedDataParallel averages the gradients, so every rank takes the same
# step. Rank 0 prints the epochs, then epoch_seconds=... test_accuracy=... world=N.
# With one rank (`nabla launch -n 1`) it is the single-process run. A checkpoint path
# saves the model and optimizer after every epoch, written by rank 0 only (dist.save).
import nn
import optim
import data
import dist
import time
import "train_log.dsl" as train_log

dist.init()
let rank = dist.rank()
let world = dist.world_size()
# --logdir DIR: TensorBoard logs, one point per epoch, written by rank 0 (its share's loss).
let writer = train_log.from_args(args, writes=rank == 0)
let epochs = int(args[0]) if len(args) > 0 else 3
let train_items = int(args[1]) if len(args) > 1 else 60000
let checkpoint = args[2] if len(args) > 2 else none
manual_seed(0)

let train = data.fashion_mnist("train", normalize=true).subset(train_items)
let test = data.fashion_mnist("test", normalize=true)
let net = nn.Sequential([nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10)])
let model = dist.DistributedDataParallel(net)
let opt = optim.Adam(model.parameters(), lr=1e-3)
let global_batch = 64
let batch_size = global_batch // world
let sampler = dist.DistributedSampler(train, seed=0)
let steps_per_epoch = (len(sampler) + batch_size - 1) // batch_size
let sched = optim.CosineAnnealingLR(opt, T_max=epochs * steps_per_epoch)

fn accuracy(ds) {
  net.eval()
  let right = 0
  no_grad {
    for (xb, yb) in ds.batches(1000) {
      right = right + sum(eq(argmax(net(xb), dim=1), yb)).item()
    }
  }
  net.train()
  return right / len(ds)
}

let epoch_seconds = []
for epoch in range(epochs) {
  let t0 = time.perf_counter()
  sampler.set_epoch(epoch)
  let batches = sampler.batches(batch_size)
  # Rank 0 shows the progress; the others train quietly.
  let bar = data.Progress(batches, desc=f"epoch {epoch + 1}/{epochs} ({world} ranks)") if rank == 0 else none
  for (xb, yb) in batches {
    let loss = cross_entropy(model(xb), yb)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    if bar != none { bar.update(loss=loss) }
  }
  if bar != none { bar.close() }
  epoch_seconds.append(time.perf_counter() - t0)
  if bar != none { train_log.log_epoch(writer, epoch + 1, net, opt, bar.mean_loss(), fn() = accuracy(test)) }
  if checkpoint != none { dist.save({"model": net.state_dict(), "optimizer": opt.state_dict(), "epoch": epoch}, checkpoint) }
}
# Every rank holds the same parameters; rank 0 reports.
if rank == 0 {
  print(f"epoch_seconds={min(epoch_seconds):.3f} test_accuracy={accuracy(test):.4f} world={world}")
}
dist.destroy()
