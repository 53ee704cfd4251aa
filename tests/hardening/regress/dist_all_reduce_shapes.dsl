# Issue 25 item 6: an all_gather of different dtypes (caught: the group stays usable),
# then an all-reduce of f32[4] on rank 0 and f32[8] on rank 1: errors on both ranks,
# never an abort inside Gloo.
# args: launch -n 2
# status: 1
# timeout: 60
# expect stderr: dist.all_reduce: rank 0: the ranks disagree on collective #2: rank 0 calls all_reduce(op=sum) of f32[4]; rank 1 calls all_reduce(op=sum) of f32[8] (they differ in the shape)
# expect stderr: dist.all_reduce: rank 1: the ranks disagree on collective #2
# no stderr: Aborted
# no stderr: terminate called
import dist
dist.init(timeout=20)
let rank = dist.rank()
expect_error("dist.all_gather(zeros([2]).to([f32, i64][rank]))", "they differ in the dtype")
dist.all_reduce(zeros([4 + 4 * rank]))
print("not reached")
