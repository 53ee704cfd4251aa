# cat of huge sizes reported an overflowed negative size ("sizes must be
# non-negative, got [-9223372036854775808]"): shape arithmetic that overflows is an
# error naming the op (Note [Shape arithmetic]).
# status: 1
# expect stderr: error: cat: the size 4611686018427387904 + 4611686018427387904 does not fit in 64 bits
let big = ones([1]).expand([2 ** 62])
let x = cat([big, big])
