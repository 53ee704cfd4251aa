# _data_loader: torch.utils.data's DataLoader, Subset and random_split, under data.*
# (new-user round 6: `for (x, y) in DataLoader(ds, batch_size=32, shuffle=true)` is the
# first loop of most PyTorch programs, and it was missing). Private to the stdlib:
# import data.
#
# Note [A DataLoader in one process]
# The loader draws its order from a sampler (SequentialSampler, or RandomSampler with
# shuffle=true, or the one given), groups it with a BatchSampler, and collates each
# batch as torch's default_collate does: tensors stacked, numbers made a tensor (ints
# i64, floats f64), tuples and lists collated position by position into a list, dicts
# key by key. A TensorDataset, or a Subset of one, is fetched by one index per batch
# (x[idx]) instead of item by item; the result is the same. There are no worker
# processes: num_workers, pin_memory, timeout, prefetch_factor and persistent_workers
# are taken and change nothing but speed in PyTorch, so nothing here. generator= is a
# Generator the shuffle draws from (Note [A Generator is a saved state]); without one
# the global generator, which manual_seed fixes. Each `for` loop over the loader is one
# epoch with a fresh order, as PyTorch's.
let __name__ = "data"  # the name messages show (Module::shown_name)

import _argcheck
import _data_samplers

fn default_collate(batch) {
  """A list of items made one batch, as torch.utils.data.default_collate: tensors stacked, ints an i64 and floats
  an f64 tensor, tuples and lists position by position (into a list), dicts key by key, strs kept as a list.
  Example: data.default_collate([(ones(2), 1), (zeros(2), 0)])
  """
  let items = batch
  let first = items[0]
  let kind = type(first)
  if kind == "tensor" { return stack(items) }
  if kind in ["int", "bool"] { return tensor(items, dtype=i64) if kind == "int" else tensor(items) }
  if kind == "float" { return tensor(items, dtype=f64) }
  if kind == "str" { return list(items) }
  if kind in ["tuple", "list"] {
    for it in items {
      if len(it) != len(first) { fail(f"data.DataLoader(): each element in the batch should be of equal size, got {len(first)} and {len(it)}") }
    }
    return [default_collate([it[k] for it in items]) for k in range(len(first))]
  }
  if kind == "dict" { return {k: default_collate([it[k] for it in items]) for k in first.keys()} }
  fail(f"data.DataLoader(): default_collate cannot batch items of type {kind}; give collate_fn=")
}

# the batch of `indices` of dataset, collated; a TensorDataset (or a Subset of one) by one index each
fn _fetch(dataset, indices, collate_fn) {
  if collate_fn == none {
    if type(dataset) == "TensorDataset" {
      let idx = tensor(indices, dtype=i64, device=dataset.x.device)
      return dataset.x[idx] if dataset.y == none else [dataset.x[idx], dataset.y[idx]]
    }
    if type(dataset) == "Subset" { return _fetch(dataset.dataset, [dataset.indices[i] for i in indices], none) }
    return default_collate([dataset[i] for i in indices])
  }
  return collate_fn([dataset[i] for i in indices])
}

model Subset(dataset, indices) {
  """The items of dataset at indices, as torch.utils.data.Subset. Example: data.Subset(data.TensorDataset(randn(5, 2)), [0, 3])"""
  dataset = dataset
  indices = indices.tolist() if type(indices) == "tensor" else list(indices)
  __len__() = len(self.indices)
  __getitem__(i) = self.dataset[self.indices[i]]
}

fn random_split(dataset, lengths, generator=none) {
  """Disjoint Subsets of dataset with the given lengths (ints summing to len(dataset), or fractions summing to 1,
  the remainder dealt one by one as PyTorch's), in a random order drawn from generator (or the global generator),
  as torch.utils.data.random_split. Example: data.random_split(data.TensorDataset(randn(10, 2)), [7, 3])
  """
  let n = len(dataset)
  if not (type(lengths) in ["list", "tuple"]) or len(lengths) == 0 {
    fail(f"data.random_split(): lengths must be a list of ints or of fractions, got {_argcheck.shown(lengths)}")
  }
  let sizes = list(lengths)
  if all([type(x) == "float" for x in sizes]) and abs(sum(sizes) - 1.0) < 1e-9 {
    sizes = [int(n * f) for f in lengths]
    let rest = n - sum(sizes)
    for i in range(rest) { sizes[i % len(sizes)] = sizes[i % len(sizes)] + 1 }
  }
  if not all([type(x) == "int" and x >= 0 for x in sizes]) or sum(sizes) != n {
    fail(f"data.random_split(): sum of input lengths does not equal the length of the input dataset ({n}), got {repr(lengths)}")
  }
  let order = randperm(n, generator=generator).tolist()
  let out = []
  let start = 0
  for size in sizes {
    out.append(Subset(dataset, order[start:start + size]))
    start = start + size
  }
  return out
}

fn _sampler_for(who, dataset, shuffle, sampler, generator) {
  if sampler != none {
    if shuffle { fail(f"{who}: sampler option is mutually exclusive with shuffle") }
    return sampler
  }
  return _data_samplers.RandomSampler(dataset, generator=generator) if shuffle else _data_samplers.SequentialSampler(dataset)
}

model DataLoader(dataset, batch_size=1, shuffle=false, sampler=none, batch_sampler=none, num_workers=0, collate_fn=none,
                 pin_memory=false, drop_last=false, timeout=0, worker_init_fn=none, generator=none, prefetch_factor=2,
                 persistent_workers=false) {
  """Mini-batches of dataset (anything with len() and [i]: a TensorDataset, a Subset, a model with __len__ and
  __getitem__, a list), collated as torch.utils.data.DataLoader's default_collate does; shuffle=true gives a fresh
  order each epoch, from generator when given (Note [A DataLoader in one process]).

  Example: for (x, y) in data.DataLoader(data.TensorDataset(randn(10, 2), arange(10)), batch_size=4, shuffle=true) { }
  """
  let _who = "data.DataLoader()"
  let _checked = _check_loader(_who, dataset, batch_size, shuffle, sampler, batch_sampler, drop_last, num_workers)
  dataset = dataset
  batch_size = batch_size
  drop_last = drop_last
  collate_fn = collate_fn
  generator = generator
  sampler = _sampler_for(_who, dataset, shuffle, sampler, generator)
  batch_sampler = batch_sampler if batch_sampler != none else (none if batch_size == none else _data_samplers.BatchSampler(self.sampler, batch_size, drop_last))
  __len__() = len(self.batch_sampler) if self.batch_sampler != none else len(self.sampler)
  __iter__() {
    if self.batch_sampler == none { return [self.dataset[i] for i in self.sampler] }
    return [_fetch(self.dataset, idx, self.collate_fn) for idx in self.batch_sampler]
  }
}

fn _check_loader(who, dataset, batch_size, shuffle, sampler, batch_sampler, drop_last, num_workers) {
  if not (type(dataset) in ["list", "tuple"]) and not (hasattr(dataset, "__len__") and hasattr(dataset, "__getitem__")) {
    fail(f"{who}: dataset must have len() and [i] (a TensorDataset, a Subset, a model with __len__ and __getitem__), got {_argcheck.shown(dataset)}")
  }
  if batch_size != none and (type(batch_size) != "int" or batch_size < 1) {
    fail(f"{who}: batch_size should be a positive integer value, got {_argcheck.shown(batch_size)}")
  }
  _argcheck.check_option(who, "shuffle", "bool", shuffle)
  _argcheck.check_option(who, "drop_last", "bool", drop_last)
  if type(num_workers) != "int" or num_workers < 0 { fail(f"{who}: num_workers must be an int >= 0, got {_argcheck.shown(num_workers)}") }
  if batch_sampler != none and (batch_size != 1 or shuffle or sampler != none or drop_last) {
    fail(f"{who}: batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last")
  }
}
