# Hand-written tests of the composites of interp/builtins/composites/composite_extra_shape.cpp and
# composite_extra_math.cpp: method forms, in-place forms, errors, the random fills. The tests against
# PyTorch's values are generated into test_tensor_extra*.dsl by tests/stdlib/reference/make_tensor_extra.py.

test "every new function is a global and a tensor method" {
  let x = randn([3])
  for name in ["tile", "broadcast_to", "moveaxis", "swapdims", "fliplr", "flipud", "rot90", "tensor_split", "take",
               "diag_embed", "index_add", "index_copy", "index_fill", "scatter", "scatter_reduce", "split_with_sizes",
               "clip", "xlogy", "sinc", "hypot", "signbit", "float_power", "fmax", "fmin", "nansum", "nanmean",
               "copysign", "logaddexp2", "deg2rad", "rad2deg", "kron", "mv", "inner", "ger", "cross", "cov", "corrcoef",
               "renorm", "unique", "unique_consecutive", "bincount", "histc", "kthvalue", "mode", "cummax", "cummin",
               "bernoulli"] {
    expect(hasattr(x, name), f"tensor method {name}")
  }
  for name in ["sum_to_size", "dist", "normal_", "uniform_", "exponential_", "random_", "bernoulli_", "clip_",
               "index_add_", "index_copy_", "index_fill_", "scatter_", "scatter_reduce_"] {
    expect(hasattr(x, name), f"tensor method {name}")
  }
}

test "in-place forms write into the tensor" {
  let x = tensor([-2.0, 0.5, 3.0])
  let y = x.clip_(-1, 1)
  expect_close(x, tensor([-1.0, 0.5, 1.0]))
  y[0] = 5.0
  expect(x[0].item() == 5.0, "clip_ returns the tensor itself")
  let z = zeros([3, 2])
  z.index_add_(0, tensor([0, 2, 0]), ones([3, 2]))
  expect_close(z, tensor([[2.0, 2.0], [0.0, 0.0], [1.0, 1.0]]))
  z.index_fill_(1, tensor([1]), 7.0)
  expect_close(z[:, 1], tensor([7.0, 7.0, 7.0]))
  z.index_copy_(0, tensor([1]), tensor([[5.0, 6.0]]))
  expect_close(z[1], tensor([5.0, 6.0]))
  let s = zeros([2, 3])
  s.scatter_(1, tensor([[2], [0]]), 1.0)
  expect_close(s, tensor([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]))
  s.scatter_reduce_(1, tensor([[2, 2]]), tensor([[3.0, 4.0]]), "sum")
  expect_close(s[0], tensor([0.0, 0.0, 8.0]))
}

test "dtypes follow PyTorch" {
  expect(xlogy(tensor([1, 2]), tensor([2, 3])).dtype == f32, "xlogy of ints is f32")
  expect(sinc(tensor([0, 1])).dtype == f32, "sinc of ints is f32")
  expect(deg2rad(tensor([180])).dtype == f32, "deg2rad of ints is f32")
  expect(float_power(tensor([2.0]), 2).dtype == f64, "float_power is f64")
  expect(copysign(tensor([1, 2]), -1).dtype == f32, "copysign of ints is f32")
  expect(signbit(tensor([-1, 2])).dtype == tensor([true]).dtype, "signbit is bool")
  expect(bincount(tensor([0, 1])).dtype == i64, "bincount counts are i64")
  expect(bincount(tensor([0, 1]), weights=tensor([1.0, 2.0])).dtype == f32, "f32 weights stay f32")
  expect(bincount(tensor([0, 1]), weights=tensor([1, 2])).dtype == f64, "integer weights give f64")
  expect(nansum(tensor([1, 2])).dtype == i64, "nansum of ints is an int")
  expect(unique(tensor([2, 1, 2])).dtype == i64, "unique keeps the dtype")
  expect(kthvalue(tensor([3, 1, 2]), 1).indices.dtype == i64, "indices are i64")
  expect(cummax(tensor([1.0, 2.0]), 0).indices.dtype == i64, "cummax indices are i64")
  expect(fmax(tensor([1, 5]), tensor([3, 2])).tolist() == [3, 5], "fmax of ints")
  expect(tile(tensor([[1, 2]]), [2]).shape == (1, 4), "tile pads dims with leading 1s")
  expect(unique(tensor([3.0, 1.0]), sorted=false).tolist() == [1.0, 3.0], "unique is always sorted")
}

test "named results and views" {
  let k = kthvalue(tensor([[3.0, 1.0, 2.0]]), 1, dim=1)
  expect(k.values.tolist() == [1.0] and k.indices.tolist() == [1], "kthvalue's values and indices")
  let m = mode(tensor([1, 2, 2, 3, 3]))
  expect(m.values.item() == 2 and m.indices.item() == 2, "mode: the smallest of the most frequent, its last index")
  let c = cummin(tensor([3.0, 1.0, 2.0, 1.0]), 0)
  expect(c.values.tolist() == [3.0, 1.0, 1.0, 1.0] and c.indices.tolist() == [0, 1, 1, 3], "cummin's last index of ties")
  let parts = tensor_split(arange(10).reshape([2, 5]), tensor([2, 3]), dim=1)
  expect(len(parts) == 3 and parts[2].shape == (2, 2), "tensor_split by an index tensor")
  expect(len(tensor_split(arange(3), 5)) == 5, "more sections than elements give empty pieces")
  expect(broadcast_to(tensor([1.0]), [2, 3]).shape == (2, 3), "broadcast_to")
}

test "gradients of gradients flow through the composites" {
  let x = tensor([0.5, -1.0, 2.0], dtype=f64, requires_grad=true)
  let y = scatter_reduce(x, 0, tensor([0, 0, 1]), x * x, "prod")
  let g = grad([y.sum()], [x], create_graph=true)[0]
  let h = grad([g.sum()], [x])[0]
  # y = [x0^3 x1^2, x1 x2^2, x2]: the sum of the gradient's gradient, by hand
  expect_close(h, tensor([1.5, 2.75, 2.0], dtype=f64), rtol=1e-12)
  let k = kron(x, x)
  let gk = grad([k.sum()], [x], create_graph=true)[0]
  let hk = grad([gk.sum()], [x])[0]
  expect_close(hk, full([3], 6.0, dtype=f64))
  let xl = xlogy(x, x * x + 1.0)
  let gx = grad([xl.sum()], [x], create_graph=true)[0]
  expect(grad([gx.sum()], [x])[0].shape == (3,), "grad of grad of xlogy")
}

test "the random fills are seeded by manual_seed and keep PyTorch's ranges" {
  manual_seed(7)
  let a = zeros([2000], dtype=f64).normal_(1.0, 0.5)
  manual_seed(7)
  let b = zeros([2000], dtype=f64).normal_(1.0, 0.5)
  expect(equal(a, b), "manual_seed repeats normal_")
  expect(abs(a.mean().item() - 1.0) < 0.05 and abs(a.std().item() - 0.5) < 0.05, "normal_'s mean and std")
  let u = zeros([2000]).uniform_(-2, 3)
  expect(u.min().item() >= -2 and u.max().item() < 3 and abs(u.mean().item() - 0.5) < 0.15, "uniform_'s range")
  let e = zeros([4000], dtype=f64).exponential_(2.0)
  expect(e.min().item() >= 0 and abs(e.mean().item() - 0.5) < 0.05, "exponential_'s mean is 1 / lambd")
  let r = zeros([1000]).random_(3, 6)
  expect(r.min().item() == 3 and r.max().item() == 5 and equal(r, r.round()), "random_(from, to) is in [from, to)")
  let r10 = zeros([1000], dtype=i64).random_(10)
  expect(r10.min().item() == 0 and r10.max().item() == 9, "random_(to) is in [0, to)")
  let rb = zeros([64], dtype=u8).random_()
  expect(rb.max().item() <= 255 and rb.dtype == u8, "random_() fills the dtype's range")
  let rf = zeros([64]).random_()
  expect(rf.max().item() <= 16777216 and equal(rf, rf.round()), "random_() of f32 is in [0, 2^24]")
  let bern = zeros([4000]).bernoulli_(0.25)
  expect(abs(bern.mean().item() - 0.25) < 0.03, "bernoulli_(p)")
  let bp = zeros([2, 3]).bernoulli_(tensor([0.0, 1.0, 0.0]))
  expect(bp.tolist() == [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]], "bernoulli_ with a tensor of probabilities")
  let bt = bernoulli(tensor([[0.0, 1.0], [1.0, 0.0]], dtype=f64))
  expect(bt.tolist() == [[0.0, 1.0], [1.0, 0.0]] and bt.dtype == f64, "bernoulli(input)")
  expect(abs(bernoulli(zeros([4000]), p=0.75).mean().item() - 0.75) < 0.03, "bernoulli(input, p)")
  let w = randn([3], requires_grad=true)
  expect_error(fn() = w.normal_(), "leaf")
  no_grad { w.uniform_(0, 1) }
  expect(w.min().item() >= 0, "a fill under no_grad writes a parameter")
}

test "bad arguments are errors that name the function and the argument" {
  let x = randn([3, 4])
  expect_error(fn() = tile(x, [-1]), "tile(): argument 'dims' must be non-negative, got [-1]")
  expect_error(fn() = broadcast_to(x, [2, 3]), "broadcast_to(): input of shape [3, 4] cannot be broadcast to argument 'size' [2, 3]")
  expect_error(fn() = moveaxis(x, [0, 1], [1]), "moveaxis(): argument 'source' [0, 1] and argument 'destination' [1] must have the same number of dims")
  expect_error(fn() = moveaxis(x, 2, 0), "moveaxis(): argument 'source': dim 2 is out of range")
  expect_error(fn() = swapdims(x, 0, 5), "swapdims(): argument 'dim1': dim 5 is out of range")
  expect_error(fn() = fliplr(randn([3])), "fliplr(): argument 'input' must be at least 2-D, got shape [3]")
  expect_error(fn() = rot90(x, 1, [0, 0]), "rot90(): argument 'dims' must be two different dims, got [0, 0]")
  expect_error(fn() = rot90(x, 1, [0]), "rot90(): argument 'dims' must hold 2 dims, got [0]")
  expect_error(fn() = tensor_split(x, 0), "tensor_split(): argument 'indices_or_sections' must be a positive number of sections, got 0")
  expect_error(fn() = tensor_split(x, tensor([1.0])), "tensor_split(): argument 'indices_or_sections' must be an int, a list of ints or a 0-D or 1-D integer tensor")
  expect_error(fn() = split_with_sizes(x, [1, 1], 1), "split_with_sizes(): argument 'split_sizes' [1, 1] adds up to 2, but dim 1 of shape [3, 4] has size 4")
  expect_error(fn() = take(x, tensor([12])), "take(): argument 'index' holds 12, out of range for an input of 12 elements")
  expect_error(fn() = take(x, tensor([1.0])), "take(): argument 'index' must be an integer (i64 or i32) tensor, got f32")
  expect_error(fn() = diag_embed(x, dim1=1, dim2=1), "diag_embed(): argument 'dim1' and argument 'dim2' must differ")
  expect_error(fn() = scatter(x, 0, tensor([[3]]), 1.0), "scatter(): argument 'index' holds 3, out of range for dim 0 of size 3")
  expect_error(fn() = scatter(x, 0, tensor([0]), 1.0), "scatter(): argument 'index' must have as many dims as the input (2), got shape [1]")
  expect_error(fn() = scatter(x, 0, tensor([[0, 1]]), ones([1, 1])), "scatter(): argument 'index' of shape [1, 2] is larger than argument 'src' [1, 1] in dim 1")
  expect_error(fn() = scatter(x, 0, tensor([[0]]), ones([1, 1], dtype=f64)), "scatter(): argument 'src' must have the input's dtype f32, got f64")
  expect_error(fn() = scatter(x, 0, tensor([[0]])), "scatter(): expected argument 'src' (a tensor) or argument 'value' (a number)")
  expect_error(fn() = scatter(x, 0, tensor([[0]]), ones([1, 1]), reduce="max"), "scatter(): argument 'reduce' must be \"add\" or \"multiply\", got 'max'")
  expect_error(fn() = scatter_reduce(x, 0, tensor([[0]]), ones([1, 1]), "max"), "scatter_reduce(): argument 'reduce' must be \"sum\", \"prod\", \"mean\", \"amax\" or \"amin\", got 'max'")
  expect_error(fn() = index_add(x, 0, tensor([0, 1]), ones([3, 4])), "index_add(): argument 'source' must have shape [2, 4] (the input's with 2 along dim 0), got [3, 4]")
  expect_error(fn() = index_add(x, 1, tensor([4]), ones([3, 1])), "index_add(): argument 'index' holds 4, out of range for dim 1 of size 4")
  expect_error(fn() = index_copy(x, 0, tensor([[0]]), ones([1, 4])), "index_copy(): argument 'index' must be 1-D, got shape [1, 1]")
  expect_error(fn() = index_fill(x, 0, tensor([0]), ones([2])), "index_fill(): argument 'value' must be a number or a 0-dim tensor, got shape [2]")
  expect_error(fn() = clip(x), "clip(): argument 'min' or argument 'max' must be given (both are none)")
  expect_error(fn() = xlogy(1.0, 2.0), "xlogy(): argument 'input' or argument 'other' must be a tensor, got float and float")
  expect_error(fn() = hypot(tensor([1]), tensor([2])), "hypot(): argument 'input' and argument 'other' must be floating tensors, got i64 and i64")
  expect_error(fn() = nanmean(tensor([1, 2])), "nanmean(): argument 'input' must be a floating tensor, got i64")
  expect_error(fn() = mv(x, ones([3])), "mv(): argument 'input' [3, 4] and argument 'vec' [3] do not match (4 columns, 3 elements)")
  expect_error(fn() = mv(ones([4]), ones([4])), "mv(): argument 'input' must be a 2-D matrix, got shape [4]")
  expect_error(fn() = inner(x, ones([3])), "inner(): the last dims of argument 'input' [3, 4] and argument 'other' [3] must match")
  expect_error(fn() = ger(x, ones([3])), "ger(): argument 'input' must be 1-D, got shape [3, 4]")
  expect_error(fn() = cross(x, x, dim=1), "cross(): dim 1 must have size 3 in both inputs, got [3, 4] and [3, 4]")
  expect_error(fn() = cross(ones([2, 4]), ones([2, 4])), "cross(): no dim of size 3 in argument 'input' [2, 4] (give argument 'dim')")
  expect_error(fn() = cov(randn([2, 2, 2])), "cov(): argument 'input' must be 1-D or 2-D, got shape [2, 2, 2]")
  expect_error(fn() = cov(x, fweights=tensor([1, 2])), "cov(): argument 'fweights' must be 1-D with one weight per observation (4), got shape [2]")
  expect_error(fn() = cov(x, aweights=tensor([1, 2, 3, 4])), "cov(): argument 'aweights' must be a floating tensor, got i64")
  expect_error(fn() = cov(x, fweights=tensor([1, -2, 3, 4])), "cov(): argument 'fweights' must be non-negative, got -2.0")
  expect_error(fn() = renorm(x, 0, 0, 1.0), "renorm(): argument 'p' must be positive, got 0.0")
  expect_error(fn() = renorm(ones([3]), 2, 0, 1.0), "renorm(): argument 'input' must have at least 2 dims, got shape [3]")
  expect_error(fn() = x.dist(ones([2])), "dist(): argument 'input' [3, 4] and argument 'other' [2] do not broadcast")
  expect_error(fn() = x.sum_to_size([2, 4]), "sum_to_size(): argument 'size' [2, 4] is not expandable to the tensor's shape [3, 4]")
  expect_error(fn() = kthvalue(x, 5), "kthvalue(): argument 'k' must be in [1, 4] (the size of dim 1), got 5")
  expect_error(fn() = mode(zeros([0])), "mode(): argument 'input' has no elements")
  expect_error(fn() = cummax(x, 2), "cummax(): argument 'dim': dim 2 is out of range")
  expect_error(fn() = unique(x, dim=3), "unique(): argument 'dim': dim 3 is out of range")
  expect_error(fn() = bincount(tensor([1.0])), "bincount(): argument 'input' must be an integer tensor, got f32")
  expect_error(fn() = bincount(tensor([[1]])), "bincount(): argument 'input' must be 1-D, got shape [1, 1]")
  expect_error(fn() = bincount(tensor([1, -1])), "bincount(): argument 'input' must be non-negative, got -1")
  expect_error(fn() = bincount(tensor([1, 2]), weights=ones([3])), "bincount(): argument 'weights' must be 1-D with the input's 2 elements, got shape [3]")
  expect_error(fn() = histc(tensor([1, 2])), "histc(): argument 'input' must be a floating tensor, got i64")
  expect_error(fn() = histc(x, bins=0), "histc(): argument 'bins' must be positive, got 0")
  expect_error(fn() = histc(x, min=2, max=1), "histc(): argument 'max' (1.0) must be at least argument 'min' (2.0)")
  expect_error(fn() = zeros([2], dtype=i64).normal_(), "normal_(): expected a floating tensor, got i64")
  expect_error(fn() = zeros([2]).normal_(0.0, -1.0), "normal_(): argument 'std' must be non-negative, got -1.0")
  expect_error(fn() = zeros([2]).uniform_(1, 0), "uniform_(): argument 'from' (1.0) must be at most argument 'to' (0.0)")
  expect_error(fn() = zeros([2]).exponential_(0), "exponential_(): argument 'lambd' must be positive, got 0.0")
  expect_error(fn() = zeros([2]).random_(5, 5), "random_(): argument 'from' (5) must be below argument 'to' (5)")
  expect_error(fn() = zeros([2], dtype=u8).random_(0, 300), "random_(): the range [0, 300) does not fit u8 (expected values in [0, 255])")
  expect_error(fn() = zeros([2]).bernoulli_(1.5), "bernoulli_(): argument 'p' must be in [0, 1], got 1.5")
  expect_error(fn() = zeros([2, 3]).bernoulli_(ones([2])), "bernoulli_(): argument 'p' of shape [2] does not broadcast to the tensor's [2, 3]")
  expect_error(fn() = bernoulli(tensor([0.5, 2.0])), "bernoulli(): argument 'input' must hold probabilities in [0, 1], got 2.0")
  expect_error(fn() = bernoulli(tensor([1, 0])), "bernoulli(): argument 'input' must be a floating tensor, got i64")
}

test "the composites trace into a compiled graph" {
  fn f(x) = clip(tile(x, [2]), -0.5, 0.5).sum() + kron(x, x).sum() + xlogy(x * x, x * x + 1.0).sum() + cross(x, x.flip(0)).sum()
  let x = randn([3])
  expect_close(compile(f, x)(x), f(x), rtol=1e-5)
  fn g(x) = scatter_reduce(x, 0, tensor([0, 0, 2]), x * 2.0, "amax").sum() + index_add(x, 0, tensor([1]), x[:1]).sum()
  expect_close(compile(g, x)(x), g(x), rtol=1e-5)
}
