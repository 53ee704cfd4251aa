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

test "vector_norm, matrix_norm, norm, matrix_power and multi_dot equal PyTorch's torch.linalg" {
  let inf = float("inf")
  let x = src([2, 3, 4], 1)
  expect_close(linalg.vector_norm(x), tensor(3.5120398263480683, dtype=f64), rtol=1e-12, atol=0)
  expect_close(linalg.vector_norm(x, 1, dim=1).flatten(),
               tensor([2.185903603452908, 2.1951619383860344, 2.063969469870519, 2.2283844408116056,
                       2.196001815638422, 1.9098404541348764, 1.3651911466307616, 1.3333278231859833], dtype=f64),
               rtol=1e-12, atol=0)
  expect_close(linalg.vector_norm(x, inf, dim=[0, 2], keepdim=true).flatten(),
               tensor([0.9857191788355535, 0.9845487225086708, 0.9999232575641008], dtype=f64), rtol=1e-12, atol=0)
  expect_close(linalg.vector_norm(x, 0.5), tensor(340.16896669113606, dtype=f64), rtol=1e-12, atol=0)
  expect_close(linalg.vector_norm(x, -inf), tensor(0.07832703347086485, dtype=f64), rtol=1e-12, atol=0)
  expect_close(linalg.matrix_norm(x), tensor([2.702139676998414, 2.2434047579172764], dtype=f64), rtol=1e-12, atol=0)
  expect_close(linalg.matrix_norm(x, 1), tensor([2.2283844408116056, 2.196001815638422], dtype=f64), rtol=1e-12, atol=0)
  expect_close(linalg.matrix_norm(x, -1), tensor([2.063969469870519, 1.3333278231859833], dtype=f64), rtol=1e-12, atol=0)
  expect_close(linalg.matrix_norm(x, inf), tensor([3.665216054676873, 3.405564114912579], dtype=f64), rtol=1e-12, atol=0)
  expect_close(linalg.matrix_norm(x, -inf), tensor([1.4137101863718387, 1.5691517958904948], dtype=f64), rtol=1e-12, atol=0)
  expect_close(linalg.matrix_norm(x, "fro", dim=[0, 2]),
               tensor([2.054694808986144, 1.9115974075924171, 2.1115038089158906], dtype=f64), rtol=1e-12, atol=0)
  expect_close(linalg.norm(x), tensor(3.5120398263480683, dtype=f64), rtol=1e-12, atol=0)
  expect_close(linalg.norm(x[0]), tensor(2.702139676998414, dtype=f64), rtol=1e-12, atol=0)
  expect_close(linalg.norm(x[0], 1), tensor(2.2283844408116056, dtype=f64), rtol=1e-12, atol=0)
  expect_close(linalg.norm(x[0, 0], 3), tensor(1.462228066006323, dtype=f64), rtol=1e-12, atol=0)
  expect_close(linalg.norm(x, dim=2).flatten(),
               tensor([1.8374715606313352, 0.8088161019091026, 1.8086109618081785, 0.9194938944580607,
                       1.7320569165032118, 1.0896672537493308], dtype=f64), rtol=1e-12, atol=0)
  let A = src([3, 3], 2) + eye(3, dtype=f64) * 2.0
  expect_close(linalg.matrix_power(A, 3).flatten(),
               tensor([22.817569202990605, 9.275341214541399, 2.4777393052966645, 3.7338933916319053,
                       7.985669153490594, -3.7606154718047113, -11.496931805240848, -9.288085966431531,
                       2.177858735553311], dtype=f64), rtol=1e-12, atol=1e-14)
  expect_close(linalg.matrix_power(A, -2).flatten(),
               tensor([-0.06288458424818948, -0.4485665324201214, -0.5235371047497203, 0.31091300715649495,
                       0.90356792648548, 0.9077654929903995, 0.589386682922054, 1.0297995433896534,
                       1.5808338666675092], dtype=f64), rtol=1e-10, atol=1e-12)
  expect_close(linalg.matrix_power(A, 0), eye(3, dtype=f64))
  expect_close(linalg.multi_dot([src([2, 3], 3), src([3, 4], 4), src([4, 2], 5)]).flatten(),
               tensor([-0.18069465582753305, -0.7643684654734054, -1.2660975922256086, -1.147742606015291], dtype=f64),
               rtol=1e-12, atol=0)
  expect_error(fn() = linalg.matrix_norm(x, 3), "unknown ord 3")
}

test "eigh: eigenvalues, eigenvectors (largest component positive) and the gradient equal PyTorch's" {
  let S = src([4, 4], 8)
  let A = ((S + S.T) / 2.0).requires_grad_()
  let (L, V) = linalg.eigh(A)
  # torch.linalg.eigh, each eigenvector's sign fixed the same way
  expect_close(L, tensor([-1.4553784978288689, -0.03956412453168659, 0.940253889100154, 1.2020538839016965], dtype=f64),
               rtol=1e-12, atol=1e-14)
  expect_close(V.flatten(), tensor([-0.054417221477694094, -0.38322755483251214, 0.29301889832968064, 0.874251298223458,
                                    0.648259686380269, 0.6263417346305146, -0.20239433469384502, 0.38274265996623524,
                                    0.7550594864190174, -0.5997911871861221, 0.09422686644209075, -0.24750151794083175,
                                    0.08175155649559551, 0.31793584958446275, 0.9296761565975542, -0.16713982892641954],
                                   dtype=f64), rtol=1e-10, atol=1e-12)
  let loss = (L * tensor([1.0, 2.0, 3.0, 4.0], dtype=f64)).sum() + (V * src([4, 4], 9)).sum()
  let g = grad(loss, A)
  expect_close(g.flatten(), tensor([5.409826441580982, 0.2737918907490093, -0.2340142839380317, 2.715527636294534,
                                    0.2737918907490093, 1.4926013273596925, -0.5555041613114988, 0.33802805939987857,
                                    -0.2340142839380317, -0.5555041613114988, 1.6695410025724742, -0.5865811389615878,
                                    2.715527636294534, 0.33802805939987857, -0.5865811389615878, 1.4280312284868482],
                                   dtype=f64), rtol=1e-9, atol=1e-11)
  expect_close(linalg.eigvalsh(A), L)
  expect_close(V @ diag_embed(L) @ V.T, A, rtol=0, atol=1e-12)
}

test "svd, svdvals, the 2 and nuclear norms, pinv and matrix_rank equal PyTorch's, with gradients" {
  let A = (src([4, 3], 10) + tensor([[2.0, 0, 0], [0, 1.0, 0], [0, 0, 3.0], [0.5, 0, 0]], dtype=f64)).requires_grad_()
  expect_close(linalg.svdvals(A), tensor([3.7546379601460966, 2.1421324782050695, 1.1218929474570092], dtype=f64),
               rtol=1e-12, atol=0)
  let (u, s, vh) = linalg.svd(A, full_matrices=false)
  expect_close(u @ diag_embed(s) @ vh, A, rtol=0, atol=1e-12)
  # torch.autograd.grad(matrix_norm(A, 2) + matrix_norm(A, "nuc") * 0.5, A)
  let g = grad(linalg.matrix_norm(A, 2) + linalg.matrix_norm(A, "nuc") * 0.5, A)
  expect_close(g.flatten(), tensor([0.3501564611602239, -0.3460654995313726, -0.4017908933721498, -0.22338888442642876,
                                    0.04876316363954131, -0.2490194712577367, -0.12637494561943505,
                                    -0.010681508148794427, 1.355205385509663, 0.271441065729128, 0.4045668987059168,
                                    0.376671047151788], dtype=f64), rtol=1e-10, atol=1e-12)
  expect_close(linalg.matrix_norm(src([2, 3, 4], 1) + eye(3, 4, dtype=f64) * 1.5, -2),
               tensor([1.0402992279398422, 0.8561506658899153], dtype=f64), rtol=1e-10, atol=0)
  expect_close(linalg.matrix_norm(src([2, 3, 4], 1), "nuc", dim=[0, 2]),
               tensor([2.648732023510436, 2.5393336179023684, 2.6930389728634445], dtype=f64), rtol=1e-10, atol=0)
  let B = tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], dtype=f64)
  expect_close(linalg.pinv(B).flatten(), tensor([-0.03333333333333385, -0.06666666666666661, 0.8333333333333338,
                                                 0.0666666666666671, 0.13333333333333325, -0.6666666666666669,
                                                 0.033333333333333236, 0.06666666666666664, 0.16666666666666682],
                                                dtype=f64), rtol=1e-10, atol=1e-12)
  expect(linalg.matrix_rank(B).item() == 2)
  # equal singular values (the identity): the norms' gradient is finite, as PyTorch's
  let I = eye(3, dtype=f64).requires_grad_()
  expect_close(grad(linalg.matrix_norm(I, 2) + linalg.matrix_norm(I, "nuc"), I), eye(3, dtype=f64) * (4.0 / 3.0),
               rtol=1e-12, atol=1e-12)
}

test "svd with full_matrices=true (the default) completes U or Vh to square orthonormal factors; their gradient is PyTorch's" {
  for shape in [[4, 2], [2, 5], [3, 3], [2, 4, 3], [3, 0]] {
    let A = randn(shape, dtype=f64)
    let (U, S, Vh) = linalg.svd(A)
    let m = shape[-2]
    let n = shape[-1]
    expect(U.shape == tuple(shape[:-2] + [m, m]) and Vh.shape == tuple(shape[:-2] + [n, n]), f"{U.shape} {Vh.shape}")
    expect_close(U.transpose(-2, -1) @ U, eye(m, dtype=f64).expand(list(U.shape)), rtol=0, atol=1e-12)
    expect_close(Vh @ Vh.transpose(-2, -1), eye(n, dtype=f64).expand(list(Vh.shape)), rtol=0, atol=1e-12)
    let k = min(m, n)
    expect_close(U[..., :k] @ (S.unsqueeze(-1) * Vh[..., :k, :]), A, rtol=0, atol=1e-12)
  }
  # torch 1.13: the gradient of (U[:, :2] @ Vh).sum() + S.sum() (+ 0 * U.sum(): the completed columns are ignored)
  let A = tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.25], [-2.0, 1.5]], dtype=f64, requires_grad=true)
  let (U, S, Vh) = linalg.svd(A)
  expect_close(grad((U[:, :2] @ Vh).sum() + S.sum() + U.sum() * 0.0, A),
               tensor([[0.31339940235547703, 0.6366669568727246], [0.9580679846505176, 0.017730563725776468],
                       [0.4039653769642104, 0.443442807658667], [-0.15013723072209667, 0.8691550515915577]], dtype=f64),
               rtol=1e-10, atol=1e-12)
  let B = tensor([[1.0, 2.0, 0.5], [3.0, -1.0, 2.0]], dtype=f64, requires_grad=true)
  let (Ub, Sb, Vhb) = linalg.svd(B)
  expect_close(grad((Ub @ Vhb[:2]).sum() + Sb.sum() + Vhb.sum() * 0.0, B),
               tensor([[0.1887539581267283, 0.9697060575244495, 0.22650754626336503],
                       [0.755599501136191, -0.27575034893898104, 0.6048194480762724]], dtype=f64), rtol=1e-10, atol=1e-12)
}

test "qr: reduced factors with R's diagonal not negative, Q orthonormal, gradients through both (wide too)" {
  let A = src([5, 3], 11) + eye(5, 3, dtype=f64) * 2.0
  let (q, r) = linalg.qr(A)
  expect_close(q @ r, A, rtol=0, atol=1e-12)
  expect_close(q.T @ q, eye(3, dtype=f64), rtol=0, atol=1e-12)
  expect((r.diagonal() >= 0.0).all().item())
  expect_close(r, r.triu())
  let W = (src([3, 5], 12) + eye(3, 5, dtype=f64) * 2.0).requires_grad_()
  let (qw, rw) = linalg.qr(W)
  expect_close(qw @ rw, W.detach(), rtol=0, atol=1e-12)
  expect(gradcheck(fn(w) = (linalg.qr(w)[0] * src([3, 3], 13)).sum() + (linalg.qr(w)[1] * src([3, 5], 14)).sum(), W))
  let (qc, rc) = linalg.qr(A, mode="complete")
  expect(qc.shape == (5, 5) and rc.shape == (5, 3))
  expect_close(qc @ rc, A, rtol=0, atol=1e-12)
  expect_close(qc.T @ qc, eye(5, dtype=f64), rtol=0, atol=1e-12)
  expect_close(qc[:, :3], q, rtol=0, atol=0)
  expect(equal(rc[3:], zeros([2, 3], dtype=f64)))
}

test "the factorizations' results are read by name too, as torch.return_types" {
  let A = src([3, 3], 15) + eye(3, dtype=f64) * 3.0
  let e = linalg.eigh(A + A.T)
  expect_close(e.eigenvalues, e[0])
  expect_close(e.eigenvectors, e[1])
  let s = linalg.svd(A)
  expect_close(s.U @ diag_embed(s.S) @ s.Vh, A, rtol=0, atol=1e-12)
  let f = linalg.qr(A)
  expect_close(f.Q @ f.R, A, rtol=0, atol=1e-12)
  let d = linalg.slogdet(A)
  expect_close(d.sign * exp(d.logabsdet), linalg.det(A), rtol=1e-12, atol=0)
  expect_error(fn() = named_tuple(["a"], [1, 2]), "1 fields for 2 values")
}

test "lstsq, vecdot, cross, diagonal and matmul as torch.linalg's" {
  let A = tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]], dtype=f64)
  let r = linalg.lstsq(A, tensor([[1.0], [2.0], [4.0]], dtype=f64))
  # torch.linalg.lstsq (driver gelsy): solution [[0.0714...], [0.5]], rank 2, empty residuals and singular values
  expect_close(r.solution, tensor([[0.07142857142857142], [0.5]], dtype=f64), rtol=1e-10, atol=1e-12)
  expect(r.rank.item() == 2 and r.residuals.numel() == 0 and r.singular_values.numel() == 0)
  expect_close(linalg.lstsq(A, tensor([1.0, 2.0, 4.0], dtype=f64)).solution, tensor([0.07142857142857142, 0.5], dtype=f64),
               rtol=1e-10, atol=1e-12)
  expect(linalg.vecdot(ones([3]), arange(3.0)).item() == 3.0)
  expect(equal(linalg.cross(tensor([1.0, 0.0, 0.0]), tensor([0.0, 1.0, 0.0])), tensor([0.0, 0.0, 1.0])))
  expect(equal(linalg.diagonal(eye(3) * 2.0), tensor([2.0, 2.0, 2.0])))
  expect(equal(linalg.matmul(ones([2, 3]), ones([3, 2])), ones([2, 2]) * 3.0))
}

test "matrix_exp: values and gradient equal torch.linalg.matrix_exp's, a rotation's exponential is cos and sin" {
  let A = (src([2, 3, 3], 16) * 3.0).requires_grad_()
  let E = linalg.matrix_exp(A)
  expect_close(E.flatten(), tensor([3.2425887227785544, -0.7448017126778318, -3.631386730346044, -0.6874925033548902,
                                    0.4861922738981494, -0.2705814835019373, -2.8539916413592334, 0.2878606670737167,
                                    4.390752384633668, 77.92578495724648, 74.46030151624682, 61.91696557408833,
                                    109.10511386441927, 105.99863896616556, 86.68109085472373, 20.10390587321186,
                                    18.917406600773045, 16.17052509048577], dtype=f64), rtol=1e-10, atol=1e-12)
  let g = grad((E * src([2, 3, 3], 17)).sum(), A)
  expect_close(g.flatten(), tensor([0.6658800121989973, -0.005805336252654436, -2.782965205168634, -0.49244198818411816,
                                    0.07454145847119045, 0.76679221401935, -0.6550797624666362, 0.02186938211437634,
                                    3.518009572621554, 106.12314041531275, 133.0452916482313, 26.78549555330113,
                                    82.99678534903977, 101.07886772081027, 20.677565045345858, 40.68581210285534,
                                    44.52281255393016, 9.849338396325782], dtype=f64), rtol=1e-8, atol=1e-10)
  expect_close(linalg.matrix_exp(tensor([[0.0, 1.0], [-1.0, 0.0]], dtype=f64)).flatten(),
               tensor([0.54030230586814, 0.8414709848078963, -0.8414709848078963, 0.54030230586814], dtype=f64),
               rtol=1e-13, atol=1e-15)
}

test "0 x 0 matrices: det is 1 (an empty product) and the factorizations are empty, as PyTorch's" {
  expect(linalg.det(zeros([0, 0])).item() == 1.0)
  expect(equal(linalg.det(zeros([2, 0, 0])), ones([2])))
  expect(linalg.inv(zeros([0, 0])).shape == (0, 0))
  expect(linalg.cholesky(zeros([0, 0])).shape == (0, 0))
  expect(linalg.eigh(zeros([0, 0])).eigenvalues.shape == (0,))
  expect(linalg.svd(zeros([3, 0]), full_matrices=false).S.shape == (0,))
  expect(linalg.qr(zeros([0, 3])).R.shape == (0, 3))
  expect(linalg.solve(zeros([0, 0]), zeros([0, 2])).shape == (0, 2))
}
