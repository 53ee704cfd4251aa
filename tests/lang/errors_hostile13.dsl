# Hostile inputs, round 13, by hand. randperm cast its i64 order to the dtype asked
# for, so randperm(300, dtype=u8) wrapped past 255, randperm(5000, dtype=f16) repeated
# values and dtype=bool gave trues and a false, silently; `assert (v - lo) % 3 == 0`, a
# Python habit, parsed as `assert(v - lo) % 3 == 0` and passed whatever the condition
# (Note [assert is a call] in lang/ast_builder.cpp); cat's errors counted positions
# without the 1-D empty tensors it leaves out (Note [Empty tensors in cat]), so
# cat([tensor([]), tensor(5.0)]) blamed tensor 0, the empty one; linspace's ends were
# cast past the dtype (linspace(0, 300, 5, dtype=u8) ended at 44) and arange with an
# integer dtype and a step under 1 gave zeros (arange(0, 1, 0.1, dtype=i64)); an integer
# tensor // 0, fmod and div's rounding modes by 0 were named remainder. Each is now an error
# at the user's line that names what was expected and found. The values that still
# work are checked in tests/lang/test_hostile13.dsl.

# case: randperm with dtype=bool (it gave trues and a false)
# expect error: tests/lang/errors_hostile13.dsl:18:7: error: randperm(): dtype must be a number type, got bool
# expect error line:   print(randperm(5, dtype=bool))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~
print(randperm(5, dtype=bool))
# ---

# case: randperm past f16's whole numbers (it repeated values)
# expect error: tests/lang/errors_hostile13.dsl:25:9: error: randperm(): n must be at most 2049 for f16 (its values 0..2048 are held exactly), got 2050
# expect error line:   let p = randperm(2050, dtype=f16)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~
let p = randperm(2050, dtype=f16)
# ---

# case: randperm past u8 (it wrapped past 255)
# expect error: tests/lang/errors_hostile13.dsl:32:9: error: randperm(): n must be at most 256 for u8 (its values 0..255 are held exactly), got 300
# expect error line:   let p = randperm(300, dtype=u8)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~
let p = randperm(300, dtype=u8)
# ---

# case: randperm past i8, checked before a huge allocation
# expect error: tests/lang/errors_hostile13.dsl:39:9: error: randperm(): n must be at most 128 for i8 (its values 0..127 are held exactly), got 1000000000000
# expect error line:   let p = randperm(10**12, dtype=i8)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~
let p = randperm(10**12, dtype=i8)
# ---

# case: randperm past bf16's whole numbers
# expect error: tests/lang/errors_hostile13.dsl:46:9: error: randperm(): n must be at most 257 for bf16 (its values 0..256 are held exactly), got 258
# expect error line:   let p = randperm(258, dtype=bf16)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~
let p = randperm(258, dtype=bf16)
# ---

# case: assert (a) op b asserted only a (it passed for any condition)
# expect syntax error: tests/lang/errors_hostile13.dsl:54:1: error: assert is a function here: this statement asserts only the parenthesized part right after 'assert' and uses its result; put the whole condition inside its parentheses, as assert(cond) or assert(cond, msg)
# expect error line:   assert (v - 1) % 3 == 0
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~
let v = 7
assert (v - 1) % 3 == 0
# ---

# case: assert (cond), msg dropped the message into a tuple
# expect syntax error: tests/lang/errors_hostile13.dsl:61:1: error: assert is a function here: this statement asserts only the parenthesized part right after 'assert' and uses its result; put the whole condition inside its parentheses, as assert(cond) or assert(cond, msg)
# expect error line:   assert (1 == 2), "the message"
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
assert (1 == 2), "the message"
# ---

# case: assert (a) and b
# expect syntax error: tests/lang/errors_hostile13.dsl:69:1: error: assert is a function here: this statement asserts only the parenthesized part right after 'assert' and uses its result; put the whole condition inside its parentheses, as assert(cond) or assert(cond, msg)
# expect error line:   assert (ok) and true
# expect error line:   ^~~~~~~~~~~~~~~~~~~~
let ok = false
assert (ok) and true
# ---

# case: assert (a) inside a function body is refused too
# expect syntax error: tests/lang/errors_hostile13.dsl:77:3: error: assert is a function here: this statement asserts only the parenthesized part right after 'assert' and uses its result; put the whole condition inside its parentheses, as assert(cond) or assert(cond, msg)
# expect error line:     assert (x) == 1
# expect error line:     ^~~~~~~~~~~~~~~
fn check(x) {
  assert (x) == 1
}
# ---

# case: linspace ending past u8 (it ended at 44, wrapped)
# expect error: tests/lang/errors_hostile13.dsl:85:9: error: linspace(): argument 'end': 300 cannot be converted to u8 without overflow (0 to 255; a negative number down to -255 wraps)
# expect error line:   let l = linspace(0, 300, 5, dtype=u8)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let l = linspace(0, 300, 5, dtype=u8)
# ---

# case: linspace starting past i8
# expect error: tests/lang/errors_hostile13.dsl:92:9: error: linspace(): argument 'start': -129 cannot be converted to i8 without overflow (-128 to 127)
# expect error line:   let l = linspace(-129, 0, 2, dtype=i8)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let l = linspace(-129, 0, 2, dtype=i8)
# ---

# case: linspace ending past f16's largest finite
# expect error: tests/lang/errors_hostile13.dsl:99:9: error: linspace(): argument 'end': 1000000.0 cannot be converted to f16 without overflow (the largest finite f16 is 65504.0)
# expect error line:   let l = linspace(0, 1e6, 3, dtype=f16)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let l = linspace(0, 1e6, 3, dtype=f16)
# ---

# case: arange with an integer dtype and a step under 1 (it gave ten zeros)
# expect error: tests/lang/errors_hostile13.dsl:106:9: error: arange(): step 0.1 is 0 as an integer of i64 (an integer dtype truncates the step; use a floating dtype, or a step of at least 1)
# expect error line:   let a = arange(0, 1, 0.1, dtype=i64)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~
let a = arange(0, 1, 0.1, dtype=i64)
# ---

# case: an integer tensor // 0 names floor_divide (it said remainder)
# expect error: tests/lang/errors_hostile13.dsl:113:9: error: floor_divide: integer division by zero
# expect error line:   let q = tensor([5, 3]) // tensor([0, 1])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let q = tensor([5, 3]) // tensor([0, 1])
# ---

# case: fmod of an integer tensor by 0 names fmod
# expect error: tests/lang/errors_hostile13.dsl:120:9: error: fmod: integer division by zero
# expect error line:   let r = fmod(tensor([5, 3]), 0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~
let r = fmod(tensor([5, 3]), 0)
# ---

# case: div with a rounding mode by an integer 0 names div
# expect error: tests/lang/errors_hostile13.dsl:127:9: error: div: integer division by zero
# expect error line:   let q = div(tensor([5]), 0, rounding_mode="trunc")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let q = div(tensor([5]), 0, rounding_mode="trunc")
# ---

# case: cat names the user's position of a 0-d tensor beside a left-out empty
# expect error: tests/lang/errors_hostile13.dsl:134:7: error: cat: zero-dimensional tensor 1 cannot be concatenated
# expect error line:   print(cat([tensor([]), tensor(5.0)]))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(cat([tensor([]), tensor(5.0)]))
# ---

# case: cat names the user's positions of mismatched shapes beside left-out empties
# expect error: tests/lang/errors_hostile13.dsl:141:9: error: cat: tensor 3 has shape [2, 4] but tensor 1 has shape [2, 3]; sizes must match except in dim 0
# expect error line:   let x = cat([tensor([]), randn(2, 3), tensor([]), randn(2, 4)])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = cat([tensor([]), randn(2, 3), tensor([]), randn(2, 4)])
# ---
