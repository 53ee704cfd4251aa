// The view rows whose strides combine the input's: diagonal (one stride that is the sum
// of two dims') and unfold_windows, Tensor.unfold (two strides over one dim, for
// overlapping windows; named apart from the language's unfold, F.unfold's im2col).
//
// Note [Diagonal and unfold are views]
// x.diagonal() and x.unfold(dim, size, step) are views in PyTorch: cov.diagonal().add_(eps)
// and A.diagonal().fill_(0) change the matrix, x.unfold(0, 2, 1).mul_(2) changes x.
// nabla made both copies (diagonal through einsum, unfold through index_select), so such
// a write was silently lost. Here they alias x's storage for any layout of x (make_view
// with strides read off x's own), so writes reach x, share its version counter (a
// write after x was saved for backward is caught), and their attributes name positions,
// not strides, so a graph, vmap or a jvp sees the same op on any layout. Each backward
// is made of ops (slice_backward, slice, reshape, permute), so grad of grad holds.
#include <algorithm>

#include "autograd/ops/common.hpp"

namespace nabla {

namespace {

// Where the offset-th diagonal of dims d1 and d2 lies: it starts at (r0, c0) of the
// [rows, cols] matrix and has n elements (0 when offset is out of range).
struct DiagonalGeometry {
  int64_t d1 = 0, d2 = 0, rows = 0, cols = 0, r0 = 0, c0 = 0, n = 0;
};

DiagonalGeometry diagonal_geometry(const Shape& sizes, const Attrs& a) {
  const int64_t ndim = static_cast<int64_t>(sizes.size());
  NABLA_CHECK(ndim >= 2, "diagonal: expected a tensor with at least 2 dims, got shape " + shape_str(sizes));
  DiagonalGeometry g;
  g.d1 = wrap_dim(a.i("dim1"), ndim, "diagonal");
  g.d2 = wrap_dim(a.i("dim2"), ndim, "diagonal");
  NABLA_CHECK(g.d1 != g.d2, "diagonal: dim1 and dim2 must differ, both are " + std::to_string(g.d1));
  g.rows = sizes[g.d1];
  g.cols = sizes[g.d2];
  const int64_t offset = a.i("offset");
  // Clamped before negating: -offset of INT64_MIN would overflow.
  g.r0 = offset < 0 ? std::min(g.rows, offset < -g.rows ? g.rows : -offset) : 0;
  g.c0 = offset > 0 ? std::min(g.cols, offset) : 0;
  g.n = std::max<int64_t>(0, std::min(g.rows - g.r0, g.cols - g.c0));
  return g;
}

// The dims other than d1 and d2 in order, then d1 and d2: the diagonal's layout.
IntList diagonal_order(int64_t ndim, const DiagonalGeometry& g) {
  IntList order;
  for (int64_t d = 0; d < ndim; ++d)
    if (d != g.d1 && d != g.d2) order.push_back(d);
  order.push_back(g.d1);
  order.push_back(g.d2);
  return order;
}

std::vector<TensorMeta> infer_diagonal(const TensorList& in, const Attrs& a) {
  DiagonalGeometry g = diagonal_geometry(in[0].sizes(), a);
  Shape s;
  for (int64_t d = 0; d < in[0].dim(); ++d)
    if (d != g.d1 && d != g.d2) s.push_back(in[0].sizes()[d]);
  s.push_back(g.n);
  return one(s, in[0].dtype());
}
TensorList view_diagonal(const TensorList& in, const Attrs& a) {
  const Tensor& x = in[0];
  DiagonalGeometry g = diagonal_geometry(x.sizes(), a);
  Shape s, st;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (d != g.d1 && d != g.d2) {
      s.push_back(x.sizes()[d]);
      st.push_back(x.strides()[d]);
    }
  s.push_back(g.n);
  st.push_back(x.strides()[g.d1] + x.strides()[g.d2]);
  int64_t offset = x.offset() + (g.n > 0 ? g.r0 * x.strides()[g.d1] + g.c0 * x.strides()[g.d2] : 0);
  return {make_view(x, s, st, offset)};
}
// The gradient placed on the diagonal of a zero tensor: with d1 and d2 moved last and
// merged, the diagonal is every (cols + 1)-th element from r0 * cols + c0, slice's
// adjoint places it there; then the dims go back.
TensorList backward_diagonal(BackwardContext& ctx) {
  const Tensor& grad = ctx.grad();
  const Shape& in_shape = ctx.input_shape(0);
  const int64_t ndim = static_cast<int64_t>(in_shape.size());
  DiagonalGeometry g = diagonal_geometry(in_shape, ctx.attrs());
  if (g.n == 0) return {zeros(in_shape, grad.dtype(), grad.device())};
  IntList order = diagonal_order(ndim, g);
  IntList moved, flat;
  for (int64_t d : order) moved.push_back(in_shape[d]);
  flat.assign(moved.begin(), moved.end() - 2);
  flat.push_back(g.rows * g.cols);
  const int64_t step = g.cols + 1, start = g.r0 * g.cols + g.c0;
  Tensor placed = slice_backward(grad, flat, ndim - 2, start, start + (g.n - 1) * step + 1, step);
  IntList inverse(order.size());
  for (int64_t i = 0; i < ndim; ++i) inverse[order[i]] = i;
  return {permute(reshape(placed, moved), inverse)};
}

// The number of windows of `size` elements every `step` along dim, with PyTorch's errors.
struct UnfoldGeometry {
  int64_t dim = 0, n = 0, size = 0, step = 1, windows = 0;
};

UnfoldGeometry unfold_geometry(const Shape& sizes, const Attrs& a) {
  NABLA_CHECK(!sizes.empty(), "unfold: expected a tensor with at least 1 dim, got a 0-dim tensor");
  UnfoldGeometry u;
  u.dim = wrap_dim(a.i("dim"), static_cast<int64_t>(sizes.size()), "unfold");
  u.n = sizes[u.dim];
  u.size = a.i("size");
  u.step = a.i("step");
  NABLA_CHECK(u.step > 0, "unfold: step must be > 0, got " + std::to_string(u.step));
  NABLA_CHECK(u.size >= 0, "unfold: size must be 0 or more, got " + std::to_string(u.size));
  NABLA_CHECK(u.size <= u.n, "unfold: size is " + std::to_string(u.size) + " but dim " + std::to_string(u.dim) +
                                 " of the input of shape " + shape_str(sizes) + " has size " + std::to_string(u.n) +
                                 " (a window must fit)");
  u.windows = (u.n - u.size) / u.step + 1;
  return u;
}

std::vector<TensorMeta> infer_unfold(const TensorList& in, const Attrs& a) {
  UnfoldGeometry u = unfold_geometry(in[0].sizes(), a);
  Shape s = in[0].sizes();
  s[u.dim] = u.windows;
  s.push_back(u.size);
  return one(s, in[0].dtype());
}
TensorList view_unfold(const TensorList& in, const Attrs& a) {
  const Tensor& x = in[0];
  UnfoldGeometry u = unfold_geometry(x.sizes(), a);
  Shape s = x.sizes(), st = x.strides();
  const int64_t stride = st[u.dim];
  s[u.dim] = u.windows;
  if (u.windows > 1) st[u.dim] = stride * u.step;  // (windows - 1) * step < n: no overflow
  s.push_back(u.size);
  st.push_back(stride);
  return {make_view(x, s, st, x.offset())};
}

// The gradient of unfold: element j of x gets every window's entry that reads it.
// Windows overlap when step < size, so the window's entries go in blocks of `step`
// columns: within a block no two windows reach one element, and windows w's block
// entry k lands at k0 + w * step + k, so the block, padded to step columns and merged
// with the window dim, is one slice of x's dim from k0. ceil(size / step) blocks,
// each a slice_backward; one when the windows do not overlap.
Tensor unfold_block_gradient(const Tensor& moved, const Shape& in_shape, const UnfoldGeometry& u, int64_t k0) {
  const int64_t dim = u.dim, width = std::min(u.step, u.size - k0);
  Tensor block = slice(moved, dim + 1, k0, k0 + width);  // [..., windows, width, ...]
  if (u.windows == 1)  // one window: step may exceed the dim, padding to it would not fit
    return slice_backward(select(block, dim, 0), in_shape.vec(), dim, k0, k0 + width, 1);
  // Two windows or more: (windows - 1) * step <= n - size, so windows * step <= 2 n.
  IntList padded_shape(block.sizes().begin(), block.sizes().end());
  padded_shape[dim + 1] = u.step;
  Tensor padded = width < u.step ? slice_backward(block, padded_shape, dim + 1, 0, width, 1) : block;
  IntList merged(padded_shape.begin(), padded_shape.end());
  merged[dim] = u.windows * u.step;
  merged.erase(merged.begin() + dim + 1);
  const int64_t reach = std::min(u.windows * u.step, u.n - k0);  // past it only padding
  Tensor flat = slice(reshape(padded, merged), dim, 0, reach);
  return slice_backward(flat, in_shape.vec(), dim, k0, k0 + reach, 1);
}

TensorList backward_unfold(BackwardContext& ctx) {
  const Tensor& grad = ctx.grad();
  const Shape& in_shape = ctx.input_shape(0);
  UnfoldGeometry u = unfold_geometry(in_shape, ctx.attrs());
  if (u.size == 0) return {zeros(in_shape, grad.dtype(), grad.device())};
  // The window's dim (last) moved next to the windows' dim.
  IntList order;
  for (int64_t d = 0; d <= u.dim; ++d) order.push_back(d);
  order.push_back(grad.dim() - 1);
  for (int64_t d = u.dim + 1; d < grad.dim() - 1; ++d) order.push_back(d);
  Tensor moved = permute(grad, order);
  Tensor total;
  const int64_t blocks = (u.size - 1) / u.step + 1;
  for (int64_t b = 0; b < blocks; ++b) {
    Tensor part = unfold_block_gradient(moved, in_shape, u, b * u.step);
    total = b == 0 ? part : add(total, part);
  }
  return {total};
}

}  // namespace

void register_strided_view_ops(std::vector<OpDef>& t) {
  row(t, OpId::diagonal) = {.num_inputs = 1,
                            .attrs = {attr_optional("offset", AttrKind::integer, int64_t{0}),
                                      attr_optional("dim1", AttrKind::integer, int64_t{0}),
                                      attr_optional("dim2", AttrKind::integer, int64_t{1})},
                            .infer = infer_diagonal,
                            .view = view_diagonal,
                            .backward = backward_diagonal};
  row(t, OpId::unfold_windows) = {.num_inputs = 1,
                                  .attrs = {attr_required("dim", AttrKind::integer),
                                            attr_required("size", AttrKind::integer),
                                            attr_required("step", AttrKind::integer)},
                                  .infer = infer_unfold,
                                  .view = view_unfold,
                                  .backward = backward_unfold};
  name_inputs(t, {{OpId::diagonal, {"input"}}, {OpId::unfold_windows, {"input"}}});
  document_ops(t, {{OpId::diagonal,
                    "A view of the offset-th diagonal of dims dim1 and dim2 (above the main one for offset > 0), "
                    "those dims removed and the diagonal last, as torch.diagonal: writes into it change the input. "
                    "Example: diagonal(randn(3, 3), offset=1)"},
                   {OpId::unfold_windows,
                    "A view of the windows of size elements every step along dim: that dim counts the windows and a "
                    "new last dim holds each, as Tensor.unfold (x.unfold(dim, size, step); the global unfold is "
                    "F.unfold's im2col); windows may overlap. "
                    "Example: unfold_windows(arange(5.0), dim=0, size=3, step=1)"}});
}

// The functional API of this family.

Tensor diagonal(const Tensor& x, int64_t offset, int64_t dim1, int64_t dim2) {
  return call1(OpId::diagonal, {x}, {{"offset", offset}, {"dim1", dim1}, {"dim2", dim2}});
}
Tensor unfold(const Tensor& x, int64_t dim, int64_t size, int64_t step) {
  return call1(OpId::unfold_windows, {x}, {{"dim", dim}, {"size", size}, {"step", step}});
}

}  // namespace nabla
