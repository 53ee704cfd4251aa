# x.diagonal() and x.unfold(dim, size, step) are views of x, as in PyTorch (Note
# [Diagonal and unfold are views] in autograd/ops/strided_views.cpp): the same values as
# the copies they replaced (einsum's diagonal, an index_select of the windows), for every
# layout of x; writes through them reach x; gradients (gradcheck and gradgradcheck in
# f64) and the version counter work as for slice views. Run by
# `nabla test tests/ops/test_view_diagonal_unfold.dsl`.

fn same(a, b) = a.dtype == b.dtype and a.shape == b.shape and equal(a, b)

# The copy diagonal() made before: dims d1 and d2 moved last, cut to the square whose
# main diagonal is the offset-th one, then einsum's repeated label.
fn old_diagonal(x, offset, d1, d2) {
  let y = x.movedim([d1, d2], [-2, -1])
  let rows = y.shape[-2]
  let cols = y.shape[-1]
  let r0 = min(max(-offset, 0), rows)
  let c0 = min(max(offset, 0), cols)
  let n = max(0, min(rows - r0, cols - c0))
  return einsum("...ii->...i", y.narrow(-2, r0, n).narrow(-1, c0, n))
}

# The copy unfold() made before: one index_select of every window's positions, split
# into [windows, size], the window's elements moved last.
fn old_unfold(x, dim, size, step) {
  let d = dim % x.dim()
  let windows = (x.shape[d] - size) // step + 1
  let positions = ((arange(windows) * step).unsqueeze(1) + arange(size)).reshape(-1)
  let picked = x.index_select(d, positions)
  let split = list(x.shape)
  split[d] = windows
  split.insert(d + 1, size)
  return picked.reshape(split).movedim(d + 1, -1)
}

# The layouts a view must read: contiguous, transposed, sliced with a step, batched.
fn layouts() {
  let base = arange(210.0).reshape(5, 6, 7)
  return [base, base.transpose(0, 2), base[1:, ::2, 1:6], base.permute(1, 2, 0)[:, 1:, ::3], base[2]]
}

test "diagonal: the values of the old copy for every layout, offset and pair of dims" {
  for x in layouts() {
    let n = x.dim()
    for offset in [0, 1, 2, -1, -3, 7, -9] {
      for pair in [[0, 1], [1, 0], [-2, -1], [-1, 0]] {
        let got = x.diagonal(offset, pair[0], pair[1])
        expect(same(got, old_diagonal(x, offset, pair[0], pair[1])))
        expect(same(diagonal(x, offset=offset, dim1=pair[0], dim2=pair[1]), got))
      }
    }
  }
  # An offset out of range gives a 0-length diagonal, as PyTorch's.
  expect(list(arange(6.0).reshape(2, 3).diagonal(3).shape) == [0])
  expect(list(arange(6.0).reshape(2, 3).diagonal(-2).shape) == [0])
  expect(list(arange(24.0).reshape(2, 3, 4).diagonal(offset=-5, dim1=1, dim2=2).shape) == [2, 0])
}

test "unfold: the values of the old copy for every layout, step and size" {
  for x in layouts() {
    for dim in range(-x.dim(), x.dim()) {
      let n = x.shape[dim % x.dim()]
      for size_step in [[1, 1], [2, 1], [2, 3], [n, 1], [n, 4], [0, 1], [1, n + 2]] {
        let got = x.unfold(dim, size_step[0], size_step[1])
        expect(same(got, old_unfold(x, dim, size_step[0], size_step[1])))
      }
    }
  }
}

test "diagonal: writes through the view reach x" {
  let cov = eye(3) * 2.0
  cov.diagonal().add_(1e-3)
  expect(same(cov, eye(3) * 2.001))
  let a = ones(3, 4)
  a.diagonal().fill_(0.0)
  expect(same(a.sum(), tensor(9.0)))
  expect(same(a[1, 1], tensor(0.0)) and same(a[0, 1], tensor(1.0)))
  # Above the main diagonal, on a transposed view and on batched dims.
  let b = zeros(4, 3)
  b.t().diagonal(1).copy_(tensor([5.0, 6.0, 7.0]))
  expect(same(b, tensor([[0.0, 0.0, 0.0], [5.0, 0.0, 0.0], [0.0, 6.0, 0.0], [0.0, 0.0, 7.0]])))
  let c = zeros(2, 3, 3)
  c.diagonal(0, -2, -1).copy_(tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
  expect(same(c, stack([diag(tensor([1.0, 2.0, 3.0])), diag(tensor([4.0, 5.0, 6.0]))])))
  let d = zeros(3, 5)[:, 1:]
  d.diagonal(-1).fill_(1.0)
  expect(same(d, tensor([[0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]])))
  # The function form is the same view.
  let e = zeros(2, 2)
  diagonal(e).fill_(3.0)
  expect(same(e, eye(2) * 3.0))
  # diag() of a matrix is a copy, as torch.diag's.
  let m = eye(2)
  diag(m).fill_(5.0)
  expect(same(m, eye(2)))
}

test "unfold: writes through the view reach x" {
  let x = arange(6.0)
  x.unfold(0, 2, 2).mul_(2.0)
  expect(same(x, tensor([0.0, 2.0, 4.0, 6.0, 8.0, 10.0])))
  let y = arange(6.0)
  y.unfold(0, 2, 1).fill_(-1.0)
  expect(same(y, full([6], -1.0)))
  # step > size leaves the elements between windows, a window over a whole dim.
  let z = zeros(2, 7)
  z.unfold(1, 2, 3).fill_(1.0)
  expect(same(z[0], tensor([1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0])))
  let w = zeros(3, 4).t()
  w.unfold(0, 4, 1)[0, 1].fill_(2.0)
  expect(same(w.t()[1], full([4], 2.0)) and same(w.sum(), tensor(8.0)))
  # Overlapping windows: every element written once, from the values before the write.
  let o = arange(6.0)
  o.unfold(0, 2, 1).mul_(2.0)
  expect(same(o, arange(6.0) * 2.0))
}

test "diagonal and unfold: gradients (f64 gradcheck and gradgradcheck)" {
  let x = randn(4, 5, dtype=f64, requires_grad=true)
  let b = randn(2, 3, 4, dtype=f64, requires_grad=true)
  expect(gradcheck(fn(t) = t.diagonal(1) * t.diagonal(-1).sum(), x))
  expect(gradgradcheck(fn(t) = t.diagonal(1) ** 2, x))
  expect(gradgradcheck(fn(t) = t.diagonal(-2) ** 3, x))
  expect(gradgradcheck(fn(t) = t.t().diagonal(1) ** 2, x))
  expect(gradgradcheck(fn(t) = t.diagonal(offset=1, dim1=-1, dim2=0) ** 2, b))
  expect(gradcheck(fn(t) = t.diagonal(9).sum() + t.sum(), x))
  expect(gradcheck(fn(t) = t.unfold(1, 3, 1) ** 2, x))
  expect(gradgradcheck(fn(t) = t.unfold(1, 3, 1) ** 2, x))
  expect(gradgradcheck(fn(t) = t.unfold(0, 2, 3) ** 2, x))
  expect(gradgradcheck(fn(t) = t.unfold(1, 5, 1) ** 3, x))
  expect(gradgradcheck(fn(t) = t.unfold(-1, 3, 2) ** 2, b))
  expect(gradgradcheck(fn(t) = t[:, ::2].unfold(0, 3, 1) ** 2, x))
  expect(gradgradcheck(fn(t) = t.unfold(2, 3, 1).diagonal(0, 0, 1) ** 2, b))
}

test "diagonal and unfold: the gradient is the old copy's" {
  let x = randn(4, 6, dtype=f64, requires_grad=true)
  let weights = randn(3, 4, dtype=f64)
  let grad_new = grad(fn(t) = (t.unfold(1, 3, 1).diagonal(0, 0, 1) * weights).sum())(x)
  let grad_old = grad(fn(t) = (old_diagonal(old_unfold(t, 1, 3, 1), 0, 0, 1) * weights).sum())(x)
  expect_close(grad_new, grad_old, 1e-12)
}

test "diagonal and unfold: a write after x was saved for backward raises, as for slice views" {
  let w = randn(3, 3, requires_grad=true)
  let x = randn(3, 3)
  let y = (w * x).sum()
  x.diagonal().add_(1.0)
  expect_error(fn() = y.backward(), "has been modified by an in-place operation")
  let v = randn(6, requires_grad=true)
  let u = randn(6)
  let z = (v * u).sum()
  u.unfold(0, 2, 2).mul_(2.0)
  expect_error(fn() = z.backward(), "has been modified by an in-place operation")
}

# x.grad after x's diagonal and a window of x were written under no_grad: the gradient
# of sum(x^3) at the written values, 3 x^2 (PyTorch 1.13 gives the same program these
# values: x.grad == 3 * x.detach() ** 2).
test "diagonal and unfold: backward after a write through the views" {
  let x = arange(9.0, dtype=f64).reshape(3, 3).requires_grad_()
  no_grad {
    x.diagonal().mul_(2.0)
    x.unfold(1, 2, 2)[:, 0, 1].fill_(-1.0)
  }
  let written = tensor([[0.0, -1.0, 2.0], [3.0, -1.0, 5.0], [6.0, -1.0, 16.0]], dtype=f64)
  expect(same(x.detach(), written))
  (x ** 3).sum().backward()
  expect_close(x.grad, 3.0 * written ** 2, 1e-12)
}

test "diagonal and unfold: vmap and jvp see the same op" {
  let xs = randn(3, 4, 4)
  expect(same(vmap(fn(m) = m.diagonal(1))(xs), xs.diagonal(1, -2, -1)))
  expect(same(vmap(fn(m) = m.unfold(0, 2, 1))(xs), xs.unfold(1, 2, 1)))
  let m = randn(4, 4, dtype=f64)
  let v = randn(4, 4, dtype=f64)
  expect_close(jvp(fn(t) = t.diagonal(-1) ** 2, (m,), (v,))[1], 2.0 * m.diagonal(-1) * v.diagonal(-1), 1e-12)
  expect_close(jvp(fn(t) = t.unfold(1, 3, 1), (m,), (v,))[1], v.unfold(1, 3, 1), 1e-12)
}

test "diagonal and unfold: errors name the argument" {
  expect_error(fn() = arange(3.0).diagonal(), "expected a tensor with at least 2 dims")
  expect_error(fn() = ones(2, 2).diagonal(0, 1, -1), "dim1 and dim2 must differ")
  expect_error(fn() = ones(2, 3).unfold(1, 4, 1), "has size 3 (a window must fit)")
  expect_error(fn() = ones(2, 3).unfold(1, 2, 0), "'step' must be > 0")
}
