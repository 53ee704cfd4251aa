# "ab" * 2**62 grew memory for tens of seconds before failing: the size is checked
# before a byte is taken (Note [Host memory budget]).
# status: 1
# timeout: 10
# expect stderr: error: out of memory: a str needs 4611686018427387904 x 2 bytes
let s = "ab" * 2 ** 62
