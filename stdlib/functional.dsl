# functional: small helpers over tensors, written in the language.
# (A first stdlib module; nn, optim and data follow.)

fn numel_of(tensors) {
  """The total number of elements of a list of tensors (a model's parameters(), say).

  Example: functional.numel_of(nn.Linear(4, 2).parameters())
  """
  let n = 0
  for t in tensors { n = n + t.numel() }
  return n
}

# The builtin, which checks its labels (int, in [0, classes)); a comparison with
# arange gave a row of zeros for a label out of range and matched float labels.
let _one_hot = one_hot

fn one_hot(labels, classes) {
  """An f32 [n, classes] tensor with 1 at each label, as torch.nn.functional.one_hot(labels,
  classes).float().

  Example: functional.one_hot(tensor([0, 2]), 3)
  """
  return _one_hot(labels, classes).to(f32)
}
