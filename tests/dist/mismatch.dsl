# Calls that differ between ranks (issue 25 item 6): a shape, a dtype, a reduce op, a
# source rank, the call itself, send against a recv of another size. Each must be an
# error on BOTH ranks that names the call, the rank and what differed (Note
# [Collective checks], tensor/dist/call_check.hpp), never an abort inside Gloo, never
# garbage or a partial fill; the group stays usable after each. Then every dtype
# moves through every call. Rank 0 prints the summary line only when both ranks saw
# every error and every value was right.
#   nabla launch -n 2 tests/dist/mismatch.dsl    (ctest dist_mismatch)
import dist

dist.init(timeout=20)
let rank = dist.rank()
let peer = 1 - rank
let checks = [0]

# Both ranks run `code` (evaluated here, so it sees rank and peer); it must fail with
# an error holding "disagree" and `what`.
fn refused(code, what) {
  expect_error(code, "the ranks disagree")
  expect_error(code, what)
  checks[0] += 1
}

# Collectives whose tensors differ.
refused("dist.all_reduce(zeros([4 + 4 * rank]))", "they differ in the shape")
refused("dist.all_reduce(zeros([4 + 4 * rank]))", f"rank {rank}: the ranks disagree on collective #")
refused("dist.all_reduce(zeros([4]).to([f32, i64][rank]))", "they differ in the dtype")
refused("dist.all_reduce(ones([3]), op=[\"sum\", \"max\"][rank])", "they differ in the reduce op")
refused("dist.all_reduce(zeros([[4], [2, 2]][rank]))", "they differ in the number of dims")
refused("dist.all_gather(zeros([2 + rank, 3]))", "they differ in the shape")
refused("dist.broadcast(zeros([3]), src=rank)", "they differ in the source rank")
refused("dist.broadcast(zeros([3 * (rank + 1)]), src=0)", "rank 0 calls broadcast(src=0) of f32[3]; rank 1 calls broadcast(src=0) of f32[6]")
refused("dist.reduce_scatter(zeros([4 + 2 * rank]))", "they differ in the shape")
refused("dist.all_reduce([zeros([4, 4]), zeros([4, 4]).t()][rank])", "they differ in the layout")

# Different calls at the same point.
refused(["dist.all_reduce(zeros([4]))", "dist.all_gather(zeros([4]))"][rank], "they differ in the call")
refused(["dist.barrier()", "dist.all_reduce(zeros([1]))"][rank], "they differ in the call")

# Point to point: an error on both sides, and the receiving tensor untouched.
let inbox = zeros([8])
refused(["dist.send(ones([4]), 1)", "dist.recv(inbox, 0)"][rank], "they differ in the shape")
expect(inbox.sum().item() == 0, "a refused recv wrote into its tensor")
refused(["dist.send(ones([16]), 1)", "dist.recv(inbox, 0)"][rank], "they differ in the shape")
expect(inbox.sum().item() == 0, "a refused recv wrote into its tensor")
refused(["dist.send(ones([8]).to(i64), 1)", "dist.recv(inbox, 0)"][rank], "they differ in the dtype")
refused("dist.send(ones([4]), peer)", "(both send)")
refused("dist.recv(inbox, peer)", "(both receive)")
expect(inbox.sum().item() == 0, "a refused recv wrote into its tensor")

# Every dtype: a mismatch is refused, and matching calls move the right values.
fn same(a, b) = a.shape == b.shape and (a.to(f64) - b.to(f64)).abs().max().item() == 0
let moved = [0]
let pattern = tensor([0, 1, 0, 1, 0, 1])
let names = ["f32", "f64", "f16", "bf16", "i64", "i32", "i8", "u8", "bool"]
for (name, dt) in zip(names, [f32, f64, f16, bf16, i64, i32, i8, u8, bool]) {
  refused(f"dist.all_reduce(ones([2 + rank]).to({name}), op=\"max\")", f"of {name}[2]; rank 1 calls all_reduce(op=max) of {name}[3]")
  let mine = (pattern + rank).to(dt)        # rank 0: 0 1 0 1 ..., rank 1: 1 2 1 2 ... (bool: 1 1 1 ...)
  let theirs = (pattern + peer).to(dt)
  let low = (pattern).to(dt)
  let b = mine.clone()
  dist.broadcast(b, src=0)
  expect(same(b, low), f"broadcast of {name}")
  let g = dist.all_gather(mine)
  expect(same(g, cat([low, (pattern + 1).to(dt)])), f"all_gather of {name}")
  let got = zeros([6]).to(dt)
  if rank == 0 {
    dist.send(mine, 1)
    dist.recv(got, 1)
  } else {
    dist.recv(got, 0)
    dist.send(mine, 0)
  }
  expect(same(got, theirs), f"send and recv of {name}")
  let m = mine.clone()
  dist.all_reduce(m, op="max")
  expect(same(m, (pattern + 1).to(dt)), f"all_reduce max of {name}")
  if name != "bool" {
    let s = mine.clone()
    dist.all_reduce(s)
    expect(same(s, 2 * pattern + 1), f"all_reduce sum of {name}")
    let rs = dist.reduce_scatter(mine)
    expect(same(rs, (2 * pattern + 1)[rank * 3:rank * 3 + 3]), f"reduce_scatter of {name}")
  }
  moved[0] += 1
}
# A bool sum would make bytes other than 0 and 1: refused alike on both ranks.
expect_error("dist.all_reduce(ones([3]).to(bool))", "a bool tensor reduces with op=\"max\" (or) or op=\"min\" (and)")

# The group still works, and both ranks saw the same number of refusals.
let counts = tensor([checks[0], moved[0]]).to(i64)
let both = counts.clone()
dist.all_reduce(both)
expect(same(both, 2 * counts), "the ranks refused different numbers of calls")
dist.barrier()
if rank == 0 {
  print(f"rank 0: {checks[0]} mismatched calls refused on both ranks; {moved[0]} dtypes move through every call")
}
dist.destroy()
