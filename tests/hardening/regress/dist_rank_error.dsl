# Issue 25 item 6: rank 1 fails on its own before the collective that rank 0 waits
# in. Rank 0 must not wait forever: its all_reduce fails at once (rank 1's sockets
# close) with an error that names rank 1, and the launch ends.
# args: launch -n 2
# status: 1
# timeout: 60
# expect stderr: index 5 is out of range for list of length 2
# expect stderr: dist.all_reduce: collective #1 (all_reduce(op=sum) of f32[4]) failed on rank 0: rank 1
# no stderr: Aborted
import dist
dist.init(timeout=20)
if dist.rank() == 1 { let x = [1, 2][5] }
dist.all_reduce(ones([4]))
print("not reached")
