# linspace(0, 1, 2**62) grew a list of doubles for tens of seconds: the tensor is
# made first, and its size fails at once.
# status: 1
# timeout: 10
# expect stderr: error: the shape [4611686018427387904] of f64 needs more bytes than fit in 64 bits
let x = linspace(0, 1, 2 ** 62)
