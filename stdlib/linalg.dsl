# linalg: torch.linalg's functions of square matrices, over the op table's rows
# inverse, det, linalg_solve and cholesky (autograd/ops/linalg.cpp, LAPACK on the CPU):
# differentiable to any order, batched over leading dims. The LU family, the triangular
# solve, householder_product, tensorinv and tensorsolve are stdlib/_linalg_lu.dsl's.
import _linalg_lu

# The rows themselves, under names this module's functions do not take.
let _det_row = det
let _cholesky_row = cholesky
let _eigh_row = eigh
let _svd_row = svd
let _qr_row = qr
let _cross_builtin = cross
let _diagonal_builtin = diagonal
let _norm_builtin = norm
let _inf = float("inf")

# The checks the functions below share, so that a wrong argument is named at the user's
# call (not met inside as "int has no attribute 'ndim'" or "cannot multiply str and
# tensor"): A a tensor, a pair of dims in range, rtol a number or a tensor.
fn _tensor(who, what, v) {
  if type(v) != "tensor" { fail(f"linalg.{who}: {what} must be a tensor, got {type(v)}") }
}

fn _rtol(who, what, rtol) {
  if rtol != none and not (type(rtol) in ["int", "float", "tensor"]) {
    fail(f"linalg.{who}: {what} must be none, a number or a tensor, got {type(rtol)}")
  }
}

fn inv(A) {
  """The inverse of each square matrix [..., n, n], as torch.linalg.inv; a singular one is an error.

  Example: linalg.inv(eye(3) * 2.0 + 0.5)
  """
  return inverse(A)
}

fn det(A) {
  """The determinant of each square matrix [..., n, n], as torch.linalg.det.

  Example: linalg.det(eye(3) * 2.0 + 0.5)
  """
  return _det_row(A)
}

fn solve(A, B) {
  """X with A X = B, as torch.linalg.solve: A [..., n, n]; B [..., n, k], or a vector [n] (or [..., n] with
  A's batch), the batch dims broadcast.

  Example: linalg.solve(eye(3) * 2.0 + 0.5, ones([3]))
  """
  _tensor("solve", "A", A)
  _tensor("solve", "B", B)
  let vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])
  if vector {
    return linalg_solve(A, B.unsqueeze(-1)).squeeze(-1)
  }
  return linalg_solve(A, B)
}

fn cholesky(A, upper=false) {
  """The lower-triangular L with A = L L^T of each symmetric positive-definite matrix [..., n, n] (upper=true:
  U = L^T, A = U^T U), as torch.linalg.cholesky; a matrix that is not positive-definite is an error.

  Example: linalg.cholesky(eye(3) * 2.0 + 0.5)
  """
  _flag("cholesky", "upper", upper)
  let L = _cholesky_row(A)
  return L.transpose(-2, -1) if upper else L
}

fn _flag(who, name, v) {
  if type(v) != "bool" { fail(f"linalg.{who}: {name} must be true or false, got {type(v)}") }
}

fn slogdet(A) {
  """(sign, log|det|) of each square matrix, as torch.linalg.slogdet (here from det: a determinant past the
  dtype's range overflows, where PyTorch's sums the logs of the LU pivots).

  Example: linalg.slogdet(eye(3) * 2.0 + 0.5)
  """
  let d = _det_row(A)
  return named_tuple(["sign", "logabsdet"], [sign(d), log(abs(d))])
}

fn vector_norm(x, ord=2, dim=none, keepdim=false) {
  """The ord-norm of x's elements (over dim, an int or a list of ints; all of them when none), as
  torch.linalg.vector_norm: ord any number, inf or -inf, 0 (the count of nonzeros).

  Example: linalg.vector_norm(tensor([3.0, 4.0]))
  """
  return _norm_builtin(x, ord, dim, keepdim)
}

fn _dims2(A, dim) {
  if not (type(dim) in ["list", "tuple"]) or len(dim) != 2 {
    fail(f"linalg.matrix_norm: dim must be 2 dims, got {repr(dim)}")
  }
  for d in dim {
    if type(d) != "int" { fail(f"linalg.matrix_norm: dim must be 2 ints, got {repr(dim)}") }
    # A dim past A's dims was taken modulo them: dim=[0, 5] of a matrix was [0, 1].
    if d < -A.ndim or d >= A.ndim {
      fail(f"linalg.matrix_norm: dim {d} is out of range for A of shape {list(A.shape)} (expected a dim in [{-A.ndim}, {A.ndim - 1}])")
    }
  }
  let a = dim[0] % A.ndim
  let b = dim[1] % A.ndim
  if a == b { fail(f"linalg.matrix_norm: dim must be 2 different dims, got {dim}") }
  return a, b
}

# The max or min over `dims` of an empty part of A has no value (PyTorch's amax raises).
fn _nonempty(A, ord, size) {
  if size == 0 {
    fail(f"linalg.matrix_norm: ord {ord} takes a max or min over an empty dim of A of shape {list(A.shape)}")
  }
}

fn matrix_norm(A, ord="fro", dim=[-2, -1], keepdim=false) {
  """The ord-norm of the matrices over dims dim of A, as torch.linalg.matrix_norm: "fro", "nuc" (the sum of
  the singular values), 2 and -2 (the largest and smallest), 1 and -1 (the largest and smallest column sum
  of |A|), inf and -inf (row sums).

  Example: linalg.matrix_norm(eye(3) * 2.0, 1)
  """
  _tensor("matrix_norm", "A", A)
  if A.ndim < 2 { fail(f"linalg.matrix_norm: A must have at least 2 dims, got shape {list(A.shape)}") }
  let (rows, cols) = _dims2(A, dim)
  if ord == "fro" { return _norm_builtin(A, 2, [rows, cols], keepdim) }
  if ord == "nuc" or ord == 2 or ord == -2 {
    let moved = A.movedim([rows, cols], [-2, -1])
    let values = svdvals(moved)
    if ord != "nuc" { _nonempty(A, ord, values.shape[-1]) }
    let r = values.sum(-1) if ord == "nuc" else (values.amax(-1) if ord == 2 else values.amin(-1))
    if keepdim { return r.unsqueeze(-1).unsqueeze(-1).movedim([-2, -1], [rows, cols]) }
    return r
  }
  let over = none
  let across = none
  if ord == 1 or ord == -1 {
    over = rows
    across = cols
  } elif ord == _inf or ord == -_inf {
    over = cols
    across = rows
  } else {
    fail(f"linalg.matrix_norm: unknown ord {ord} (expected \"fro\", \"nuc\", 1, -1, 2, -2, inf or -inf)")
  }
  let sums = A.abs().sum(over, keepdim=true)
  _nonempty(A, ord, sums.shape[across])
  let r = sums.amax(across, keepdim=true) if ord > 0 else sums.amin(across, keepdim=true)
  if keepdim { return r }
  return r.squeeze([rows, cols])
}

fn norm(A, ord=none, dim=none, keepdim=false) {
  """torch.linalg.norm: a vector norm over an int dim, a matrix norm over two dims; with dim none, the
  2-norm of all elements when ord is none, else a vector norm of a 1-D A or a matrix norm of a 2-D one.

  Example: linalg.norm(tensor([[1.0, 2.0], [3.0, 4.0]]), 1)
  """
  _tensor("norm", "A", A)
  if dim == none {
    if ord == none { return vector_norm(A, 2) }
    if A.ndim == 1 { return vector_norm(A, ord) }
    if A.ndim == 2 { return matrix_norm(A, ord) }
    fail(f"linalg.norm: with an ord and no dim, A must be 1-D or 2-D, got shape {list(A.shape)}")
  }
  if type(dim) == "int" { return vector_norm(A, 2 if ord == none else ord, dim, keepdim) }
  if len(dim) == 1 { return vector_norm(A, 2 if ord == none else ord, dim, keepdim) }
  return matrix_norm(A, "fro" if ord == none else ord, dim, keepdim)
}

fn matrix_power(A, n) {
  """A multiplied by itself n times (n an int; 0 gives the identity, a negative n powers the inverse), as
  torch.linalg.matrix_power, by repeated squaring.

  Example: linalg.matrix_power(eye(2) * 2.0, 3)
  """
  _tensor("matrix_power", "A", A)
  if type(n) != "int" { fail(f"linalg.matrix_power: n must be an int, got {type(n)}") }
  if A.ndim < 2 or A.shape[-1] != A.shape[-2] {
    fail(f"linalg.matrix_power: A must be a batch of square matrices [..., n, n], got shape {list(A.shape)}")
  }
  if n == 0 { return eye(A.shape[-1], dtype=A.dtype, device=A.device).expand(A.shape) * 1 }
  let base = inverse(A) if n < 0 else A
  let k = -n if n < 0 else n
  let result = none
  while k > 0 {
    if k % 2 == 1 { result = base if result == none else result @ base }
    k = k // 2
    if k > 0 { base = base @ base }
  }
  return result
}

fn multi_dot(tensors) {
  """The product of a list of matrices, as torch.linalg.multi_dot: the first may be a 1-D row vector and the last
  a 1-D column vector (their dims are dropped from the result).

  Example: linalg.multi_dot([ones([2, 3]), ones([3, 4]), ones([4])])
  """
  if not (type(tensors) in ["list", "tuple"]) {
    fail(f"linalg.multi_dot: tensors must be a list of tensors, got {type(tensors)}")
  }
  if len(tensors) < 2 { fail(f"linalg.multi_dot: expected at least 2 tensors, got {len(tensors)}") }
  for k in range(len(tensors)) { _tensor("multi_dot", f"tensors[{k}]", tensors[k]) }
  let r = tensors[0]
  for k in range(1, len(tensors)) { r = r @ tensors[k] }
  return r
}

fn eigh(A, UPLO="L") {
  """(eigenvalues ascending, eigenvectors as columns) of each symmetric matrix [..., n, n], as torch.linalg.eigh
  (of the symmetric matrix the lower triangle makes, or the upper with UPLO="U", as PyTorch's; each
  eigenvector's sign makes its largest component positive, where PyTorch keeps LAPACK's). Differentiable (the
  gradient is PyTorch's, of a symmetric input); equal eigenvalues make the eigenvectors' gradient inf or
  NaN, as PyTorch's.

  Example: linalg.eigh(tensor([[2.0, 1.0], [1.0, 2.0]]))
  """
  let (values, vectors) = _eigh_row(_triangle_read("eigh", A, UPLO))
  return named_tuple(["eigenvalues", "eigenvectors"], [values, vectors])
}

# Note [eigh reads one triangle]
# PyTorch's eigh reads only the UPLO triangle of A (LAPACK's syevd), and its gradient is
# that of a symmetric input. The eigh row decomposes the symmetric part (A + A^T) / 2,
# whose gradient is PyTorch's; so the row gets the symmetric part plus, detached, the
# difference to the matrix the triangle makes: the values are the triangle's, the
# gradient the symmetric part's (they agree on a symmetric A, the difference being 0).
fn _triangle_read(who, A, UPLO) {
  if UPLO != "L" and UPLO != "U" { fail(f"linalg.{who}: UPLO must be \"L\" or \"U\", got {repr(UPLO)}") }
  if type(A) != "tensor" or A.ndim < 2 { return A }  # the row's own error
  let tri = A.tril() if UPLO == "L" else A.triu()
  let full = tri + tri.transpose(-2, -1) - tri * eye(A.shape[-1], dtype=A.dtype, device=A.device)
  let sym = (A + A.transpose(-2, -1)) * 0.5
  return sym + (full - sym).detach()
}

fn eigvalsh(A, UPLO="L") {
  """The eigenvalues (ascending) of each symmetric matrix [..., n, n] (its UPLO triangle read), as
  torch.linalg.eigvalsh.

  Example: linalg.eigvalsh(tensor([[2.0, 1.0], [1.0, 2.0]]))
  """
  return _eigh_row(_triangle_read("eigvalsh", A, UPLO))[0]
}

fn _no_complex(who, instead) = fail(f"linalg.{who}: its results are complex, and nabla has no complex dtype; {instead}")
fn eig(A) {
  """torch.linalg.eig, an error here: the eigenvalues of a general matrix are complex, and nabla has no complex
  dtype; a symmetric matrix's are real: linalg.eigh.

  Example: linalg.eigh(tensor([[2.0, 1.0], [1.0, 2.0]]))
  """
  _no_complex("eig", "for a symmetric matrix use linalg.eigh(A)")
}

fn eigvals(A) {
  """torch.linalg.eigvals, an error here, as linalg.eig.

  Example: linalg.eigvalsh(tensor([[2.0, 1.0], [1.0, 2.0]]))
  """
  _no_complex("eigvals", "for a symmetric matrix use linalg.eigvalsh(A)")
}

fn svd(A, full_matrices=true, driver=none) {
  """(U, S, Vh) with A = U diag(S) Vh for each matrix [..., m, n], S descending, as torch.linalg.svd; each pair
  of singular vectors signed so that U's column has its largest component positive (PyTorch keeps LAPACK's).
  full_matrices=true (PyTorch's default): U [..., m, m] and Vh [..., n, n], the columns past min(m, n)
  completing an orthonormal basis (gradients through them are ignored, as PyTorch's); false: the thin
  factors. Differentiable; equal or zero singular values take the singular vectors' terms of the gradient
  as 0 (PyTorch's are inf or NaN).

  Example: linalg.svd(randn([4, 3]), full_matrices=false)
  """
  _tensor("svd", "A", A)
  _driver("svd", driver)
  if type(full_matrices) != "bool" { fail(f"linalg.svd: full_matrices must be true or false, got {type(full_matrices)}") }
  let (u, s, vh) = _svd_row(A)
  if full_matrices {
    u = _completed(u)
    vh = _completed(vh.transpose(-2, -1)).transpose(-2, -1)
  }
  return named_tuple(["U", "S", "Vh"], [u, s, vh])
}

# basis [..., m, k] (orthonormal columns) followed by m - k columns that complete an
# orthonormal basis of its space: the eigenvectors of the projector I - basis basis^T whose
# eigenvalue is 1, which eigh sorts last. The added columns carry no gradient (any
# completion is as good as another, so PyTorch ignores gradients through them).
fn _completed(basis) {
  let m = basis.shape[-2]
  let k = basis.shape[-1]
  if k == m { return basis }
  let b = basis.detach()
  let projector = eye(m, dtype=b.dtype, device=b.device) - b @ b.transpose(-2, -1)
  return cat([basis, _eigh_row(projector)[1][..., k:]], dim=-1)
}

fn svdvals(A, driver=none) {
  """The singular values (descending) of each matrix [..., m, n], as torch.linalg.svdvals.

  Example: linalg.svdvals(tensor([[3.0, 0.0], [0.0, 4.0]]))
  """
  _driver("svdvals", driver)
  return _svd_row(A)[1]
}

# PyTorch's driver= picks a cuSOLVER routine (CUDA only): none, or one of its names, which
# change nothing here.
fn _driver(who, driver) {
  if driver != none and not (driver in ["gesvd", "gesvdj", "gesvda"]) {
    fail(f"linalg.{who}: driver must be none, \"gesvd\", \"gesvdj\" or \"gesvda\", got {repr(driver)}")
  }
}

# The singular values of A (s, per matrix) at or below this count as zero, as PyTorch's pinv
# and matrix_rank: max(atol, rtol times the largest), rtol by default the dtype's eps times
# max(m, n) when atol is not given, and 0 when it is. A matrix with no singular values (a
# side of 0) has none to cut: its largest is taken as 0 (amax of nothing failed inside the
# library; PyTorch's pinv of [0, 3] is [3, 0]).
fn _negligible(A, s, rtol, atol=none) {
  let eps = 2.220446049250313e-16 if A.dtype == f64 else 1.1920928955078125e-07
  let largest = s.amax(-1, keepdim=true) if s.shape[-1] > 0 else zeros(list(s.shape[:-1]) + [1], dtype=s.dtype, device=s.device)
  let r = rtol if rtol != none else (0.0 if atol != none else eps * max(A.shape[-1], A.shape[-2]))
  let cut = _as_column(r, s) * largest
  return cut if atol == none else maximum(cut, _as_column(atol, s))
}

# a number, or a tensor of one per matrix, as a column [..., 1] beside s [..., k]
fn _as_column(v, s) = v.to(s.dtype).unsqueeze(-1) if type(v) == "tensor" else tensor(float(v), dtype=s.dtype, device=s.device)

# (the singular values, or |eigenvalues| of a symmetric A with hermitian=true; and a
# function of the kept reciprocals giving the pseudo-inverse)
fn _spectrum(who, A, hermitian) {
  _flag(who, "hermitian", hermitian)
  if hermitian {
    let (lam, v) = _eigh_row(A)
    return (lam.abs(), fn(inv) = (v * (inv * sign(lam)).unsqueeze(-2)) @ v.transpose(-2, -1))
  }
  let (u, s, vh) = _svd_row(A)
  return (s, fn(inv) = (vh.transpose(-2, -1) * inv.unsqueeze(-2)) @ u.transpose(-2, -1))
}

fn pinv(A, rtol=none, atol=none, hermitian=false) {
  """The Moore-Penrose pseudo-inverse of each matrix [..., m, n], as torch.linalg.pinv: singular values at or
  below max(atol, rtol times the largest) count as zero (rtol by default eps of A's dtype times max(m, n)
  without atol, 0 with it; each a number or a tensor of one per matrix); hermitian=true reads A as symmetric
  and inverts through its eigenvalues.

  Example: linalg.pinv(tensor([[1.0, 2.0], [2.0, 4.0]]))
  """
  _tensor("pinv", "A", A)
  _rtol("pinv", "rtol", rtol)
  _rtol("pinv", "atol", atol)
  _flag("pinv", "hermitian", hermitian)
  return _Pinv(A, fn(M) = _truncated_pinv(M, rtol, atol, hermitian))
}

fn _truncated_pinv(A, rtol, atol, hermitian) {
  let (s, rebuild) = _spectrum("pinv", A, hermitian)
  let cut = _negligible(A, s, rtol, atol)
  return rebuild(where(s > cut, 1.0 / where(s > cut, s, ones_like(s)), zeros_like(s)))
}

# Note [pinv's gradient]
# PyTorch differentiates pinv by the pseudo-inverse's formula at constant rank (Golub and
# Pereyra), not through the decomposition: where singular values are cut (atol, rtol,
# or a rank-deficient A) the two differ, as the cut ones have a derivative the formula
# does not see. _Pinv's backward is that formula, its P recomputed from A by ops so that
# it differentiates again (gradgradcheck); on a full-rank A both are the same.
function _Pinv {
  forward(ctx, A, compute) {
    ctx.save(A, compute)
    return compute(A.detach())
  }
  backward(ctx, g) {
    let (A, compute) = ctx.saved
    let P = compute(A)
    let Pt = P.transpose(-2, -1)
    let K = g.transpose(-2, -1) @ P
    let KPt = K @ Pt
    let gA = -(P @ K).transpose(-2, -1) + KPt - (A @ P) @ KPt + (Pt @ P) @ (g.transpose(-2, -1) - K @ A)
    return (gA, none)
  }
}

fn matrix_rank(A, rtol=none, atol=none, hermitian=false, tol=none) {
  """The number of singular values of each matrix [..., m, n] above max(atol, rtol times the largest) (rtol by
  default eps of A's dtype times max(m, n) without atol, 0 with it), as torch.linalg.matrix_rank; tol is
  PyTorch's older name of atol (with rtol 0); hermitian=true counts |eigenvalues| of a symmetric A.

  Example: linalg.matrix_rank(tensor([[1.0, 2.0], [2.0, 4.0]]))
  """
  _tensor("matrix_rank", "A", A)
  _rtol("matrix_rank", "rtol", rtol)
  _rtol("matrix_rank", "atol", atol)
  _rtol("matrix_rank", "tol", tol)
  if tol != none and (atol != none or rtol != none) { fail("linalg.matrix_rank: give tol or atol and rtol, not both") }
  let s = _spectrum("matrix_rank", A, hermitian)[0]
  let cut = _negligible(A, s, (0.0 if tol != none else rtol), (tol if tol != none else atol))
  return (s > cut).sum(-1)
}

fn cond(A, p=none) {
  """The condition number of each matrix, as torch.linalg.cond: p none or 2 the ratio of the largest to the
  smallest singular value (-2: its inverse; any matrix [..., m, n]), p "fro", "nuc", inf, -inf, 1 or -1
  matrix_norm(A, p) * matrix_norm(inv(A), p) of a square one (inf for a singular one, as PyTorch's).
  Differentiable.

  Example: linalg.cond(tensor([[1.0, 2.0], [3.0, 4.0]]))
  """
  _tensor("cond", "A", A)
  if A.ndim < 2 { fail(f"linalg.cond: A must be a batch of matrices [..., m, n], got shape {list(A.shape)}") }
  if A.shape[-1] == 0 or A.shape[-2] == 0 { return zeros(list(A.shape[:-2]), dtype=A.dtype, device=A.device) }  # PyTorch's
  if p == none or p == 2 or p == -2 {
    let s = _svd_row(A)[1]
    let ratio = s[..., 0] / s[..., -1]
    return ratio if p != -2 else 1.0 / ratio
  }
  if not (p in ["fro", "nuc", _inf, -_inf, 1, -1]) {
    fail(f"linalg.cond: p must be none, 2, -2, \"fro\", \"nuc\", inf, -inf, 1 or -1, got {repr(p)}")
  }
  if A.shape[-1] != A.shape[-2] { fail(f"linalg.cond: with p={repr(p)}, A must be square, got shape {list(A.shape)}") }
  let d = _det_row(A.detach())
  let safe = where((d == 0).unsqueeze(-1).unsqueeze(-1), eye(A.shape[-1], dtype=A.dtype, device=A.device), A)
  let c = matrix_norm(A, p) * matrix_norm(inverse(safe), p)
  return where(d == 0, _inf, c)
}

# The *_ex forms: the result and info (i32, per matrix), 0 where it succeeded. A failure is
# an error with check_errors=true, else reported in info, as PyTorch's.
fn _info_tuple(names, result, info, who, check_errors, problem) {
  _flag(who, "check_errors", check_errors)
  if check_errors and (info != 0).any().item() { fail(f"linalg.{who}: {problem(int(info.max().item()))}") }
  return named_tuple(names, [result, info.to(i32)])
}

fn _singular(k) = f"the matrix is singular: U[{k},{k}] of its LU is zero"

# A with each matrix whose info is not 0 replaced by the identity (what the *_ex forms
# compute in its place, then fill with NaN).
fn _singular_as_eye(A, info) {
  let bad = (info != 0).unsqueeze(-1).unsqueeze(-1)
  return (bad, where(bad, eye(A.shape[-1], dtype=A.dtype, device=A.device), A))
}

fn inv_ex(A, check_errors=false) {
  """(inverse, info) of each square matrix, as torch.linalg.inv_ex: info is the first zero pivot of A's LU
  (1-based; 0 for an invertible matrix, whose inverse is inv(A)); a singular one's inverse is NaN (PyTorch's
  holds the infs and NaNs of its division by the zero pivot).

  Example: linalg.inv_ex(tensor([[1.0, 2.0], [2.0, 4.0]])).info
  """
  _square("inv_ex", A)
  let info = _linalg_lu._lu_steps(A.detach())[2]
  let (bad, safe) = _singular_as_eye(A, info)
  return _info_tuple(["inverse", "info"], where(bad, float("nan"), inverse(safe)), info, "inv_ex", check_errors, _singular)
}

fn solve_ex(A, B, left=true, check_errors=false) {
  """(result, info) of solve(A, B) (left=false: X A = B), as torch.linalg.solve_ex: info as inv_ex's, a
  singular matrix's result NaN.

  Example: linalg.solve_ex(eye(2) * 2.0, ones([2])).result
  """
  _square("solve_ex", A)
  _tensor("solve_ex", "B", B)
  _flag("solve_ex", "left", left)
  let info = _linalg_lu._lu_steps(A.detach())[2]
  let (bad, safe) = _singular_as_eye(A, info)
  let X = solve(safe, B) if left else solve(safe.transpose(-2, -1), B.transpose(-2, -1)).transpose(-2, -1)
  let vector = X.ndim == A.ndim - 1
  return _info_tuple(["result", "info"], where(bad.squeeze(-1) if vector else bad, float("nan"), X), info, "solve_ex", check_errors, _singular)
}

fn cholesky_ex(A, upper=false, check_errors=false) {
  """(L, info) of each symmetric matrix, as torch.linalg.cholesky_ex: info is the order of the first leading
  minor that is not positive-definite (0 when A is), and that matrix's L is NaN (PyTorch's holds LAPACK's
  partial factor).

  Example: linalg.cholesky_ex(-eye(2)).info
  """
  _square("cholesky_ex", A)
  _flag("cholesky_ex", "upper", upper)
  let n = A.shape[-1]
  let lower = A.tril()
  let sym = lower + lower.transpose(-2, -1) - lower * eye(n, dtype=A.dtype, device=A.device)
  let info = zeros(list(A.shape[:-2]), dtype=i64, device=A.device)
  for k in range(n, 0, -1) {
    info = where(_det_row(sym[..., :k, :k].detach()) <= 0, k, info)
  }
  let (bad, safe) = _singular_as_eye(A, info)
  let L = cholesky(safe, upper)
  return _info_tuple(["L", "info"], where(bad, float("nan"), L), info, "cholesky_ex", check_errors, fn(k) = f"the leading minor of order {k} is not positive-definite")
}

fn _square(who, A) {
  _tensor(who, "A", A)
  if A.ndim < 2 or A.shape[-1] != A.shape[-2] { fail(f"linalg.{who}: A must be a batch of square matrices [..., n, n], got shape {list(A.shape)}") }
}

# stdlib/_linalg_lu.dsl's functions
let lu_factor = _linalg_lu.lu_factor
let lu_factor_ex = _linalg_lu.lu_factor_ex
let lu = _linalg_lu.lu
let lu_solve = _linalg_lu.lu_solve
let solve_triangular = _linalg_lu.solve_triangular
let householder_product = _linalg_lu.householder_product
let tensorinv = _linalg_lu.tensorinv
let tensorsolve = _linalg_lu.tensorsolve
let cholesky_solve = _linalg_lu.cholesky_solve
let cholesky_inverse = _linalg_lu.cholesky_inverse

fn qr(A, mode="reduced") {
  """(Q, R) with A = Q R for each matrix [..., m, n], as torch.linalg.qr: mode "reduced" (Q [..., m, k], R
  [..., k, n], k = min(m, n)), "complete" (Q [..., m, m], its columns
  past n completing an orthonormal basis without a gradient, and R [..., m, n], zero below row n) or "r"
  (R, with an empty Q). Each R row and Q column is signed so that R's diagonal is not negative
  (PyTorch keeps LAPACK's signs). Differentiable.

  Example: linalg.qr(randn([4, 3]))
  """
  if mode != "reduced" and mode != "complete" and mode != "r" {
    fail(f"linalg.qr: mode must be \"reduced\", \"complete\" or \"r\", got {repr(mode)}")
  }
  _tensor("qr", "A", A)
  let (q, r) = _qr_row(A)
  if mode == "complete" and A.shape[-2] > A.shape[-1] {
    q = _completed(q)
    let below = list(r.shape[:-2]) + [A.shape[-2] - A.shape[-1], A.shape[-1]]
    r = cat([r, zeros(below, dtype=r.dtype, device=r.device)], dim=-2)
  }
  if mode == "r" { q = zeros([0], dtype=A.dtype, device=A.device) }
  return named_tuple(["Q", "R"], [q, r])
}

# A [..., m, n] and B [..., m, k] or [..., m] of one dtype, as PyTorch's checks say: a
# mismatch failed inside pinv(A) @ B, naming matmul and A's transposed shape.
fn _lstsq_shapes(A, B) {
  if A.ndim < 2 { fail(f"linalg.lstsq: A must be a batch of matrices [..., m, n], got shape {list(A.shape)}") }
  if A.dtype != B.dtype { fail(f"linalg.lstsq: A and B must have the same dtype, got {A.dtype} and {B.dtype}") }
  let vector = B.ndim == A.ndim - 1  # PyTorch's vector case
  if not vector and B.ndim < 2 {
    fail(f"linalg.lstsq: B must be [..., m, k], or [..., m] with one dim fewer than A, got shape {list(B.shape)} for A of shape {list(A.shape)}")
  }
  if (B.shape[-1] if vector else B.shape[-2]) != A.shape[-2] {
    fail(f"linalg.lstsq: B of shape {list(B.shape)} must have A's {A.shape[-2]} rows (A is {list(A.shape)}) in its dim -2, or in its last dim as a vector")
  }
}

fn lstsq(A, B, rcond=none, driver=none) {
  """The least-squares solution X of A X = B for each A [..., m, n] (B [..., m, k], or a vector [..., m]), as
  torch.linalg.lstsq: a named tuple (solution, residuals, rank, singular_values), with residuals and
  singular_values empty as PyTorch's default CPU driver (gelsy) leaves them. The solution is the
  minimum-norm one, through the pseudo-inverse (singular values at or below rcond times the largest count
  as zero); driver is accepted and not used.

  Example: linalg.lstsq(tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]]), tensor([[1.0], [2.0], [4.0]])).solution
  """
  _tensor("lstsq", "A", A)
  _tensor("lstsq", "B", B)
  _rtol("lstsq", "rcond", rcond)
  _lstsq_shapes(A, B)
  let vector = B.ndim == A.ndim - 1
  let x = pinv(A, rcond) @ (B.unsqueeze(-1) if vector else B)
  if vector { x = x.squeeze(-1) }
  let empty = zeros([0], dtype=A.dtype, device=A.device)
  return named_tuple(["solution", "residuals", "rank", "singular_values"], [x, empty, matrix_rank(A, rcond), empty])
}

fn vecdot(x, y, dim=-1) {
  """The dot product of x and y along dim, as torch.linalg.vecdot.

  Example: linalg.vecdot(ones([3]), arange(3.0))
  """
  return (x * y).sum(dim)
}

fn cross(a, b, dim=-1) {
  """The cross product of 3-vectors along dim, as torch.linalg.cross.

  Example: linalg.cross(tensor([1.0, 0.0, 0.0]), tensor([0.0, 1.0, 0.0]))
  """
  return _cross_builtin(a, b, dim)
}

fn diagonal(A, offset=0, dim1=-2, dim2=-1) {
  """The diagonal of each matrix (offset above or below it), as torch.linalg.diagonal.

  Example: linalg.diagonal(eye(3) * 2.0)
  """
  return _diagonal_builtin(A, offset, dim1, dim2)
}

fn matmul(a, b) {
  """a @ b, as torch.linalg.matmul.

  Example: linalg.matmul(ones([2, 3]), ones([3, 2]))
  """
  return a @ b
}

fn matrix_exp(A) {
  """The matrix exponential of each square matrix [..., n, n], as torch.linalg.matrix_exp: Higham's scaling and
  squaring with the degree-13 Pade approximant (its solve and products are ops, so it is differentiable to any
  order). The scaling is read from A's largest 1-norm in the batch, a number from the tensor: inside compile
  that is a value read.

  Example: linalg.matrix_exp(tensor([[0.0, 1.0], [-1.0, 0.0]]))
  """
  _tensor("matrix_exp", "A", A)
  if A.ndim < 2 or A.shape[-1] != A.shape[-2] {
    fail(f"linalg.matrix_exp: A must be a batch of square matrices [..., n, n], got shape {list(A.shape)}")
  }
  if not (A.dtype in [f32, f64, f16, bf16]) {
    fail(f"linalg.matrix_exp: A must be a floating tensor, got {A.dtype}, as PyTorch's (convert it with .to(f32))")
  }
  # The Pade coefficients (up to 6.5e16) overflow f16 and bf16 to inf, which gave a NaN
  # matrix: those are computed in f32 and the result cast back.
  if A.dtype == f16 or A.dtype == bf16 { return matrix_exp(A.float()).to(A.dtype) }
  let b = [64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
           10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0]
  let norm1 = float(matrix_norm(A.detach(), 1).max()) if A.numel() > 0 else 0.0
  # An inf (or a norm past the dtype's range) has no exponential: NaN, as PyTorch's,
  # where the scaling's int() of inf, or 2 ** s past an int, failed inside.
  if norm1 == _inf { return A * float("nan") }
  let s = 0
  if norm1 > 5.371920351148152 { s = int(ceil(log2(tensor(norm1 / 5.371920351148152, dtype=f64))).item()) }
  let a = A / 2.0 ** s
  let n = A.shape[-1]
  let eye_n = eye(n, dtype=A.dtype, device=A.device)
  let a2 = a @ a
  let a4 = a2 @ a2
  let a6 = a4 @ a2
  let u = a @ (a6 @ (a6 * b[13] + a4 * b[11] + a2 * b[9]) + a6 * b[7] + a4 * b[5] + a2 * b[3] + eye_n * b[1])
  let v = a6 @ (a6 * b[12] + a4 * b[10] + a2 * b[8]) + a6 * b[6] + a4 * b[4] + a2 * b[2] + eye_n * b[0]
  let r = linalg_solve(v - u, v + u)
  for k in range(s) { r = r @ r }
  return r
}
