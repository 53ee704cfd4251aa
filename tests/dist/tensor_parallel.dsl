# Tensor parallelism (issue 8) on 2 ranks, in f64, against the same layers whole in
# one process (every rank also computes the whole model, from the same values):
#   forward     column-parallel -> tanh -> row-parallel equals the whole MLP, and so
#               do the gather_output / input_is_parallel=false variants;
#   backward    the input's gradient and every shard's gradient equal the whole
#               model's (sliced), so dist_copy's all-reduce in backward is needed;
#   grad of grad  second derivatives through the collectives equal the whole model's;
#   gradcheck   of the parallel MLP and of its input gradient (gradgradcheck) against
#               central differences, every rank perturbing the same input in step;
#   training    SGD steps keep the shards equal to slices of the whole model's.
#   nabla launch -n 2 tests/dist/tensor_parallel.dsl        (ctest dist_tensor_parallel)
import dist
import nn
import optim

dist.init(timeout=60)
let rank = dist.rank()
let world = dist.world_size()
expect(world == 2, f"this test runs on 2 ranks, got {world}")

fn max_difference(a, b) {
  let worst = 0.0
  for (p, q) in zip(a, b) { worst = max(worst, (p - q).abs().max().item()) }
  return worst
}

# The same whole layers and data on every rank (same seed).
manual_seed(11)
let whole_up = nn.Linear(5, 8).to(f64)
let whole_down = nn.Linear(8, 3).to(f64)
let x = randn([4, 5], dtype=f64, requires_grad=true)
let xp = x.detach().clone().requires_grad_()
fn whole_mlp(v) = whole_down(tanh(whole_up(v)))

let up = dist.ColumnParallelLinear(5, 8, gather_output=false, whole=whole_up)
let down = dist.RowParallelLinear(8, 3, input_is_parallel=true, whole=whole_down)
fn parallel_mlp(v) = down(tanh(up(v)))
expect(list(up.weight.shape) == [4, 5] and list(down.weight.shape) == [3, 4], "each rank holds half of each weight")

# ---- forward and backward ----
let y = whole_mlp(x)
let yp = parallel_mlp(xp)
expect(max_difference([yp], [y]) < 1e-12, f"rank {rank}: forward differs by {max_difference([yp], [y])}")
(y * y).sum().backward()
(yp * yp).sum().backward()
let shard_grads = [up.weight.grad, up.bias.grad, down.weight.grad, down.bias.grad, xp.grad]
let whole_grads = [whole_up.weight.grad[rank * 4:(rank + 1) * 4], whole_up.bias.grad[rank * 4:(rank + 1) * 4],
                   whole_down.weight.grad[:, rank * 4:(rank + 1) * 4], whole_down.bias.grad, x.grad]
let backward_diff = max_difference(shard_grads, whole_grads)
expect(backward_diff < 1e-12, f"rank {rank}: gradients differ by {backward_diff}")

# ---- grad of grad: the gradient norm's gradient with respect to the weights ----
fn grad_norm_grads(f, params) {
  let v = x.detach().clone().requires_grad_()
  let out = f(v)
  let g = grad((out * out).sum(), v, create_graph=true)
  return grad((g * g).sum(), params)
}
let second = grad_norm_grads(parallel_mlp, [up.weight, down.weight, down.bias])
let second_whole = grad_norm_grads(whole_mlp, [whole_up.weight, whole_down.weight, whole_down.bias])
let second_diff = max_difference(second, [second_whole[0][rank * 4:(rank + 1) * 4], second_whole[1][:, rank * 4:(rank + 1) * 4], second_whole[2]])
expect(second_diff < 1e-10, f"rank {rank}: second derivatives differ by {second_diff}")

# ---- gradcheck and gradgradcheck across the ranks ----
let xc = randn([2, 5], dtype=f64, requires_grad=true)
expect(gradcheck(parallel_mlp, xc), f"rank {rank}: gradcheck of the parallel MLP")
expect(gradgradcheck(parallel_mlp, xc), f"rank {rank}: gradgradcheck of the parallel MLP")

# ---- the other wirings: whole output gathered, whole input split ----
let up_gathered = dist.ColumnParallelLinear(5, 8, gather_output=true, whole=whole_up)
let down_split = dist.RowParallelLinear(8, 3, input_is_parallel=false, whole=whole_down)
let v = randn([3, 5], dtype=f64, requires_grad=true)
let h = up_gathered(v)
expect(max_difference([h], [whole_up(v)]) < 1e-12, "gather_output=true gives the whole output")
let o = down_split(tanh(h))
expect(max_difference([o], [whole_mlp(v)]) < 1e-12, "input_is_parallel=false splits the whole input")
expect(gradcheck(fn(t) = down_split(tanh(up_gathered(t))), v), f"rank {rank}: gradcheck through dist_gather and dist_split")

# ---- training: shards stay slices of the whole model ----
let opt = optim.SGD(up.parameters() + down.parameters(), lr=0.1, momentum=0.9)
let whole_opt = optim.SGD(whole_up.parameters() + whole_down.parameters(), lr=0.1, momentum=0.9)
let target = randn([4, 3], dtype=f64)
for step in range(3) {
  opt.zero_grad()
  whole_opt.zero_grad()
  mse_loss(parallel_mlp(x.detach()), target).backward()
  mse_loss(whole_mlp(x.detach()), target).backward()
  opt.step()
  whole_opt.step()
}
let train_diff = max_difference([up.weight, down.weight, down.bias],
                                [whole_up.weight[rank * 4:(rank + 1) * 4], whole_down.weight[:, rank * 4:(rank + 1) * 4], whole_down.bias])
expect(train_diff < 1e-12, f"rank {rank}: after 3 SGD steps the shards differ by {train_diff}")

expect_error("dist.ColumnParallelLinear(5, 7)", "ColumnParallelLinear: out_features = 7 is not a multiple of the world size 2")
expect_error("dist_split(zeros([2, 3]), dim=-1)", "dist_split: dim 1 of argument 'input' of shape [2, 3] has 3 elements, not a multiple of the world size 2")
print(f"rank {rank}: tensor parallel agrees with one process (backward {backward_diff:.1e}, second order {second_diff:.1e})")
dist.destroy()
