# _data_samplers: torch.utils.data's samplers, under data.*: SequentialSampler,
# RandomSampler, SubsetRandomSampler, WeightedRandomSampler and BatchSampler, as PPO's
# and other training loops use them over a rollout buffer or an index list:
#
#   for idx in data.BatchSampler(data.SubsetRandomSampler(range(n)), batch_size=64, drop_last=false) {
#     let loss = step(obs[idx], actions[idx])
#   }
#
# Each is iterable (a fresh order per `for` loop, drawn from the global generator, so
# manual_seed reproduces it, or from the Generator given as generator=) and has len().
# Indices are ints; a batch is a list of
# them, which indexes a tensor as PyTorch's does. Private to the stdlib: import data.
let __name__ = "data"  # the name messages show (Module::shown_name)

import _argcheck

# How many items a data source holds: a count's source (an int n for range(n) is not
# PyTorch's, but a range, list, tuple, tensor or dataset is) and an error otherwise.
fn _source_len(who, source) {
  if type(source) in ["list", "tuple", "range", "tensor", "str"] or hasattr(source, "__len__") { return len(source) }
  fail(f"{who}: data_source must be a sized collection (a range, list, tensor or dataset), got {_argcheck.shown(source)}")
}

fn _check_count(who, what, v, least) {
  if type(v) != "int" or v < least {
    fail(f"{who}: {what} must be an int >= {least}, got {_argcheck.shown(v)}")
  }
}

model SequentialSampler(data_source) {
  "Indices 0..len(data_source)-1 in order, as torch.utils.data.SequentialSampler. Example: list(data.SequentialSampler(range(3)))"
  n = _source_len("data.SequentialSampler()", data_source)
  __len__() = self.n
  __iter__() = list(range(self.n))
}

model RandomSampler(data_source, replacement=false, num_samples=none, generator=none) {
  """Indices of data_source in a random order (a permutation, or num_samples draws with replacement), as
  torch.utils.data.RandomSampler; drawn from generator (a Generator) when given.

  Example: list(data.RandomSampler(range(5)))
  """
  let _who = "data.RandomSampler()"
  n = _source_len(_who, data_source)
  let _replacement_checked = _argcheck.check_option(_who, "replacement", "bool", replacement)
  replacement = replacement
  generator = generator
  num_samples = self.n if num_samples == none else num_samples
  let _count_checked = _check_count(_who, "num_samples", self.num_samples, 1)
  __len__() = self.num_samples
  __iter__() {
    # nothing to draw from: the permutations below added nothing forever (a hang)
    if self.n == 0 { fail(f"data.RandomSampler(): cannot draw {self.num_samples} samples from an empty data_source") }
    if self.replacement { return randint(0, self.n, [self.num_samples], generator=self.generator).tolist() }
    # PyTorch's: whole permutations, as many as num_samples needs, cut to it
    let out = []
    while len(out) < self.num_samples { out.extend(randperm(self.n, generator=self.generator).tolist()) }
    return out[:self.num_samples]
  }
}

model SubsetRandomSampler(indices, generator=none) {
  """The given indices in a random order (drawn from generator when given), as torch.utils.data.SubsetRandomSampler.

  Example: list(data.SubsetRandomSampler(range(10)))
  """
  indices = (indices.tolist() if type(indices) == "tensor" else list(indices)) if type(indices) in ["list", "tuple", "range", "tensor"] else fail(f"data.SubsetRandomSampler(): indices must be a range, list or tensor of indices, got {_argcheck.shown(indices)}")
  __len__() = len(self.indices)
  generator = generator
  __iter__() = [self.indices[i] for i in randperm(len(self.indices), generator=self.generator).tolist()]
}

model WeightedRandomSampler(weights, num_samples, replacement=true, generator=none) {
  """num_samples indices drawn with probabilities proportional to weights (with replacement unless told), as
  torch.utils.data.WeightedRandomSampler: rare classes drawn as often as common ones.

  Example: list(data.WeightedRandomSampler([0.1, 0.9], 4))
  """
  let _who = "data.WeightedRandomSampler()"
  weights = tensor(weights, dtype=f64) if type(weights) in ["list", "tuple"] else (weights.double() if type(weights) == "tensor" else fail(f"{_who}: weights must be a list or a 1-D tensor of weights, got {_argcheck.shown(weights)}"))
  let _count_checked = _check_count(_who, "num_samples", num_samples, 1)
  let _replacement_checked = _argcheck.check_option(_who, "replacement", "bool", replacement)
  let _weights_checked = _check_weights(_who, self.weights)
  num_samples = num_samples
  replacement = replacement
  generator = generator
  __len__() = self.num_samples
  __iter__() = multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator).tolist()
}

fn _check_weights(who, w) {
  if w.ndim != 1 or w.numel() == 0 { fail(f"{who}: weights must be a non-empty 1-D sequence, got shape {list(w.shape)}") }
  if not (w >= 0).all().item() or not isfinite(w).all().item() or w.sum().item() <= 0 {
    fail(f"{who}: weights must be finite, non-negative and not all zero")
  }
}

model BatchSampler(sampler, batch_size, drop_last) {
  """The indices of sampler in lists of batch_size (the last one shorter unless drop_last), as
  torch.utils.data.BatchSampler.

  Example: list(data.BatchSampler(data.SequentialSampler(range(5)), batch_size=2, drop_last=false))
  """
  let _who = "data.BatchSampler()"
  sampler = sampler if type(sampler) in ["list", "tuple", "range"] or hasattr(sampler, "__iter__") else fail(f"{_who}: sampler must be a sampler or a list of indices, got {_argcheck.shown(sampler)}")
  let _size_checked = _check_count(_who, "batch_size", batch_size, 1)
  let _drop_checked = _argcheck.check_option(_who, "drop_last", "bool", drop_last)
  batch_size = batch_size
  drop_last = drop_last
  __len__() = len(self.sampler) // self.batch_size if self.drop_last else (len(self.sampler) + self.batch_size - 1) // self.batch_size
  __iter__() {
    let order = list(self.sampler)
    let out = []
    for start in range(0, len(order), self.batch_size) {
      let batch = order[start:start + self.batch_size]
      if len(batch) == self.batch_size or not self.drop_last { out.append(batch) }
    }
    return out
  }
}
