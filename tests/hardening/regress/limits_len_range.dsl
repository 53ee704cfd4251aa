# len(range(-2**63, 2**63 - 1)) was -1 (the count overflowed); it is an error, and
# ranges whose count fits index and test membership exactly at the edges.
# status: 1
# expect: 4 4611686018427387904 true
# expect stderr: error: range(-9223372036854775808, 9223372036854775807, 1) has 18446744073709551615 elements
let lo = -9223372036854775807 - 1
let r = range(lo, 9223372036854775807, 4611686018427387904)
print(len(r), r[3], lo in range(lo, 9223372036854775807))
print(len(range(lo, 9223372036854775807)))
