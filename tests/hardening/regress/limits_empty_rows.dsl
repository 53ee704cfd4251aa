# A tensor of no elements with a huge leading dim, [2^62, 0]: softmax, log_softmax,
# cumsum, cumprod, cummax and sort along dim 1 looped over its 2^62 empty rows (a
# hang), as group_norm, matmul and sum did over a batch of 2^40 empty ones (so did
# MultiheadAttention of a 0-length sequence); a shape holding a 0 failed "more elements than fit in 64 bits" when the
# product overflowed before it met the 0 (zeros(3, 2**62, 0), PyTorch's works); and
# unbind and split into 2^62 pieces were "cannot create std::vector larger than
# max_size()" or grew until the kernel killed nabla. Each is now at once: the empty
# result, or an out-of-memory error at the user's line.
# timeout: 20
# status: 1
# expect: (4611686018427387904, 0) (4611686018427387904, 0) (4611686018427387904, 0)
# expect: (4611686018427387904, 0) (4611686018427387904, 0) (4611686018427387904, 0)
# expect: (3, 0) (2, 4611686018427387904, 0) (4611686018427387904, 4611686018427387904, 0)
# expect: (1099511627776, 0) (1099511627776, 0, 3) (1099511627776, 0) (0, 1099511627776, 4)
# expect: split failed
# expect stderr: limits_empty_rows.dsl:26:7: error: out of memory: unbind into 4611686018427387904 pieces
let e = zeros(2**62, 0)
print(e.softmax(1).shape, e.log_softmax(1).shape, e.cumsum(1).shape)
print(e.cumprod(1).shape, e.cummax(1)[0].shape, e.sort(1)[0].shape)
print(zeros(3, 2**62, 0).sum(1).shape, stack([e, e]).shape, e.unsqueeze(0).expand(2**62, 2**62, 0).shape)
import nn
let b = zeros(2**40, 0, 4)
print(nn.functional.group_norm(zeros(2**40, 0), 1).shape, (b @ ones(4, 3)).shape, b.sum(2).shape, nn.MultiheadAttention(4, 2)(zeros(0, 2**40, 4), zeros(0, 2**40, 4), zeros(0, 2**40, 4))[0].shape)
expect_error(fn() = e.split(1), "split into 4611686018427387904 pieces")
print("split failed")
print(e.unbind(0))
