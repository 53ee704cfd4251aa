# torch.utils.data as the round-6 programs use it, added in that round: DataLoader over
# a TensorDataset, a Subset, a list of (x, y) pairs and a model with __len__ and
# __getitem__ returning dicts (default_collate's stacking, numbers made tensors,
# position by position, key by key), shuffle with a torch.Generator (reproducible, apart
# from the global generator), drop_last, batch_size=none, random_split by counts and by
# fractions, the samplers' generator=, Python's iter() and next() (next(iter(loader))),
# and their errors.
import nn
import optim
import data

model Squares(n) {
  n = n
  __len__() = self.n
  __getitem__(i) = {"x": tensor([float(i), float(i * i)]), "y": i % 2, "w": 0.5 * i}
}

test "a DataLoader over a TensorDataset gives PyTorch's batches, in order or shuffled" {
  let ds = data.TensorDataset(arange(10).float().unsqueeze(1), arange(10))
  let batches = list(data.DataLoader(ds, batch_size=4))
  expect(len(batches) == 3 and len(data.DataLoader(ds, batch_size=4)) == 3)
  let (x, y) = batches[2]
  expect(list(x.shape) == [2, 1] and y.tolist() == [8, 9])
  expect(len(data.DataLoader(ds, batch_size=4, drop_last=true)) == 2)
  # shuffled: every item once per epoch, a fresh order each epoch
  let loader = data.DataLoader(ds, batch_size=3, shuffle=true)
  let epoch1 = cat([y for (x, y) in loader])
  let epoch2 = cat([y for (x, y) in loader])
  expect(sorted(epoch1.tolist()) == list(range(10)) and sorted(epoch2.tolist()) == list(range(10)))
  expect(epoch1.tolist() != epoch2.tolist())
}

test "shuffling from a Generator repeats for its seed and ignores the global generator" {
  let ds = data.TensorDataset(randn(20, 2), arange(20))
  fn order(seed) {
    let loader = data.DataLoader(ds, batch_size=5, shuffle=true, generator=Generator().manual_seed(seed))
    randn(7)
    return cat([y for (_, y) in loader]).tolist()
  }
  manual_seed(0)
  let a = order(3)
  manual_seed(99)
  expect(order(3) == a)
  expect(order(4) != a)
  # the samplers take generator= too
  let s = data.RandomSampler(range(6), generator=Generator().manual_seed(1))
  expect(list(s) == list(data.RandomSampler(range(6), generator=Generator().manual_seed(1))))
  let sub = data.SubsetRandomSampler([10, 20, 30], generator=Generator().manual_seed(2))
  expect(sorted(list(sub)) == [10, 20, 30])
}

test "default_collate stacks tensors, makes numbers tensors and collates dicts and pairs" {
  let loader = data.DataLoader(Squares(7), batch_size=3)
  let b = next(iter(loader))
  expect(list(b["x"].shape) == [3, 2] and b["y"].dtype == i64 and b["w"].dtype == f64)
  expect(b["y"].tolist() == [0, 1, 0])
  expect_close(b["w"], tensor([0.0, 0.5, 1.0], dtype=f64))
  let pairs = [(randn(2), 1), (randn(2), 0), (randn(2), 1)]
  let (x, y) = next(iter(data.DataLoader(pairs, batch_size=3)))
  expect(list(x.shape) == [3, 2] and y.tolist() == [1, 0, 1])
  # batch_size=none: the items themselves
  expect([item["y"] for item in data.DataLoader(Squares(3), batch_size=none)] == [0, 1, 0])
  # collate_fn: the list of items
  let lens = list(data.DataLoader(["ab", "c", "def"], batch_size=2, collate_fn=fn(items) = [len(s) for s in items]))
  expect(lens == [[2, 1], [3]])
}

test "random_split by counts and by fractions gives disjoint Subsets that DataLoader batches" {
  let ds = data.TensorDataset(randn(10, 3), arange(10))
  let (train, val) = data.random_split(ds, [7, 3], generator=Generator().manual_seed(0))
  expect(len(train) == 7 and len(val) == 3)
  let seen = cat([y for (_, y) in data.DataLoader(train, batch_size=4)]).tolist() + [val[i][1].item() for i in range(3)]
  expect(sorted(seen) == list(range(10)))
  let parts = data.random_split(ds, [0.5, 0.3, 0.2])
  expect([len(p) for p in parts] == [5, 3, 2])
  let odd = data.random_split(data.TensorDataset(randn(7, 1)), [0.5, 0.5])
  expect([len(p) for p in odd] == [4, 3], "the remainder goes to the first parts, as PyTorch's")
  expect_error(fn() = data.random_split(ds, [5, 4]), "does not equal the length of the input dataset (10)")
}

test "iter() and next(): one item at a time, a default at the end, StopIteration without one" {
  let it = iter([1, 2, 3])
  expect(next(it) == 1)
  expect(list(it) == [2, 3], "a for loop or list() takes what is left")
  expect(next(it, "done") == "done")
  expect_error(fn() = next(it), "StopIteration")
  expect_error(fn() = next([1, 2]), "'list' object is not an iterator")
  expect(iter(it) is it)
}

test "DataLoader refuses what PyTorch refuses" {
  let ds = data.TensorDataset(randn(4, 2), arange(4))
  expect_error(fn() = data.DataLoader(ds, batch_size=0), "batch_size should be a positive integer value")
  expect_error(fn() = data.DataLoader(ds, shuffle=true, sampler=data.SequentialSampler(ds)), "mutually exclusive with shuffle")
  expect_error(fn() = data.DataLoader(ds, batch_size=2, batch_sampler=data.BatchSampler(range(4), 2, false)), "mutually exclusive")
  expect_error(fn() = data.DataLoader(5), "dataset must have len() and [i]")
  expect_error(fn() = list(data.DataLoader([(1, 2), (3,)], batch_size=2)), "equal size")
}

test "one batch from next(iter(loader)) is overfitted, as a PyTorch user checks a new model" {
  manual_seed(0)
  let ds = data.TensorDataset(randn(64, 4), randint(0, 3, [64]))
  let (x, y) = next(iter(data.DataLoader(ds, batch_size=16, shuffle=true)))
  let m = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 3))
  let opt = optim.Adam(m.parameters(), lr=1e-2)
  for step in range(150) {
    let loss = nn.functional.cross_entropy(m(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
  }
  expect(nn.functional.cross_entropy(m(x), y).item() < 0.05)
}

test "WeightedRandomSampler draws by weight, balances a DataLoader, and default_collate is public" {
  let s = data.WeightedRandomSampler([0.0, 1.0, 3.0], 2000, generator=Generator().manual_seed(0))
  let xs = tensor(list(s))
  expect(len(s) == 2000 and (xs == 0).sum().item() == 0)
  let share = (xs == 2).float().mean().item()
  expect(share > 0.7 and share < 0.8, f"weight 3 of 4 drawn {share}")
  # a class-balanced loader over 4 of class 0 and 2 of class 1
  let ds = data.TensorDataset(randn(6, 2), tensor([0, 0, 0, 0, 1, 1]))
  let w = [0.25 if y == 0 else 0.5 for y in ds.y.tolist()]
  let loader = data.DataLoader(ds, batch_size=100, sampler=data.WeightedRandomSampler(w, 4000))
  let ys = cat([y for (_, y) in loader]).float()
  expect(abs(ys.mean().item() - 0.5) < 0.05, f"class 1 share {ys.mean().item()}")
  expect_error(fn() = data.WeightedRandomSampler([0.0, 0.0], 2), "not all zero")
  let (x, y) = data.default_collate([(ones(2), 1), (zeros(2), 0)])
  expect(list(x.shape) == [2, 2] and y.tolist() == [1, 0])
}
