# Inputs that the fuzzers of tests/fuzz/ found crashing or tripping a sanitizer, as
# the clean errors they are now (docs/hardening.md). The raw inputs are kept in
# tests/fuzz/regressions/<target>/ and replayed by test_fuzz_replay.

# case: a zero size with huge other sizes (idx: signed overflow of the strides)
# expect error: tests/lang/errors_fuzz.dsl:7:9: error: the shape [0, 4294967296, 4294967296] has strides that do not fit in 64 bits
let t = zeros([0, 4294967296, 4294967296])
# ---
# case: a binary op with its second tensor left out (parser_eval: a null tensor read by the shape rule)
# expect error: tests/lang/errors_fuzz.dsl:11:1: error: le: argument 'other' is missing
le([5, 3]).sum(0)
# ---
# case: a format precision past int's range (parser_eval: signed overflow while reading the digits)
# expect error: tests/lang/errors_fuzz.dsl:15:7: error: format spec '.11111111111112e': the precision is larger than 1000000
print(f"{0.5:.11111111111112e}")
# ---
# case: an infinite size (parser_eval: an undefined float-to-int cast; 31e3082 is inf)
# expect error: tests/lang/errors_fuzz.dsl:19:9: error: zeros: inf is outside the range of a 64-bit int
let z = zeros([32, 31e3082])
# ---
# case: int() of a float past int64's range
# expect error: tests/lang/errors_fuzz.dsl:23:7: error: int(): 1e+300 is outside the range of a 64-bit int
print(int(1e300))
# ---
# case: math.floor past int64's range
# expect error: tests/lang/errors_fuzz.dsl:28:7: error: floor(): 1e+300 is outside the range of a 64-bit int
import math
print(math.floor(1e300))
# ---
# case: arange with an infinite count
# expect error: tests/lang/errors_fuzz.dsl:32:9: error: arange(): the number of values: inf is outside the range of a 64-bit int
let r = arange(0, 1e308 * 10)
