# The i16 dtype's refused cases, as PyTorch 1.13 refuses them: mean, var and softmax
# want a floating tensor, an index or a class target must be i64 (or i32), histc has no
# integer kernel, an integer to a negative power, and numbers i16 cannot hold (a
# tensor element, full's fill value, randint's range). Each is an error at the user's
# line naming the function, the argument, what was expected and the i16 found.
# case: mean of an i16 tensor (PyTorch: could not infer output dtype)
# expect error: tests/lang/errors_int16.dsl:11:7: error: mean: argument 'input' must be a floating tensor, got i16
# expect error line:   print(pcm.mean())
# expect error line:         ^~~~~~~~~~
let pcm = tensor([100, -200, 300], dtype=i16)
print(pcm.mean())
# ---
# case: var of an i16 tensor
# expect error: tests/lang/errors_int16.dsl:18:7: error: var: argument 'input' must be a floating tensor, got i16
# expect error line:   print(pcm.var())
# expect error line:         ^~~~~~~~~
let pcm = tensor([100, -200, 300], dtype=i16)
print(pcm.var())
# ---
# case: softmax of an i16 tensor
# expect error: tests/lang/errors_int16.dsl:24:7: error: softmax: argument 'input' must be a floating tensor, got i16
# expect error line:   print(tensor([1, 2], dtype=i16).softmax(0))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(tensor([1, 2], dtype=i16).softmax(0))
# ---
# case: an i16 tensor as an index (PyTorch: indices must be long, byte or bool)
# expect error: tests/lang/errors_int16.dsl:30:7: error: index_select: index must be an integer tensor (i64 or i32), got i16
# expect error line:   print(arange(5)[tensor([1, 3], dtype=i16)])
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(arange(5)[tensor([1, 3], dtype=i16)])
# ---
# case: an i16 class target for cross_entropy
# expect error: tests/lang/errors_int16.dsl:36:7: error: cross_entropy: argument 'target' must hold class indices (i64), got dtype i16 (class probabilities are not supported)
# expect error line:   print(cross_entropy(randn(3, 4), tensor([1, 2, 0], dtype=i16)))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(cross_entropy(randn(3, 4), tensor([1, 2, 0], dtype=i16)))
# ---
# case: histc of an i16 tensor
# expect error: tests/lang/errors_int16.dsl:42:7: error: histc(): argument 'input' must be a floating tensor, got i16
# expect error line:   print(histc(tensor([1, 2], dtype=i16)))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(histc(tensor([1, 2], dtype=i16)))
# ---
# case: an i16 tensor to a negative integer power
# expect error: tests/lang/errors_int16.dsl:48:7: error: Integers to negative integer powers are not allowed.
# expect error line:   print(tensor([1, 2], dtype=i16) ** -1)
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(tensor([1, 2], dtype=i16) ** -1)
# ---
# case: tensor() with an element past i16
# expect error: tests/lang/errors_int16.dsl:54:7: error: tensor(): an element: 40000 cannot be converted to i16 without overflow (-32768 to 32767)
# expect error line:   print(tensor([1, 40000], dtype=i16))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(tensor([1, 40000], dtype=i16))
# ---
# case: full of a number i16 cannot hold
# expect error: tests/lang/errors_int16.dsl:60:7: error: full(): argument 'fill_value': -32769 cannot be converted to i16 without overflow (-32768 to 32767)
# expect error line:   print(full([2], -32769, dtype=short))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(full([2], -32769, dtype=short))
# ---
# case: randint past i16's range
# expect error: tests/lang/errors_int16.dsl:66:7: error: randint(): the range [0, 40000) does not fit i16 (expected values in [-32768, 32767])
# expect error line:   print(randint(0, 40000, [3], dtype=i16))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(randint(0, 40000, [3], dtype=i16))
# ---
# case: an i16 tensor that requires grad
# expect error: tests/lang/errors_int16.dsl:72:9: error: tensor(): only floating tensors can require gradients, got i16
# expect error line:   let w = tensor([1, 2], dtype=i16, requires_grad=true)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let w = tensor([1, 2], dtype=i16, requires_grad=true)
# ---
