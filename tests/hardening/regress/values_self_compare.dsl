# Issue 25 item 3: comparing containers that hold themselves is an error naming the
# operation (Python raises RecursionError), never a crash; the same for ordering,
# sorted, min/max, `in`, list methods, tensor() and save().
# status: 1
# expect: all clean
# expect stderr: values_self_compare.dsl:32:7: error: ==: the list contains itself (a reference cycle)
# expect stderr: print(a == b)
let a = []
a.append(a)
let b = []
b.append(b)
let x = []
let y = [x]
x.append(y)
let d1 = {}
d1["k"] = d1
let d2 = {}
d2["k"] = d2
expect_error("a != b", "!=: the list contains itself")
expect_error("a < b", "<: the list contains itself")
expect_error("a >= b", ">=: the list contains itself")
expect_error("sorted([a, b])", "sorted(): the list contains itself")
expect_error("max([a, b])", "max(): the list contains itself")
expect_error("min(a, b)", "min(): the list contains itself")
expect_error("a in [b]", "in: the list contains itself")
expect_error("[b].index(a)", "index(): the list contains itself")
expect_error("[b].count(a)", "count(): the list contains itself")
expect_error("x == b", "the list contains itself")
expect_error("d1 == d2", "==: the dict contains itself")
expect_error("tensor(a)", "tensor(): the list contains itself")
print("all clean")
print(a == b)
