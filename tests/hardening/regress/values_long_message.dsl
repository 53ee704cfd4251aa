# Issue 25: an error that quotes a value (here a list nested 100k deep, 200k
# characters) is cut at 10000 characters, saying how long it was, instead of
# printing megabytes; the source line and caret follow as usual.
# status: 1
# expect stderr: ...(200017 characters)
# expect stderr:   [1].index(l)
let l = []
for i in range(100000) { l = [l] }
[1].index(l)
