# Issue 25 item 7 (unbounded work the limits do not see): a list that shares its
# sublist twice at each of 40 levels prints 2^40 items from 120 objects, all inside
# one call. The printed text asks the memory budget before it grows past it, so
# --max-memory stops it at once instead of after minutes of growth.
# args: --max-memory 100M
# status: 1
# timeout: 30
# expect: built
# expect stderr: values_print_exponential.dsl:13:11: error: memory budget of 104857600 bytes exceeded: a str (the printed text of a value) needs
let l = []
for i in range(40) { l = [1, l, {"a": (l,)}] }
print("built")
print(len(str(l)))
