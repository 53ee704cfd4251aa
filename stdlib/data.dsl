# data: datasets, mini-batches, file readers and a progress bar.
# The readers and the batching are native (the `_data` module, interp/builtins/builtins_data.cpp).
import _data
import _data_samplers
import _data_loader

# read_idx(path, scale=false): an IDX file (gzipped or plain) as a tensor. Integer
# types give i64, f32/f64 keep their type; scale=true gives f32 divided by 255
# (u8 images in [0, 1]).
let read_idx = _data.read_idx
# read_csv(path, header=true): (data, columns): an f32 [rows, cols] tensor and the
# column names (c0, c1, ... without a header). Empty fields are nan.
let read_csv = _data.read_csv
fn csv(path, header=true) {
  """A CSV file of numbers as (an f32 [rows, cols] tensor, the column names), empty fields nan;
  without a header the columns are named c0, c1 and so on.

  Example: let (points, columns) = data.csv("points.csv")
  """
  return _data.read_csv(path, header)
}
fn write_csv(path, rows, header=none) {
  """Writes rows (a 2-D tensor, or a list of rows of numbers, all as wide) as a CSV file that
  data.csv / data.read_csv read back, with header (a list of column names) as its first row,
  whole or not at all as write_text does.

  Example: data.write_csv("losses.csv", [[1, 0.51], [2, 0.42]], header=["epoch", "loss"])
  """
  let table = _csv_rows(rows)
  let width = len(table[0]) if len(table) > 0 else (len(header) if header != none else 0)
  let lines = []
  if header != none { lines.append(_csv_header(header, width)) }
  for i in range(len(table)) {
    let r = table[i]
    if type(r) != "list" and type(r) != "tuple" { fail(f"data.write_csv(): rows[{i}] must be a list of numbers, got {type(r)}") }
    if len(r) != width { fail(f"data.write_csv(): rows[{i}] has {len(r)} values, rows[0] has {width}") }
    lines.append(",".join([_csv_number(v, i) for v in r]))
  }
  write_text(path, "".join([l + "\n" for l in lines]))
}

# write_csv's rows as a list of lists: a 2-D tensor's tolist(), or the list given.
fn _csv_rows(rows) {
  if type(rows) == "tensor" {
    if rows.ndim != 2 { fail(f"data.write_csv(): rows must be a 2-D tensor [rows, columns], got {rows.ndim} dims") }
    return rows.tolist()
  }
  if type(rows) != "list" and type(rows) != "tuple" {
    fail(f"data.write_csv(): rows must be a 2-D tensor or a list of rows, got {type(rows)}")
  }
  return list(rows)
}

# One value of a row: a number (bool, int or float; nan is written as an empty field,
# which read_csv reads as nan), written with every digit it has.
fn _csv_number(v, i) {
  if type(v) == "tensor" and v.numel() == 1 { return _csv_number(v.item(), i) }
  if type(v) == "bool" { return "1" if v else "0" }
  if type(v) == "int" { return str(v) }
  if type(v) == "float" { return "" if v != v else repr(v) }
  fail(f"data.write_csv(): rows[{i}] holds a {type(v)}; a CSV row holds numbers")
}

# The header row: width names with no comma, quote or line break (read_csv splits at
# every comma).
fn _csv_header(header, width) {
  if type(header) != "list" and type(header) != "tuple" { fail(f"data.write_csv(): header must be a list of column names, got {type(header)}") }
  if len(header) != width { fail(f"data.write_csv(): header has {len(header)} names, the rows have {width} columns") }
  for h in header {
    if type(h) != "str" { fail(f"data.write_csv(): header names must be str, got {type(h)}") }
    for c in [",", "\"", "\n", "\r"] {
      if c in h { fail(f"data.write_csv(): header name {repr(h)} holds {repr(c)}, which a CSV field cannot hold here") }
    }
  }
  return ",".join(header)
}

# permutation(n, seed=none): an i64 tensor holding 0..n-1 shuffled (seeded, or drawn
# from the global generator, which manual_seed fixes).
let permutation = _data.permutation
# Progress(total=none, desc="", tty=none): a progress bar over total steps (a count or
# the list of batches). p.update(loss=none, steps=1)
# after each batch, p.close() at the end of the epoch. On a terminal it redraws one
# line (count/total, bar, it/s, ETA, mean loss); otherwise it prints one line at close.
# loss is a number or a one-element tensor; a GPU tensor is summed on the GPU and read
# only when the bar shows the mean, so the loop does not wait for the device each step.
let Progress = _data.Progress
# save_image(tensor, path): writes [H, W] or [C, H, W] (C 1 or 3; floats in [0, 1],
# clamped) as an 8-bit PNG file; the path must end in .png (no other format is written).
let save_image = _data.save_image

model TensorDataset(x, y=none) {
  """A dataset of tensors whose first dim indexes the items, x with the labels y (or none), as
  torch.utils.data.TensorDataset, with batches() for mini-batches.

  Example: data.TensorDataset(randn(100, 4), randint(3, [100])).batches(32, shuffle=true, seed=0)
  """
  let _checked = _check_items(x, y)
  x = x
  y = y
  __len__() = len(self.x)
  item(i) {
    """The i-th item: (x[i], y[i]), or x[i] without labels.

    Example: data.TensorDataset(randn(10, 4), arange(10)).item(3)
    """
    return (self.x[i], self.y[i]) if self.y != none else self.x[i]
  }
  __getitem__(i) = self.item(i)
  subset(n) {
    """The first n items as a dataset of views (no copy).

    Example: data.TensorDataset(randn(10, 4), arange(10)).subset(5)
    """
    # A slice would take n < 0 from the end (subset(-1) kept all but one) and n past
    # the end as all, silently; both are a count the dataset does not have.
    if type(n) != "int" or n < 0 or n > len(self.x) {
      fail(f"data.TensorDataset.subset(): n must be an int from 0 to the dataset's {len(self.x)} items, got " + (repr(n) if type(n) in ["int", "float"] else type(n)))
    }
    return TensorDataset(self.x[0:n], self.y[0:n] if self.y != none else none)
  }
  to(device) {
    """The dataset moved to device once, so that shuffling and batching run there with no copy per
    epoch or batch.

    Example: data.TensorDataset(randn(10, 4), arange(10)).to("cpu")
    """
    return TensorDataset(self.x.to(device), self.y.to(device) if self.y != none else none)
  }
  # Mini-batches: a list of (xb, yb) tuples (xb alone without labels) to loop over.
  # shuffle=true permutes the items first: seed=k gives the same order every time,
  # no seed draws one from the global generator. drop_last drops a short last batch.
  # device="cuda" moves the (shuffled) items there in one pinned transfer; the
  # batches are views of it. (A dataset used for many epochs is better moved once
  # with to(device).)
  batches(size, shuffle=false, drop_last=false, seed=none, device=none) {
    """Mini-batches as a list of (xb, yb) tuples (xb alone without labels), as a DataLoader gives
    them: shuffled first with shuffle (seed=k repeats an order), a short last batch dropped with
    drop_last, moved to device in one transfer.

    Example: data.TensorDataset(randn(10, 4), arange(10)).batches(4, shuffle=true, seed=0)
    """
    return _data.batches(self.x, self.y, size, shuffle, drop_last, seed, device)
  }
}

# TensorDataset's arguments: tensors with the items along dim 0, as many in y as in x.
fn _check_items(x, y) {
  let who = "data.TensorDataset()"
  for (name, t) in [("x", x), ("y", y)] {
    if name == "y" and t == none { continue }
    if type(t) != "tensor" { fail(f"{who}: {name} must be a tensor (its items along dim 0), got {type(t)}") }
    if t.ndim == 0 { fail(f"{who}: {name} must have a dim of items, got a 0-d tensor") }
  }
  if y != none and len(x) != len(y) { fail(f"{who}: x has {len(x)} items but y has {len(y)}") }
}

let fashion_mnist_dir = "/usr/share/datasets/fashion-mnist"
# The mean and standard deviation of the 60000 training images' pixels, in [0, 1].
let fashion_mnist_mean = 0.2860
let fashion_mnist_std = 0.3530

# Fashion-MNIST from the Debian package dataset-fashion-mnist: split "train" (60000
# items) or "test" (10000). Images are f32 in [0, 1], [N, 784], or [N, 1, 28, 28] with
# flatten=false; labels are i64 in 0..9 (fashion_mnist_classes names them).
# normalize=true standardizes the images with the training set's mean and standard
# deviation (torchvision's Normalize((0.2860,), (0.3530,)) for this data set).
fn fashion_mnist(split="train", flatten=true, normalize=false, dir=fashion_mnist_dir) {
  """Fashion-MNIST as a TensorDataset of f32 images in [0, 1] ([N, 784], or [N, 1, 28, 28] with
  flatten=false) and i64 labels 0..9, split "train" (60000 items) or "test" (10000);
  normalize=true standardizes the images.

  Example: let test = data.fashion_mnist("test", normalize=true)
  """
  let prefix = "train" if split == "train" else "t10k" if split == "test" else none
  if prefix == none {
    fail(f"data.fashion_mnist(): split must be \"train\" or \"test\", got {repr(split)}")
  }
  _check_dir("data.fashion_mnist()", dir)
  for (name, v) in [("flatten", flatten), ("normalize", normalize)] {
    if type(v) != "bool" { fail(f"data.fashion_mnist(): {name} must be a bool, got {type(v)}") }
  }
  let x = _data.read_idx(f"{dir}/{prefix}-images-idx3-ubyte.gz", scale=true)
  let y = _data.read_idx(f"{dir}/{prefix}-labels-idx1-ubyte.gz")
  let n = x.shape[0]
  if normalize {
    x = (x - fashion_mnist_mean) / fashion_mnist_std
  }
  return TensorDataset(x.reshape([n, 784]) if flatten else x.reshape([n, 1, 28, 28]), y)
}

fn fashion_mnist_available(dir=fashion_mnist_dir) {
  """Whether the Fashion-MNIST files are installed in dir (tests skip without them).

  Example: data.fashion_mnist_available()
  """
  _check_dir("data.fashion_mnist_available()", dir)
  return _data.file_exists(f"{dir}/t10k-images-idx3-ubyte.gz")
}

# A folder argument: a str, never another value's text (dir=5 looked in a folder "5").
fn _check_dir(who, dir) {
  if type(dir) != "str" { fail(f"{who}: dir must be a str (a folder), got {type(dir)}") }
}

# Whether `path` names a readable file (a checkpoint from an earlier run, say).
let file_exists = _data.file_exists

let fashion_mnist_classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt",
                             "Sneaker", "Bag", "Ankle boot"]

# torch.utils.data's samplers (stdlib/_data_samplers.dsl): index orders for a loop over
# mini-batches, BatchSampler(SubsetRandomSampler(range(n)), batch_size, drop_last).
let SequentialSampler = _data_samplers.SequentialSampler
let RandomSampler = _data_samplers.RandomSampler
let SubsetRandomSampler = _data_samplers.SubsetRandomSampler
let BatchSampler = _data_samplers.BatchSampler

# torch.utils.data's DataLoader, Subset, random_split and default_collate
# (stdlib/_data_loader.dsl)
let DataLoader = _data_loader.DataLoader
let Subset = _data_loader.Subset
let random_split = _data_loader.random_split
let default_collate = _data_loader.default_collate
let WeightedRandomSampler = _data_samplers.WeightedRandomSampler
