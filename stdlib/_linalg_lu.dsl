# _linalg_lu: torch.linalg's LU family and the other solvers linalg lacked (round 8,
# tests/stdlib/test_gaps_vs_torch8_linalg.dsl): lu_factor, lu_factor_ex, lu, lu_solve,
# solve_triangular, householder_product, tensorinv, tensorsolve, and torch.cholesky_solve and
# cholesky_inverse (new-user round 6). linalg re-exports them; import linalg, not this module.
#
# Note [LU by ops]
# The factorization is Gaussian elimination with partial pivoting written with ops, one
# column per step, every matrix of the batch at once: the pivot is the first largest |a|
# on or below the diagonal (LAPACK's getrf picks the same), its row swapped up by a
# gather, the multipliers stored below the diagonal. Differentiating the steps is
# differentiating the factorization at fixed pivots, which is what PyTorch's
# lu_factor_backward computes, so the gradients agree (to any order, here). A zero pivot
# leaves its column as it is (LAPACK's rule) and is reported as info (lu_factor_ex), or
# is an error (lu_factor), as PyTorch's. Rectangular matrices factor as LAPACK's do.
# Triangular solves are linalg_solve on the triangle (the other triangle zeroed), whose
# gradient to A is therefore the triangle's, as PyTorch's solve_triangular's.

let _solve_row = linalg_solve

fn _matrix(who, what, A) {
  if type(A) != "tensor" { fail(f"linalg.{who}: {what} must be a tensor, got {type(A)}") }
  if A.ndim < 2 { fail(f"linalg.{who}: {what} must be a batch of matrices [..., m, n], got shape {list(A.shape)}") }
  if not (A.dtype in [f32, f64]) { fail(f"linalg.{who}: {what} must be f32 or f64, got {A.dtype}") }
}

fn _square(who, what, A) {
  _matrix(who, what, A)
  if A.shape[-1] != A.shape[-2] { fail(f"linalg.{who}: {what} must be a batch of square matrices [..., n, n], got shape {list(A.shape)}") }
}

fn _flag(who, name, v) {
  if type(v) != "bool" { fail(f"linalg.{who}: {name} must be true or false, got {type(v)}") }
}

# (LU, pivots (1-based, i32), info (i32: the first zero pivot, 1-based, 0 when none)).
fn _lu_steps(A) {
  let m = A.shape[-2]
  let n = A.shape[-1]
  let batch = list(A.shape[:-2])
  let rows = arange(m, device=A.device)
  let cols = arange(n, device=A.device)
  let W = A
  let pivots = []
  let info = zeros(batch, dtype=i64, device=A.device)
  for j in range(min(m, n)) {
    let magnitude = W[..., :, j].detach().abs()
    let p = where(rows >= j, magnitude, -1.0).argmax(-1).unsqueeze(-1)
    pivots.append(p)
    let order = where(rows == j, p, where(rows == p, j, rows))
    W = W.gather(-2, order.unsqueeze(-1).expand(batch + [m, n]))
    let pivot = W[..., j, j].unsqueeze(-1)
    let zero = pivot == 0
    info = where((info == 0).logical_and(zero.squeeze(-1)), j + 1, info)
    let below = (rows > j).logical_and(zero.logical_not())
    let mult = where(below, W[..., :, j] / where(zero, 1.0, pivot), 0.0)
    W = W - mult.unsqueeze(-1) * where(cols > j, W[..., j, :], 0.0).unsqueeze(-2)
    W = where(below.unsqueeze(-1).logical_and(cols == j), mult.unsqueeze(-1), W)
  }
  let piv = (cat(pivots, -1) + 1).to(i32) if len(pivots) > 0 else zeros(batch + [0], dtype=i32, device=A.device)
  return (W, piv, info.to(i32))
}

fn lu_factor_ex(A, pivot=true, check_errors=false) {
  """(LU, pivots, info) of each matrix [..., m, n], as torch.linalg.lu_factor_ex: L (unit lower, below the
  diagonal) and U (on and above it) packed in LU, the 1-based row swaps in pivots (i32), info the first zero
  pivot (1-based, i32; 0 when none). pivot=false is refused (PyTorch's CPU refuses it too). Differentiable.

  Example: linalg.lu_factor_ex(tensor([[1.0, 2.0], [3.0, 4.0]]))
  """
  _matrix("lu_factor_ex", "A", A)
  _flag("lu_factor_ex", "pivot", pivot)
  _flag("lu_factor_ex", "check_errors", check_errors)
  if not pivot { fail("linalg.lu_factor_ex: LU without pivoting is not implemented on the CPU (pivot=false), as PyTorch's") }
  let (lu, piv, info) = _lu_steps(A)
  if check_errors and (info != 0).any().item() { _zero_pivot("lu_factor_ex", info) }
  return named_tuple(["LU", "pivots", "info"], [lu, piv, info])
}

fn _zero_pivot(who, info) {
  let k = int(info.max().item())
  fail(f"linalg.{who}: U[{k},{k}] is zero and using it on lu_solve would result in a division by zero; to factor anyway, call linalg.lu(A) or linalg.lu_factor_ex(A)")
}

fn lu_factor(A, pivot=true) {
  """(LU, pivots) of each matrix [..., m, n], as torch.linalg.lu_factor (see lu_factor_ex); a zero pivot of a
  square matrix is an error, as PyTorch's. Differentiable.

  Example: linalg.lu_factor(tensor([[1.0, 2.0], [3.0, 4.0]]))
  """
  _matrix("lu_factor", "A", A)
  _flag("lu_factor", "pivot", pivot)
  if not pivot { fail("linalg.lu_factor: LU without pivoting is not implemented on the CPU (pivot=false), as PyTorch's") }
  let (lu, piv, info) = _lu_steps(A)
  if A.shape[-1] == A.shape[-2] and (info != 0).any().item() { _zero_pivot("lu_factor", info) }
  return named_tuple(["LU", "pivots"], [lu, piv])
}

# The permutation of rows the 1-based swaps in pivots [..., k] make of m rows: perm[i] is
# the original row that ends in row i.
fn _permutation(pivots, m) {
  let batch = list(pivots.shape[:-1])
  let rows = arange(m, device=pivots.device)
  let perm = rows.expand(batch + [m])
  for j in range(pivots.shape[-1]) {
    let p = pivots[..., j].to(i64).unsqueeze(-1) - 1
    perm = perm.gather(-1, where(rows == j, p, where(rows == p, j, rows)))
  }
  return perm
}

# L [..., m, k] (unit diagonal) and U [..., k, n] from a packed LU [..., m, n].
fn _unpack(lu) {
  let m = lu.shape[-2]
  let n = lu.shape[-1]
  let k = min(m, n)
  let L = lu[..., :, :k].tril(-1) + eye(m, k, dtype=lu.dtype, device=lu.device)
  return (L, lu[..., :k, :].triu())
}

fn lu(A, pivot=true) {
  """(P, L, U) with A = P L U for each matrix [..., m, n], as torch.linalg.lu: P a permutation matrix
  [..., m, m], L unit lower-triangular [..., m, k] and U upper-triangular [..., k, n], k = min(m, n). A zero
  pivot is no error here. Differentiable.

  Example: linalg.lu(tensor([[1.0, 2.0], [3.0, 4.0]]))
  """
  _matrix("lu", "A", A)
  _flag("lu", "pivot", pivot)
  if not pivot { fail("linalg.lu: LU without pivoting is not implemented on the CPU (pivot=false), as PyTorch's") }
  let (packed, piv, _info) = _lu_steps(A)
  let (L, U) = _unpack(packed)
  let m = A.shape[-2]
  let perm = _permutation(piv, m)
  # P's column i is the unit vector of the original row perm[i]: P[perm[i], i] = 1
  let P = (perm.unsqueeze(-2) == arange(m, device=A.device).unsqueeze(-1)).to(A.dtype)
  return named_tuple(["P", "L", "U"], [P, L, U])
}

# X with T X = B for a triangular T (only its triangle read; unit diagonal when unit). A
# zero on the diagonal is an error naming `who` (PyTorch's result holds inf and NaN).
fn _triangular_solve(who, T, B, upper, unit) {
  let n = T.shape[-1]
  let tri = T.triu() if upper else T.tril()
  if unit {
    let eye_n = eye(n, dtype=T.dtype, device=T.device)
    return _solve_row(tri * (1.0 - eye_n) + eye_n, B)
  }
  let zero = (tri.diagonal(0, -2, -1) == 0)
  if zero.any().item() {
    let k = int(zero.to(i64).argmax(-1).max().item()) + 1
    fail(f"linalg.{who}: the triangular matrix is singular: its diagonal element {k} is zero (PyTorch's result would hold inf and NaN)")
  }
  return _solve_row(tri, B)
}

fn _rhs(who, A, B) {
  if type(B) != "tensor" { fail(f"linalg.{who}: B must be a tensor, got {type(B)}") }
  if B.ndim < 2 { fail(f"linalg.{who}: B must be a batch of matrices [..., n, k], got shape {list(B.shape)}") }
  if B.dtype != A.dtype { fail(f"linalg.{who}: B must have A's dtype {A.dtype}, got {B.dtype}") }
}

fn lu_solve(LU, pivots, B, left=true, adjoint=false) {
  """X with A X = B (left=false: X A = B; adjoint=true: A^T in place of A) from lu_factor's (LU, pivots) of
  square matrices A [..., n, n], B [..., n, k] (the batch dims broadcast), as torch.linalg.lu_solve.
  Differentiable in LU and B.

  Example: linalg.lu_solve(*linalg.lu_factor(tensor([[1.0, 2.0], [3.0, 4.0]])), tensor([[1.0], [1.0]]))
  """
  _square("lu_solve", "LU", LU)
  if type(pivots) != "tensor" or not (pivots.dtype in [i32, i64]) or list(pivots.shape) != list(LU.shape[:-1]) {
    fail(f"linalg.lu_solve: pivots must be an integer tensor of shape {list(LU.shape[:-1])} (lu_factor's), got {_described(pivots)}")
  }
  _rhs("lu_solve", LU, B)
  _flag("lu_solve", "left", left)
  _flag("lu_solve", "adjoint", adjoint)
  let n = LU.shape[-1]
  let side = B.shape[-2] if left else B.shape[-1]
  if side != n {
    let what = "rows" if left else "columns"
    fail(f"linalg.lu_solve: B of shape {list(B.shape)} must have {n} {what} for LU of shape {list(LU.shape)}")
  }
  if (pivots < 1).logical_or(pivots > n).any().item() { fail(f"linalg.lu_solve: pivots must be in [1, {n}], got {pivots}") }
  let perm = _permutation(pivots, n)
  let (L, U) = _unpack(LU)
  let P = (perm.unsqueeze(-2) == arange(n, device=LU.device).unsqueeze(-1)).to(LU.dtype)
  # A = P L U. left: X = A^-1 B (adjoint: A^-T B); right: X = B A^-1 (adjoint: B A^-T), as transposes
  # of the left solves
  let Bt = B if left else B.transpose(-2, -1)
  let transposed = adjoint if left else not adjoint
  let X = none
  if not transposed {
    X = _triangular_solve("lu_solve", U, _triangular_solve("lu_solve", L, P.transpose(-2, -1) @ Bt, false, true), true, false)
  } else {
    X = P @ _triangular_solve("lu_solve", L.transpose(-2, -1), _triangular_solve("lu_solve", U.transpose(-2, -1), Bt, false, false), true, true)
  }
  return X if left else X.transpose(-2, -1)
}

fn _described(v) = f"a {v.dtype} tensor of shape {list(v.shape)}" if type(v) == "tensor" else type(v)

fn solve_triangular(A, B, upper=none, left=true, unitriangular=false) {
  """X with A X = B (left=false: X A = B) for triangular A [..., n, n] (upper=true: its upper triangle is read,
  false: its lower; the other is ignored; unitriangular=true takes its diagonal as ones), B [..., n, k] (the
  batch dims broadcast), as torch.linalg.solve_triangular, whose upper is required by name.
  Differentiable; A's gradient lies in the triangle read.

  Example: linalg.solve_triangular(tensor([[2.0, 1.0], [0.0, 4.0]]), tensor([[1.0], [2.0]]), upper=true)
  """
  _square("solve_triangular", "A", A)
  _rhs("solve_triangular", A, B)
  if type(upper) != "bool" { fail(f"linalg.solve_triangular: upper must be given, true or false (it has no default, as PyTorch's), got {type(upper)}") }
  _flag("solve_triangular", "left", left)
  _flag("solve_triangular", "unitriangular", unitriangular)
  let n = A.shape[-1]
  if (B.shape[-2] if left else B.shape[-1]) != n {
    let what = "rows" if left else "columns"
    fail(f"linalg.solve_triangular: B of shape {list(B.shape)} must have {n} {what} for A of shape {list(A.shape)}")
  }
  if left { return _triangular_solve("solve_triangular", A, B, upper, unitriangular) }
  # X A = B is A^T X^T = B^T, A^T triangular the other way
  return _triangular_solve("solve_triangular", A.transpose(-2, -1), B.transpose(-2, -1), not upper, unitriangular).transpose(-2, -1)
}

fn householder_product(A, tau) {
  """The first n columns of the product H_1 ... H_k of Householder reflections H_i = I - tau_i v_i v_i^T, v_i
  column i of A [..., m, n] below the diagonal with a 1 on it, tau [..., k] (k <= n <= m), as
  torch.linalg.householder_product (orgqr). Differentiable in A and tau.

  Example: linalg.householder_product(tensor([[1.0, 0.0], [0.5, 1.0], [0.25, 0.5]]), tensor([1.2, 0.5]))
  """
  _matrix("householder_product", "A", A)
  if type(tau) != "tensor" or tau.dtype != A.dtype {
    fail(f"linalg.householder_product: tau must be a tensor of A's dtype {A.dtype}, got {_described(tau)}")
  }
  let m = A.shape[-2]
  let n = A.shape[-1]
  let k = tau.shape[-1] if tau.ndim > 0 else -1
  if n > m { fail(f"linalg.householder_product: A must have at least as many rows as columns, got shape {list(A.shape)}") }
  if tau.ndim != A.ndim - 1 or k > n or list(tau.shape[:-1]) != list(A.shape[:-2]) {
    fail(f"linalg.householder_product: tau must have shape [..., k] with A's batch {list(A.shape[:-2])} and k <= {n}, got {list(tau.shape)}")
  }
  let rows = arange(m, device=A.device)
  let Q = eye(m, n, dtype=A.dtype, device=A.device).expand(list(A.shape[:-2]) + [m, n])
  # Q = H_1 (H_2 (... (H_k I[:, :n]))): applied from the last reflection to the first
  for i in range(k - 1, -1, -1) {
    let v = where(rows > i, A[..., :, i], (rows == i).to(A.dtype))
    let vq = (v.unsqueeze(-1) * Q).sum(-2, keepdim=true)
    Q = Q - tau[..., i].unsqueeze(-1).unsqueeze(-1) * v.unsqueeze(-1) * vq
  }
  return Q
}

fn _numel(shape) {
  let n = 1
  for s in shape { n = n * s }
  return n
}

fn tensorinv(A, ind=2) {
  """The inverse of A read as a matrix of its first ind dims by the rest (the two products equal), shaped
  A.shape[ind:] + A.shape[:ind], as torch.linalg.tensorinv. Differentiable.

  Example: linalg.tensorinv(eye(4).reshape([4, 2, 2]), ind=1)
  """
  if type(A) != "tensor" { fail(f"linalg.tensorinv: A must be a tensor, got {type(A)}") }
  if type(ind) != "int" or ind <= 0 { fail(f"linalg.tensorinv: ind must be a positive int, got {repr(ind)}") }
  if ind > A.ndim { fail(f"linalg.tensorinv: ind ({ind}) must be at most A's number of dims ({A.ndim})") }
  let rows = list(A.shape[:ind])
  let cols = list(A.shape[ind:])
  if _numel(rows) != _numel(cols) {
    fail(f"linalg.tensorinv: the product of A's first ind dims {rows} ({_numel(rows)}) must equal that of the rest {cols} ({_numel(cols)})")
  }
  return inverse(A.reshape([_numel(rows), _numel(cols)])).reshape(cols + rows)
}

fn tensorsolve(A, B, dims=none) {
  """X with tensordot(A, X, X.ndim) = B, as torch.linalg.tensorsolve: A's dims are B's followed by X's (dims,
  a list, moves those of A's dims to the end first), the products equal. Differentiable.

  Example: linalg.tensorsolve(eye(6).reshape([2, 3, 6]), ones([2, 3]))
  """
  if type(A) != "tensor" { fail(f"linalg.tensorsolve: A must be a tensor, got {type(A)}") }
  if type(B) != "tensor" { fail(f"linalg.tensorsolve: B must be a tensor, got {type(B)}") }
  if dims != none {
    let ds = [dims] if type(dims) == "int" else dims
    if not (type(ds) in ["list", "tuple"]) or not all([type(d) == "int" and d >= -A.ndim and d < A.ndim for d in ds]) {
      fail(f"linalg.tensorsolve: dims must be a list of dims of A (A is {A.ndim}-D), got {repr(dims)}")
    }
    let moved = [d % A.ndim for d in ds]
    A = A.permute([d for d in range(A.ndim) if not (d in moved)] + moved)
  }
  if A.ndim < B.ndim or list(A.shape[:B.ndim]) != list(B.shape) {
    fail(f"linalg.tensorsolve: A's leading dims {list(A.shape[:B.ndim])} must be B's shape {list(B.shape)}")
  }
  let xs = list(A.shape[B.ndim:])
  if _numel(xs) != B.numel() {
    fail(f"linalg.tensorsolve: the product of A's trailing dims {xs} ({_numel(xs)}) must equal B's number of elements ({B.numel()})")
  }
  return _solve_row(A.reshape([B.numel(), _numel(xs)]), B.reshape([B.numel(), 1])).reshape(xs)
}

# A = L L^T (upper: U^T U) solved as two triangular solves, forward then back
fn _cholesky_solve(who, B, L, upper) {
  _square(who, "L", L)
  _rhs(who, L, B)
  _flag(who, "upper", upper)
  if B.shape[-2] != L.shape[-1] {
    fail(f"linalg.{who}: B of shape {list(B.shape)} must have {L.shape[-1]} rows for the factor L of shape {list(L.shape)}")
  }
  let first = L.transpose(-2, -1) if upper else L
  let Y = _triangular_solve(who, first, B, false, false)
  return _triangular_solve(who, first.transpose(-2, -1), Y, true, false)
}

fn cholesky_solve(B, L, upper=false) {
  """X with A X = B for A = L L^T given its Cholesky factor L [..., n, n] (upper=true: A = U^T U with U given;
  only that triangle is read), B [..., n, k] (batch dims broadcast), as torch.cholesky_solve. Differentiable in
  B and L. Example: linalg.cholesky_solve(ones(2, 1), linalg.cholesky(tensor([[4.0, 2.0], [2.0, 3.0]])))
  """
  return _cholesky_solve("cholesky_solve", B, L, upper)
}

fn cholesky_inverse(L, upper=false) {
  """The inverse of A = L L^T (upper=true: U^T U) from its Cholesky factor, as torch.cholesky_inverse.
  Example: linalg.cholesky_inverse(linalg.cholesky(tensor([[4.0, 2.0], [2.0, 3.0]])))
  """
  _square("cholesky_inverse", "L", L)
  let eye_n = eye(L.shape[-1], dtype=L.dtype, device=L.device).expand(L.shape)
  return _cholesky_solve("cholesky_inverse", eye_n, L, upper)
}
