# nabla launch -n 100000 started processes until the machine stalled: the rank
# count is capped, and the error names the limit and the value.
# args: launch -n 100000
# status: 2
# timeout: 10
# expect stderr: nabla: error: -n 100000: nabla launch starts at most 256 ranks (the limit for one machine)
print("a rank ran")
