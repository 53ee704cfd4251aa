# Nesting without brackets stops at 200 levels with a syntax error at the level one
# too many, never a crash (issue 25, item 2): `**` chains, `else` chains, nested
# lambdas, unary minus between `**`, f-string fields. Then the same in a REPL, whose
# check for an unfinished entry parses on the main thread (8 MiB stack).
# status: 0
# expect: ok
let msg = "expressions nest deeper than 200 levels"
expect_error("let x = " + "2 ** " * 20000 + "2", msg)
expect_error("let x = " + "1 if c else " * 20000 + "2", msg)
expect_error("let f = " + "fn(x) = " * 20000 + "1", msg)
expect_error("let x = " + "2 ** -" * 20000 + "2", msg)
expect_error("let x = " + "(2 ** " * 150 + "2" + ")" * 150, msg)
expect_error("let x = " + "[" * 20000, "brackets nest deeper than 200 levels")
# Within the limit, all is well.
let f = fn(x) = fn(y) = fn(z) = x + y + z
expect(f(1)(2)(3) == 6)
expect(2 ** 2 ** 3 == 256)
expect((1 if false else 2 if false else 3) == 3)
# x[y[z[...]]] read each level twice (2^depth): 100 levels took forever.
let v = [0]
expect_error("let w = " + "v[" * 100 + "0" + "]" * 100 + "\nstop_here", "undefined name 'stop_here'")
# Chained comparisons are an error of their own.
expect_error("let b = 1 < 2 < 3", "comparisons do not chain")
print("ok")
