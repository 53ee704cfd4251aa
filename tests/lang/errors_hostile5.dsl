# Hostile inputs, round 5: a number stored into a dtype that cannot hold it (full,
# fill_, x[i] = v, masked_fill, index_fill, new_full, full_like, tensor(dtype=) and
# clamp's bounds wrapped or saturated without a word: 300 as u8 was 44, 2^40 as an i32
# bound was 0), PyTorch's Tensor.unfold(dimension, size, step) and Tensor.where(condition,
# other) (the methods ran F.unfold's im2col and took the tensor as the condition), and
# nn's masks and sequences (an i64 or u8 attention mask added to the scores, an empty
# sequence failed inside the library). Each answered wrong or failed deep inside; now
# each is an error at the user's line naming the function, the argument and the value.

# case: full of a number that u8 cannot hold (300 was 44)
# expect error: tests/lang/errors_hostile5.dsl:14:7: error: full(): argument 'fill_value': 300 cannot be converted to u8 without overflow (0 to 255; a negative number down to -255 wraps)
# expect error line:   print(full([2], 300, dtype="u8"))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~
print(full([2], 300, dtype="u8"))
# ---
# case: fill_ past i8's range (-129 was saturated to 127)
# expect error: tests/lang/errors_hostile5.dsl:20:7: error: fill_(): argument 'value': -129 cannot be converted to i8 without overflow (-128 to 127)
# expect error line:   print(zeros([2], dtype="i8").fill_(-129))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(zeros([2], dtype="i8").fill_(-129))
# ---
# case: an element assignment past f16's largest finite value
# expect error: tests/lang/errors_hostile5.dsl:27:1: error: tensor assignment: 10000000000.0 cannot be converted to f16 without overflow (the largest finite f16 is 65504.0)
# expect error line:   h[0] = 1e10
# expect error line:   ^~~~~~~~~~~
let h = zeros([3], dtype="f16")
h[0] = 1e10
# ---
# case: masked_fill of a value u8 cannot hold
# expect error: tests/lang/errors_hostile5.dsl:34:7: error: masked_fill(): argument 'value': 300 cannot be converted to u8 without overflow (0 to 255; a negative number down to -255 wraps)
# expect error line:   print(u.masked_fill(u == 0, 300))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~
let u = zeros([3], dtype="u8")
print(u.masked_fill(u == 0, 300))
# ---
# case: tensor() with an element past i32
# expect error: tests/lang/errors_hostile5.dsl:40:7: error: tensor(): an element: 2147483648 cannot be converted to i32 without overflow (-2147483648 to 2147483647)
# expect error line:   print(tensor([1, 2147483648], dtype="i32"))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(tensor([1, 2147483648], dtype="i32"))
# ---
# case: new_full with a value past the tensor's i32
# expect error: tests/lang/errors_hostile5.dsl:46:7: error: new_full(): argument 'fill_value': 1099511627776 cannot be converted to i32 without overflow (-2147483648 to 2147483647)
# expect error line:   print(zeros([2], dtype="i32").new_full([2], 1099511627776))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(zeros([2], dtype="i32").new_full([2], 1099511627776))
# ---
# case: full_like of 256 in u8
# expect error: tests/lang/errors_hostile5.dsl:52:7: error: full_like(): argument 'fill_value': 256 cannot be converted to u8 without overflow (0 to 255; a negative number down to -255 wraps)
# expect error line:   print(full_like(zeros([2], dtype="u8"), 256))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(full_like(zeros([2], dtype="u8"), 256))
# ---
# case: index_fill past i32
# expect error: tests/lang/errors_hostile5.dsl:58:7: error: index_fill(): argument 'value': 1099511627776 cannot be converted to i32 without overflow (-2147483648 to 2147483647)
# expect error line:   print(zeros([3], dtype="i32").index_fill(0, tensor([0]), 1099511627776))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(zeros([3], dtype="i32").index_fill(0, tensor([0]), 1099511627776))
# ---
# case: clamp's int bound past i32 (the bound wrapped to 0)
# expect error: tests/lang/errors_hostile5.dsl:64:7: error: clamp(): argument 'max': 1099511627776 cannot be converted to i32 without overflow (-2147483648 to 2147483647)
# expect error line:   print(zeros([3], dtype="i32").clamp(0, 1099511627776))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(zeros([3], dtype="i32").clamp(0, 1099511627776))
# ---
# case: clamp's float bound past f32
# expect error: tests/lang/errors_hostile5.dsl:70:7: error: clamp(): argument 'max': 1e+40 cannot be converted to f32 without overflow (the largest finite f32 is 3.4028234663852886e+38)
# expect error line:   print(zeros([3]).clamp(0.0, 1e40))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~
print(zeros([3]).clamp(0.0, 1e40))
# ---
# case: full of NaN into an integer dtype
# expect error: tests/lang/errors_hostile5.dsl:76:7: error: full(): argument 'fill_value': nan cannot be converted to i32 without overflow (-2147483648 to 2147483647)
# expect error line:   print(full([2], float("nan"), dtype="i32"))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(full([2], float("nan"), dtype="i32"))
# ---
# case: Tensor.unfold with a window larger than the dim (it ran F.unfold's im2col)
# expect error: tests/lang/errors_hostile5.dsl:83:7: error: unfold(): argument 'size' is 5 but dim 1 of the input of shape [3, 4] has size 4 (a window must fit)
# expect error line:   print(x.unfold(1, 5, 1))
# expect error line:         ^~~~~~~~~~~~~~~~~
let x = arange(12.0).reshape([3, 4])
print(x.unfold(1, 5, 1))
# ---
# case: Tensor.unfold with step 0
# expect error: tests/lang/errors_hostile5.dsl:90:7: error: unfold(): argument 'step' must be > 0, got 0
# expect error line:   print(x.unfold(1, 2, 0))
# expect error line:         ^~~~~~~~~~~~~~~~~
let x = arange(12.0).reshape([3, 4])
print(x.unfold(1, 2, 0))
# ---
# case: Tensor.unfold with a dimension out of range
# expect error: tests/lang/errors_hostile5.dsl:97:7: error: unfold(): argument 'dimension': dim 2 is out of range for a tensor of 2 dimensions (expected a dim in [-2, 1])
# expect error line:   print(x.unfold(2, 1, 1))
# expect error line:         ^~~~~~~~~~~~~~~~~
let x = arange(12.0).reshape([3, 4])
print(x.unfold(2, 1, 1))
# ---
# case: Tensor.where needs other (it took the tensor as the condition)
# expect error: tests/lang/errors_hostile5.dsl:104:7: error: where() missing required argument 'other'
# expect error line:   print(x.where(x > 1.0))
# expect error line:         ^~~~~~~~~~~~~~~~
let x = tensor([1.0, 2.0])
print(x.where(x > 1.0))
# ---
# case: MultiheadAttention with an i64 attn_mask (it was added to the scores)
# expect error: tests/lang/errors_hostile5.dsl:113:1: error: assertion failed: MultiheadAttention: attn_mask must be a bool, u8 or floating tensor, got i64
# expect error line:   mha(q, q, q, attn_mask=zeros([3, 3], dtype="i64"))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let mha = nn.MultiheadAttention(8, 2)
let q = randn([3, 2, 8])
mha(q, q, q, attn_mask=zeros([3, 3], dtype="i64"))
# ---
# case: MultiheadAttention with a u8 key_padding_mask (PyTorch refuses it)
# expect error: tests/lang/errors_hostile5.dsl:122:1: error: assertion failed: MultiheadAttention: key_padding_mask must be a bool or floating tensor, got u8
# expect error line:   mha(q, q, q, key_padding_mask=zeros([2, 3], dtype="u8"))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let mha = nn.MultiheadAttention(8, 2)
let q = randn([3, 2, 8])
mha(q, q, q, key_padding_mask=zeros([2, 3], dtype="u8"))
# ---
# case: LSTM over a sequence of no steps (stack of [] inside the library)
# expect error: tests/lang/errors_hostile5.dsl:129:1: error: assertion failed: LSTM: expected a sequence length larger than 0, got input of shape [0, 2, 4]
# expect error line:   nn.LSTM(4, 3)(randn([0, 2, 4]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
nn.LSTM(4, 3)(randn([0, 2, 4]))
