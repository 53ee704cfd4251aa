# The profiler records a backward through a 2 * 10^5-node chain (issue 25): one
# event per rule, no recursion, and the graph is freed at exit.
# status: 0
# timeout: 120
# expect: true
let w = ones([1], requires_grad=true)
let total = zeros([1])
for i in range(200000) { total = total + w }
profile(print=false) { total.backward() }
print(len(last_profile().rows(group="op")) > 0)
