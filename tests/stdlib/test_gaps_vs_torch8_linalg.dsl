# Round 8 against PyTorch 1.13, torch.linalg's functions and options nabla lacked
# (stdlib/linalg.dsl, stdlib/_linalg_lu.dsl): lu_factor, lu_factor_ex, lu, lu_solve,
# solve_triangular, householder_product, tensorinv, tensorsolve, cond, pinv's atol and
# hermitian, matrix_rank's atol, tol and hermitian, eigh's UPLO, cholesky's upper,
# cholesky_ex, inv_ex and solve_ex; and the fft module's real functions (stdlib/fft.dsl).
# Each check loads tests/stdlib/reference/vs_torch8.safetensors (written by
# tests/stdlib/reference/make_vs_torch8.py, each case's torch call under the same name).
import "vs_torch5_check.inc" as v5
import linalg
import fft

let ref = load("tests/stdlib/reference/vs_torch8.safetensors")
fn check(name, n, f, rtol=1e-10, atol=1e-12) = v5.check_in(ref, name, n, f, rtol, atol)

# Note [LU by ops]: LAPACK's pivots, the factors and their gradients.
test "lu_factor, lu_factor_ex and lu: square, batched, wide and tall, with gradients" {
  check("lu_factor", 1, fn(xs) = list(linalg.lu_factor(xs[0])))
  check("lu_factor_batch", 1, fn(xs) = list(linalg.lu_factor(xs[0])))
  check("lu_factor_ex", 1, fn(xs) = list(linalg.lu_factor_ex(xs[0])))
  check("lu_factor_wide", 1, fn(xs) = list(linalg.lu_factor(xs[0])))
  for name in ["lu", "lu_batch", "lu_wide", "lu_tall"] {
    check(name, 1, fn(xs) = [linalg.lu(xs[0]).U, linalg.lu(xs[0]).L, linalg.lu(xs[0]).P])
    check(name + "_L", 1, fn(xs) = linalg.lu(xs[0]).L)
  }
  let s = linalg.lu_factor_ex(ref["lu_factor_ex_singular.x0"])
  expect_close(s.LU, ref["lu_factor_ex_singular.y0"])
  expect(bool((s.pivots == ref["lu_factor_ex_singular.y1"]).all()) and s.info.item() == 2 and s.info.dtype == i32,
         "a singular matrix: its zero pivot in info, as PyTorch's")
  expect_error(fn() = linalg.lu_factor(ref["lu_factor_ex_singular.x0"]), "U[2,2] is zero")
  expect_error(fn() = linalg.lu_factor_ex(ref["lu_factor_ex_singular.x0"], check_errors=true), "U[2,2] is zero")
  let a = randn(3, 3, dtype=f64, requires_grad=true)
  expect(gradgradcheck(fn(m) = linalg.lu_factor(m).LU, a), "lu_factor: second derivatives")
}

test "lu_solve: left, right, adjoint, a batch" {
  for left in [1, 0] {
    for adjoint in [0, 1] {
      check(f"lu_solve_{left}{adjoint}", 2, fn(xs) = linalg.lu_solve(*linalg.lu_factor(xs[0]), xs[1], left=left == 1, adjoint=adjoint == 1))
    }
  }
  check("lu_solve_batch", 2, fn(xs) = linalg.lu_solve(*linalg.lu_factor(xs[0]), xs[1]))
}

test "solve_triangular: upper and lower, left and right, unitriangular, a batch" {
  for upper in [1, 0] {
    for left in [1, 0] {
      for unit in [0, 1] {
        check(f"solve_triangular_{upper}{left}{unit}", 2,
              fn(xs) = linalg.solve_triangular(xs[0], xs[1], upper=upper == 1, left=left == 1, unitriangular=unit == 1))
      }
    }
  }
  check("solve_triangular_batch", 2, fn(xs) = linalg.solve_triangular(xs[0], xs[1], upper=false))
  expect_error(fn() = linalg.solve_triangular(eye(2), ones([2, 1])), "upper must be given")
}

test "householder_product, tensorinv and tensorsolve" {
  check("householder_product", 2, fn(xs) = linalg.householder_product(xs[0], xs[1]))
  check("householder_product_k", 2, fn(xs) = linalg.householder_product(xs[0], xs[1]))
  check("householder_product_geqrf", 2, fn(xs) = linalg.householder_product(xs[0], xs[1]))
  check("tensorinv", 1, fn(xs) = linalg.tensorinv(xs[0], ind=1))
  check("tensorinv_2", 1, fn(xs) = linalg.tensorinv(xs[0]))
  check("tensorsolve", 2, fn(xs) = linalg.tensorsolve(xs[0], xs[1]))
  check("tensorsolve_dims", 2, fn(xs) = linalg.tensorsolve(xs[0], xs[1], dims=[0]))
}

test "cond for each p, of a batch of rectangular matrices, of a singular one" {
  let inf = float("inf")
  for (tag, p) in [("none", none), ("2", 2), ("-2", -2), ("fro", "fro"), ("nuc", "nuc"), ("inf", inf), ("ninf", -inf), ("1", 1), ("-1", -1)] {
    check(f"cond_{tag}", 1, fn(xs) = linalg.cond(xs[0], p), rtol=1e-9)
  }
  check("cond_rect", 1, fn(xs) = linalg.cond(xs[0]), rtol=1e-9)
  expect(linalg.cond(tensor([[1.0, 2.0], [2.0, 4.0]], dtype=f64), "fro").item() == inf, "a singular matrix's cond is inf")
}

test "pinv and matrix_rank: atol, rtol, tol, hermitian" {
  check("pinv_atol", 1, fn(xs) = linalg.pinv(xs[0], atol=0.5))
  check("pinv_rtol_atol", 1, fn(xs) = linalg.pinv(xs[0], atol=0.1, rtol=0.3))
  check("pinv_hermitian", 1, fn(xs) = linalg.pinv(xs[0], hermitian=true), rtol=1e-9)
  check("pinv_hermitian_low", 1, fn(xs) = linalg.pinv(xs[0], hermitian=true), rtol=1e-8)
  check("matrix_rank_atol", 1, fn(xs) = linalg.matrix_rank(xs[0], atol=1.0))
  check("matrix_rank_tol", 1, fn(xs) = linalg.matrix_rank(xs[0], tol=1.0))
  check("matrix_rank_hermitian", 1, fn(xs) = linalg.matrix_rank(xs[0], hermitian=true))
  check("matrix_rank_rtol", 1, fn(xs) = linalg.matrix_rank(xs[0], rtol=0.2))
}

# Note [eigh reads one triangle]
test "eigh and eigvalsh read the UPLO triangle; cholesky(upper=true); the gradient of a symmetric input is unchanged" {
  check("eigvalsh_L", 1, fn(xs) = linalg.eigvalsh(xs[0]))
  check("eigvalsh_U", 1, fn(xs) = linalg.eigvalsh(xs[0], UPLO="U"))
  let g = ref["eigvalsh_U.x0"]
  let (w, v) = linalg.eigh(g, UPLO="U")
  let full = g.triu() + g.triu(1).T
  expect_close(v @ diag_embed(w) @ v.T, full, rtol=1e-10, atol=1e-12)
  check("cholesky_upper", 1, fn(xs) = linalg.cholesky(xs[0], upper=true))
  let s = randn(3, 3, dtype=f64)
  let sym = (s + s.T).requires_grad_(true)
  let a = linalg.eigvalsh(sym, UPLO="U")
  let b = linalg.eigvalsh(sym)
  let (ga,) = grad((a * tensor([1.0, 2.0, 3.0], dtype=f64)).sum(), [sym])
  let (gb,) = grad((b * tensor([1.0, 2.0, 3.0], dtype=f64)).sum(), [sym])
  expect_close(ga, gb)
  expect_error(fn() = linalg.eigh(eye(2), UPLO="X"), "UPLO must be")
}

test "cholesky_ex, inv_ex and solve_ex: results and info" {
  check("cholesky_ex", 1, fn(xs) = list(linalg.cholesky_ex(xs[0])))
  check("inv_ex", 1, fn(xs) = list(linalg.inv_ex(xs[0])))
  check("solve_ex", 2, fn(xs) = list(linalg.solve_ex(xs[0], xs[1])))
  check("solve_ex_right", 2, fn(xs) = list(linalg.solve_ex(xs[0], xs[1], left=false)))
  let bad = linalg.cholesky_ex(ref["cholesky_ex_bad.x0"])
  expect(bool((bad.info == ref["cholesky_ex_bad.y1"]).all()), f"cholesky_ex info {bad.info}, PyTorch's {ref["cholesky_ex_bad.y1"]}")
  expect(bool(isfinite(bad.L[0]).all()) and bool(bad.L[1].isnan().all()), "a failed matrix's L is NaN, the others' computed")
  let sing = linalg.inv_ex(ref["inv_ex_singular.x0"])
  expect(bool((sing.info == ref["inv_ex_singular.y1"]).all()), f"inv_ex info {sing.info}")
  expect_error(fn() = linalg.inv_ex(ref["inv_ex_singular.x0"], check_errors=true), "singular: U[2,2]")
  expect_error(fn() = linalg.cholesky_ex(ref["cholesky_ex_bad.x0"], check_errors=true), "leading minor of order")
}

test "eig and eigvals say that nabla has no complex dtype" {
  expect_error(fn() = linalg.eig(eye(2)), "complex")
  expect_error(fn() = linalg.eigvals(eye(2)), "use linalg.eigvalsh(A)")
}

test "fft: fftfreq, rfftfreq, fftshift and ifftshift; the transforms' errors" {
  for n in [1, 5, 6] {
    expect_close(fft.fftfreq(n, d=0.25, dtype=f64), ref[f"fftfreq_{n}.y0"])
    expect_close(fft.rfftfreq(n, d=0.25, dtype=f64), ref[f"rfftfreq_{n}.y0"])
  }
  expect(fft.fftfreq(4).dtype == f32 and list(fft.fftfreq(0).shape) == [0], "f32 by default; n = 0 is empty")
  check("fftshift", 1, fn(xs) = fft.fftshift(xs[0]))
  check("fftshift_dim", 1, fn(xs) = fft.fftshift(xs[0], dim=[0, -2]))
  check("ifftshift", 1, fn(xs) = fft.ifftshift(xs[0]))
  check("ifftshift_dim", 1, fn(xs) = fft.ifftshift(xs[0], dim=1))
  expect_error(fn() = fft.rfft(ones(4)), "nabla has no complex dtype")
  expect_error(fn() = fft.fftn(ones(4)), "nabla has no complex dtype")
}
