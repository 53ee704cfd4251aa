# An empty str, list or tuple repeated a huge number of times: the repetition asked
# the memory budget for 0 bytes and then looped 2^62 times appending nothing, so
# `"" * 2**62` hung (Ctrl-C aside) where Python's is "" at once. An empty sequence
# now repeats no times.
# timeout: 10
# expect: ''
# expect: [] () []
# expect: 0
print(repr("" * 2**62))
print([] * 2**62, () * 9223372036854775807, 2**62 * [])
let l = []
l *= 2**62
print(len(l))
