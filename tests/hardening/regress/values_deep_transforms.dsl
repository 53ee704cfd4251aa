# status: 1
# timeout: 60
# vmap of a list nested 10^6 deep named each leaf's place by joining one more "[0]" at
# every level, 10^6 ever longer strings: it ran for hours. The place is now joined only
# when a message or a leaf needs it, and the walk over the arguments stops cleanly where
# the stack would overflow (as grad's and jvp's do).
# expect: built
# expect stderr: the list is nested too deeply
let l = [ones([2, 2])]
for i in range(1000000) { l = [l] }
print("built")
let r = vmap(fn(x) = 1)(l)
