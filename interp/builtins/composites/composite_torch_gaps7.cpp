// Round 7's PyTorch functions that nabla lacked, made of table ops (Note [Composites] in
// composites.hpp): ldexp, diagflat, adjoint, hsplit/vsplit/dsplit, combinations,
// gradient, addmv, addr, addbmm, chain_matmul, select_scatter, slice_scatter,
// cumulative_trapezoid, isposinf, isneginf, isreal, positive, masked_scatter, put,
// fill_diagonal_,
// histogram, new_tensor,
// result_type, promote_types and can_cast; and torch.erfc, erfinv, i0 and mvlgamma,
// which are stdlib/special.dsl's. Each is a global function and a tensor method
// (op_conventions()). tests/stdlib/test_gaps_vs_torch7_tensor.dsl checks them against
// PyTorch (tests/stdlib/reference/make_vs_torch7.py).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "autograd/ops.hpp"
#include "autograd/ops/common.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/composites/composites.hpp"
#include "interp/eval/evaluator.hpp"

namespace nabla::interp {

namespace {

using composite_args::dim_in;
using composite_args::ask_host_memory;
using composite_args::fn_arg;

// torch.ldexp: input * 2 ** other, in the operands' floating dtype (f32 for integers).
Value ldexp_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("ldexp", a, {"input", "other"}, 2);
  Tensor x = arg(b, 0, "ldexp", "input");
  Tensor e = operand(b[1], x, "ldexp", "other");
  DType dt = result_type({x, e});
  if (!is_floating(dt)) dt = DType::f32;
  return Value::tensor(to_dtype(x, dt) * tensor_pow(scalar_tensor(2.0, dt), to_dtype(e, dt)));
}

// torch.diagflat: the flattened input on the offset-th diagonal of a square matrix.
Value diagflat_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("diagflat", a, {"input", "offset"}, 1);
  Tensor x = arg(b, 0, "diagflat", "input");
  CallArgs call;
  call.pos.push_back(Value::integer(b.has(1) ? as_int(b[1], fn_arg("diagflat", "offset")) : 0));
  return ev.call_method(Value::tensor(flatten(x)), "diag", call);
}

// torch.adjoint: the last two dims swapped (the conjugate is the tensor itself: nabla's
// tensors are real).
Value adjoint_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("adjoint", a, {"input"}, 1);
  Tensor x = arg(b, 0, "adjoint", "input");
  if (x.dim() < 2) fail("adjoint(): argument 'input' must be at least 2-D, got shape " + x.shape_str());
  return Value::tensor(transpose(x, -2, -1));
}

// Note [hsplit, vsplit and dsplit]
// tensor_split along dim 1 (hsplit; dim 0 of a 1-D input), 0 (vsplit) or 2 (dsplit),
// with PyTorch's two extra rules: the input has at least min_dims dims, and a number of
// sections divides the dim exactly (tensor_split would make uneven pieces).
Value split_along(Evaluator& ev, CallArgs& a, const char* fname, int64_t dim, int64_t min_dims) {
  Bound b = bind(fname, a, {"input", "indices_or_sections"}, 2);
  Tensor x = arg(b, 0, fname, "input");
  if (x.dim() < min_dims)
    fail(std::string(fname) + "(): argument 'input' must have at least " + std::to_string(min_dims) +
         " dims, got shape " + x.shape_str());
  if (dim == 1 && x.dim() == 1) dim = 0;
  if (b[1].tag == Tag::Int) {
    const int64_t n = x.sizes()[static_cast<size_t>(dim)], s = b[1].i;
    if (s <= 0 || n % s != 0)
      fail(std::string(fname) + "(): the size of dim " + std::to_string(dim) + " (" + std::to_string(n) +
           ") must be divisible by the number of sections, got " + std::to_string(s));
  }
  CallArgs call;
  call.pos = {b[1], Value::integer(dim)};
  return ev.call_method(Value::tensor(x), "tensor_split", call);
}
Value hsplit_builtin(Evaluator& ev, CallArgs& a) { return split_along(ev, a, "hsplit", 1, 1); }
Value vsplit_builtin(Evaluator& ev, CallArgs& a) { return split_along(ev, a, "vsplit", 0, 2); }
Value dsplit_builtin(Evaluator& ev, CallArgs& a) { return split_along(ev, a, "dsplit", 2, 3); }

// The index tuples of itertools.combinations (or combinations_with_replacement) of
// range(n) taken r at a time, in its order, one column per position: each next tuple
// raises the rightmost position that can still rise and restarts the ones after it.
std::vector<std::vector<double>> combination_columns(int64_t n, int64_t r, bool with_replacement) {
  std::vector<std::vector<double>> columns(static_cast<size_t>(r));
  if (n == 0 || (!with_replacement && r > n)) return columns;
  std::vector<int64_t> pick(static_cast<size_t>(r));
  for (int64_t j = 0; j < r; ++j) pick[static_cast<size_t>(j)] = with_replacement ? 0 : j;
  auto highest = [&](int64_t k) { return with_replacement ? n - 1 : n - r + k; };
  while (true) {
    for (size_t j = 0; j < pick.size(); ++j) columns[j].push_back(static_cast<double>(pick[j]));
    int64_t k = r - 1;
    while (k >= 0 && pick[static_cast<size_t>(k)] == highest(k)) --k;
    if (k < 0) return columns;
    ++pick[static_cast<size_t>(k)];
    for (int64_t j = k + 1; j < r; ++j)
      pick[static_cast<size_t>(j)] = pick[static_cast<size_t>(with_replacement ? k : j - 1)] + (with_replacement ? 0 : 1);
  }
}

// torch.combinations: the r-length combinations of a 1-D input's elements, as rows.
Value combinations_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("combinations", a, {"input", "r", "with_replacement"}, 1);
  Tensor x = arg(b, 0, "combinations", "input");
  if (x.dim() != 1) fail("combinations(): argument 'input' must be 1-D, got shape " + x.shape_str());
  const int64_t r = b.has(1) ? as_int(b[1], fn_arg("combinations", "r")) : 2;
  if (r < 0) fail("combinations(): argument 'r' must be 0 or more, got " + std::to_string(r));
  const bool with_replacement = b.has(2) && as_bool(b[2], fn_arg("combinations", "with_replacement"));
  if (r == 0) return Value::tensor(slice(x, 0, 0, 0));  // PyTorch's empty 1-D result
  const int64_t n = x.sizes()[0];
  // C(n, r) or C(n + r - 1, r) rows, asked for before they are listed (C(30, 15) is 1.5e8)
  // C(pool, r) = C(pool, pool - r): at most min(r, pool - r) factors (r may be 2^62)
  const int64_t pool = with_replacement ? n + r - 1 : n;
  if (n == 0 || pool < r) return Value::tensor(empty({0, r}, x.dtype(), x.device()));  // no combinations
  double count = 1;
  for (int64_t k = 0; k < std::min(r, pool - r) && count < 1e300; ++k)
    count = count * static_cast<double>(pool - k) / static_cast<double>(k + 1);
  if (count * static_cast<double>(r) > 1e17)
    fail("combinations(): " + (count >= 1e300 ? std::string("more than 1e300") : float_repr(count)) + " combinations of " + std::to_string(r) +
         " elements each are more than any machine can hold");
  ask_host_memory(static_cast<int64_t>(count) * r, 2 * sizeof(double),
                  "combinations(): " + std::to_string(static_cast<int64_t>(count)) + " combinations");
  auto columns = combination_columns(n, r, with_replacement);
  const int64_t rows = static_cast<int64_t>(columns[0].size());
  TensorList picked;
  for (auto& column : columns) {
    Tensor index = to_device(tensor_from(column, {rows}, DType::i64), x.device());
    picked.push_back(index_select(x, 0, index));
  }
  return Value::tensor(stack(picked, 1));
}

// ---- gradient ----------------------------------------------------------------------------

// Note [torch.gradient's differences]
// Along each dim, the second-order central difference inside and a one-sided one of order edge_order at
// both ends (numpy.gradient's formulas, PyTorch's too); for sample coordinates x (1-D, one per element),
// inside, (hl^2 f[i+1] - hr^2 f[i-1] + (hr^2 - hl^2) f[i]) / (hl hr (hl + hr)), hl, hr the steps.
struct Along {
  const Tensor& f;
  int64_t dim;
  Tensor at(int64_t start, int64_t end) const { return slice(f, dim, start, end); }
};

// x's steps, shaped to broadcast along `dim` of an ndim-D tensor.
Tensor along_dim(const Tensor& v, int64_t dim, int64_t ndim) {
  IntList shape(static_cast<size_t>(ndim), 1);
  shape[static_cast<size_t>(dim)] = v.sizes()[0];
  return reshape(v, shape);
}

Tensor gradient_along(const Tensor& f, int64_t dim, const Tensor& coords, int64_t edge_order) {
  const int64_t n = f.sizes()[static_cast<size_t>(dim)], nd = f.dim();
  Along s{f, dim};
  Tensor steps = slice(coords, 0, 1, n) - slice(coords, 0, 0, n - 1);  // [n - 1]
  Tensor hl = along_dim(slice(steps, 0, 0, n - 2), dim, nd), hr = along_dim(slice(steps, 0, 1, n - 1), dim, nd);
  Tensor inside = (hl * hl * s.at(2, n) - hr * hr * s.at(0, n - 2) + (hr * hr - hl * hl) * s.at(1, n - 1)) /
                  (hl * hr * (hl + hr));
  Tensor first, last;
  if (edge_order == 1) {
    first = (s.at(1, 2) - s.at(0, 1)) / along_dim(slice(steps, 0, 0, 1), dim, nd);
    last = (s.at(n - 1, n) - s.at(n - 2, n - 1)) / along_dim(slice(steps, 0, n - 2, n - 1), dim, nd);
  } else {
    Tensor h1 = along_dim(slice(steps, 0, 0, 1), dim, nd), h2 = along_dim(slice(steps, 0, 1, 2), dim, nd);
    first = -(2.0 * h1 + h2) / (h1 * (h1 + h2)) * s.at(0, 1) + (h1 + h2) / (h1 * h2) * s.at(1, 2) -
            h1 / (h2 * (h1 + h2)) * s.at(2, 3);
    Tensor d1 = along_dim(slice(steps, 0, n - 3, n - 2), dim, nd), d2 = along_dim(slice(steps, 0, n - 2, n - 1), dim, nd);
    last = d2 / (d1 * (d1 + d2)) * s.at(n - 3, n - 2) - (d2 + d1) / (d1 * d2) * s.at(n - 2, n - 1) +
           (2.0 * d2 + d1) / (d2 * (d1 + d2)) * s.at(n - 1, n);
  }
  return cat({first, inside, last}, dim);
}

// A uniform step h by PyTorch's formulas: (f[i+1] - f[i-1]) / h / 2 inside (h = 0 gave 0 / 0, PyTorch's inf).
Tensor uniform_gradient_along(const Tensor& f, int64_t dim, double h, int64_t edge_order) {
  const int64_t n = f.sizes()[static_cast<size_t>(dim)];
  Along s{f, dim};
  Tensor first = edge_order == 1 ? (s.at(1, 2) - s.at(0, 1)) / h : (-1.5 * s.at(0, 1) + 2.0 * s.at(1, 2) - 0.5 * s.at(2, 3)) / h;
  Tensor last = edge_order == 1 ? (s.at(n - 1, n) - s.at(n - 2, n - 1)) / h
                                : (0.5 * s.at(n - 3, n - 2) - 2.0 * s.at(n - 2, n - 1) + 1.5 * s.at(n - 1, n)) / h;
  return cat({first, (s.at(2, n) - s.at(0, n - 2)) / h / 2.0, last}, dim);  // inside: PyTorch's order of ops
}

// One spacing entry for dim d: a number (the uniform step) or 1-D coordinates.
Tensor gradient_along_spacing(const Value& v, const Tensor& f, int64_t dim, int64_t edge_order) {
  if (v.tag == Tag::Tensor && v.t.dim() == 1) {
    if (v.t.sizes()[0] != f.sizes()[static_cast<size_t>(dim)])
      fail("gradient(): the coordinates for dim " + std::to_string(dim) + " must have " +
           std::to_string(f.sizes()[static_cast<size_t>(dim)]) + " elements (the dim's size), got " +
           std::to_string(v.t.sizes()[0]));
    return gradient_along(f, dim, to_dtype(v.t, f.dtype()), edge_order);
  }
  if (v.tag == Tag::Tensor && v.t.dim() > 1)
    fail("gradient(): argument 'spacing' must hold numbers or 1-D coordinate tensors, got a tensor of shape " +
         v.t.shape_str() + " for dim " + std::to_string(dim));
  const double h = v.tag == Tag::Tensor ? v.t.item() : as_num(v, fn_arg("gradient", "spacing"));
  return uniform_gradient_along(f, dim, h, edge_order);
}

Value gradient_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("gradient", a, {"input", "spacing", "dim", "edge_order"}, 1);
  Tensor f = arg(b, 0, "gradient", "input");
  if (!is_floating(f.dtype())) f = to_dtype(f, DType::f32);
  if (f.dim() == 0) fail("gradient(): argument 'input' must be at least 1-D, got a 0-dim tensor");
  const int64_t edge_order = b.has(3) ? as_int(b[3], fn_arg("gradient", "edge_order")) : 1;
  if (edge_order != 1 && edge_order != 2)
    fail("gradient(): argument 'edge_order' must be 1 or 2, got " + std::to_string(edge_order));
  IntList dims;
  if (!b.has(2)) {
    for (int64_t d = 0; d < f.dim(); ++d) dims.push_back(d);
  } else {
    dims = b[2].tag == Tag::Int ? IntList{b[2].i} : as_ints(b[2], fn_arg("gradient", "dim"));
    for (int64_t& d : dims) d = dim_in(d, f.dim(), "gradient");
    for (size_t k = 0; k < dims.size(); ++k)  // PyTorch's rule: [0, 0] is a mistake, not two answers
      if (std::count(dims.begin(), dims.begin() + static_cast<std::ptrdiff_t>(k), dims[k]))
        fail("gradient(): argument 'dim': dim " + std::to_string(dims[k]) + " appears more than once");
  }
  // spacing: one number for all dims, or a list (tuple) of numbers or coordinate tensors, one per dim
  std::vector<Value> spacing;
  if (b.has(1) && (b[1].tag == Tag::List || b[1].tag == Tag::Tuple)) {
    spacing = b[1].as<ListObj>()->items;
    if (spacing.size() != dims.size())
      fail("gradient(): argument 'spacing' must have one entry per dim (" + std::to_string(dims.size()) + "), got " +
           std::to_string(spacing.size()));
  } else {
    spacing.assign(dims.size(), b.has(1) ? b[1] : Value::number(1.0));
  }
  TensorList out;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (f.sizes()[static_cast<size_t>(dims[k])] < edge_order + 1)
      fail("gradient(): each dim must have at least edge_order + 1 = " + std::to_string(edge_order + 1) +
           " elements, dim " + std::to_string(dims[k]) + " has " + std::to_string(f.sizes()[static_cast<size_t>(dims[k])]));
    out.push_back(gradient_along_spacing(spacing[k], f, dims[k], edge_order));
  }
  return tuple_of(out);
}

// ---- BLAS-style sums, scatters, predicates ----------------------------------------------

// beta * input + alpha * product, PyTorch's addmm family: beta = 0 ignores input (NaN in
// it does not reach the result), as PyTorch's.
Tensor beta_alpha_sum(const Bound& b, size_t beta_at, const Tensor& input, const Tensor& product, const char* fname) {
  const double beta = b.has(beta_at) ? as_num(b[beta_at], fn_arg(fname, "beta")) : 1.0;
  const double alpha = b.has(beta_at + 1) ? as_num(b[beta_at + 1], fn_arg(fname, "alpha")) : 1.0;
  Tensor scaled = alpha == 1.0 ? product : product * alpha;
  if (beta == 0.0) return scaled + zeros_like(input);  // input's shape, not its values
  return (beta == 1.0 ? input : input * beta) + scaled;
}

Tensor matrix_of(const Bound& b, size_t k, const char* fname, const char* name, int64_t dims) {
  Tensor t = arg(b, k, fname, name);
  if (t.dim() != dims)
    fail(std::string(fname) + "(): argument '" + name + "' must be " + std::to_string(dims) + "-D, got shape " + t.shape_str());
  return t;
}

// torch.addmv: beta * input + alpha * (mat @ vec).
Value addmv_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("addmv", a, {"input", "mat", "vec", "beta", "alpha"}, 3);
  Tensor m = matrix_of(b, 1, "addmv", "mat", 2), v = matrix_of(b, 2, "addmv", "vec", 1);
  if (m.sizes()[1] != v.sizes()[0]) fail("addmv(): mat " + m.shape_str() + " and vec " + v.shape_str() + " cannot be multiplied");
  return Value::tensor(beta_alpha_sum(b, 3, arg(b, 0, "addmv", "input"), matmul(m, v), "addmv"));
}

// torch.addr: beta * input + alpha * outer(vec1, vec2).
Value addr_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("addr", a, {"input", "vec1", "vec2", "beta", "alpha"}, 3);
  Tensor v1 = matrix_of(b, 1, "addr", "vec1", 1), v2 = matrix_of(b, 2, "addr", "vec2", 1);
  return Value::tensor(beta_alpha_sum(b, 3, arg(b, 0, "addr", "input"), unsqueeze(v1, 1) * unsqueeze(v2, 0), "addr"));
}

// torch.addbmm: beta * input + alpha * the sum over the batch of batch1[i] @ batch2[i].
Value addbmm_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("addbmm", a, {"input", "batch1", "batch2", "beta", "alpha"}, 3);
  Tensor b1 = matrix_of(b, 1, "addbmm", "batch1", 3), b2 = matrix_of(b, 2, "addbmm", "batch2", 3);
  if (b1.sizes()[0] != b2.sizes()[0] || b1.sizes()[2] != b2.sizes()[1])
    fail("addbmm(): batch1 " + b1.shape_str() + " and batch2 " + b2.shape_str() + " cannot be multiplied batch by batch");
  return Value::tensor(beta_alpha_sum(b, 3, arg(b, 0, "addbmm", "input"), sum(matmul(b1, b2), {0}), "addbmm"));
}

// torch.chain_matmul(*matrices): their product left to right (PyTorch's older multi_dot).
Value chain_matmul_builtin(Evaluator&, CallArgs& a) {
  if (!a.kw.empty()) fail("chain_matmul() takes no keyword arguments");
  if (a.pos.empty()) fail("chain_matmul() needs at least one matrix");
  Tensor out;
  for (size_t k = 0; k < a.pos.size(); ++k) {
    Tensor m = required_input(a.pos[k], "chain_matmul", "matrices");
    if (m.dim() != 2) fail("chain_matmul(): matrix " + std::to_string(k) + " must be 2-D, got shape " + m.shape_str());
    if (k > 0 && out.sizes()[1] != m.sizes()[0])
      fail("chain_matmul(): matrix " + std::to_string(k) + " of shape " + m.shape_str() + " cannot follow a product of shape " + out.shape_str());
    out = k == 0 ? m : matmul(out, m);
  }
  return Value::tensor(out);
}

// torch.select_scatter: input with its index-th slice along dim replaced by src.
Value select_scatter_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("select_scatter", a, {"input", "src", "dim", "index"}, 4);
  Tensor x = arg(b, 0, "select_scatter", "input"), src = arg(b, 1, "select_scatter", "src");
  if (x.dim() == 0) fail("select_scatter(): argument 'input' must be at least 1-D, got a 0-dim tensor");
  const int64_t dim = dim_in(as_int(b[2], fn_arg("select_scatter", "dim")), x.dim(), "select_scatter");
  const int64_t n = x.sizes()[static_cast<size_t>(dim)];
  int64_t index = as_int(b[3], fn_arg("select_scatter", "index"));
  if (index < -n || index >= n)
    fail("select_scatter(): index " + std::to_string(index) + " is out of range for dim " + std::to_string(dim) + " of size " + std::to_string(n));
  if (index < 0) index += n;
  IntList want = composite_args::shape_of(x);
  want.erase(want.begin() + dim);
  if (composite_args::shape_of(src) != want)
    fail("select_scatter(): src must have the selected slice's shape " + composite_args::ints_str(want) + ", got " + src.shape_str());
  return Value::tensor(cat({slice(x, dim, 0, index), unsqueeze(to_dtype(src, x.dtype()), dim), slice(x, dim, index + 1, n)}, dim));
}

// torch.slice_scatter: input with input[start:end:step] along dim replaced by src.
Value slice_scatter_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("slice_scatter", a, {"input", "src", "dim", "start", "end", "step"}, 2);
  Tensor x = arg(b, 0, "slice_scatter", "input"), src = arg(b, 1, "slice_scatter", "src");
  if (x.dim() == 0) fail("slice_scatter(): argument 'input' must be at least 1-D, got a 0-dim tensor");
  const int64_t dim = b.has(2) ? dim_in(as_int(b[2], fn_arg("slice_scatter", "dim")), x.dim(), "slice_scatter") : 0;
  const int64_t n = x.sizes()[static_cast<size_t>(dim)];
  auto bound = [&](size_t k, int64_t fallback) {
    if (!b.has(k) || b[k].tag == Tag::None) return fallback;
    int64_t v = as_int(b[k], fn_arg("slice_scatter", k == 3 ? "start" : "end"));
    return std::clamp<int64_t>(v < 0 ? v + n : v, 0, n);
  };
  const int64_t start = bound(3, 0), end = std::max(bound(4, n), start);
  const int64_t step = b.has(5) ? as_int(b[5], fn_arg("slice_scatter", "step")) : 1;
  if (step < 1) fail("slice_scatter(): step must be at least 1, got " + std::to_string(step));
  IntList want = composite_args::shape_of(x);
  want[static_cast<size_t>(dim)] = (end - start + step - 1) / step;
  if (composite_args::shape_of(src) != want)
    fail("slice_scatter(): src must have the slice's shape " + composite_args::ints_str(want) + ", got " + src.shape_str());
  CallArgs call;
  std::vector<double> positions;
  for (int64_t k = start; k < end; k += step) positions.push_back(static_cast<double>(k));
  Tensor index = to_device(tensor_from(positions, {static_cast<int64_t>(positions.size())}, DType::i64), x.device());
  call.pos = {Value::integer(dim), Value::tensor(index),
              Value::tensor(to_dtype(src, x.dtype()))};
  return ev.call_method(Value::tensor(x), "index_copy", call);
}

// torch.isposinf / isneginf / isreal / positive.
Value isposinf_builtin(Evaluator&, CallArgs& a) {
  Tensor x = arg(bind("isposinf", a, {"input"}, 1), 0, "isposinf", "input");
  return Value::tensor(is_floating(x.dtype()) ? eq(x, number_like(std::numeric_limits<double>::infinity(), x))
                                              : to_dtype(zeros_like(x), DType::b8));
}
Value isneginf_builtin(Evaluator&, CallArgs& a) {
  Tensor x = arg(bind("isneginf", a, {"input"}, 1), 0, "isneginf", "input");
  return Value::tensor(is_floating(x.dtype()) ? eq(x, number_like(-std::numeric_limits<double>::infinity(), x))
                                              : to_dtype(zeros_like(x), DType::b8));
}
Value isreal_builtin(Evaluator&, CallArgs& a) {  // nabla's tensors are real
  Tensor x = arg(bind("isreal", a, {"input"}, 1), 0, "isreal", "input");
  Tensor none_false = to_dtype(zeros_like(x), DType::b8);
  return Value::tensor(eq(none_false, none_false));
}
Value positive_builtin(Evaluator&, CallArgs& a) {
  Tensor x = arg(bind("positive", a, {"input"}, 1), 0, "positive", "input");
  if (x.dtype() == DType::b8) fail("positive(): argument 'input' must not be a bool tensor, as PyTorch's");
  return Value::tensor(alias(x));
}

// torch.cumulative_trapezoid: the running trapezoidal integral along dim (one value fewer).
Value cumulative_trapezoid_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("cumulative_trapezoid", a, {"y", "x", "dx", "dim"}, 1);
  Tensor y = arg(b, 0, "cumulative_trapezoid", "y");
  if (!is_floating(y.dtype())) y = to_dtype(y, DType::f32);
  if (y.dim() == 0) fail("cumulative_trapezoid(): argument 'y' must be at least 1-D, got a 0-dim tensor");
  const int64_t dim = b.has(3) ? dim_in(as_int(b[3], fn_arg("cumulative_trapezoid", "dim")), y.dim(), "cumulative_trapezoid") : y.dim() - 1;
  const int64_t n = y.sizes()[static_cast<size_t>(dim)];
  if (b.has(1) && b[1].tag != Tag::None && b.has(2) && b[2].tag != Tag::None)
    fail("cumulative_trapezoid(): give x or dx, not both");
  Tensor mids = (slice(y, dim, 1, std::max<int64_t>(n, 1)) + slice(y, dim, 0, std::max<int64_t>(n - 1, 0))) * 0.5;
  if (b.has(1) && b[1].tag != Tag::None) {
    Tensor x = to_dtype(arg(b, 1, "cumulative_trapezoid", "x"), y.dtype());
    if (x.dim() == 1) {
      if (x.sizes()[0] != n) fail("cumulative_trapezoid(): x must have " + std::to_string(n) + " elements (y's size along dim), got " + std::to_string(x.sizes()[0]));
      IntList shape(static_cast<size_t>(y.dim()), 1);
      shape[static_cast<size_t>(dim)] = n;
      x = reshape(x, shape);
    }
    const int64_t xd = x.dim() == y.dim() ? dim : dim_in(dim - y.dim(), x.dim(), "cumulative_trapezoid");
    mids = mids * (slice(x, xd, 1, std::max<int64_t>(n, 1)) - slice(x, xd, 0, std::max<int64_t>(n - 1, 0)));
  } else if (b.has(2) && b[2].tag != Tag::None) {
    mids = mids * as_num(b[2], fn_arg("cumulative_trapezoid", "dx"));
  }
  return Value::tensor(cumsum(mids, dim));
}

// torch.masked_scatter: input with the places where mask holds taken, in order, from
// source's elements; differentiable in input and source. Input and mask broadcast
// together, as PyTorch's (a mask of more dims than input failed in expand).
Value masked_scatter_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("masked_scatter", a, {"input", "mask", "source"}, 3);
  Tensor x = arg(b, 0, "masked_scatter", "input"), mask = arg(b, 1, "masked_scatter", "mask");
  Tensor source = composite_args::source_like(b[2], x, "masked_scatter", "source");
  if (mask.dtype() != DType::b8) fail(std::string("masked_scatter(): argument 'mask' must be a bool tensor, got ") + dtype_name(mask.dtype()));
  composite_args::check_broadcast("masked_scatter", {{"input", x}, {"mask", mask}});
  const Shape joint = broadcast_shapes("masked_scatter", x.sizes(), mask.sizes(), "input", "mask");
  const IntList shape(joint.begin(), joint.end());
  if (joint != x.sizes()) x = expand(x, shape);
  Tensor m = expand(mask, shape);
  Tensor picks = cumsum(to_dtype(flatten(m), DType::i64), 0);  // 1-based place in source
  const int64_t taken = x.numel() == 0 ? 0 : static_cast<int64_t>(slice(picks, 0, x.numel() - 1, x.numel()).item());
  if (taken > source.numel())
    fail("masked_scatter(): the mask selects " + std::to_string(taken) + " elements, source has only " + std::to_string(source.numel()));
  if (taken == 0) return Value::tensor(alias(x));
  Tensor at = where(flatten(m), picks - number_like(1.0, picks), zeros_like(picks));
  Tensor taken_values = reshape(index_select(flatten(to_dtype(source, x.dtype())), 0, at), composite_args::shape_of(x));
  return Value::tensor(where(m, taken_values, x));
}

// torch.put: input's flat elements at index set to (or, accumulate=true, added) source's.
Value put_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("put", a, {"input", "index", "source", "accumulate"}, 3);
  Tensor x = arg(b, 0, "put", "input"), index = arg(b, 1, "put", "index");
  Tensor source = composite_args::source_like(b[2], x, "put", "source");
  if (!is_index_type(index.dtype())) fail(std::string("put(): argument 'index' must be an integer tensor, got ") + dtype_name(index.dtype()));
  if (index.numel() != source.numel())
    fail("put(): index has " + std::to_string(index.numel()) + " elements, source " + std::to_string(source.numel()) + "; they must match");
  const int64_t n = x.numel();
  std::vector<double> places;
  for (int64_t i : composite_args::host_ints(to_dtype(flatten(index), DType::i64), "put(): index")) {
    if (i < -n || i >= n) fail("put(): index " + std::to_string(i) + " is out of range for a tensor of " + std::to_string(n) + " elements");
    places.push_back(static_cast<double>(i < 0 ? i + n : i));
  }
  const bool accumulate = b.has(3) && as_bool(b[3], fn_arg("put", "accumulate"));
  CallArgs call;
  call.pos = {Value::integer(0), Value::tensor(to_device(tensor_from(places, {static_cast<int64_t>(places.size())}, DType::i64), x.device())),
              Value::tensor(flatten(to_dtype(source, x.dtype())))};
  Value flat = ev.call_method(Value::tensor(flatten(x)), accumulate ? "index_add" : "index_copy", call);
  return Value::tensor(reshape(flat.t, composite_args::shape_of(x)));
}

// x.fill_diagonal_(fill_value, wrap=false): the main diagonal (i, i, ..., i) set in place,
// through masked_fill_ (so autograd's in-place rules hold); a tall matrix with wrap=true
// starts the diagonal again every cols + 1 rows, as PyTorch's.
Value fill_diagonal_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("fill_diagonal_", a, {"input", "fill_value", "wrap"}, 2);
  Tensor x = arg(b, 0, "fill_diagonal_", "input");
  if (x.dim() < 2) fail("fill_diagonal_(): the tensor must have at least 2 dims, got shape " + x.shape_str());
  if (x.dim() > 2)
    for (int64_t s : x.sizes())
      if (s != x.sizes()[0]) fail("fill_diagonal_(): all dims must have the same length beyond 2 dims, got shape " + x.shape_str());
  const bool wrap = b.has(2) && as_bool(b[2], fn_arg("fill_diagonal_", "wrap"));
  const int64_t n = x.numel(), cols = x.sizes()[static_cast<size_t>(x.dim() - 1)];
  int64_t step = 0, count = x.sizes()[0];  // flat distance between diagonal elements; how many
  int64_t stride = 1;  // the contiguous strides, last dim first, summed
  for (int64_t d = x.dim() - 1; d >= 0; --d) {
    step += stride;
    stride *= x.sizes()[static_cast<size_t>(d)];
  }
  if (x.dim() == 2) count = wrap ? (n + cols) / (cols + 1) : std::min(x.sizes()[0], cols);
  std::vector<double> mask(static_cast<size_t>(n), 0.0);
  for (int64_t k = 0; k < count && k * step < n; ++k) mask[static_cast<size_t>(k * step)] = 1.0;
  CallArgs call;
  call.pos = {Value::tensor(to_device(tensor_from(mask, composite_args::shape_of(x), DType::b8), x.device())), b[1]};
  return ev.call_method(b[0], "masked_fill_", call);
}

// ---- histogram -----------------------------------------------------------------------------

// The bin edges: `bins` + 1 evenly from range (or the data's min and max, widened by 0.5
// each way when they are equal, [0, 1] for no data), or the given edges.
std::vector<double> histogram_edges(const Bound& b, const std::vector<double>& values) {
  if (b[1].tag == Tag::Tensor) {
    if (b[1].t.dim() != 1 || b[1].t.numel() < 2)
      fail("histogram(): bins given as edges must be a 1-D tensor of at least 2 edges, got shape " + b[1].t.shape_str());
    std::vector<double> edges = composite_args::host_doubles(b[1].t, "histogram(): bins");
    for (size_t k = 1; k < edges.size(); ++k)
      if (!(edges[k] >= edges[k - 1])) fail("histogram(): bin edges must be increasing, got " + repr(b[1]));
    return edges;
  }
  const int64_t bins = as_int(b[1], fn_arg("histogram", "bins"));
  if (bins < 1) fail("histogram(): bins must be at least 1, got " + std::to_string(bins));
  double lo = 0, hi = 0;
  if (b.has(2) && b[2].tag != Tag::None) {
    std::vector<double> range = as_numbers(b[2], fn_arg("histogram", "range"));
    if (range.size() != 2 || !(range[0] <= range[1]) || !std::isfinite(range[0]) || !std::isfinite(range[1]))
      fail("histogram(): range must be two finite numbers (min, max) with min <= max, got " + repr(b[2]));
    lo = range[0], hi = range[1];
  } else if (!values.empty()) {
    for (double v : values)
      if (!std::isfinite(v)) fail("histogram(): the input holds NaN or infinite values; give range= to bin the finite ones");
    lo = *std::min_element(values.begin(), values.end());
    hi = *std::max_element(values.begin(), values.end());
  } else {
    hi = 1;
  }
  if (lo == hi) lo -= 0.5, hi += 0.5;
  // All that is held at once per bin: the edges and the counts on the host, and the two
  // tensors made from them. Asking for the edges alone let bins=2**31 pass (16 GB of
  // 22) and then grow past the machine's memory until the kernel killed nabla.
  ask_host_memory(bins + 1, 4 * sizeof(double), "histogram(): " + std::to_string(bins) + " bins");
  std::vector<double> edges(static_cast<size_t>(bins + 1));
  // PyTorch's linspace: the first half stepped from lo, the second back from hi, so the
  // last edge is hi exactly (the maximum is counted) and the edges are PyTorch's bit for bit
  const double step = (hi - lo) / static_cast<double>(bins);
  const int64_t half = (bins + 1) / 2;
  for (int64_t k = 0; k <= bins; ++k)
    edges[static_cast<size_t>(k)] = k < half ? lo + step * static_cast<double>(k) : hi - step * static_cast<double>(bins - k);
  return edges;
}

// torch.histogram: (hist, bin_edges), counts (or weights) per bin, the last bin closed,
// values outside the edges left out; density=true divides by the total times each bin's
// width. Found on the host, not differentiable (as PyTorch's).
Value histogram_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("histogram", a, {"input", "bins", "range", "weight", "density"}, 2);
  Tensor x = arg(b, 0, "histogram", "input");
  if (!is_floating(x.dtype())) fail(std::string("histogram(): argument 'input' must be a floating tensor, got ") + dtype_name(x.dtype()));
  std::vector<double> values = composite_args::host_doubles(x, "histogram(): input");
  std::vector<double> weights;
  if (b.has(3) && b[3].tag != Tag::None) {
    Tensor w = arg(b, 3, "histogram", "weight");
    if (w.sizes() != x.sizes()) fail("histogram(): weight must have input's shape " + x.shape_str() + ", got " + w.shape_str());
    weights = composite_args::host_doubles(w, "histogram(): weight");
  }
  const bool density = b.has(4) && as_bool(b[4], fn_arg("histogram", "density"));
  std::vector<double> edges = histogram_edges(b, values);
  const size_t bins = edges.size() - 1;
  std::vector<double> hist(bins, 0.0);
  for (size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    if (!(v >= edges.front() && v <= edges.back())) continue;  // outside, or NaN
    size_t k = static_cast<size_t>(std::upper_bound(edges.begin(), edges.end(), v) - edges.begin());
    k = std::min(k == 0 ? 0 : k - 1, bins - 1);  // the last edge is in the last bin
    hist[k] += weights.empty() ? 1.0 : weights[i];
  }
  if (density) {
    double total = 0;
    for (double h : hist) total += h;
    for (size_t k = 0; k < bins; ++k) hist[k] /= total * (edges[k + 1] - edges[k]);
  }
  static const std::vector<std::string> names = {"hist", "bin_edges"};
  Value t = make_tuple({Value::tensor(to_device(tensor_from(hist, {static_cast<int64_t>(bins)}, x.dtype()), x.device())),
                        Value::tensor(to_device(tensor_from(edges, {static_cast<int64_t>(edges.size())}, x.dtype()), x.device()))});
  t.as<ListObj>()->field_names = &names;
  return t;
}

// x.new_tensor(data): data (a number, a nested list or a tensor, copied and detached) as
// a tensor of x's dtype and device unless dtype= or device= say otherwise, as
// torch.Tensor.new_tensor.
Value new_tensor_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("new_tensor", a, {"input", "data", "dtype", "device", "requires_grad"}, 2);
  Tensor x = arg(b, 0, "new_tensor", "input");
  if (b[1].tag == Tag::None) fail("new_tensor(): argument 'data' must be a number, a list or a tensor, got none");
  const DType dt = b.has(2) && b[2].tag != Tag::None ? as_dtype(b[2], fn_arg("new_tensor", "dtype")) : x.dtype();
  Tensor data = b[1].tag == Tag::Tensor ? detach_op(b[1].t) : tensor_from_value(b[1], dt);  // numbers must fit dt
  const Device device = b.has(3) && b[3].tag != Tag::None ? as_device(b[3], fn_arg("new_tensor", "device")) : x.device();
  Tensor out = clone_tensor(to_device(to_dtype(data, dt), device));
  if (b.has(4) && as_bool(b[4], fn_arg("new_tensor", "requires_grad"))) out.set_requires_grad(true);
  return Value::tensor(out);
}

// ---- dtype promotion ----------------------------------------------------------------

// A number's dtype as torch.result_type reads a lone Python scalar: bool, i64 or the
// default float (f32).
DType number_dtype(const Value& v) {
  if (v.tag == Tag::Bool) return DType::b8;
  return v.tag == Tag::Int ? DType::i64 : DType::f32;
}

// torch.result_type: the dtype an arithmetic op of the two operands gives (a number
// does not widen a tensor of its kind, a 0-dim tensor does not widen a dimensioned one).
Value result_type_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("result_type", a, {"tensor1", "tensor2"}, 2);
  for (size_t k = 0; k < 2; ++k)
    if (b[k].tag != Tag::Tensor && !b[k].is_num())
      fail(std::string("result_type(): argument '") + (k == 0 ? "tensor1" : "tensor2") +
           "' must be a tensor or a number, got " + type_name(b[k]));
  const bool t0 = b[0].tag == Tag::Tensor, t1 = b[1].tag == Tag::Tensor;
  if (t0 && t1) return Value::dtype(result_type({b[0].t, b[1].t}));
  if (t0) return Value::dtype(result_type({b[0].t, operand(b[1], b[0].t, "result_type", "tensor2")}));
  if (t1) return Value::dtype(result_type({b[1].t, operand(b[0], b[1].t, "result_type", "tensor1")}));
  return Value::dtype(promote_types(number_dtype(b[0]), number_dtype(b[1])));
}

Value promote_types_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("promote_types", a, {"type1", "type2"}, 2);
  return Value::dtype(promote_types(as_dtype(b[0], fn_arg("promote_types", "type1")),
                                    as_dtype(b[1], fn_arg("promote_types", "type2"))));
}

// torch.can_cast: whether casting `from` to `to` keeps its kind or widens it (bool to
// integer to floating), as PyTorch's casting rule for in-place results.
Value can_cast_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("can_cast", a, {"from_", "to"}, 2);
  return Value::boolean(can_cast(as_dtype(b[0], fn_arg("can_cast", "from_")), as_dtype(b[1], fn_arg("can_cast", "to"))));
}

// Note [torch.* names of torch.special's functions]
// torch.erfc, torch.erfinv, torch.i0 and torch.mvlgamma (and x.erfc(), ...) are
// stdlib/special.dsl's functions, called with the builtin's arguments as given: one
// definition (composites of ops, so any order of gradient) under both paths. The module
// is imported at the first call.
Value call_special(Evaluator& ev, const char* name, CallArgs& a) {
  std::shared_ptr<Module> module = ev.find_module("special");
  if (!module) fail(std::string(name) + "(): the standard library's special module is missing");
  return ev.call_value(ev.get_attr(Value::object(Tag::Module, module), name), a);
}
Value erfc_builtin(Evaluator& ev, CallArgs& a) { return call_special(ev, "erfc", a); }
Value erfinv_builtin(Evaluator& ev, CallArgs& a) { return call_special(ev, "erfinv", a); }
Value i0_builtin(Evaluator& ev, CallArgs& a) { return call_special(ev, "i0", a); }
Value mvlgamma_builtin(Evaluator& ev, CallArgs& a) { return call_special(ev, "multigammaln", a); }

const BuiltinEntry kCompositeTorchGaps7[] = {
    {"addmv", addmv_builtin, "addmv(input, mat, vec, beta=1, alpha=1)",
     "beta * input + alpha * (mat @ vec), as torch.addmv. Example: addmv(zeros(2), ones([2, 3]), ones(3))"},
    {"addr", addr_builtin, "addr(input, vec1, vec2, beta=1, alpha=1)",
     "beta * input + alpha * outer(vec1, vec2), as torch.addr. Example: addr(zeros([2, 3]), ones(2), ones(3))"},
    {"addbmm", addbmm_builtin, "addbmm(input, batch1, batch2, beta=1, alpha=1)",
     "beta * input + alpha * the sum over the batch of batch1[i] @ batch2[i], as torch.addbmm. "
     "Example: addbmm(zeros([2, 2]), ones([3, 2, 4]), ones([3, 4, 2]))"},
    {"chain_matmul", chain_matmul_builtin, "chain_matmul(*matrices)",
     "The product of the matrices left to right, as torch.chain_matmul. Example: chain_matmul(ones([2, 3]), ones([3, 4]))"},
    {"select_scatter", select_scatter_builtin, "select_scatter(input, src, dim, index)",
     "input with its index-th slice along dim replaced by src (differentiable in both), as torch.select_scatter. "
     "Example: select_scatter(zeros([2, 3]), ones(3), 0, 1)"},
    {"slice_scatter", slice_scatter_builtin, "slice_scatter(input, src, dim=0, start=none, end=none, step=1)",
     "input with input[start:end:step] along dim replaced by src, as torch.slice_scatter. "
     "Example: slice_scatter(zeros([4, 2]), ones([2, 2]), 0, 0, 4, 2)"},
    {"isposinf", isposinf_builtin, "isposinf(input)", "Where input is +inf, as torch.isposinf. Example: isposinf(tensor([1.0, float(\"inf\")]))"},
    {"isneginf", isneginf_builtin, "isneginf(input)", "Where input is -inf, as torch.isneginf. Example: isneginf(tensor([1.0, -float(\"inf\")]))"},
    {"isreal", isreal_builtin, "isreal(input)",
     "true everywhere: nabla's tensors are real, as torch.isreal of a real tensor. Example: isreal(tensor([1.0, 2.0]))"},
    {"positive", positive_builtin, "positive(input)", "input itself (an alias), as torch.positive. Example: positive(tensor([-1.0, 2.0]))"},
    {"cumulative_trapezoid", cumulative_trapezoid_builtin, "cumulative_trapezoid(y, x=none, dx=none, dim=-1)",
     "The running trapezoidal integral of y along dim (one value fewer), with sample positions x or a spacing dx, "
     "as torch.cumulative_trapezoid. Example: cumulative_trapezoid(tensor([1.0, 2.0, 4.0]))"},
    {"masked_scatter", masked_scatter_builtin, "masked_scatter(input, mask, source)",
     "input with the places where mask holds taken in order from source's elements, as torch.masked_scatter. "
     "Example: masked_scatter(zeros(3), tensor([true, false, true]), tensor([1.0, 2.0]))"},
    {"put", put_builtin, "put(input, index, source, accumulate=false)",
     "input's flat elements at index set to source's (added with accumulate=true), as torch.put (x.put_ in "
     "place). Example: put(zeros([2, 2]), tensor([0, 3]), tensor([1.0, 2.0]))"},
    {"fill_diagonal_", fill_diagonal_builtin, "fill_diagonal_(input, fill_value, wrap=false)",
     "The main diagonal of input set to fill_value in place (wrap=true restarts it every cols + 1 rows of a tall "
     "matrix); returns input, as Tensor.fill_diagonal_. Example: zeros([3, 3]).fill_diagonal_(1.0)"},
    {"histogram", histogram_builtin, "histogram(input, bins, range=none, weight=none, density=false)",
     "(hist, bin_edges): the count (or summed weight) of input's elements in each of bins even bins over range "
     "(the data's min and max by default) or between given edges, as torch.histogram. "
     "Example: histogram(tensor([1.0, 2.0, 1.0]), 4)"},
    {"new_tensor", new_tensor_builtin, "new_tensor(input, data, dtype=none, device=none, requires_grad=false)",
     "data (a number, a list or a tensor, copied) as a tensor of input's dtype and device, as "
     "torch.Tensor.new_tensor. Example: zeros(2, dtype=f64).new_tensor([1, 2])"},
    {"result_type", result_type_builtin, "result_type(tensor1, tensor2)",
     "The dtype arithmetic on the two operands (tensors or numbers) gives, as torch.result_type. "
     "Example: result_type(tensor([1, 2]), 2.5)"},
    {"promote_types", promote_types_builtin, "promote_types(type1, type2)",
     "The smallest dtype both dtypes convert to without losing their kind, as torch.promote_types. "
     "Example: promote_types(i32, f32)"},
    {"can_cast", can_cast_builtin, "can_cast(from_, to)",
     "Whether a value of dtype from_ may be cast to dtype to under PyTorch's casting rule (no float to "
     "integer, no integer to bool), as torch.can_cast. Example: can_cast(i64, f32)"},
    {"erfc", erfc_builtin, "erfc(input)",
     "1 - erf(x) of each element, accurate in the tail, as torch.erfc (special.erfc). Example: erfc(tensor([0.0, 10.0]))"},
    {"erfinv", erfinv_builtin, "erfinv(input)",
     "The inverse error function of each element, as torch.erfinv (special.erfinv). Example: erfinv(tensor([0.0, 0.5]))"},
    {"i0", i0_builtin, "i0(input)",
     "The modified Bessel function of the first kind of order 0, as torch.i0 (special.i0). Example: i0(tensor([0.0, 1.0]))"},
    {"mvlgamma", mvlgamma_builtin, "mvlgamma(input, p)",
     "The multivariate log-gamma of dimension p, as torch.mvlgamma (special.multigammaln). "
     "Example: mvlgamma(tensor([2.5, 3.0]), 2)"},
    {"ldexp", ldexp_builtin, "ldexp(input, other)",
     "input * 2 ** other, as torch.ldexp (floating; an integer input computes in f32). "
     "Example: ldexp(tensor([1.0, 3.0]), tensor([2, 3]))"},
    {"diagflat", diagflat_builtin, "diagflat(input, offset=0)",
     "The flattened input on the offset-th diagonal of a square matrix, as torch.diagflat. "
     "Example: diagflat(tensor([[1.0, 2.0], [3.0, 4.0]]))"},
    {"adjoint", adjoint_builtin, "adjoint(input)",
     "The last two dims swapped (the conjugate transpose of a real tensor), as torch.adjoint. "
     "Example: adjoint(ones([2, 3]))"},
    {"hsplit", hsplit_builtin, "hsplit(input, indices_or_sections)",
     "tensor_split along dim 1 (dim 0 of a 1-D input); a number of sections must divide the dim, as torch.hsplit. "
     "Example: hsplit(arange(6.0).reshape(2, 3), 3)"},
    {"vsplit", vsplit_builtin, "vsplit(input, indices_or_sections)",
     "tensor_split along dim 0 of an input of 2 or more dims, as torch.vsplit. Example: vsplit(arange(6.0).reshape(3, 2), [1])"},
    {"dsplit", dsplit_builtin, "dsplit(input, indices_or_sections)",
     "tensor_split along dim 2 of an input of 3 or more dims, as torch.dsplit. Example: dsplit(ones([1, 2, 4]), 2)"},
    {"combinations", combinations_builtin, "combinations(input, r=2, with_replacement=false)",
     "The r-length combinations of a 1-D input's elements as rows, in itertools' order, as torch.combinations. "
     "Example: combinations(tensor([1, 2, 3]), r=2)"},
    {"gradient", gradient_builtin, "gradient(input, spacing=1, dim=none, edge_order=1)",
     "The derivative estimated by central differences along each dim (or the given dims), one-sided of order "
     "edge_order at the ends, with a uniform spacing or sample coordinates per dim; a tuple, as torch.gradient. "
     "Example: gradient(tensor([1.0, 4.0, 9.0, 16.0]))"},
};

}  // namespace

std::span<const BuiltinEntry> composite_torch_gaps7() { return kCompositeTorchGaps7; }

}  // namespace nabla::interp
