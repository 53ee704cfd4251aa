# Long flat chains parse, evaluate and are freed at exit (issue 25, item 2; Note
# [Deep expressions] in lang/ast.hpp): a + a + ... (10^6 terms), - - ... (10^6),
# not not ..., x.f().g()..., x[0][0]..., and ... and. Each program is built as a
# string and run by expect_error, which runs code (and then stops at `stop_here`,
# an undefined name: the error it expects); the chain's value lands in `r`.
# Chained "a".upper() 200k times took about 3 minutes when span text was quadratic
# (41 s at 100k), now about a second: the timeout catches a return of that.
# status: 0
# timeout: 60
# expect: 1000000
# expect: -1
# expect: true
# expect: A
# expect: c
# expect: false
# expect: 5000050000
let r = none
let a = 1
fn run(code) = expect_error(code + "\nstop_here", "undefined name 'stop_here'")
run("r = a" + " + a" * 999999)
print(r)
run("r = " + "- " * 1000001 + "a")
print(r)
run("r = " + "not " * 100000 + "true")
print(r)
run("r = \"a\"" + ".upper()" * 200000)
print(r)
run("r = \"abc\"[2]" + "[0]" * 200000)
print(r)
run("r = true" + " and true" * 100000 + " and false" + " and undefined_name" * 1000)
print(r)
# Left to right, as written: a chain of 10^5 + that is not a sum of constants.
let s = "r = 0"
for i in range(1, 100001) { s = s + " + " + str(i) }
run(s)
print(r)
