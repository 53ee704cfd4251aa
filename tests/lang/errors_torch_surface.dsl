# PyTorch's tensor surface: the errors of the functions and conventions added for it
# (integer pow, bitwise ops, quantile's interpolation, searchsorted's shapes,
# cartesian_prod's dtypes, Tensor.type's names, meshgrid's indexing, str.index), each
# at the user's line, naming the function and what was wrong.
# case: an int tensor raised to a negative int (PyTorch's error)
# expect error: tests/lang/errors_torch_surface.dsl:9:7: error: Integers to negative integer powers are not allowed.
# expect error line:   print(tensor([5]) ** -1)
# expect error line:         ^~~~~~~~~~~~~~~~~
print(tensor([5]) ** -1)
# ---
# case: pow() of an int tensor to a negative int
# expect error: tests/lang/errors_torch_surface.dsl:15:7: error: Integers to negative integer powers are not allowed.
# expect error line:   print(pow(tensor([2, 3]), -2))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~
print(pow(tensor([2, 3]), -2))
# ---
# case: & of float tensors (PyTorch has no bitwise float)
# expect error: tests/lang/errors_torch_surface.dsl:21:7: error: operator '&' combines bool masks, got a f32 tensor (compare first: (x > 0) & (y > 0))
# expect error line:   print(tensor([1.5]) & tensor([2.5]))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(tensor([1.5]) & tensor([2.5]))
# ---
# case: bitwise_or of a float tensor
# expect error: tests/lang/errors_torch_surface.dsl:27:7: error: bitwise_or(): expected integer or bool tensors, got f32 and i64
# expect error line:   print(bitwise_or(tensor([1.5]), 1))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(bitwise_or(tensor([1.5]), 1))
# ---
# case: ~ of a float tensor
# expect error: tests/lang/errors_torch_surface.dsl:33:7: error: ~ inverts bool masks and integer tensors, got a f32 tensor (compare first: ~(x > 0))
# expect error line:   print(~tensor([1.5]))
# expect error line:         ^~~~~~~~~~~~~~
print(~tensor([1.5]))
# ---
# case: quantile with an unknown interpolation
# expect error: tests/lang/errors_torch_surface.dsl:39:7: error: quantile(): argument 'interpolation' must be one of "linear", "lower", "higher", "midpoint", "nearest"
# expect error line:   print(quantile(tensor([1.0, 2.0]), 0.5, interpolation="cubic"))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(quantile(tensor([1.0, 2.0]), 0.5, interpolation="cubic"))
# ---
# case: nanquantile of an integer tensor
# expect error: tests/lang/errors_torch_surface.dsl:45:7: error: nanquantile(): input must be a float tensor, got i64
# expect error line:   print(nanquantile(tensor([1, 2]), 0.5))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(nanquantile(tensor([1, 2]), 0.5))
# ---
# case: searchsorted with leading dims that differ
# expect error: tests/lang/errors_torch_surface.dsl:51:7: error: searchsorted(): the leading dims of sorted_sequence [2, 2] and of input [3, 1] must match
# expect error line:   print(searchsorted(tensor([[1, 2], [3, 4]]), tensor([[1], [2], [3]])))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(searchsorted(tensor([[1, 2], [3, 4]]), tensor([[1], [2], [3]])))
# ---
# case: searchsorted with side and right disagreeing
# expect error: tests/lang/errors_torch_surface.dsl:57:7: error: searchsorted(): side="left" and right=true disagree
# expect error line:   print(searchsorted(tensor([1, 2]), tensor([1]), right=true, side="left"))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(searchsorted(tensor([1, 2]), tensor([1]), right=true, side="left"))
# ---
# case: cartesian_prod of tensors of two dtypes
# expect error: tests/lang/errors_torch_surface.dsl:63:7: error: cartesian_prod(): expects all tensors to have the same dtype, got i64 and f32
# expect error line:   print(cartesian_prod(tensor([1, 2]), tensor([1.5])))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(cartesian_prod(tensor([1, 2]), tensor([1.5])))
# ---
# case: Tensor.type with a name that is no type
# expect error: tests/lang/errors_torch_surface.dsl:69:7: error: type(): unknown type name 'torch.ComplexTensor' (expected a dtype or a name such as 'torch.FloatTensor')
# expect error line:   print(zeros(2).type("torch.ComplexTensor"))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(zeros(2).type("torch.ComplexTensor"))
# ---
# case: meshgrid with an unknown indexing
# expect error: tests/lang/errors_torch_surface.dsl:75:7: error: meshgrid(): argument 'indexing' must be "ij" or "xy"
# expect error line:   print(meshgrid(tensor([1]), tensor([2]), indexing="ji"))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(meshgrid(tensor([1]), tensor([2]), indexing="ji"))
# ---
# case: vander of a matrix
# expect error: tests/lang/errors_torch_surface.dsl:81:7: error: vander(): argument 'x' must be 1-D, got shape [2, 2]
# expect error line:   print(vander(ones(2, 2)))
# expect error line:         ^~~~~~~~~~~~~~~~~~
print(vander(ones(2, 2)))
# ---
# case: tensordot with contracted dims of two sizes
# expect error: tests/lang/errors_torch_surface.dsl:87:7: error: tensordot(): contracted dims have sizes 3 and 4
# expect error line:   print(tensordot(ones(2, 3), ones(4, 2), dims=1))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(tensordot(ones(2, 3), ones(4, 2), dims=1))
# ---
# case: str.index of a substring that is not there
# expect error: tests/lang/errors_torch_surface.dsl:93:7: error: index(): substring not found
# expect error line:   print("héllo".index("z"))
# expect error line:         ^~~~~~~~~~~~~~~~~~
print("héllo".index("z"))
# ---
# case: chr of a surrogate
# expect error: tests/lang/errors_torch_surface.dsl:99:7: error: chr() expected a code point in [0, 0x10FFFF] that is not a surrogate, got 55296
# expect error line:   print(chr(55296))
# expect error line:         ^~~~~~~~~~
print(chr(55296))
# ---
# case: clamp with neither bound
# expect error: tests/lang/errors_torch_surface.dsl:105:7: error: clamp(): argument 'min' or argument 'max' must be given (both are none)
# expect error line:   print(clamp(tensor([1.0])))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~
print(clamp(tensor([1.0])))
