# linalg: torch.linalg's functions of square matrices, over the op table's rows
# inverse, det, linalg_solve and cholesky (autograd/ops/linalg.cpp, LAPACK on the CPU):
# differentiable to any order, batched over leading dims.

# The rows themselves, under names this module's functions do not take.
let _det_row = det
let _cholesky_row = cholesky

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
  let vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])
  if vector {
    return linalg_solve(A, B.unsqueeze(-1)).squeeze(-1)
  }
  return linalg_solve(A, B)
}

fn cholesky(A) {
  """The lower-triangular L with A = L L^T of each symmetric positive-definite matrix [..., n, n], as
  torch.linalg.cholesky; a matrix that is not positive-definite is an error.

  Example: linalg.cholesky(eye(3) * 2.0 + 0.5)
  """
  return _cholesky_row(A)
}

fn slogdet(A) {
  """(sign, log|det|) of each square matrix, as torch.linalg.slogdet (here from det: a determinant past the
  dtype's range overflows, where PyTorch's sums the logs of the LU pivots).

  Example: linalg.slogdet(eye(3) * 2.0 + 0.5)
  """
  let d = _det_row(A)
  return sign(d), log(abs(d))
}
