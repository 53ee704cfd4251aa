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
