"""Reference cases of matmul, linear and the square-matrix rows (linalg.cpp)."""
import torch
from lib import case, randn


def well_conditioned(*shape):
    """A random square matrix (batch) far from singular: randn plus 3 on the diagonal."""
    return randn(*shape) + 3.0 * torch.eye(shape[-1], dtype=torch.float64)


def eigh_fixed_signs(a):
    """torch.linalg.eigh of a's symmetric part, each eigenvector's largest component
    (the first of equals) positive, as nabla's row fixes them."""
    values, vectors = torch.linalg.eigh((a + a.mT) / 2)
    top = vectors.abs().argmax(dim=-2, keepdim=True)
    signs = torch.where(vectors.gather(-2, top) < 0, -1.0, 1.0).to(vectors.dtype)
    return values, vectors * signs


def svd_fixed_signs(a):
    """torch.linalg.svd(a, full_matrices=False), each pair of singular vectors flipped so
    that U's column has its largest component (the first of equals) positive, as
    nabla's row signs them."""
    u, s, vh = torch.linalg.svd(a, full_matrices=False)
    top = u.abs().argmax(dim=-2, keepdim=True)
    signs = torch.where(u.gather(-2, top) < 0, -1.0, 1.0).to(u.dtype)
    return u * signs, s, vh * signs.mT


def qr_fixed_signs(a):
    """torch.linalg.qr(a), each row of R and column of Q flipped so that R's diagonal is
    not negative, as nabla's row signs them."""
    q, r = torch.linalg.qr(a)
    signs = torch.where(r.diagonal(dim1=-2, dim2=-1) < 0, -1.0, 1.0).to(r.dtype)
    return q * signs.unsqueeze(-2), r * signs.unsqueeze(-1)


def positive_definite(*shape):
    """A random symmetric positive-definite matrix (batch): X X^T + n I."""
    x = randn(*shape)
    return x @ x.mT + shape[-1] * torch.eye(shape[-1], dtype=torch.float64)

CASES = [
    case("matmul", [randn(3, 4), randn(4, 5)], {}, torch.matmul),
    case("matmul", [randn(2, 3, 4), randn(4, 2)], {}, torch.matmul, name="matmul_batched_broadcast"),
    case("matmul", [randn(2, 1, 3, 4), randn(3, 4, 2)], {}, torch.matmul, name="matmul_batch_broadcast_both"),
    case("matmul", [randn(3, 0), randn(0, 2)], {}, torch.matmul, name="matmul_empty_k"),
    case("linear", [randn(4, 3), randn(5, 3), randn(5)], {}, torch.nn.functional.linear),
    case("linear", [randn(2, 4, 3), randn(5, 3), None], {}, lambda x, w, b: torch.nn.functional.linear(x, w),
         name="linear_no_bias_3d"),
    case("inverse", [well_conditioned(3, 3)], {}, torch.linalg.inv),
    case("inverse", [well_conditioned(2, 4, 4)], {}, torch.linalg.inv, name="inverse_batched"),
    case("det", [randn(3, 3)], {}, torch.linalg.det),
    case("det", [randn(2, 4, 4)], {}, torch.linalg.det, name="det_batched"),
    case("linalg_solve", [well_conditioned(3, 3), randn(3, 2)], {}, torch.linalg.solve),
    case("linalg_solve", [well_conditioned(2, 3, 3), randn(3, 1)], {}, torch.linalg.solve,
         name="linalg_solve_batch_broadcast"),
    case("cholesky", [positive_definite(3, 3)], {}, lambda a: torch.linalg.cholesky((a + a.mT) / 2)),
    case("cholesky", [positive_definite(2, 4, 4)], {}, lambda a: torch.linalg.cholesky((a + a.mT) / 2),
         name="cholesky_batched"),
    case("eigh", [positive_definite(4, 4)], {}, eigh_fixed_signs),
    case("eigh", [randn(2, 3, 3)], {}, eigh_fixed_signs, name="eigh_batched_indefinite"),
    case("svd", [randn(4, 3)], {}, svd_fixed_signs, name="svd_tall"),
    case("svd", [randn(2, 3, 5)], {}, svd_fixed_signs, name="svd_wide_batched"),
    case("qr", [randn(5, 3)], {}, qr_fixed_signs, name="qr_tall"),
    case("qr", [randn(2, 3, 3)], {}, qr_fixed_signs, name="qr_square_batched"),
    case("qr", [randn(3, 5)], {}, qr_fixed_signs, name="qr_wide"),
]
