# linalg (stdlib/linalg.dsl over the rows inverse, det, linalg_solve and cholesky):
# values, gradients and grad of grad against PyTorch 1.13's torch.linalg (f64), on
# inputs sin(arange(n) * 0.37 + k) built the same way on both sides.
import linalg

fn src(shape, k) {
  let n = 1
  for s in shape { n = n * s }
  return sin(arange(n, dtype=f64) * 0.37 + k).reshape(shape)
}

test "solve, det and inv: values, gradients and grad of grad equal PyTorch's" {
  let A = (src([3, 3], 1) + eye(3, dtype=f64) * 3.0).requires_grad_()
  let B = src([3], 2).requires_grad_()
  let x = linalg.solve(A, B)
  expect_close(x, tensor([0.14818239076310766, 0.14148447978565487, 0.20433536677547776], dtype=f64), rtol=1e-12, atol=0)
  let l = (x * tensor([1.0, -2.0, 0.5], dtype=f64)).sum() + linalg.det(A) + linalg.inv(A)[0, 1]
  expect_close(l, tensor(29.856272923355746, dtype=f64), rtol=1e-12, atol=0)
  let (gA, gB) = grad(l, [A, B], create_graph=true)
  expect_close(gA.flatten(), tensor([8.293194406363053, -2.1096310343369367, -0.18697386150893996, -2.563346182175451,
                                     8.914887557667434, 1.7259191533467095, -3.309312530574664, -0.24409113206126434,
                                     13.023823805457344], dtype=f64), rtol=1e-10, atol=1e-12)
  expect_close(gB, tensor([0.40782059964578254, -0.6488765881683451, 0.12535175368314383], dtype=f64), rtol=1e-10, atol=1e-12)
  let ggA = grad((gA * gA).sum() + gB.sum(), A)
  expect_close(ggA.flatten(), tensor([136.0873334265113, -11.20614074699526, 28.842596010287043, -16.524679994766544,
                                      142.7148312457077, 0.8028074614320233, -13.823785857991679, -24.233820918110336,
                                      136.9390185464199], dtype=f64), rtol=1e-9, atol=1e-10)
}

test "batched cholesky and its gradient equal PyTorch's (the gradient's symmetric part)" {
  let S = src([2, 3, 3], 3)
  let P = (S @ S.transpose(1, 2) + eye(3, dtype=f64) * 3.0).requires_grad_()
  let L = linalg.cholesky(P)
  expect_close(L.flatten(), tensor([1.840793702577596, 0.0, 0.0, 0.35966070436079994, 2.3404566579472266, 0.0,
                                    0.10879262739952336, 0.6910439576622515, 1.9451245597105717, 1.9150744112497402,
                                    0.0, 0.0, 0.5838473033194012, 2.322240863031121, 0.0, 0.17067320779701353,
                                    0.5224982270694503, 1.8811453438136176], dtype=f64), rtol=1e-12, atol=1e-14)
  let gP = grad((L * src([2, 3, 3], 4)).sum(), P)
  expect_close(gP.flatten(), tensor([-0.16072539167168626, -0.22042110385009142, -0.029985022254476017,
                                     -0.22042110385009142, -0.1587401459365288, 0.016986755907858864,
                                     -0.029985022254476017, 0.016986755907858864, 0.1609956100741562,
                                     0.17068404410239274, 0.1808294788216001, 0.002739192232752198, 0.1808294788216001,
                                     0.1369644615421652, -0.05679616060012215, 0.002739192232752198,
                                     -0.05679616060012215, -0.20233398522987897], dtype=f64), rtol=1e-10, atol=1e-12)
}

test "slogdet, a batch of right-hand sides, and f32" {
  let (s, logabs) = linalg.slogdet(src([3, 3], 5) - eye(3, dtype=f64) * 2.0)
  expect(s.item() == -1.0)
  expect_close(logabs, tensor(1.5488695206098804, dtype=f64), rtol=1e-12, atol=0)
  let A = src([2, 3, 3], 6) + eye(3, dtype=f64) * 4.0
  let X = linalg.solve(A, src([3, 2], 7))
  expect_close(A @ X, src([3, 2], 7).expand([2, 3, 2]), rtol=0, atol=1e-12)
  let A32 = A.float()
  expect_close(linalg.inv(A32) @ A32, eye(3).expand([2, 3, 3]), rtol=0, atol=1e-5)
}

test "a singular matrix, one that is not positive-definite, and a matrix that is not square are clear errors" {
  expect_error(fn() = linalg.inv(ones([3, 3], dtype=f64)), "the input matrix is singular")
  expect_error(fn() = linalg.cholesky(-eye(2, dtype=f64)), "not positive-definite (the leading minor of order 1")
  expect_error(fn() = linalg.inv(ones([2, 3])), "must be a batch of square matrices [..., n, n], got shape [2, 3]")
  expect_error(fn() = linalg.solve(eye(3), ones([4, 2])), "argument 'B' must be [..., 3, k]")
  expect(linalg.det(ones([3, 3], dtype=f64)).item() == 0.0)
}
