# Indices that come from a compiled function's inputs (Note [An index a graph replays],
# interp/values/advanced_indexing.cpp; Note [A mask a graph replays],
# interp/values/indexing.cpp; Note [Scatters a graph replays],
# interp/builtins/composites/composite_extra_shape.cpp): each compiled function is
# traced on one index and replayed on others (negative, repeated, out of range), and
# must equal eager in f64, values and gradients, or fail as eager does (an index out of
# range is index_select's error as the graph replays).

fn same(gm, f, args) = expect_close(gm(*args), f(*args), rtol=0, atol=0)

fn gather_rows(x, idx) = x[idx] * 2.0

test "reading through an index tensor replays for negative indices (traced on positive and on negative ones)" {
  let x = arange(10.0, dtype=f64).reshape([5, 2])
  let g_pos = compile(gather_rows, x, tensor([0, 1]))
  let g_neg = compile(gather_rows, x, tensor([-1, 0]))
  for idx in [tensor([-1, 0]), tensor([1, 2]), tensor([-5, 4]), tensor([3, 3])] {
    same(g_pos, gather_rows, [x, idx])
    same(g_neg, gather_rows, [x, idx])
  }
  expect_error(fn() = g_pos(x, tensor([0, 5])), "out of bounds")
  expect_error(fn() = g_neg(x, tensor([-6, 0])), "out of bounds")
}

fn pick_cells(x, rows, cols) = x[rows, cols]

test "several index tensors replay, and one out of range is an error even when the flat position is not" {
  let x = arange(12.0, dtype=f64).reshape([3, 4])
  let gm = compile(pick_cells, x, tensor([0, 1]), tensor([2, 3]))
  same(gm, pick_cells, [x, tensor([2, -1]), tensor([-4, 0])])
  # row 0, column 5 would be flat position 5 (row 1, column 1): eager refuses it
  expect_error(fn() = pick_cells(x, tensor([0, 0]), tensor([5, 0])), "out of range")
  expect_error(fn() = gm(x, tensor([0, 0]), tensor([5, 0])), "out of bounds")
}

fn put_values(x, idx, v) {
  let y = x.clone()
  y[idx] = v * 3.0
  return y
}

test "assignment through a multi-element index replays, a repeated position taking the last value as eager" {
  let x = randn([6], dtype=f64)
  let v = tensor([1.0, 2.0, 3.0], dtype=f64)
  let gm = compile(put_values, x, tensor([0, 2, 4]), v)
  for idx in [tensor([1, 3, 1]), tensor([-1, 5, 0]), tensor([2, 2, 2]), tensor([4, 0, 4])] {
    same(gm, put_values, [x, idx, v])
  }
  expect_close(gm(x, tensor([1, 3, 1]), v)[1], tensor(9.0, dtype=f64), rtol=0, atol=0)
  expect_error(fn() = gm(x, tensor([0, 6, 1]), v), "out of bounds")
}

test "the gradient of an assignment through an index reaches the value and what stays of x, with repeats" {
  let x = randn([6], dtype=f64, requires_grad=true)
  let v = tensor([1.0, 2.0, 3.0], dtype=f64, requires_grad=true)
  let w = tensor([1.0, -2.0, 3.0, 0.5, 4.0, -1.0], dtype=f64)
  let gm = compile(put_values, x, tensor([0, 2, 4]), v)
  for idx in [tensor([1, 3, 1]), tensor([5, 5, 0])] {
    let (gx, gv) = grad((gm(x, idx, v) * w).sum(), [x, v])
    let (ex, ev) = grad((put_values(x, idx, v) * w).sum(), [x, v])
    expect_close(gx, ex, rtol=0, atol=0)
    expect_close(gv, ev, rtol=0, atol=0)
  }
}

fn put_rows_2d(x, rows, v) {
  let y = x * 1.0
  y[rows, 1:] = v
  return y
}

test "an index tensor next to a slice, and a row value broadcast over the indexed rows" {
  let x = randn([4, 3], dtype=f64)
  let gm = compile(put_rows_2d, x, tensor([0, 1]), tensor([5.0, 6.0], dtype=f64))
  same(gm, put_rows_2d, [x, tensor([3, -4]), tensor([7.0, 8.0], dtype=f64)])
  same(gm, put_rows_2d, [x, tensor([2, 2]), tensor([7.0, 8.0], dtype=f64)])
}

fn zero_positive_rows(x, v) {
  let y = x.clone()
  y[y.sum(1) > 0] = v
  return y
}

fn fill_masked_columns(x, m) {
  let y = x * 1.0
  y[:, m] = -1.0
  return y
}

fn fill_after_ellipsis(x, m) {
  let y = x * 1.0
  y[..., m] = tensor(7.0, dtype=f64)
  return y
}

test "a mask from the data with a value that broadcasts (a row, a number) is where(): it replays" {
  let x = randn([5, 3], dtype=f64)
  let gm = compile(zero_positive_rows, x, tensor([1.0, 2.0, 3.0], dtype=f64))
  for k in range(3) {
    same(gm, zero_positive_rows, [randn([5, 3], dtype=f64), tensor([1.0, 2.0, 3.0], dtype=f64)])
  }
  let gc = compile(fill_masked_columns, x, tensor([true, false, true]))
  same(gc, fill_masked_columns, [x, tensor([false, true, false])])
  same(gc, fill_masked_columns, [x, tensor([false, false, false])])
  let x3 = randn([2, 3, 4], dtype=f64)
  let ge = compile(fill_after_ellipsis, x3, tensor([true, false, true, false]))
  same(ge, fill_after_ellipsis, [x3, tensor([false, true, true, true])])
  expect_error(fn() = gc(x, tensor([true, false])), "mask of shape [2] does not match the indexed dims")
}

test "a masked write's gradient reaches the value once per true place and x elsewhere" {
  let x = randn([5, 3], dtype=f64, requires_grad=true)
  let v = tensor([1.0, 2.0, 3.0], dtype=f64, requires_grad=true)
  let gm = compile(zero_positive_rows, x, v)
  let w = randn([5, 3], dtype=f64)
  let (gx, gv) = grad((gm(x, v) * w).sum(), [x, v])
  let (ex, ev) = grad((zero_positive_rows(x, v) * w).sum(), [x, v])
  expect_close(gx, ex, rtol=0, atol=0)
  expect_close(gv, ev, rtol=1e-14, atol=1e-14)
}

fn one_value_per_place(x) {
  let y = x.clone()
  let m = y > 0
  y[m] = y[m] * 2.0
  return y
}

test "a masked write with one value per true place still names the value read" {
  expect_error(fn() = compile(one_value_per_place, randn([4])), "bool mask reads the value")
}

fn one_hot_by_scatter(y) = zeros([4, 5], dtype=f64).scatter(1, y.unsqueeze(1), 1.0)
fn scatter_src(x, idx, src) = x.scatter(0, idx, src)
fn scatter_added(x, idx, src) = x.scatter(0, idx, src, reduce="add")
fn scatter_summed(x, idx, src) = x.scatter_reduce(0, idx, src, "sum")

test "scatter replays for other indices: one-hot labels, repeats taking the last value, reduce add" {
  let go = compile(one_hot_by_scatter, tensor([0, 1, 2, 3]))
  same(go, one_hot_by_scatter, [tensor([4, 4, -1, 0])])
  let x = zeros([3, 2], dtype=f64)
  let src = arange(6.0, dtype=f64).reshape([3, 2])
  let idx0 = tensor([[0, 1], [1, 2]])
  let gs = compile(scatter_src, x, idx0, src)
  let ga = compile(scatter_added, x, idx0, src)
  let gr = compile(scatter_summed, x, idx0, src)
  for idx in [tensor([[2, 2], [2, 0]]), tensor([[-1, 0], [0, 0]])] {
    same(gs, scatter_src, [x, idx, src])
    same(ga, scatter_added, [x, idx, src])
    same(gr, scatter_summed, [x, idx, src])
  }
  expect_error(fn() = gs(x, tensor([[3, 0], [0, 0]]), src), "out of bounds")
}

test "scatter's gradient reaches src's last writes and x's unwritten places" {
  let x = randn([3, 2], dtype=f64, requires_grad=true)
  let src = randn([3, 2], dtype=f64, requires_grad=true)
  let gs = compile(scatter_src, x, tensor([[0, 1], [1, 2]]), src)
  let idx = tensor([[2, 2], [2, 0]])
  let w = randn([3, 2], dtype=f64)
  let (gx, gsrc) = grad((gs(x, idx, src) * w).sum(), [x, src])
  let (ex, esrc) = grad((scatter_src(x, idx, src) * w).sum(), [x, src])
  expect_close(gx, ex, rtol=0, atol=0)
  expect_close(gsrc, esrc, rtol=0, atol=0)
}

fn copied(x, idx, s) = x.index_copy(0, idx, s)
fn filled(x, idx) = x.index_fill(1, idx, -2.0)
fn taken(x, idx) = take(x, idx)

test "index_copy, index_fill and take replay for other indices" {
  let x = randn([4, 3], dtype=f64)
  let s = randn([2, 3], dtype=f64)
  let gc = compile(copied, x, tensor([0, 1]), s)
  for idx in [tensor([3, -4]), tensor([2, 2])] { same(gc, copied, [x, idx, s]) }
  let gf = compile(filled, x, tensor([0]))
  for idx in [tensor([2]), tensor([-1, 1, -1])] {
    let gfi = compile(filled, x, idx)
    same(gfi, filled, [x, tensor([0, 2, 0][:idx.numel()])])
  }
  same(gf, filled, [x, tensor([-3])])
  let gt = compile(taken, x, tensor([[0, 5], [7, 11]]))
  same(gt, taken, [x, tensor([[-1, 0], [3, -12]])])
  expect_error(fn() = gt(x, tensor([[12, 0], [0, 0]])), "out of bounds")
}

fn put_added(x, idx, v) = x.index_put((idx,), v, accumulate=true)

test "index_put adds every value at a repeated place with accumulate=true, eager (PyTorch's values) and compiled" {
  let x = zeros([5], dtype=f64)
  let v = tensor([1.0, 2.0, 3.0], dtype=f64)
  # torch 1.13: x.index_put((tensor([2, 2, 4]),), v, accumulate=True) and without accumulate
  expect_close(put_added(x, tensor([2, 2, 4]), v), tensor([0.0, 0.0, 3.0, 0.0, 3.0], dtype=f64), rtol=0, atol=0)
  expect_close(index_put(x, (tensor([2, 2, 4]),), v), tensor([0.0, 0.0, 2.0, 0.0, 3.0], dtype=f64), rtol=0, atol=0)
  let y = zeros([3, 4])
  y.index_put_((tensor([0, 2]), tensor([1, 3])), tensor(5.0), accumulate=true)
  y.index_put_((tensor([0, 1, 2]),), tensor([7.0, 8.0, 9.0, 10.0]))
  expect(equal(y, tensor([[7.0, 8.0, 9.0, 10.0]]).expand([3, 4])))
  let g = compile(put_added, x, tensor([0, 1, 3]), v)
  same(g, put_added, [x, tensor([2, 2, -1]), v])
  let w = tensor([1.0, 2.0, 3.0], dtype=f64, requires_grad=true)
  let gw = grad((g(x, tensor([2, 2, 4]), w) * arange(5.0, dtype=f64)).sum(), w)
  expect_close(gw, tensor([2.0, 2.0, 4.0], dtype=f64), rtol=0, atol=0)
  expect_error(fn() = index_put(x, (tensor([2]),), tensor([1.0])), "argument 'values' must have the input's dtype f64, got f32")
}
