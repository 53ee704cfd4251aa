// PyTorch's functions that build a tensor from shapes or from other tensors:
// tril_indices and triu_indices (positions, from the sizes alone), broadcast_shapes
// and broadcast_tensors, and meshgrid,
// cartesian_prod, block_diag, vander, the atleast_nd stacks and tensordot, made of table ops (Note [Composites] in composites.hpp) so
// they differentiate to any order and compile. tests/stdlib/test_torch_surface.dsl
// checks them against PyTorch in f64, gradients included.
#include <algorithm>
#include <string>
#include <vector>

#include "autograd/ops.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/composites/composites.hpp"
#include "tensor/allocator.hpp"

namespace nabla::interp {

namespace {

using composite_args::ask_host_memory;
using composite_args::fn_arg;
using composite_args::index_tensor;
using composite_args::ints_str;

// The (row, col) positions of an n x m matrix on one side of diagonal `offset`, row by
// row, as a [2, N] tensor: below (col <= row + offset) or above (col >= row + offset).
Value triangle_indices(CallArgs& a, const char* fname, bool lower) {
  Bound b = bind(fname, a, {"row", "col", "offset", "dtype", "device"}, 2);
  const int64_t rows = as_int(b[0], fn_arg(fname, "row")), cols = as_int(b[1], fn_arg(fname, "col"));
  const int64_t offset = b.has(2) ? as_int(b[2], fn_arg(fname, "offset")) : 0;
  if (rows < 0 || cols < 0) fail(std::string(fname) + "(): row and col must not be negative");
  const DType dt = b.has(3) ? as_dtype(b[3], fn_arg(fname, "dtype")) : DType::i64;
  if (dt != DType::i64 && dt != DType::i32) fail(std::string(fname) + "(): dtype must be i64 or i32");
  const Device device = b.has(4) ? as_device(b[4], fn_arg(fname, "device")) : cpu_device();
  ask_host_memory(rows, static_cast<size_t>(2 * sizeof(int64_t)) * static_cast<size_t>(std::max<int64_t>(cols, 1)),
                  std::string(fname) + "()");
  std::vector<int64_t> r, c;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      if (lower ? j - i <= offset : j - i >= offset) {
        r.push_back(i);
        c.push_back(j);
      }
  const int64_t n = static_cast<int64_t>(r.size());
  r.insert(r.end(), c.begin(), c.end());
  return Value::tensor(to_dtype(index_tensor(r, {2, n}, device), dt));
}
Value tril_indices_builtin(Evaluator&, CallArgs& a) { return triangle_indices(a, "tril_indices", true); }
Value triu_indices_builtin(Evaluator&, CallArgs& a) { return triangle_indices(a, "triu_indices", false); }

// The tensors of a *tensors call: separate arguments, or one list of them.
TensorList tensors_arg(CallArgs& a, const std::string& fname) {
  if (!a.kw.empty()) fail(fname + "() takes tensors only, got keyword '" + a.kw[0].first + "'");
  if (a.pos.size() == 1 && (a.pos[0].tag == Tag::List || a.pos[0].tag == Tag::Tuple))
    return tensor_list_arg(a.pos[0], fname + "(): tensors");
  TensorList out;
  for (size_t k = 0; k < a.pos.size(); ++k) out.push_back(required_input(a.pos[k], fname, "tensors"));
  return out;
}

// The broadcast of several shapes, by numpy's rule (sizes of 1 stretch, a missing
// leading dim is 1); `what(k)` names the k-th shape in the error.
template <typename Name>
IntList broadcast_all(const std::vector<IntList>& shapes, const char* fname, Name what) {
  IntList out;
  for (size_t k = 0; k < shapes.size(); ++k) {
    const IntList& s = shapes[k];
    if (s.size() > out.size()) out.insert(out.begin(), s.size() - out.size(), 1);
    const size_t lead = out.size() - s.size();
    for (size_t d = 0; d < s.size(); ++d) {
      int64_t& o = out[lead + d];
      if (s[d] == o || s[d] == 1) continue;
      if (o != 1)
        fail(std::string(fname) + "(): " + what(k) + " " + ints_str(s) + " cannot be broadcast with " +
             ints_str(out) + ", the shape of those before it (dim " +
             std::to_string(static_cast<int64_t>(d) - static_cast<int64_t>(s.size())) + ": " + std::to_string(s[d]) +
             " vs " + std::to_string(o) + ")");
      o = s[d];
    }
  }
  return out;
}

// torch.broadcast_shapes(*shapes): the shape they broadcast to, a tuple of ints.
Value broadcast_shapes_builtin(Evaluator&, CallArgs& a) {
  if (!a.kw.empty()) fail("broadcast_shapes() takes shapes only, got keyword '" + a.kw[0].first + "'");
  std::vector<IntList> shapes;
  for (const Value& v : a.pos)
    shapes.push_back(v.tag == Tag::Int ? IntList{v.i} : as_ints(v, "broadcast_shapes(): a shape"));
  for (const IntList& s : shapes)
    for (int64_t n : s)
      if (n < 0) fail("broadcast_shapes(): sizes must not be negative, got " + ints_str(s));
  std::vector<Value> out;
  for (int64_t n : broadcast_all(shapes, "broadcast_shapes", [](size_t k) { return "shape " + std::to_string(k); }))
    out.push_back(Value::integer(n));
  return make_tuple(std::move(out));
}

// torch.broadcast_tensors(*tensors): each expanded to their common shape (views whose
// gradients sum back, as expand's).
Value broadcast_tensors_builtin(Evaluator&, CallArgs& a) {
  TensorList ts = tensors_arg(a, "broadcast_tensors");
  std::vector<IntList> shapes;
  for (const Tensor& t : ts) shapes.emplace_back(t.sizes().begin(), t.sizes().end());
  IntList shape = broadcast_all(shapes, "broadcast_tensors", [](size_t k) { return "tensor " + std::to_string(k) + " of shape"; });
  std::vector<Value> out;
  for (const Tensor& t : ts) out.push_back(Value::tensor(expand(t, shape)));
  return make_tuple(std::move(out));
}

// torch.cartesian_prod: every combination of one element from each 1-D tensor, as rows
// of a [N, k] tensor (the first tensor varying slowest); one tensor is itself.
Value cartesian_prod_builtin(Evaluator&, CallArgs& a) {
  TensorList ts = tensors_arg(a, "cartesian_prod");
  if (ts.empty()) fail("cartesian_prod() expects at least one tensor");
  for (const Tensor& t : ts) {
    if (t.dim() != 1) fail("cartesian_prod(): expected 1-D tensors, got shape " + t.shape_str());
    if (t.dtype() != ts[0].dtype())
      fail(std::string("cartesian_prod(): expects all tensors to have the same dtype, got ") + dtype_name(ts[0].dtype()) +
           " and " + dtype_name(t.dtype()));
  }
  if (ts.size() == 1) return Value::tensor(alias(ts[0]));
  IntList grid;
  for (const Tensor& t : ts) grid.push_back(t.sizes()[0]);
  TensorList columns;
  for (size_t k = 0; k < ts.size(); ++k) {
    IntList at(ts.size(), 1);
    at[k] = grid[k];
    columns.push_back(reshape(expand(reshape(ts[k], at), grid), {-1}));
  }
  return Value::tensor(stack(columns, 1));
}

// torch.meshgrid: each 0-D or 1-D tensor expanded along its own dim of the grid
// (indexing="ij": the grid's dims in the tensors' order; "xy": the first two swapped,
// as numpy's), as views, so the gradient sums back to each input.
Value meshgrid_builtin(Evaluator&, CallArgs& a) {
  std::string indexing = "ij";
  CallArgs tensors = a;
  tensors.kw.clear();
  for (auto& [k, v] : a.kw) {
    if (k != "indexing") fail("meshgrid() got an unexpected keyword argument '" + k + "'");
    indexing = v.tag == Tag::Str ? v.as<StrObj>()->s : "";
  }
  if (indexing != "ij" && indexing != "xy") fail("meshgrid(): argument 'indexing' must be \"ij\" or \"xy\"");
  TensorList ts = tensors_arg(tensors, "meshgrid");
  if (ts.empty()) fail("meshgrid() expects at least one tensor");
  IntList grid;
  for (const Tensor& t : ts) {
    if (t.dim() > 1) fail("meshgrid(): expected 0-D or 1-D tensors, got shape " + t.shape_str());
    if (t.dtype() != ts[0].dtype() || !(t.device() == ts[0].device()))
      fail("meshgrid(): expects all tensors to have the same dtype and device");
    grid.push_back(t.numel());
  }
  const bool xy = indexing == "xy" && ts.size() >= 2;
  if (xy) std::swap(grid[0], grid[1]);
  std::vector<Value> out;
  for (size_t k = 0; k < ts.size(); ++k) {
    const size_t at_dim = xy && k < 2 ? 1 - k : k;
    IntList at(ts.size(), 1);
    at[at_dim] = grid[at_dim];
    out.push_back(Value::tensor(expand(reshape(ts[k], at), grid)));
  }
  return make_tuple(std::move(out));
}

// torch.block_diag: the tensors (0-D as 1x1, 1-D as a row) along the diagonal of a
// matrix of zeros, in their promoted dtype.
Value block_diag_builtin(Evaluator&, CallArgs& a) {
  TensorList ts = tensors_arg(a, "block_diag");
  if (ts.empty()) return Value::tensor(zeros({1, 0}, DType::f32));
  DType dt = ts[0].dtype();
  int64_t width = 0;
  for (Tensor& t : ts) {
    if (t.dim() > 2) fail("block_diag(): the tensors must have 2 or fewer dims, got shape " + t.shape_str());
    t = t.dim() == 0 ? reshape(t, {1, 1}) : t.dim() == 1 ? reshape(t, {1, t.sizes()[0]}) : t;
    dt = promote_types(dt, t.dtype());
    width += t.sizes()[1];
  }
  TensorList rows;
  int64_t left = 0;
  for (const Tensor& t : ts) {
    const int64_t h = t.sizes()[0], w = t.sizes()[1];
    TensorList parts = {zeros({h, left}, dt, t.device()), to_dtype(t, dt), zeros({h, width - left - w}, dt, t.device())};
    rows.push_back(cat(parts, 1));
    left += w;
  }
  return Value::tensor(cat(rows, 0));
}

// ---- stacks of at-least-n-D tensors -------------------------------------------------------

// x with at least n dims, as torch.atleast_1d/2d/3d: 0-D is [1]*n, 1-D [n] is [1, n]
// (3-D: [1, n, 1]), 2-D [m, n] in 3-D is [m, n, 1].
Tensor at_least(const Tensor& x, int64_t n) {
  if (x.dim() >= n) return x;
  if (x.dim() == 0) return reshape(x, IntList(static_cast<size_t>(n), 1));
  if (x.dim() == 1) return n == 2 ? reshape(x, {1, x.numel()}) : reshape(x, {1, x.numel(), 1});
  return unsqueeze(x, 2);  // 2-D in 3-D
}
template <int64_t N>
Value atleast_builtin(Evaluator&, CallArgs& a) {
  const std::string fname = "atleast_" + std::to_string(N) + "d";
  const bool one = a.pos.size() == 1 && a.pos[0].tag == Tag::Tensor;
  TensorList ts = tensors_arg(a, fname);
  if (one) return Value::tensor(at_least(ts[0], N));
  std::vector<Value> out;
  for (const Tensor& t : ts) out.push_back(Value::tensor(at_least(t, N)));
  return make_tuple(std::move(out));
}

// torch.dstack: the tensors as at least 3-D, joined along dim 2.
Value dstack_builtin(Evaluator&, CallArgs& a) {
  TensorList ts = tensors_arg(a, "dstack");
  if (ts.empty()) fail("dstack() expects a non-empty list of tensors");
  for (Tensor& t : ts) t = at_least(t, 3);
  return Value::tensor(cat(ts, 2));
}

// torch.column_stack: 0-D and 1-D tensors as columns, the rest as they are, joined
// along dim 1.
Value column_stack_builtin(Evaluator&, CallArgs& a) {
  TensorList ts = tensors_arg(a, "column_stack");
  if (ts.empty()) fail("column_stack() expects a non-empty list of tensors");
  for (Tensor& t : ts)
    if (t.dim() <= 1) t = reshape(t, {t.numel(), 1});
  return Value::tensor(cat(ts, 1));
}

// torch.row_stack: vstack's alias.
Value row_stack_builtin(Evaluator& ev, CallArgs& a) { return op_functions().at("vstack")(ev, a); }

// torch.tensordot: the sum over dims of a paired with dims of b (dims=k: a's last k with
// b's first k), as one matmul of the two reshaped to matrices.
Value tensordot_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("tensordot", a, {"a", "b", "dims"}, 2);
  Tensor x = arg(b, 0, "tensordot", "a"), y = arg(b, 1, "tensordot", "b");
  IntList dx, dy;
  if (!b.has(2) || b[2].tag == Tag::Int) {
    const int64_t k = b.has(2) ? b[2].i : 2;
    if (k < 0 || k > x.dim() || k > y.dim()) fail("tensordot(): argument 'dims' " + std::to_string(k) + " is out of range");
    for (int64_t d = 0; d < k; ++d) {
      dx.push_back(x.dim() - k + d);
      dy.push_back(d);
    }
  } else {
    if ((b[2].tag != Tag::List && b[2].tag != Tag::Tuple) || b[2].as<ListObj>()->items.size() != 2)
      fail("tensordot(): argument 'dims' must be an int or two lists of dims");
    auto& pair = b[2].as<ListObj>()->items;
    auto dims_of = [&](const Value& v, const Tensor& t) {
      IntList ds = v.tag == Tag::Int ? IntList{v.i} : as_ints(v, "tensordot(): argument 'dims'");
      for (int64_t& d : ds) d = wrap_dim(d, t.dim(), "tensordot(): argument 'dims'");
      return ds;
    };
    dx = dims_of(pair[0], x);
    dy = dims_of(pair[1], y);
  }
  if (dx.size() != dy.size()) fail("tensordot(): the two lists of dims must have the same length");
  int64_t k = 1;
  for (size_t j = 0; j < dx.size(); ++j) {
    if (x.sizes()[dx[j]] != y.sizes()[dy[j]])
      fail("tensordot(): contracted dims have sizes " + std::to_string(x.sizes()[dx[j]]) + " and " +
           std::to_string(y.sizes()[dy[j]]));
    k *= x.sizes()[dx[j]];
  }
  auto free_dims = [](const Tensor& t, const IntList& used) {
    IntList out;
    for (int64_t d = 0; d < t.dim(); ++d)
      if (std::find(used.begin(), used.end(), d) == used.end()) out.push_back(d);
    return out;
  };
  IntList fx = free_dims(x, dx), fy = free_dims(y, dy), shape;
  int64_t m = 1, n = 1;
  for (int64_t d : fx) { m *= x.sizes()[d]; shape.push_back(x.sizes()[d]); }
  for (int64_t d : fy) { n *= y.sizes()[d]; shape.push_back(y.sizes()[d]); }
  IntList px = fx, py = dy;
  px.insert(px.end(), dx.begin(), dx.end());
  py.insert(py.end(), fy.begin(), fy.end());
  Tensor out = matmul(reshape(permute(x, px), {m, k}), reshape(permute(y, py), {k, n}));
  return Value::tensor(reshape(out, shape));
}

// torch.vander: columns x^(N-1), ..., x, 1 (increasing=true: 1, x, ..., x^(N-1)), as
// the running product of x (so integers stay exact and the gradient is cumprod's);
// integer and bool inputs give i64, as PyTorch's.
Value vander_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("vander", a, {"x", "N", "increasing"}, 1);
  Tensor x = arg(b, 0, "vander", "x");
  if (x.dim() != 1) fail("vander(): argument 'x' must be 1-D, got shape " + x.shape_str());
  const int64_t n = x.sizes()[0];
  const int64_t columns = b.has(1) ? as_int(b[1], fn_arg("vander", "N")) : n;
  if (columns < 0) fail("vander(): argument 'N' must not be negative, got " + std::to_string(columns));
  const bool increasing = b.has(2) && as_bool(b[2], fn_arg("vander", "increasing"));
  if (!is_floating(x.dtype())) x = to_dtype(x, DType::i64);
  if (columns == 0) return Value::tensor(zeros({n, 0}, x.dtype(), x.device()));
  Tensor ones_column = expand(reshape(scalar_tensor(1.0, x.dtype()), {1, 1}), {n, 1});
  Tensor powers = ones_column;
  if (columns > 1) {
    TensorList parts = {ones_column, expand(reshape(x, {n, 1}), {n, columns - 1})};
    powers = cumprod(cat(parts, 1), 1);
  }
  return Value::tensor(increasing ? powers : flip(powers, {1}));
}

const BuiltinEntry kCompositeTorchBuild[] = {
    {"tril_indices", tril_indices_builtin, "tril_indices(row, col, offset=0, dtype=i64, device=\"cpu\")",
     "The [2, N] row and column indices of the lower triangle of a row x col matrix (col <= row + offset), as "
     "torch.tril_indices. Example: tril_indices(3, 3)"},
    {"triu_indices", triu_indices_builtin, "triu_indices(row, col, offset=0, dtype=i64, device=\"cpu\")",
     "The [2, N] row and column indices of the upper triangle of a row x col matrix (col >= row + offset), as "
     "torch.triu_indices. Example: triu_indices(3, 3, 1)"},
    {"cartesian_prod", cartesian_prod_builtin, "cartesian_prod(*tensors)",
     "Every combination of one element of each 1-D tensor, as the rows of a [N, k] tensor, as torch.cartesian_prod. "
     "Example: cartesian_prod(tensor([1, 2]), tensor([3, 4]))"},
    {"broadcast_shapes", broadcast_shapes_builtin, "broadcast_shapes(*shapes)",
     "The shape that tensors of these shapes broadcast to (a tuple), as torch.broadcast_shapes. "
     "Example: broadcast_shapes((3, 1), (4,))"},
    {"broadcast_tensors", broadcast_tensors_builtin, "broadcast_tensors(*tensors)",
     "The tensors expanded to their common broadcast shape (a tuple of views), as torch.broadcast_tensors. "
     "Example: broadcast_tensors(ones(3, 1), ones(4))"},
    {"meshgrid", meshgrid_builtin, "meshgrid(*tensors, indexing=\"ij\")",
     "The coordinate grids of 1-D tensors (a tuple), each expanded along its dim; indexing=\"xy\" swaps the first "
     "two dims, as torch.meshgrid. Example: meshgrid(tensor([1, 2]), tensor([3, 4, 5]), indexing=\"ij\")"},
    {"block_diag", block_diag_builtin, "block_diag(*tensors)",
     "The tensors (at most 2-D) along the diagonal of a matrix of zeros, as torch.block_diag. "
     "Example: block_diag(tensor([[1.0]]), tensor([[2.0, 3.0]]))"},
    {"atleast_1d", atleast_builtin<1>, "atleast_1d(*tensors)",
     "The tensor (or each) with at least 1 dim (0-D becomes [1]), as torch.atleast_1d. Example: atleast_1d(tensor(3))"},
    {"atleast_2d", atleast_builtin<2>, "atleast_2d(*tensors)",
     "The tensor (or each) with at least 2 dims (1-D [n] becomes [1, n]), as torch.atleast_2d. "
     "Example: atleast_2d(tensor([1, 2])).shape"},
    {"atleast_3d", atleast_builtin<3>, "atleast_3d(*tensors)",
     "The tensor (or each) with at least 3 dims ([n] becomes [1, n, 1], [m, n] [m, n, 1]), as torch.atleast_3d. "
     "Example: atleast_3d(tensor([1, 2])).shape"},
    {"dstack", dstack_builtin, "dstack(tensors)",
     "The tensors (made at least 3-D) joined along dim 2, as torch.dstack. Example: dstack([tensor([1, 2]), tensor([3, 4])])"},
    {"column_stack", column_stack_builtin, "column_stack(tensors)",
     "The tensors side by side as columns (1-D ones become [n, 1]), as torch.column_stack. "
     "Example: column_stack([tensor([1, 2]), tensor([3, 4])])"},
    {"row_stack", row_stack_builtin, "row_stack(tensors)",
     "The tensors stacked as rows, as torch.row_stack (vstack's alias). Example: row_stack([tensor([1, 2]), tensor([3, 4])])"},
    {"tensordot", tensordot_builtin, "tensordot(a, b, dims=2)",
     "The sum over a's dims paired with b's (dims=k: a's last k with b's first k; or two lists), as torch.tensordot. "
     "Example: tensordot(ones(2, 3), ones(3, 4), dims=1).shape"},
    {"vander", vander_builtin, "vander(x, N=none, increasing=false)",
     "The Vandermonde matrix of 1-D x: columns x^(N-1) down to x^0 (increasing=true: upward), as torch.vander. "
     "Example: vander(tensor([1, 2, 3]))"},
};

}  // namespace

std::span<const BuiltinEntry> composite_torch_build() { return kCompositeTorchBuild; }

}  // namespace nabla::interp
