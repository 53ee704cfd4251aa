# Hostile inputs, round 15, by hand. A number beside an integer tensor is stored into
# the tensor's dtype, and PyTorch refuses one the dtype cannot hold ("value cannot be
# converted to type int16_t without overflow"), where nabla wrapped it, silently: add's,
# sub's and index_add's alpha, addcmul's value, where's input and other, scatter's value
# and new_tensor's data (Note [A number into a dtype]); put and masked_scatter cast a
# source of another dtype into the input's (an i64 40000 put into i16 wrapped) where
# PyTorch's and index_copy's refuse it; addcmul of integer tensors was a float tensor
# and addcdiv of integer tensors a true division, where PyTorch's keeps the integer
# dtype and refuses; where(c, none, 1) named the row's 'self'; iterating a RandomSampler
# of an empty source with num_samples hung. Each is now an error at the user's line
# naming what was expected and found; tests/lang/test_hostile15.dsl checks the values
# that still work.

# case: add's alpha past i16 (it wrapped: 1 + 40000 was -25535)
# expect error: tests/lang/errors_hostile15.dsl:19:7: error: add(): argument 'alpha': 40000 cannot be converted to i16 without overflow (-32768 to 32767)
# expect error line:   print(a.add(1, alpha=40000))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~
let a = tensor([1, 2, 300], dtype=i16)
print(a.add(1, alpha=40000))
# ---

# case: sub_'s alpha past i16, in place
# expect error: tests/lang/errors_hostile15.dsl:27:1: error: sub_(): argument 'alpha': -40000 cannot be converted to i16 without overflow (-32768 to 32767)
# expect error line:   a.sub_(1, alpha=-40000)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~
let a = tensor([1, 2, 300], dtype=i16)
a.sub_(1, alpha=-40000)
# ---

# case: add's alpha past i8 beside a 0-dim tensor (a wrapped number: the result stays i8)
# expect error: tests/lang/errors_hostile15.dsl:35:7: error: add(): argument 'alpha': 200 cannot be converted to i8 without overflow (-128 to 127)
# expect error line:   print(add(a, tensor(1), alpha=200))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~
let a = tensor([1, 2], dtype=i8)
print(add(a, tensor(1), alpha=200))
# ---

# case: index_add's alpha past i16 (it wrapped)
# expect error: tests/lang/errors_hostile15.dsl:43:7: error: index_add(): argument 'alpha': 40000 cannot be converted to i16 without overflow (-32768 to 32767)
# expect error line:   print(z.index_add(0, tensor([0]), tensor([1], dtype=i16), alpha=40000))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let z = zeros(2, dtype=i16)
print(z.index_add(0, tensor([0]), tensor([1], dtype=i16), alpha=40000))
# ---

# case: index_add's float alpha with integer tensors (PyTorch's alpha check)
# expect error: tests/lang/errors_hostile15.dsl:51:7: error: index_add(): argument 'alpha' must not be a float when both operands are integers (got 0.5 with i64), as PyTorch's; convert them first (.to(f32))
# expect error line:   print(z.index_add(0, tensor([0]), tensor([1]), alpha=0.5))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let z = zeros(2, dtype=i64)
print(z.index_add(0, tensor([0]), tensor([1]), alpha=0.5))
# ---

# case: addcmul's value past i16 (the result was f32)
# expect error: tests/lang/errors_hostile15.dsl:59:7: error: addcmul(): argument 'value': 40000 cannot be converted to i16 without overflow (-32768 to 32767)
# expect error line:   print(addcmul(a, a, a, value=40000))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let a = tensor([1, 2, 300], dtype=i16)
print(addcmul(a, a, a, value=40000))
# ---

# case: addcmul's float value with integer tensors (the result was f32)
# expect error: tests/lang/errors_hostile15.dsl:67:7: error: addcmul(): argument 'value' must not be a float when the tensors are integers (got 0.5 with i64), as PyTorch's; convert them first (.to(f32))
# expect error line:   print(a.addcmul(a, a, value=0.5))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~
let a = tensor([1, 2, 3])
print(a.addcmul(a, a, value=0.5))
# ---

# case: addcdiv of integer tensors (it was a true division, f32)
# expect error: tests/lang/errors_hostile15.dsl:75:7: error: addcdiv(): integer division of tensor1 by tensor2 is not supported, as PyTorch's; convert them first (.to(f32))
# expect error line:   print(addcdiv(a, a, a))
# expect error line:         ^~~~~~~~~~~~~~~~
let a = tensor([1, 2, 3])
print(addcdiv(a, a, a))
# ---

# case: where's input number past i16 (it wrapped)
# expect error: tests/lang/errors_hostile15.dsl:83:7: error: where(): argument 'input': 40000 cannot be converted to i16 without overflow (-32768 to 32767)
# expect error line:   print(where(a > 1, 40000, a))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~
let a = tensor([1, 2, 300], dtype=i16)
print(where(a > 1, 40000, a))
# ---

# case: x.where(c, other) with other past i8
# expect error: tests/lang/errors_hostile15.dsl:91:7: error: where(): argument 'other': 200 cannot be converted to i8 without overflow (-128 to 127)
# expect error line:   print(b.where(b > 1, 200))
# expect error line:         ^~~~~~~~~~~~~~~~~~~
let b = tensor([1, 2], dtype=i8)
print(b.where(b > 1, 200))
# ---

# case: where's number past f16's largest finite
# expect error: tests/lang/errors_hostile15.dsl:99:7: error: where(): argument 'other': 1000000.0 cannot be converted to f16 without overflow (the largest finite f16 is 65504.0)
# expect error line:   print(where(tensor([true]), h, 1e6))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let h = tensor([1.0], dtype=f16)
print(where(tensor([true]), h, 1e6))
# ---

# case: where's input none (the message named the row's 'self')
# expect error: tests/lang/errors_hostile15.dsl:106:7: error: where(): argument 'input' must be a tensor or a number, got none
# expect error line:   print(where(tensor([true]), none, 1))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(where(tensor([true]), none, 1))
# ---

# case: RandomSampler of an empty source with num_samples (its permutations added nothing forever: a hang)
# expect error: tests/lang/errors_hostile15.dsl:115:7: error: data.RandomSampler(): cannot draw 2 samples from an empty data_source
# expect error line:   print(list(s))
# expect error line:         ^~~~~~~
import data
let s = data.RandomSampler(range(0), num_samples=2)
print(list(s))
# ---

# case: scatter's value past i8 (it wrapped: 200 was -56)
# expect error: tests/lang/errors_hostile15.dsl:123:7: error: scatter(): argument 'src': 200 cannot be converted to i8 without overflow (-128 to 127)
# expect error line:   print(z.scatter_(0, tensor([0]), 200))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let z = zeros(3, dtype=i8)
print(z.scatter_(0, tensor([0]), 200))
# ---

# case: scatter's value past i16 with reduce="add"
# expect error: tests/lang/errors_hostile15.dsl:131:7: error: scatter(): argument 'value': 40000 cannot be converted to i16 without overflow (-32768 to 32767)
# expect error line:   print(z.scatter(0, tensor([0]), value=40000, reduce="add"))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let z = zeros(3, dtype=i16)
print(z.scatter(0, tensor([0]), value=40000, reduce="add"))
# ---

# case: new_tensor's data past the input's dtype (it wrapped)
# expect error: tests/lang/errors_hostile15.dsl:139:7: error: tensor(): an element: 40000 cannot be converted to i16 without overflow (-32768 to 32767)
# expect error line:   print(a.new_tensor([1, 40000]))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~
let a = tensor([1, 2, 300], dtype=i16)
print(a.new_tensor([1, 40000]))
# ---

# case: put's source of another dtype (an i64 40000 into i16 wrapped)
# expect error: tests/lang/errors_hostile15.dsl:147:7: error: put(): argument 'source' must have the input's dtype i16, got i64
# expect error line:   print(a.put_(tensor([0]), tensor([40000])))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let a = tensor([1, 2, 300], dtype=i16)
print(a.put_(tensor([0]), tensor([40000])))
# ---

# case: put's number past the input's dtype
# expect error: tests/lang/errors_hostile15.dsl:155:7: error: put(): argument 'source': 40000 cannot be converted to i16 without overflow (-32768 to 32767)
# expect error line:   print(a.put(tensor([0]), 40000))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~
let a = tensor([1, 2, 300], dtype=i16)
print(a.put(tensor([0]), 40000))
# ---

# case: masked_scatter's source of another dtype
# expect error: tests/lang/errors_hostile15.dsl:163:7: error: masked_scatter(): argument 'source' must have the input's dtype i16, got i64
# expect error line:   print(a.masked_scatter(tensor([true, false, false]), tensor([40000])))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let a = tensor([1, 2, 300], dtype=i16)
print(a.masked_scatter(tensor([true, false, false]), tensor([40000])))
# ---
