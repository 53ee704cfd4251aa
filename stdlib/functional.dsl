# functional: small helpers over tensors, written in the language.
# (A first stdlib module; nn, optim and data follow.)

# The number of elements of every tensor in a list (e.g. a model's parameters()).
fn numel_of(tensors) {
  let n = 0
  for t in tensors { n = n + t.numel() }
  return n
}

# one_hot(labels, classes): an f32 [n, classes] tensor with 1 at each label.
fn one_hot(labels, classes) = to_dtype(eq(unsqueeze(labels, -1), arange(classes)), f32)
