# Errors of the tensor functions of interp/builtins/composites/composite_extra_shape.cpp and
# composite_extra_math.cpp (tile, rot90, scatter, index_add, kthvalue, bincount, cov, the
# random fills, ...): each names the function, the argument, what was expected and what
# was found, at the calling line.

# case: tile with a negative repeat
# expect error: tests/lang/errors_tensor_extra.dsl:10:9: error: tile(): argument 'dims' must be non-negative, got [2, -1]
# expect error line:   let r = tile(randn([2, 3]), [2, -1])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = tile(randn([2, 3]), [2, -1])
# ---
# case: broadcast_to a shape the input does not broadcast to
# expect error: tests/lang/errors_tensor_extra.dsl:16:9: error: broadcast_to(): input of shape [3, 4] cannot be broadcast to argument 'size' [2, 3]
# expect error line:   let r = broadcast_to(randn([3, 4]), [2, 3])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = broadcast_to(randn([3, 4]), [2, 3])
# ---
# case: rot90 in one dim twice
# expect error: tests/lang/errors_tensor_extra.dsl:22:9: error: rot90(): argument 'dims' must be two different dims, got [1, -1]
# expect error line:   let r = rot90(randn([2, 3]), 1, [1, -1])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = rot90(randn([2, 3]), 1, [1, -1])
# ---
# case: tensor_split into zero sections
# expect error: tests/lang/errors_tensor_extra.dsl:28:9: error: tensor_split(): argument 'indices_or_sections' must be a positive number of sections, got 0
# expect error line:   let r = tensor_split(arange(6), 0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~
let r = tensor_split(arange(6), 0)
# ---
# case: split_with_sizes whose sizes do not add up
# expect error: tests/lang/errors_tensor_extra.dsl:34:9: error: split_with_sizes(): argument 'split_sizes' [2, 3] adds up to 5, but dim 0 of shape [6] has size 6
# expect error line:   let r = split_with_sizes(arange(6), [2, 3])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = split_with_sizes(arange(6), [2, 3])
# ---
# case: take past the end
# expect error: tests/lang/errors_tensor_extra.dsl:40:9: error: take(): argument 'index' holds 6, out of range for an input of 6 elements (expected an index in [-6, 5])
# expect error line:   let r = take(randn([2, 3]), tensor([0, 6]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = take(randn([2, 3]), tensor([0, 6]))
# ---
# case: scatter to an index past the dim
# expect error: tests/lang/errors_tensor_extra.dsl:46:9: error: scatter(): argument 'index' holds 3, out of range for dim 1 of size 3
# expect error line:   let r = scatter(zeros([2, 3]), 1, tensor([[3]]), 1.0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = scatter(zeros([2, 3]), 1, tensor([[3]]), 1.0)
# ---
# case: scatter_reduce with an unknown reduction
# expect error: tests/lang/errors_tensor_extra.dsl:52:9: error: scatter_reduce(): argument 'reduce' must be "sum", "prod", "mean", "amax" or "amin", got 'max'
# expect error line:   let r = scatter_reduce(zeros([3]), 0, tensor([0]), ones([1]), "max")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = scatter_reduce(zeros([3]), 0, tensor([0]), ones([1]), "max")
# ---
# case: index_add with a source of the wrong shape
# expect error: tests/lang/errors_tensor_extra.dsl:58:9: error: index_add(): argument 'source' must have shape [2, 2] (the input's with 2 along dim 0), got [2, 3]
# expect error line:   let r = index_add(zeros([3, 2]), 0, tensor([0, 2]), ones([2, 3]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = index_add(zeros([3, 2]), 0, tensor([0, 2]), ones([2, 3]))
# ---
# case: index_copy with a source of another dtype
# expect error: tests/lang/errors_tensor_extra.dsl:64:9: error: index_copy(): argument 'source' must have the input's dtype f32, got f64
# expect error line:   let r = index_copy(zeros([3, 2]), 0, tensor([1]), ones([1, 2], dtype=f64))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = index_copy(zeros([3, 2]), 0, tensor([1]), ones([1, 2], dtype=f64))
# ---
# case: kthvalue past the dim
# expect error: tests/lang/errors_tensor_extra.dsl:70:9: error: kthvalue(): argument 'k' must be in [1, 3] (the size of dim 1), got 4
# expect error line:   let r = kthvalue(randn([2, 3]), 4)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~
let r = kthvalue(randn([2, 3]), 4)
# ---
# case: bincount of floats
# expect error: tests/lang/errors_tensor_extra.dsl:76:9: error: bincount(): argument 'input' must be an integer tensor, got f32
# expect error line:   let r = bincount(tensor([1.0, 2.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = bincount(tensor([1.0, 2.0]))
# ---
# case: histc with min above max
# expect error: tests/lang/errors_tensor_extra.dsl:82:9: error: histc(): argument 'max' (0.0) must be at least argument 'min' (1.0)
# expect error line:   let r = histc(randn([5]), bins=4, min=1, max=0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = histc(randn([5]), bins=4, min=1, max=0)
# ---
# case: mv with a vector of the wrong length
# expect error: tests/lang/errors_tensor_extra.dsl:88:9: error: mv(): argument 'input' [2, 3] and argument 'vec' [2] do not match (3 columns, 2 elements)
# expect error line:   let r = mv(randn([2, 3]), randn([2]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = mv(randn([2, 3]), randn([2]))
# ---
# case: cross along a dim that is not 3
# expect error: tests/lang/errors_tensor_extra.dsl:94:9: error: cross(): dim 0 must have size 3 in both inputs, got [2, 3] and [2, 3]
# expect error line:   let r = cross(randn([2, 3]), randn([2, 3]), dim=0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = cross(randn([2, 3]), randn([2, 3]), dim=0)
# ---
# case: cov of a 3-D tensor
# expect error: tests/lang/errors_tensor_extra.dsl:100:9: error: cov(): argument 'input' must be 1-D or 2-D, got shape [2, 2, 2]
# expect error line:   let r = cov(randn([2, 2, 2]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~
let r = cov(randn([2, 2, 2]))
# ---
# case: clip with no bounds
# expect error: tests/lang/errors_tensor_extra.dsl:106:9: error: clip(): argument 'min' or argument 'max' must be given (both are none)
# expect error line:   let r = clip(randn([3]))
# expect error line:           ^~~~~~~~~~~~~~~~
let r = clip(randn([3]))
# ---
# case: normal_ of an integer tensor
# expect error: tests/lang/errors_tensor_extra.dsl:112:9: error: normal_(): expected a floating tensor, got i64
# expect error line:   let r = zeros([3], dtype=i64).normal_()
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = zeros([3], dtype=i64).normal_()
# ---
# case: random_ with a range the dtype cannot hold
# expect error: tests/lang/errors_tensor_extra.dsl:118:9: error: random_(): the range [0, 257) does not fit u8 (expected values in [0, 255])
# expect error line:   let r = zeros([3], dtype=u8).random_(0, 256 + 1)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = zeros([3], dtype=u8).random_(0, 256 + 1)
# ---
# case: sum_to_size to a shape that does not expand
# expect error: tests/lang/errors_tensor_extra.dsl:124:9: error: sum_to_size(): argument 'size' [2, 2] is not expandable to the tensor's shape [2, 3]
# expect error line:   let r = ones([2, 3]).sum_to_size(2, 2)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = ones([2, 3]).sum_to_size(2, 2)
