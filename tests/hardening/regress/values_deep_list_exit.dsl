# Issue 25 item 1: a list nested 10^6 deep in a global is freed at exit (and a
# dict chain and a tuple chain beside it) without overflowing the 8 MiB stack.
# Freeing recursed once per level (Note [Freeing deep values]).
# status: 0
# timeout: 120
# expect: built 1000000
let l = []
let d = {}
let t = ()
for i in range(1000000) {
  l = [l]
  d = {"next": d}
  t = (t, i)
}
let n = 0
let x = l
while len(x) > 0 {
  x = x[0]
  n = n + 1
}
print("built", n)
