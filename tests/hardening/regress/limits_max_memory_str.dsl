# Strings and lists were not counted under --max-memory: one made from a count is
# checked against the budget less the tensors in use, with the budget's error.
# args: --max-memory 10M
# status: 1
# expect: 1000
# expect stderr: limits_max_memory_str.dsl:9:9: error: memory budget of 10485760 bytes exceeded: a str needs 3000000 bytes and 8388608 bytes are in use by tensors
print(len("a" * 1000))
let t = zeros([2000000])
let s = "a" * 3000000
