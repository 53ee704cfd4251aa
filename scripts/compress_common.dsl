# What scripts/prune_cnn.dsl and scripts/distill.dsl share: the Fashion-MNIST data,
# the CNN (the fashion_mnist_cnn.dsl network with a BatchNorm2d after each conv, the
# layout that prune.shrink_channels cuts), a training loop, accuracy, inference
# speed, model size, and the trained CNN kept in a checkpoint so that the second
# script run with the same settings loads it instead of training again.
#   import "compress_common.dsl" as common
import nn
import optim
import data
import prune
import time

# Fashion-MNIST as [N, 1, 28, 28] standardized images and labels.
fn load_data(train_items=60000) {
  let train = data.fashion_mnist("train", flatten=false, normalize=true).subset(train_items)
  let test = data.fashion_mnist("test", flatten=false, normalize=true)
  return (train, test)
}

fn make_cnn() = nn.Sequential([
  nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
  nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
  nn.Flatten(), nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10)])

# A small MLP on the same [N, 1, 28, 28] input (the distillation student).
fn make_mlp(hidden) = nn.Sequential([nn.Flatten(), nn.Linear(784, hidden), nn.ReLU(), nn.Linear(hidden, 10)])

fn cross_entropy_loss(net, xb, yb) = cross_entropy(net(xb), yb)

# Trains `net` for `epochs` passes over `ds` (batches of 64, shuffled) with Adam and a
# cosine learning rate from `lr` to 0; loss_of(net, xb, yb) gives each step's loss.
# Prints a line per epoch; returns the seconds it took.
fn fit(net, ds, epochs, lr=1e-3, desc="train", loss_of=cross_entropy_loss) {
  let t0 = time.perf_counter()
  if epochs == 0 { return 0.0 }
  let opt = optim.Adam(net.parameters(), lr=lr)
  let sched = optim.CosineAnnealingLR(opt, T_max=epochs * ((len(ds) + 63) // 64))
  net.train()
  for epoch in range(epochs) {
    let batches = ds.batches(64, shuffle=true)
    let bar = data.Progress(batches, desc=f"{desc} {epoch + 1}/{epochs}")
    for (xb, yb) in batches {
      let loss = loss_of(net, xb, yb)
      opt.zero_grad()
      loss.backward()
      opt.step()
      sched.step()
      bar.update(loss=loss)
    }
    bar.close()
  }
  return time.perf_counter() - t0
}

# The fraction of ds's items that net classifies right (eval mode, no gradients).
fn accuracy(net, ds) {
  net.eval()
  let right = 0
  no_grad {
    for (xb, yb) in ds.batches(500) {
      right = right + sum(eq(argmax(net(xb), dim=1), yb)).item()
    }
  }
  net.train()
  return right / len(ds)
}

fn median(xs) {
  let s = sorted(xs)
  let n = len(s)
  return s[n // 2] if n % 2 == 1 else (s[n // 2 - 1] + s[n // 2]) / 2
}

# Inference time of one batch `x` in milliseconds for each of `nets`: eager, and as a
# graph (compile + the default passes, which fold the batch norms into the convs and
# fuse the activations). After warm-up calls, the runs take turns (every net and mode
# once per round, `rounds` rounds) so that a change in the load of a shared machine
# hits all of them alike; a run repeats the call enough times to last about 5 ms
# (tiny models are timed over many calls, not at the timer's resolution). Each figure
# is the median of its runs, per call. Returns a list of {"eager": ms, "graph": ms}.
fn speeds(nets, x, rounds=25) {
  let fns = []
  let reps = []
  no_grad {
    for net in nets {
      net.eval()
      let gm = compile(net, x)
      gm.optimize("default")
      fns.append(net)
      fns.append(gm)
    }
    for f in fns {
      for i in range(3) { f(x) }
      let t0 = time.perf_counter()
      f(x)
      reps.append(max(1, int(0.005 / max(time.perf_counter() - t0, 1e-6))))
    }
  }
  let times = []
  for f in fns { times.append([]) }
  no_grad {
    for r in range(rounds) {
      for k in range(len(fns)) {
        let t0 = time.perf_counter()
        for i in range(reps[k]) { fns[k](x) }
        times[k].append((time.perf_counter() - t0) * 1000.0 / reps[k])
      }
    }
  }
  let out = []
  for k in range(len(nets)) {
    nets[k].train()
    out.append({"eager": median(times[2 * k]), "graph": median(times[2 * k + 1])})
  }
  return out
}

# Parameters (all entries), nonzero entries as forward sees them (a pruned weight is
# weight_orig * weight_mask), and the bytes of the state_dict as save() stores it.
fn size(net) {
  let r = prune.sparsity_report(net, show=false)
  let bytes = 0
  for (name, t) in net.state_dict().items() { bytes = bytes + t.numel() * t.dtype.itemsize }
  return {"parameters": r["numel"], "nonzero": r["numel"] - r["zeros"], "bytes": bytes}
}

# The trained CNN: loaded from `path` when an earlier run saved it, else trained for
# `epochs` and saved there. Returns (net, seconds of training, loaded).
fn trained_cnn(train, epochs, path) {
  let net = make_cnn()
  if data.file_exists(path) {
    load(path, into=net)
    return (net, 0.0, true)
  }
  let seconds = fit(net, train, epochs, desc="cnn")
  save(net, path, metadata={"epochs": str(epochs), "train_items": str(len(train))})
  return (net, seconds, false)
}

# The checkpoint's path for these settings (both scripts use the same one).
fn cnn_checkpoint(epochs, train_items) = f"/tmp/nabla_fmnist_cnn_bn_e{epochs}_n{train_items}.safetensors"
