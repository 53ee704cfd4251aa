# Datasets and mini-batches of the data module.
import data

test "TensorDataset: len, item, subset" {
  let ds = data.TensorDataset(arange(10).reshape([5, 2]), tensor([0, 1, 2, 3, 4]))
  expect(len(ds) == 5)
  let (x, y) = ds.item(2)
  expect(x.tolist() == [4, 5] and y.item() == 2)
  let (x3, y3) = ds[3]
  expect(x3.tolist() == [6, 7] and y3.item() == 3)
  let s = ds.subset(3)
  expect(len(s) == 3)
  expect(s.y.tolist() == [0, 1, 2])
  expect(len(data.TensorDataset(zeros([4, 3]))) == 4)
  expect(len([1, 2]) == 2)
  expect_error("data.TensorDataset(arange(3), arange(4))", "data.TensorDataset(): x has 3 items but y has 4")
}

test "batches: sizes and drop_last" {
  let ds = data.TensorDataset(arange(10).reshape([5, 2]), arange(5))
  let b = ds.batches(2)
  expect(len(b) == 3)
  let sizes = []
  for (xb, yb) in b { sizes.append(xb.shape[0]) }
  expect(sizes == [2, 2, 1])
  let (x0, y0) = b[0]
  expect(x0.tolist() == [[0, 1], [2, 3]] and y0.tolist() == [0, 1])
  expect(len(ds.batches(2, drop_last=true)) == 2)
  expect(len(ds.batches(5, drop_last=true)) == 1)
  expect(len(ds.batches(7)) == 1)
  expect(len(ds.batches(7, drop_last=true)) == 0)
  expect_error("data.TensorDataset(arange(4), arange(4)).batches(0)", "batches(): size must be positive, got 0")
  expect_error("data.TensorDataset(arange(4), arange(4)).batches(2, seed=1)", "batches(): seed is only used with shuffle=true")
}

test "batches: without labels yield tensors" {
  let b = data.TensorDataset(arange(5)).batches(2)
  expect(b[2].tolist() == [4])
}

fn order(ds, size, seed) {
  let seen = []
  for (xb, yb) in ds.batches(size, shuffle=true, seed=seed) {
    for v in yb.tolist() { seen.append(v) }
  }
  return seen
}

test "batches: a seeded shuffle is reproducible and sees every item once" {
  let n = 103
  let ds = data.TensorDataset(arange(n).to(f32).unsqueeze(1), arange(n))
  let a = order(ds, 10, 7)
  expect(a == order(ds, 10, 7))
  expect(a != order(ds, 10, 8))
  expect(a != list(range(n)))
  expect(sorted(a) == list(range(n)))
  # x and y stay paired.
  for (xb, yb) in ds.batches(16, shuffle=true, seed=3) {
    expect(xb.squeeze(1).to(i64).tolist() == yb.tolist())
  }
}

test "batches: no seed draws from the global generator (manual_seed reproduces)" {
  let ds = data.TensorDataset(arange(50), arange(50))
  manual_seed(1)
  let first = ds.batches(50, shuffle=true)[0][1].tolist()
  let second = ds.batches(50, shuffle=true)[0][1].tolist()
  expect(first != second)
  manual_seed(1)
  expect(ds.batches(50, shuffle=true)[0][1].tolist() == first)
  expect(sorted(first) == list(range(50)))
}

test "permutation" {
  let p = data.permutation(20, seed=5)
  expect(p.dtype == i64)
  expect(sorted(p.tolist()) == list(range(20)))
  expect(p.tolist() == data.permutation(20, seed=5).tolist())
}

test "Progress: off a terminal, one line at close; update takes losses" {
  let p = data.Progress(4, desc="epoch 1", tty=false)
  for k in range(4) { p.update(loss=tensor(0.5)) }
  expect(p.count() == 4)
  expect_close(p.mean_loss(), 0.5)
  p.close()
  p.close()
  let batches = data.TensorDataset(arange(10)).batches(3)
  let r = data.Progress(batches, desc="from a list", tty=false)
  for xb in batches { r.update() }
  r.close()
  expect(r.count() == 4)
  expect(r.mean_loss() == none)
  let q = data.Progress()
  q.update()
  q.close()
}

test "Progress: on a terminal (forced), the line redraws and close ends it" {
  let p = data.Progress(3, desc="tty", tty=true)
  for k in range(3) { p.update(loss=1.0) }
  p.close()
  expect(p.count() == 3)
}

test "a dataset and its batches on a device: to(\"cpu\") keeps the values, device= is read, bad devices are errors" {
  let ds = data.TensorDataset(arange(10).to(f32), arange(10))
  let moved = ds.to("cpu")
  expect(moved.x.device == "cpu")
  expect_close(moved.x, ds.x)
  let shuffled = moved.batches(4, shuffle=true, seed=3, device="cpu")
  let again = ds.batches(4, shuffle=true, seed=3)
  expect(len(shuffled) == 3)
  for k in range(3) { expect_close(shuffled[k][0], again[k][0]) }
  expect_error("data.TensorDataset(arange(4)).batches(2, device=\"gpu\")",
               "batches(): device: unknown device 'gpu' (expected \"cpu\", \"cuda\" or \"cuda:N\")")
}
