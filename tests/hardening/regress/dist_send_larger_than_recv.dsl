# Issue 25 item 6: rank 0 sends 8 floats, rank 1 receives into 4. Gloo used to abort
# both processes (an uncaught exception in its network thread); now each rank stops
# with an error naming the call, itself and what differed, and `nabla launch` fails.
# args: launch -n 2
# status: 1
# timeout: 60
# expect stderr: error: dist.send: rank 0: the ranks disagree on collective #1: rank 0 calls send(dst=1) of f32[8], rank 1 calls recv(src=0) of f32[4] (they differ in the shape)
# expect stderr: error: dist.recv: rank 1: the ranks disagree on collective #1: rank 1 calls recv(src=0) of f32[4], rank 0 calls send(dst=1) of f32[8] (they differ in the shape)
# expect stderr: nabla launch: rank
# no stderr: Aborted
# no stderr: terminate called
import dist
dist.init(timeout=20)
if dist.rank() == 0 {
  dist.send(ones([8]), 1)
} else {
  dist.recv(zeros([4]), 0)
}
print("not reached")
