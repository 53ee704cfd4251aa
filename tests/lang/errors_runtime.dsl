# Runtime errors: each case runs alone (sections split by '# ---'); the first line of
# the message is checked exactly (file:line:col: error: message), and some cases
# check the source line, the caret and the call trace too.

# case: undefined name
# expect error: tests/lang/errors_runtime.dsl:8:7: error: undefined name 'lossx'; did you mean 'loss' or 'less'?
let loss = 1
print(lossx)
# ---
# case: undefined function
# expect error: tests/lang/errors_runtime.dsl:12:1: error: undefined name 'foo'
foo(1)
# ---
# case: assignment to an undefined name
# expect error: tests/lang/errors_runtime.dsl:16:1: error: undefined name 'y' (declare it with let)
y = 3
# ---
# case: too many arguments
# expect error: tests/lang/errors_runtime.dsl:21:1: error: f() takes 1 argument but 2 were given
fn f(a) = a
f(1, 2)
# ---
# case: too few arguments
# expect error: tests/lang/errors_runtime.dsl:26:1: error: f() missing required argument 'b'
fn f(a, b) = a
f(1)
# ---
# case: unknown keyword argument
# expect error: tests/lang/errors_runtime.dsl:31:1: error: f() got an unexpected keyword argument 'c' (valid keywords: a)
fn f(a) = a
f(1, c=3)
# ---
# case: argument given twice
# expect error: tests/lang/errors_runtime.dsl:36:1: error: f() got multiple values for argument 'a'
fn f(a) = a
f(1, a=2)
# ---
# case: builtin with a wrong arity
# expect error: tests/lang/errors_runtime.dsl:40:1: error: len() takes at most 1 argument but 2 were given
len([1], [2])
# ---
# case: calling an int
# expect error: tests/lang/errors_runtime.dsl:45:1: error: 'int' object is not callable
let n = 3
n(1)
# ---
# case: calling a string
# expect error: tests/lang/errors_runtime.dsl:49:1: error: 'str' object is not callable
"abc"()
# ---
# case: calling none
# expect error: tests/lang/errors_runtime.dsl:54:1: error: 'none' object is not callable
let nothing = none
nothing()
# ---
# case: int plus string
# expect error: tests/lang/errors_runtime.dsl:58:9: error: cannot add int and str
let s = 1 + "a"
# ---
# case: string times list
# expect error: tests/lang/errors_runtime.dsl:62:9: error: cannot multiply str and list
let s = "a" * [1]
# ---
# case: unary minus on a string
# expect error: tests/lang/errors_runtime.dsl:66:9: error: bad operand type for unary -: 'str'
let s = -"a"
# ---
# case: ordering a list against an int
# expect error: tests/lang/errors_runtime.dsl:70:9: error: cannot compare list and int with '<'
let c = [1] < 1
# ---
# case: division by zero
# expect error: tests/lang/errors_runtime.dsl:74:9: error: division by zero
let q = 1 / 0
# ---
# case: integer division by zero
# expect error: tests/lang/errors_runtime.dsl:78:9: error: integer division by zero
let q = 7 // 0
# ---
# case: modulo by zero
# expect error: tests/lang/errors_runtime.dsl:82:9: error: integer modulo by zero
let q = 7 % 0
# ---
# case: list index out of range
# expect error: tests/lang/errors_runtime.dsl:87:7: error: index 5 is out of range for list of length 3
let xs = [1, 2, 3]
print(xs[5])
# ---
# case: negative list index out of range
# expect error: tests/lang/errors_runtime.dsl:92:7: error: index -4 is out of range for list of length 3
let xs = [1, 2, 3]
print(xs[-4])
# ---
# case: string index out of range
# expect error: tests/lang/errors_runtime.dsl:97:7: error: index 2 is out of range for str of length 2
let s = "ab"
print(s[2])
# ---
# case: list index of the wrong type
# expect error: tests/lang/errors_runtime.dsl:102:7: error: list indices must be integers or slices, not str
let xs = [1, 2]
print(xs["a"])
# ---
# case: missing dict key
# expect error: tests/lang/errors_runtime.dsl:107:7: error: key 'b' not found in dict
let d = {"a": 1}
print(d["b"])
# ---
# case: missing member
# expect error: tests/lang/errors_runtime.dsl:112:1: error: tuple has no attribute 'foo'
let t = (1, 2)
t.foo
# ---
# case: member of a tensor that does not exist
# expect error: tests/lang/errors_runtime.dsl:117:1: error: tensor has no attribute 'nope'
let x = ones([2])
x.nope
# ---
# case: setting a member of an int
# expect error: tests/lang/errors_runtime.dsl:122:1: error: cannot set attribute 'x' on int
let k = 1
k.x = 2
# ---
# case: assigning into a tuple
# expect error: tests/lang/errors_runtime.dsl:127:1: error: 'tuple' object does not support item assignment
let t = (1, 2)
t[0] = 5
# ---
# case: iterating over an int
# expect error: tests/lang/errors_runtime.dsl:131:1: error: 'int' object is not iterable
for i in 5 { }
# ---
# case: unpacking too many values
# expect error: tests/lang/errors_runtime.dsl:135:1: error: cannot unpack 3 values into 2 names
let (a, b) = (1, 2, 3)
# ---
# case: unpacking a non-sequence
# expect error: tests/lang/errors_runtime.dsl:139:1: error: cannot unpack int into 2 names
let (a, b) = 7
# ---
# case: break outside a loop
# expect error: tests/lang/errors_runtime.dsl:143:1: error: 'break' outside a loop
break
# ---
# case: continue outside a loop
# expect error: tests/lang/errors_runtime.dsl:147:1: error: 'continue' outside a loop
continue
# ---
# case: return outside a function
# expect error: tests/lang/errors_runtime.dsl:151:1: error: 'return' outside a function
return 1
# ---
# case: infinite recursion
# expect error: tests/lang/errors_runtime.dsl:155:11: error: maximum recursion depth exceeded
fn r(n) = r(n + 1)
r(0)
# ---
# case: unknown module
# expect error: tests/lang/errors_runtime.dsl:160:1: error: no module named 'nosuchmodule'
import nosuchmodule
# ---
# case: missing imported file
# expect error: tests/lang/errors_runtime.dsl:164:1: error: cannot import 'no_such_file.dsl': cannot open 'tests/lang/no_such_file.dsl': No such file or directory
import "no_such_file.dsl" as other
# ---
# case: bad format spec
# expect error: tests/lang/errors_runtime.dsl:168:9: error: unknown format code 'q' for a number
let s = f"{1:q}"
# ---
# case: condition that is a multi-element tensor
# expect error: tests/lang/errors_runtime.dsl:172:4: error: the truth value of a tensor with 2 elements is ambiguous (use .any() / .all() style reductions, e.g. (x > 0).sum() > 0)
if ones([2]) > 0 { }
# ---
# case: model constructor with a wrong arity
# expect error: tests/lang/errors_runtime.dsl:179:9: error: M() missing required argument 'n'
model M(n) {
  w = ones([n])
}
let m = M()
# ---
# case: missing member of a model
# expect error: tests/lang/errors_runtime.dsl:187:1: error: model M has no attribute 'v'
model M() {
  w = ones([2])
}
let m = M()
m.v
# ---
# case: calling a model without forward
# expect error: tests/lang/errors_runtime.dsl:195:1: error: model M has no forward method, so it cannot be called
model M() {
  w = ones([2])
}
let m = M()
m(1)
# ---
# case: error inside a function names the call chain
# expect error: tests/lang/errors_runtime.dsl:203:19: error: undefined name 'undefined_thing'
# expect error line:   fn inner(v) = v + undefined_thing
# expect error line:                     ^~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_runtime.dsl:204:15 in outer()
# expect error line:   at tests/lang/errors_runtime.dsl:205:1 in <module>
fn inner(v) = v + undefined_thing
fn outer(v) = inner(v) * 2
outer(1)
# ---
# case: error inside a method names the method
# expect error: tests/lang/errors_runtime.dsl:213:20: error: undefined name 'missing'
# expect error line:   at tests/lang/errors_runtime.dsl:213:20 in M.forward()
# expect error line:   at tests/lang/errors_runtime.dsl:216:1 in <module>
model M() {
  w = ones([2])
  forward(x) = x * missing
}
let m = M()
m(ones([2]))
# ---
# case: error in a deeply nested block
# expect error: tests/lang/errors_runtime.dsl:224:14: error: cannot add int and str
# expect error line:   at tests/lang/errors_runtime.dsl:228:1 in <module>
fn f(xs) {
  for x in xs {
    if x > 1 {
      return x + "s"
    }
  }
}
f([1, 2])
# ---
# case: test helper expect fails
# expect error: tests/lang/errors_runtime.dsl:232:1: error: expectation failed
expect(1 == 2)
# ---
# case: splat of a non-sequence
# expect error: tests/lang/errors_runtime.dsl:237:9: error: *argument must be a list or a tuple, got int
fn f(a) = a
print(f(*3))
# ---
# case: keyword-only parameter missing
# expect error: tests/lang/errors_runtime.dsl:242:1: error: f() missing required keyword argument 'b'
fn f(*a, b) = b
f(1, 2)
