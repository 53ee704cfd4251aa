# 0 ** -1 gave inf while 1 / 0 is an error: it is the same division by zero, for
# 0 and 0.0 (Python's ZeroDivisionError).
# status: 1
# expect: 0.5 inf
# expect stderr: limits_zero_pow.dsl:8:7: error: division by zero: 0 cannot be raised to a negative power
import math
print(2 ** -1, 0.0 ** -math.inf)
print(0.0 ** -1)
