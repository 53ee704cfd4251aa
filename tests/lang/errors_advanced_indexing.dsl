# Indexing with several index tensors and assignment through index tensors (Note
# [Advanced indexing]): index shapes that do not broadcast, a value that does not fit
# the indexed places, an index out of range, and a float index among several. Each is
# an error at the user's line naming the shapes or the index.

# case: index tensors whose shapes do not broadcast
# expect error: tests/lang/errors_advanced_indexing.dsl:9:7: error: shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]
# expect error line:   print(zeros(3, 4)[tensor([0, 1]), tensor([0, 1, 2])])
print(zeros(3, 4)[tensor([0, 1]), tensor([0, 1, 2])])
# ---
# case: a value that does not broadcast to the indexed places
# expect error: tests/lang/errors_advanced_indexing.dsl:15:1: error: shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of shape [2]
# expect error line:   y[[0, 1], [1, 2]] = tensor([1.0, 2.0, 3.0])
let y = zeros(3, 4)
y[[0, 1], [1, 2]] = tensor([1.0, 2.0, 3.0])
# ---
# case: an index out of range among several
# expect error: tests/lang/errors_advanced_indexing.dsl:20:7: error: index 5 is out of range for dim 0 of size 3
# expect error line:   print(zeros(3, 4)[[0, 5], [1, 2]])
print(zeros(3, 4)[[0, 5], [1, 2]])
# ---
# case: a float tensor among the indices
# expect error: tests/lang/errors_advanced_indexing.dsl:25:7: error: tensors used as indices must be integer or bool tensors, got f32
# expect error line:   print(zeros(3, 4)[[0, 1], tensor([1.0, 2.0])])
print(zeros(3, 4)[[0, 1], tensor([1.0, 2.0])])
# ---
# case: an out-of-range index in an assignment through one index tensor
# expect error: tests/lang/errors_advanced_indexing.dsl:31:1: error: index 4 is out of range for dim 0 of size 4
# expect error line:   z[tensor([1, 4])] = 1.0
let z = zeros(4)
z[tensor([1, 4])] = 1.0
