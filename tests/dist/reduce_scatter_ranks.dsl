# reduce_scatter and all_gather_into on N ranks, exact: each rank's row r of the sum
# and every rank's chunk in rank order. On 4 ranks Gloo's halving-doubling leaves the
# chunks in another order than 2 ranks do (the result is at the buffer's start).
#   nabla launch -n 4 tests/dist/reduce_scatter_ranks.dsl     (ctest dist_reduce_scatter_3, _4)
import dist

dist.init(timeout=60)
let rank = dist.rank()
let W = dist.world_size()
for n in [1, 5, 1000] {
  for op in ["sum", "avg", "max"] {
    # Rank k holds (k + 1) * [0, 1, ..., W*n - 1]: the sum over ranks is W(W+1)/2 times it.
    let mine = arange(W * n, dtype=f64) * (rank + 1)
    let got = dist.reduce_scatter(mine.clone(), op)
    let row = arange(W * n, dtype=f64)[rank * n:(rank + 1) * n]
    let factor = {"sum": W * (W + 1) / 2, "avg": (W + 1) / 2, "max": W}[op]
    expect((got - row * factor).abs().max().item() == 0.0, f"rank {rank}: reduce_scatter({op}) of {W * n} is wrong: {got}")
  }
  let out = zeros([W * n])
  dist.all_gather_into(out, ones([n]) * rank)
  let want = cat([ones([n]) * k for k in range(W)])
  expect((out - want).abs().max().item() == 0.0, f"rank {rank}: all_gather_into of {n} is wrong: {out}")
}
print(f"rank {rank}: reduce_scatter and all_gather_into agree on {W} ranks")
