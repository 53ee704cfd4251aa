# _nn_orthogonal: PyTorch 1.13's torch.nn.utils.parametrizations: orthogonal and spectral_norm (round 9,
# tests/stdlib/test_gaps_vs_torch9_nn.dsl), on nn.utils.parametrize
# (stdlib/_nn_parametrize.dsl). nn.utils re-exports it as nn.utils.parametrizations;
# import nn, not this module.
#
# Note [Orthogonal parametrization]
# orthogonal(module, "weight") keeps module.weight orthogonal (Q^T Q = I for a tall
# weight, Q Q^T = I for a wide one) while an optimizer steps an unconstrained original,
# with PyTorch's maps and PyTorch's trivialization: registering makes `base` (a buffer,
# parametrizations.weight.0.base) the Q of the weight's QR with R's diagonal made
# positive (the weight itself when it is square and already orthogonal; a wide or tall
# weight is completed with normal draws first, as PyTorch's), and the original -I, so
# the weight is unchanged at first; after that, weight = base @ map(original), map one of
# matrix_exp (exp of the skew-symmetric X - X^T of X's lower triangle, PyTorch's default
# for a square weight), cayley ((I - A/2)^-1 (I + A/2)) and householder (the product of
# the reflectors below the diagonal, PyTorch's default for a rectangular weight). The
# maps are ops (linalg.matrix_exp, linalg.solve, linalg.householder_product), so
# gradients reach the original to any order. use_trivialization=false (no base) is not
# supported.
let __name__ = "nn.utils.parametrizations"  # the name messages show (Module::shown_name)
import _nn_parametrize

# linalg, imported at the first use: `import nn` does not load it for every program
fn _linalg() {
  import linalg
  return linalg
}

let _maps = ["matrix_exp", "cayley", "householder"]

fn _mT(x) = x.transpose(-2, -1)

# PyTorch's _is_orthogonal: Q^T Q within 10 n eps of I
fn _is_orthogonal(Q) {
  let eps = 10.0 * Q.shape[-2] * finfo(Q.dtype).eps
  return allclose(_mT(Q) @ Q, eye(Q.shape[-1], dtype=Q.dtype, device=Q.device), atol=eps)
}

# PyTorch's _make_orthogonal: the Q of A's QR, its columns signed so that R's diagonal is positive
fn _make_orthogonal(A) {
  let (Q, R) = _linalg().qr(A)
  return Q * R.diagonal(dim1=-2, dim2=-1).sign().unsqueeze(-2)
}

model _Orthogonal(shape, orthogonal_map) {
  "The orthogonal parametrization (PyTorch's _Orthogonal): map(original), then base @ it (Note [Orthogonal parametrization])."
  shape = list(shape)
  orthogonal_map = orthogonal_map
  forward(X) {
    let n = X.shape[-2]
    let k = X.shape[-1]
    let transposed = n < k
    if transposed {
      X = _mT(X)
      let m = n
      n = k
      k = m
    }
    let Q = none
    if self.orthogonal_map == "householder" {
      let A = X.tril(-1)
      let tau = 2.0 / (1.0 + (A * A).sum(-2))
      # X's diagonal (+-1, truncated as PyTorch's .int()) signs the columns without a gradient
      Q = _linalg().householder_product(A, tau) * X.diagonal(dim1=-2, dim2=-1).detach().int().unsqueeze(-2)
    } else {
      X = X.tril()
      if n != k { X = cat([X, zeros(list(X.shape)[:-2] + [n, n - k], dtype=X.dtype, device=X.device)], dim=-1) }
      let A = X - _mT(X)
      if self.orthogonal_map == "matrix_exp" {
        Q = _linalg().matrix_exp(A)
      } else {
        let Id = eye(n, dtype=A.dtype, device=A.device)
        Q = _linalg().solve(Id - 0.5 * A, Id + 0.5 * A)
      }
      if n != k { Q = Q.narrow(-1, 0, k) }
    }
    if hasattr(self, "base") { Q = self.base @ Q }
    return _mT(Q) if transposed else Q
  }
  right_inverse(Q) {
    if list(Q.shape) != self.shape {
      fail(f"nn.utils.parametrizations.orthogonal(): expected a matrix or batch of matrices of shape {self.shape}, got a tensor of shape {list(Q.shape)}")
    }
    let Q_init = Q
    let n = Q.shape[-2]
    let k = Q.shape[-1]
    if n < k {
      Q = _mT(Q)
      let m = n
      n = k
      k = m
    }
    let base = none
    no_grad {
      if n == k {
        base = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
      } else {
        let N = randn(list(Q.shape)[:-2] + [n, n - k], dtype=Q.dtype, device=Q.device)
        base = _make_orthogonal(cat([Q, N], dim=-1))
      }
    }
    if hasattr(self, "base") { self.base = base } else { self.register_buffer("base", base) }
    # -I: every map gives I (householder's signs included), so the weight starts as base
    return zeros_like(Q_init) - eye(Q_init.shape[-2], Q_init.shape[-1], dtype=Q_init.dtype, device=Q_init.device)
  }
}

fn orthogonal(module, name="weight", orthogonal_map=none, use_trivialization=true) {
  "Keeps module.<name> (a matrix or a batch of them) orthogonal through an unconstrained original, as torch.nn.utils.parametrizations.orthogonal: orthogonal_map \"matrix_exp\" (default for a square one), \"cayley\" or \"householder\" (default otherwise) (Note [Orthogonal parametrization]); returns the module. Example: nn.utils.parametrizations.orthogonal(nn.Linear(3, 3)).weight"
  let who = "nn.utils.parametrizations.orthogonal()"
  if type(name) != "str" { fail(f"{who}: name must be a str, got {type(name)}") }
  let weight = getattr(module, name, none) if type(module) != "tensor" and getattr(module, "named_children", none) != none else none
  if type(module) == "tensor" or getattr(module, "named_children", none) == none { fail(f"{who}: module must be a model, got {type(module)}") }
  if type(weight) != "tensor" { fail(f"{who}: the module has no parameter or buffer '{name}'") }
  if weight.dim() < 2 { fail(f"{who}: expected a matrix or batch of matrices, got a tensor of {weight.dim()} dims (shape {list(weight.shape)})") }
  if not weight.dtype.is_floating_point { fail(f"{who}: the weight must be floating, got {weight.dtype}") }
  let map = orthogonal_map
  if map == none { map = "matrix_exp" if weight.shape[-2] == weight.shape[-1] else "householder" }
  if not (map in _maps) { fail(f"{who}: orthogonal_map must be \"matrix_exp\", \"cayley\" or \"householder\", got {repr(orthogonal_map)}") }
  if use_trivialization != true {
    if use_trivialization == false { fail(f"{who}: use_trivialization=false is not supported (nabla's orthogonal keeps a base, as PyTorch's default)") }
    fail(f"{who}: use_trivialization must be true or false, got {type(use_trivialization)}")
  }
  return _nn_parametrize.register_parametrization(module, name, _Orthogonal(weight.shape, map), unsafe=true)
}

# ---- parametrizations.spectral_norm --------------------------------------------------
# Note [Spectral norm as a parametrization]
# PyTorch 1.13's torch.nn.utils.parametrizations.spectral_norm, the parametrize form of
# nn.utils.spectral_norm (Note [Spectral normalization] in stdlib/_nn_spectral.dsl): the
# buffers _u and _v (parametrizations.weight.0._u, ._v) start as normalized draws moved by
# 15 power iterations, and each evaluation of the weight in training runs
# n_power_iterations more, u first (u = normalize(W v), then v = normalize(W^T u): the
# other order than the old form's), in place without gradient; the weight is
# original / (u . W v) with u and v constants. A 1-D weight is normalized exactly. As
# PyTorch's, registering evaluates the weight once (one more iteration in training).
fn _unit(x, eps) = x / x.norm().clamp(min=eps)

model _SpectralNorm(weight, n_power_iterations=1, dim=0, eps=1e-12) {
  "The spectral-norm parametrization (PyTorch's _SpectralNorm): original / sigma (Note [Spectral norm as a parametrization])."
  n_power_iterations = n_power_iterations
  dim = dim if dim >= 0 else dim + weight.dim()
  eps = eps
  let _ready = weight.dim() <= 1 or self._start(weight)
  _matrix(w) {
    let m = w if self.dim == 0 else w.permute([self.dim] + [d for d in range(w.dim()) if d != self.dim])
    return m.reshape([m.shape[0], -1])
  }
  _start(w) {
    let mat = self._matrix(w.detach())
    self.register_buffer("_u", _unit(randn([mat.shape[0]], dtype=w.dtype, device=w.device), self.eps))
    self.register_buffer("_v", _unit(randn([mat.shape[1]], dtype=w.dtype, device=w.device), self.eps))
    self._power(mat, 15)
    return true
  }
  _power(mat, n) {
    no_grad {
      for _ in range(n) {
        self._u.copy_(_unit(mat @ self._v, self.eps))
        self._v.copy_(_unit(mat.t() @ self._u, self.eps))
      }
    }
    return none
  }
  forward(weight) {
    if weight.dim() == 1 { return weight / weight.norm().clamp(min=self.eps) }
    let mat = self._matrix(weight)
    if self.training { self._power(mat.detach(), self.n_power_iterations) }
    return weight / (self._u.clone() * (mat @ self._v.clone())).sum()
  }
  right_inverse(value) = value
}

fn spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=none) {
  "Keeps module.<name> divided by its largest singular value (estimated by power iteration in training), as torch.nn.utils.parametrizations.spectral_norm (Note [Spectral norm as a parametrization]); returns the module. Example: nn.utils.parametrizations.spectral_norm(nn.Linear(4, 3)).weight"
  let who = "nn.utils.parametrizations.spectral_norm()"
  if type(module) == "tensor" or getattr(module, "named_children", none) == none { fail(f"{who}: module must be a model, got {type(module)}") }
  if type(name) != "str" { fail(f"{who}: name must be a str, got {type(name)}") }
  let weight = getattr(module, name, none)
  if type(weight) != "tensor" { fail(f"{who}: the module has no parameter or buffer '{name}'") }
  if type(n_power_iterations) != "int" or n_power_iterations <= 0 { fail(f"{who}: n_power_iterations must be an int > 0, got {repr(n_power_iterations)}") }
  let d = dim
  if d == none { d = 1 if type(module) in ["ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"] else 0 }
  if type(d) != "int" or (weight.dim() > 0 and (d < -weight.dim() or d >= weight.dim())) {
    fail(f"{who}: dim must be an int in [{-weight.dim()}, {weight.dim() - 1}] for a weight of shape {list(weight.shape)}, got {repr(dim)}")
  }
  # unsafe: registering evaluates the weight once, as PyTorch's (a check would be a second power iteration)
  return _nn_parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, d, eps), unsafe=true)
}
