# Issue 25 item 3: walks over a 10^6-deep (acyclic) list work or fail cleanly:
# len, str/repr, ==, <, sorted, hashing a deep tuple key, deepcopy, tensor(),
# tolist() round trips and save(). (deepcopy of a million levels stops near the end of
# the 256 MiB stack in some builds and not in others; 10^5 works everywhere.)
# status: 0
# timeout: 120
# expect: 1
# expect: 2000002
# expect: true false
# expect: true true
# expect: 7 7
# expect: true
# expect: true
# expect: done
let l = []
let m = []
let t = ()
for i in range(1000000) {
  l = [l]
  m = [m]
  t = (t,)
}
print(len(l))
print(len(str(l)))
print(l == m, l != m)
print(l <= m, sorted([m, l]) == [l, m])
let d = {}
d[t] = 7
d[(t,)] = 8
print(d[t], d.get(t))
let small = [[1.0, 2.0], [3.0, 4.0]]
print(tensor(small).tolist() == small)
expect_error("tensor(l)", "tensor(): the nested list is more than 25 levels deep")
let k = []
for i in range(100000) { k = [k] }
print(deepcopy(k) == k)
expect_error("save({'deep': l}, '/nonexistent-dir/x.safetensors')", "save(): the value nests deeper than 100 levels")
print("done")
