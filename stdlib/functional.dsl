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

fn one_hot(labels, classes) {
  """An f32 [n, classes] tensor with 1 at each label, as torch.nn.functional.one_hot(labels,
  classes).float().

  Example: functional.one_hot(tensor([0, 2]), 3)
  """
  return to_dtype(eq(unsqueeze(labels, -1), arange(classes)), f32)
}
