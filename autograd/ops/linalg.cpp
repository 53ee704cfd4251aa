// Rows of matmul and linear.
#include "autograd/cost.hpp"
#include "autograd/ops/common.hpp"

namespace nabla {

namespace {

// Integer matrices multiply on the CPU, as PyTorch's (its CUDA matmul has no integer
// kernel either); bool has none.
void check_matmul_dtypes(const Tensor& a, const Tensor& b) {
  const bool integers = !is_floating(a.dtype()) && !is_floating(b.dtype()) && a.dtype() != DType::b8 &&
                        b.dtype() != DType::b8;
  if (!integers) return check_same_float("matmul", a, "self", b, "other");
  if (a.dtype() != b.dtype())
    throw Error(std::string("matmul: arguments 'self' and 'other' must have the same dtype, got ") +
                dtype_name(a.dtype()) + " and " + dtype_name(b.dtype()));
  if (a.device().kind != DeviceKind::cpu || b.device().kind != DeviceKind::cpu)
    throw Error(std::string("matmul: integer matrices (") + dtype_name(a.dtype()) +
                ") multiply on the CPU only, as in PyTorch: convert to a floating dtype on CUDA");
}

std::vector<TensorMeta> infer_matmul(const TensorList& in, const Attrs&) {
  const Tensor &a = in[0], &b = in[1];
  check_matmul_dtypes(a, b);
  NABLA_CHECK(a.dim() >= 2 && b.dim() >= 2,
              "matmul: the row needs tensors of at least 2 dims (the API unsqueezes 1-D)");
  int64_t k = a.sizes()[a.dim() - 1], k2 = b.sizes()[b.dim() - 2];
  if (k != k2)
    throw Error("matmul: argument 'other' of shape " + b.shape_str() + " has " + std::to_string(k2) +
                " rows but argument 'self' of shape " + a.shape_str() + " has " + std::to_string(k) + " columns");
  Shape batch_a(a.sizes().begin(), a.sizes().end() - 2), batch_b(b.sizes().begin(), b.sizes().end() - 2);
  Shape out = broadcast_shapes("matmul", batch_a, batch_b);
  out.push_back(a.sizes()[a.dim() - 2]);
  out.push_back(b.sizes()[b.dim() - 1]);
  return one(out, a.dtype());
}

TensorList backward_matmul(BackwardContext& c) {
  Tensor ga, gb;
  if (c.needs_grad(0)) ga = reduce_to_shape(matmul(c.grad(), transpose(c.input(1), -1, -2)), c.input_shape(0));
  if (c.needs_grad(1)) gb = reduce_to_shape(matmul(transpose(c.input(0), -1, -2), c.grad()), c.input_shape(1));
  return {ga, gb};
}

std::vector<TensorMeta> infer_linear(const TensorList& in, const Attrs&) {
  const Tensor &x = in[0], &w = in[1], &b = in[2];
  check_same_float("linear", x, "input", w, "weight");
  NABLA_CHECK(w.dim() == 2,
              "linear: argument 'weight' must be 2-D [out_features, in_features], got shape " + w.shape_str());
  NABLA_CHECK(x.dim() >= 1, "linear: argument 'input' must have at least 1 dim");
  if (x.sizes()[x.dim() - 1] != w.sizes()[1])
    throw Error("linear: argument 'input' of shape " + x.shape_str() + " has " +
                std::to_string(x.sizes()[x.dim() - 1]) + " features but argument 'weight' of shape " + w.shape_str() +
                " expects " + std::to_string(w.sizes()[1]));
  if (b.defined()) {
    NABLA_CHECK(b.dtype() == x.dtype(),
                "linear: argument 'bias' must have dtype " + std::string(dtype_name(x.dtype())));
    if (!(b.dim() == 1 && b.sizes()[0] == w.sizes()[0]))
      throw Error("linear: argument 'bias' must have shape [" + std::to_string(w.sizes()[0]) + "], got " +
                  b.shape_str());
  }
  Shape out = x.sizes();
  out.back() = w.sizes()[0];
  return one(out, x.dtype());
}

// The rows of a [..., f] tensor, counted: reshape's -1 cannot infer them when f is 0
// (nn.AdaptiveLogSoftmaxWithLoss's narrowest tail is Linear(8, 0) then Linear(0, n)).
int64_t leading_rows(const Shape& s) {
  int64_t n = 1;
  for (size_t i = 0; i + 1 < s.size(); ++i) n *= s[i];
  return n;
}

TensorList backward_linear(BackwardContext& c) {
  Tensor g = c.grad();
  const Shape& wshape = c.input_shape(1);
  Tensor gx, gw, gb;
  if (c.needs_grad(0)) gx = matmul(g, c.input(1));
  Tensor g2 = reshape(g, {leading_rows(g.sizes()), wshape[0]});
  if (c.needs_grad(1)) gw = matmul(transpose(g2, 0, 1), reshape(c.input(0), {leading_rows(c.input_shape(0)), wshape[1]}));
  if (c.needs_grad(2)) gb = sum(g2, {0});
  return {gx, gw, gb};
}

// FLOPs: 2*M*N*K per matrix product (a multiply-add is 2, as torch.utils.flop_counter
// and fvcore count), times the broadcast batch of the output; bytes: both operands
// as given (a broadcast batch is read once) and the output.
OpCost cost_matmul(const TensorList& in, const Attrs&, const TensorList& out) {
  const Shape& o = out[0].sizes();
  double m = static_cast<double>(o[o.size() - 2]), n = static_cast<double>(o.back());
  double k = static_cast<double>(in[0].sizes().back());
  double batch = m * n > 0 ? cost_numel(out[0]) / (m * n) : 0.0;
  return {2.0 * batch * m * n * k, io_bytes(in, out)};
}

// FLOPs: 2*M*N*K for x[M, K] W^T[K, N] (M: all leading dims of x), plus M*N adds
// for a bias; bytes: x, W, the bias and the output.
OpCost cost_linear(const TensorList& in, const Attrs&, const TensorList& out) {
  double mn = cost_numel(out[0]), k = static_cast<double>(in[1].sizes()[1]);
  return {2.0 * mn * k + (in[2].defined() ? mn : 0.0), io_bytes(in, out)};
}

// ---- square matrices (tensor/cpu/lapack.cpp) ----------------------------------------

// A batch of square matrices [..., n, n] of a floating dtype; its n.
int64_t check_square(const char* op, const char* arg, const Tensor& a) {
  check_floating(op, arg, a);
  if (a.dim() < 2 || a.sizes()[a.dim() - 1] != a.sizes()[a.dim() - 2])
    throw Error(std::string(op) + ": argument '" + arg + "' must be a batch of square matrices [..., n, n], got shape " +
                a.shape_str());
  return a.sizes().back();
}

Tensor mT(const Tensor& x) { return transpose(x, -1, -2); }

// The [n, n] bool identity.
Tensor eye_mask(int64_t n) {
  std::vector<double> m(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i) m[static_cast<size_t>(i * n + i)] = 1.0;
  return tensor_from(m, {n, n}, DType::b8);
}

std::vector<TensorMeta> infer_square(const char* op, const TensorList& in) {
  check_square(op, "input", in[0]);
  return one(in[0].sizes(), in[0].dtype());
}

std::vector<TensorMeta> infer_det(const TensorList& in, const Attrs&) {
  check_square("det", "input", in[0]);
  return one(Shape(in[0].sizes().begin(), in[0].sizes().end() - 2), in[0].dtype());
}

std::vector<TensorMeta> infer_linalg_solve(const TensorList& in, const Attrs&) {
  const Tensor &a = in[0], &b = in[1];
  const int64_t n = check_square("linalg_solve", "A", a);
  check_same_float("linalg_solve", a, "A", b, "B");
  if (b.dim() < 2 || b.sizes()[b.dim() - 2] != n)
    throw Error("linalg_solve: argument 'B' must be [..., " + std::to_string(n) + ", k] for 'A' of shape " +
                a.shape_str() + ", got shape " + b.shape_str());
  Shape out = broadcast_shapes("linalg_solve", Shape(a.sizes().begin(), a.sizes().end() - 2),
                               Shape(b.sizes().begin(), b.sizes().end() - 2));
  out.push_back(n);
  out.push_back(b.sizes().back());
  return one(out, a.dtype());
}

// d inv(A) = -Y dA Y with Y = inv(A): dA gets -Y^T g Y^T.
TensorList backward_inverse(BackwardContext& c) {
  Tensor y = mT(c.output(0));
  return {neg(matmul(matmul(y, c.grad()), y))};
}

// d det(A) = det(A) tr(inv(A) dA): dA gets g det(A) inv(A)^T.
TensorList backward_det(BackwardContext& c) {
  Tensor scale = unsqueeze(unsqueeze(c.grad() * c.output(0), -1), -1);
  return {scale * mT(inverse(c.input(0)))};
}

// X = inv(A) B: dB gets G = inv(A)^T g (a solve), dA gets -G X^T; each summed over the
// batch dims its input was broadcast over.
TensorList backward_linalg_solve(BackwardContext& c) {
  Tensor gb = linalg_solve(mT(c.input(0)), c.grad());
  Tensor ga, gb_out;
  if (c.needs_grad(0)) ga = reduce_to_shape(neg(matmul(gb, mT(c.output(0)))), c.input_shape(0));
  if (c.needs_grad(1)) gb_out = reduce_to_shape(gb, c.input_shape(1));
  return {ga, gb_out};
}

// PyTorch's rule for A = L L^T: dA gets the symmetric part of L^-T Phi(L^T gL) L^-1,
// where Phi keeps the lower triangle and halves the diagonal.
TensorList backward_cholesky(BackwardContext& c) {
  Tensor l = c.output(0);
  Tensor p = matmul(mT(l), c.grad());
  Tensor phi = tril(p) - triu(tril(p)) * 0.5;
  Tensor linv = inverse(l);
  Tensor s = matmul(matmul(mT(linv), phi), linv);
  return {(s + mT(s)) * 0.5};
}

std::vector<TensorMeta> infer_eigh(const TensorList& in, const Attrs&) {
  check_square("eigh", "input", in[0]);
  Shape values(in[0].sizes().begin(), in[0].sizes().end() - 1);
  return {TensorMeta{values, in[0].dtype()}, TensorMeta{in[0].sizes(), in[0].dtype()}};
}

// PyTorch's rule for A = V diag(L) V^T (symmetric A): dA gets V R V^T, where R's
// diagonal is gL and R_ij = (V^T gV - (V^T gV)^T)_ij / 2 / (L_j - L_i) off it (the
// eigenvectors' gradient projected onto rotations). Equal eigenvalues make it inf or
// NaN, as PyTorch's.
TensorList backward_eigh(BackwardContext& c) {
  Tensor values = c.output(0), v = c.output(1);
  const int64_t n = v.sizes().back();
  Tensor vgv = matmul(mT(v), c.grad(1));
  Tensor diagonal = to_device(eye_mask(n), v.device());
  Tensor gaps = where(diagonal, ones_like(v), unsqueeze(values, -2) - unsqueeze(values, -1));
  Tensor r = where(diagonal, unsqueeze(c.grad(0), -1), (vgv - mT(vgv)) * 0.5 / gaps);
  return {matmul(matmul(v, r), mT(v))};
}

std::vector<TensorMeta> infer_svd(const TensorList& in, const Attrs&) {
  const Tensor& a = in[0];
  check_floating("svd", "input", a);
  if (a.dim() < 2) throw Error("svd: argument 'input' must be a batch of matrices [..., m, n], got shape " + a.shape_str());
  const int64_t m = a.sizes()[a.dim() - 2], n = a.sizes().back(), k = std::min(m, n);
  Shape batch(a.sizes().begin(), a.sizes().end() - 2), u = batch, s = batch, vh = batch;
  u.push_back(m), u.push_back(k);
  s.push_back(k);
  vh.push_back(k), vh.push_back(n);
  return {TensorMeta{u, a.dtype()}, TensorMeta{s, a.dtype()}, TensorMeta{vh, a.dtype()}};
}

// 1 / x where x is not 0, else 0.
Tensor safe_reciprocal(const Tensor& x) {
  Tensor zero = eq(x, zeros_like(x));
  return where(zero, zeros_like(x), div(ones_like(x), where(zero, ones_like(x), x)));
}

// The thin SVD's rule (Townsend, "Differentiating the singular value decomposition"):
// with F_ij = 1 / (s_j^2 - s_i^2) off the diagonal,
//   dA = U [(F o (U^T gU - gU^T U)) S + S (F o (V^T gV - gV^T V)) + diag(gS)] V^T
//        + (I - U U^T) gU S^-1 V^T + U S^-1 gV^T (I - V V^T).
// The reciprocals are taken as 0 where they divide by 0 (equal or zero singular
// values), so that a loss of the singular values alone (a norm), whose gU and gVh are
// zeros, has its finite gradient there, as PyTorch's svdvals has.
TensorList backward_svd(BackwardContext& c) {
  Tensor u = c.output(0), s = c.output(1), vh = c.output(2);
  Tensor gu = c.grad(0), gs = c.grad(1), gvh = c.grad(2);
  Tensor v = mT(vh), gv = mT(gvh);
  const int64_t k = s.sizes().back();
  Tensor diagonal = to_device(eye_mask(k), s.device());
  Tensor s2 = s * s;
  Tensor gaps = unsqueeze(s2, -2) - unsqueeze(s2, -1);
  Tensor f = where(diagonal, zeros_like(gaps), safe_reciprocal(gaps));
  Tensor utgu = matmul(mT(u), gu), vtgv = matmul(mT(v), gv);
  Tensor j = f * (utgu - mT(utgu)), kk = f * (vtgv - mT(vtgv));
  Tensor inner = j * unsqueeze(s, -2) + unsqueeze(s, -1) * kk + where(diagonal, unsqueeze(gs, -1), zeros_like(j));
  Tensor sinv = safe_reciprocal(s);
  Tensor off_u = (gu - matmul(u, utgu)) * unsqueeze(sinv, -2);
  Tensor off_v = gvh - matmul(matmul(gvh, v), vh);
  return {matmul(matmul(u, inner), vh) + matmul(off_u, vh) + matmul(u * unsqueeze(sinv, -2), off_v)};
}

std::vector<TensorMeta> infer_qr(const TensorList& in, const Attrs&) {
  const Tensor& a = in[0];
  check_floating("qr", "input", a);
  if (a.dim() < 2) throw Error("qr: argument 'input' must be a batch of matrices [..., m, n], got shape " + a.shape_str());
  const int64_t m = a.sizes()[a.dim() - 2], n = a.sizes().back(), k = std::min(m, n);
  Shape batch(a.sizes().begin(), a.sizes().end() - 2), q = batch, r = batch;
  q.push_back(m), q.push_back(k);
  r.push_back(k), r.push_back(n);
  return {TensorMeta{q, a.dtype()}, TensorMeta{r, a.dtype()}};
}

// A = QR with R square (m >= n): dA gets (gQ + Q copyltu(M)) R^-T, M = R gR^T - gQ^T Q,
// where copyltu mirrors M's lower triangle onto its upper one (PyTorch's rule).
Tensor qr_square_grad(const Tensor& q, const Tensor& r, const Tensor& gq, const Tensor& gr) {
  Tensor m = matmul(r, mT(gr)) - matmul(mT(gq), q);
  m = tril(m) + mT(tril(m, -1));
  return matmul(gq + matmul(q, m), mT(inverse(r)));
}

// A wide matrix (m < n) is [X | Y] with X square: X = Q U is the square case, and
// V = Q^T Y, so Y gets Q gV and Q's gradient gains Y gV^T.
TensorList backward_qr(BackwardContext& c) {
  Tensor q = c.output(0), r = c.output(1), a = c.input(0);
  const int64_t m = q.sizes()[q.dim() - 2], n = r.sizes().back(), last = r.dim() - 1;
  if (m >= n) return {qr_square_grad(q, r, c.grad(0), c.grad(1))};
  Tensor gv = slice(c.grad(1), last, m, n), y = slice(a, last, m, n);
  Tensor gx = qr_square_grad(q, slice(r, last, 0, m), c.grad(0) + matmul(y, mT(gv)), slice(c.grad(1), last, 0, m));
  return {cat({gx, matmul(q, gv)}, last)};
}

// FLOPs of the LAPACK routines per matrix (LU 2n^3/3, its inverse 4n^3/3, two
// triangular solves 2n^2 k, Cholesky n^3/3), times the batch; bytes: inputs and output.
OpCost cost_square(double per_n3, const TensorList& in, const TensorList& out) {
  const Tensor& a = in[0];
  double n = static_cast<double>(a.sizes().back());
  double batch = n > 0 ? cost_numel(a) / (n * n) : 0.0;
  return {batch * per_n3 * n * n * n, io_bytes(in, out)};
}

// SVD and QR of an m x n matrix: about 4 m n min(m, n) FLOPs each (bidiagonalization
// or Householder, then forming the factors), times the batch.
OpCost cost_factorization(const TensorList& in, const Attrs&, const TensorList& out) {
  const Tensor& a = in[0];
  double m = static_cast<double>(a.sizes()[a.dim() - 2]), n = static_cast<double>(a.sizes().back());
  double batch = m * n > 0 ? cost_numel(a) / (m * n) : 0.0;
  return {batch * 4.0 * m * n * std::min(m, n), io_bytes(in, out)};
}

OpCost cost_linalg_solve(const TensorList& in, const Attrs&, const TensorList& out) {
  const Tensor& x = out[0];
  double n = static_cast<double>(x.sizes()[x.dim() - 2]), k = static_cast<double>(x.sizes().back());
  double batch = n * k > 0 ? cost_numel(x) / (n * k) : 0.0;
  return {batch * (2.0 / 3.0 * n * n * n + 2.0 * n * n * k), io_bytes(in, out)};
}

constexpr const char* kLapackCpuOnly =
    "its CUDA kernel (cuSOLVER) is not written yet: it needs a session with a GPU to be tested";

}  // namespace

void register_linalg_ops(std::vector<OpDef>& t) {
  row(t, OpId::inverse) = {.num_inputs = 1,
                           .infer = [](const TensorList& in, const Attrs&) { return infer_square("inverse", in); },
                           .cpu = cpu::inverse,
                           .backward = backward_inverse,
                           .saves = {0, 0b1}};
  row(t, OpId::inverse).cost = [](const TensorList& in, const Attrs&, const TensorList& out) {
    return cost_square(2.0, in, out);
  };
  row(t, OpId::det) = {.num_inputs = 1, .infer = infer_det, .cpu = cpu::det, .backward = backward_det, .saves = {0b1, 0b1}};
  row(t, OpId::det).cost = [](const TensorList& in, const Attrs&, const TensorList& out) {
    return cost_square(2.0 / 3.0, in, out);
  };
  row(t, OpId::linalg_solve) = {.num_inputs = 2,
                                .infer = infer_linalg_solve,
                                .cpu = cpu::linalg_solve,
                                .backward = backward_linalg_solve,
                                .saves = {0b01, 0b1}};
  row(t, OpId::linalg_solve).cost = cost_linalg_solve;
  row(t, OpId::cholesky) = {.num_inputs = 1,
                            .infer = [](const TensorList& in, const Attrs&) { return infer_square("cholesky", in); },
                            .cpu = cpu::cholesky,
                            .backward = backward_cholesky,
                            .saves = {0, 0b1}};
  row(t, OpId::cholesky).cost = [](const TensorList& in, const Attrs&, const TensorList& out) {
    return cost_square(1.0 / 3.0, in, out);
  };
  row(t, OpId::eigh) = {.num_inputs = 1,
                        .num_outputs = 2,
                        .infer = infer_eigh,
                        .cpu = cpu::eigh,
                        .backward = backward_eigh,
                        .saves = {0, 0b11}};
  row(t, OpId::eigh).cost = [](const TensorList& in, const Attrs&, const TensorList& out) {
    return cost_square(9.0, in, out);  // tridiagonal reduction and divide and conquer, about 9 n^3
  };
  row(t, OpId::svd) = {.num_inputs = 1,
                       .num_outputs = 3,
                       .infer = infer_svd,
                       .cpu = cpu::svd,
                       .backward = backward_svd,
                       .saves = {0, 0b111}};
  row(t, OpId::svd).cost = cost_factorization;
  row(t, OpId::qr) = {.num_inputs = 1,
                      .num_outputs = 2,
                      .infer = infer_qr,
                      .cpu = cpu::qr,
                      .backward = backward_qr,
                      .saves = {0b1, 0b11}};
  row(t, OpId::qr).cost = cost_factorization;
  for (OpId id : {OpId::inverse, OpId::det, OpId::linalg_solve, OpId::cholesky, OpId::eigh, OpId::svd, OpId::qr})
    row(t, id).cpu_only = kLapackCpuOnly;
  name_inputs(t, {{OpId::inverse, {"input"}}, {OpId::det, {"input"}}, {OpId::linalg_solve, {"A", "B"}},
                  {OpId::cholesky, {"input"}}, {OpId::eigh, {"input"}}, {OpId::svd, {"input"}},
                  {OpId::qr, {"input"}}});
  document_ops(t, {{OpId::inverse,
                    "The inverse of each square matrix of a batch [..., n, n], as torch.linalg.inv; a singular one is "
                    "an error. Example: inverse(eye(3) * 2.0 + 0.5)"},
                   {OpId::det, "The determinant of each square matrix of a batch [..., n, n], as torch.linalg.det. "
                               "Example: det(eye(3) * 2.0 + 0.5)"},
                   {OpId::linalg_solve,
                    "X with A X = B for a batch of square A [..., n, n] and B [..., n, k], the batch dims "
                    "broadcast, as torch.linalg.solve (the linalg module also takes a 1-D B). "
                    "Example: linalg_solve(eye(3) * 2.0 + 0.5, ones(3, 2))"},
                   {OpId::cholesky,
                    "The lower-triangular L with A = L L^T of each symmetric positive-definite matrix [..., n, n], as "
                    "torch.linalg.cholesky (of the symmetric part (A + A^T) / 2, where PyTorch reads the lower "
                    "triangle: the same on a symmetric input). Example: cholesky(eye(3) * 2.0 + 0.5)"},
                   {OpId::eigh,
                    "The eigenvalues (ascending) and eigenvectors (columns) of each symmetric matrix [..., n, n], as "
                    "torch.linalg.eigh (of the symmetric part (A + A^T) / 2; each eigenvector's largest component "
                    "positive). Example: eigh(eye(3) * 2.0 + 0.5)"},
                   {OpId::svd,
                    "The thin singular value decomposition U, S, Vh of each matrix [..., m, n] (S descending, k = "
                    "min(m, n)), as torch.linalg.svd(A, full_matrices=False), each pair of singular vectors signed so "
                    "that U's column has its largest component positive. Example: svd(randn(4, 3))"},
                   {OpId::qr,
                    "The reduced QR factorization Q [..., m, k], R [..., k, n] of each matrix (k = min(m, n)), as "
                    "torch.linalg.qr(A, mode=\"reduced\"), signed so that R's diagonal is not negative. "
                    "Example: qr(randn(4, 3))"}});

  row(t, OpId::matmul) = {
      .num_inputs = 2, .infer = infer_matmul, .cpu = cpu::matmul, .backward = backward_matmul, .saves = {0b11, 0}};
  row(t, OpId::matmul).cost = cost_matmul;
  row(t, OpId::linear) = {
      .num_inputs = 3, .infer = infer_linear, .cpu = cpu::linear, .backward = backward_linear, .saves = {0b011, 0}};
  row(t, OpId::linear).cost = cost_linear;
  row(t, OpId::linear).optional_inputs = 0b100;  // bias
  name_inputs(t, {{OpId::matmul, {"self", "other"}}, {OpId::linear, {"input", "weight", "bias"}}});
  // What :help prints for each op of this family; tests/interp/op_docs.cpp runs every example.
  document_ops(t, {{OpId::matmul,
                    "The matrix product with PyTorch's batching and broadcasting, a 1-D operand taken as a vector (the "
                    "@ operator), as torch.matmul; integer matrices multiply on the CPU, wrapping as PyTorch's. "
                    "Example: matmul(randn(2, 3), randn(3, 4))"},
                   {OpId::linear,
                    "input @ weight^T + bias, weight of shape [out_features, in_features], as "
                    "torch.nn.functional.linear. "
                    "Example: linear(randn(2, 4), randn(3, 4), bias=zeros(3))"}});
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  NABLA_CHECK(a.dim() >= 1 && b.dim() >= 1,
              "matmul: both arguments need at least 1 dim, got shapes " + a.shape_str() + " and " + b.shape_str());
  // 1-D operands follow torch.matmul: a vector is a row (left) or a column (right).
  if (a.dim() == 1 && b.dim() == 1) return reshape(call1(OpId::matmul, {unsqueeze(a, 0), unsqueeze(b, 1)}), {});
  if (a.dim() == 1) return squeeze(call1(OpId::matmul, {unsqueeze(a, 0), b}), {-2});
  if (b.dim() == 1) return squeeze(call1(OpId::matmul, {a, unsqueeze(b, 1)}), {-1});
  return call1(OpId::matmul, {a, b});
}

Tensor inverse(const Tensor& a) { return call1(OpId::inverse, {a}); }
Tensor det(const Tensor& a) { return call1(OpId::det, {a}); }
Tensor linalg_solve(const Tensor& a, const Tensor& b) { return call1(OpId::linalg_solve, {a, b}); }
Tensor cholesky(const Tensor& a) { return call1(OpId::cholesky, {a}); }
TensorList eigh(const Tensor& a) { return call(OpId::eigh, {a}); }
TensorList svd(const Tensor& a) { return call(OpId::svd, {a}); }
TensorList qr(const Tensor& a) { return call(OpId::qr, {a}); }

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  return call1(OpId::linear, {x, weight, bias});
}

}  // namespace nabla
