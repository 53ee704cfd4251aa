# INT64_MIN // -1 raised SIGFPE (the process died with status 136); it is the
# overflow error of every int64 operation whose result does not fit.
# status: 1
# expect: before
# expect stderr: limits_int_min_floordiv.dsl:7:7: error: integer overflow in //
print("before")
print((-9223372036854775807 - 1) // -1)
