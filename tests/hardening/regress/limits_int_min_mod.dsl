# INT64_MIN % -1 raised SIGFPE too; divmod is the same pair of operations.
# status: 1
# expect: (-4611686018427387904, 0)
# expect stderr: error: integer overflow in %
let m = -9223372036854775807 - 1
print(divmod(m, 2))
print(m % -1)
