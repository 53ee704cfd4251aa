# f"{-5:#x}" gave -5: every format spec prints what Python's format() prints.
# expect: -0x5 -0o5 -0b101 -0XFF
# expect: 00,001,234 -0,001,234 ab000 |    1|
# expect: A 0.0 1.23e+02 2e+00 inf%
print(f"{-5:#x}", f"{-5:#o}", f"{-5:#b}", f"{-255:#X}")
print(f"{1234:010,}", f"{-1234:010,}", f"{'ab':05}", f"|{true:>5}|")
import math
print(f"{65:c}", f"{-0.0:z.1f}", f"{123.0:.3}", f"{1.5:.0}", f"{math.inf:%}")
