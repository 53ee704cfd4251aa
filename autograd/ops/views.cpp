// Rows of the view ops: they alias input 0's storage with new sizes/strides/offset
// (no copy), plus contiguous, to_dtype and slice_backward, the copying ops that view
// backward rules need.
#include <algorithm>
#include <numeric>

#include "autograd/cost.hpp"
#include "autograd/ops/common.hpp"
#include "autograd/trace.hpp"
#include "autograd/transforms/reverse.hpp"
#include "autograd/transforms/vmap.hpp"
#include "tensor/cuda/cuda_runtime.hpp"

namespace nabla {

namespace {

// Resolves one -1 in `shape` against numel; the error names the op.
Shape infer_size(const char* op, const std::vector<int64_t>& shape, int64_t numel, const Shape& from) {
  Shape out(shape.begin(), shape.end());
  int64_t known = 1, infer_at = -1;
  bool overflow = false, has_zero = false;  // Note [Shape arithmetic]: a wrapped product could match numel
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      NABLA_CHECK(infer_at < 0, std::string(op) + ": only one dimension can be -1, got " + shape_str(out));
      infer_at = static_cast<int64_t>(i);
    } else {
      NABLA_CHECK(out[i] >= 0,
                  std::string(op) + ": invalid size " + std::to_string(out[i]) + " in shape " + shape_str(out));
      has_zero = has_zero || out[i] == 0;
      overflow = __builtin_mul_overflow(known, out[i], &known) || overflow;
    }
  }
  if (has_zero) known = 0;
  NABLA_CHECK(!overflow || has_zero, std::string(op) + ": shape " + shape_str(out) + " has more elements than fit in " +
                                         "64 bits, invalid for input of shape " + shape_str(from));
  if (infer_at >= 0) {
    NABLA_CHECK(known != 0 && numel % known == 0,
                std::string(op) + ": shape " + shape_str(out) + " is invalid for input of shape " + shape_str(from));
    out[infer_at] = numel / known;
  } else {
    NABLA_CHECK(known == numel, std::string(op) + ": shape " + shape_str(out) + " is invalid for input of shape " +
                                    shape_str(from) + " (" + std::to_string(numel) + " elements)");
  }
  return out;
}

// Strides for viewing (sizes, strides) as `shape` without a copy, if possible
// (the chunk-matching algorithm PyTorch uses); false when a copy is needed.
bool view_strides(const Shape& sizes, const Shape& strides, const Shape& shape, Shape* out) {
  int64_t numel = shape_numel(sizes);
  if (numel == 0 || sizes.empty()) {
    *out = contiguous_strides(shape);
    return true;
  }
  *out = Shape(shape.size());
  int64_t view_d = static_cast<int64_t>(shape.size()) - 1;
  int64_t chunk_base_stride = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= sizes[d];
    if (d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        (*out)[view_d] = view_numel * chunk_base_stride;
        view_numel *= shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

std::vector<TensorMeta> infer_view(const TensorList& in, const Attrs& a) {
  return one(infer_size("view", a.ints("shape"), in[0].numel(), in[0].sizes()), in[0].dtype());
}
TensorList view_view(const TensorList& in, const Attrs& a) {
  Shape shape = infer_size("view", a.ints("shape"), in[0].numel(), in[0].sizes());
  Shape strides;
  if (!view_strides(in[0].sizes(), in[0].strides(), shape, &strides))
    throw Error("view: the shape " + shape_str(shape) + " is not compatible with the input's size " +
                in[0].shape_str() + " and stride " + shape_str(in[0].strides()) +
                " (at least one dimension spans across two contiguous subspaces); a view cannot be made without "
                "a copy, use reshape(...) instead");
  return {make_view(in[0], shape, strides, in[0].offset())};
}
TensorList backward_reshape_like(BackwardContext& ctx) { return {reshape(ctx.grad(), ctx.input_shape(0).vec())}; }

std::vector<TensorMeta> infer_reshape(const TensorList& in, const Attrs& a) {
  return one(infer_size("reshape", a.ints("shape"), in[0].numel(), in[0].sizes()), in[0].dtype());
}
TensorList view_reshape(const TensorList& in, const Attrs& a) {
  Shape shape = infer_size("reshape", a.ints("shape"), in[0].numel(), in[0].sizes());
  Shape strides;
  if (view_strides(in[0].sizes(), in[0].strides(), shape, &strides))
    return {make_view(in[0], shape, strides, in[0].offset())};
  Tensor copy = contiguous_raw(in[0]);
  return {make_view(copy, shape, contiguous_strides(shape), 0)};
}

std::vector<TensorMeta> infer_transpose(const TensorList& in, const Attrs& a) {
  Shape s = in[0].sizes();
  int64_t d0 = wrap_dim(a.i("dim0"), in[0].dim(), "transpose"), d1 = wrap_dim(a.i("dim1"), in[0].dim(), "transpose");
  if (!s.empty()) std::swap(s[d0], s[d1]);
  return one(s, in[0].dtype());
}
TensorList view_transpose(const TensorList& in, const Attrs& a) {
  Shape s = in[0].sizes(), st = in[0].strides();
  if (!s.empty()) {
    int64_t d0 = wrap_dim(a.i("dim0"), in[0].dim(), "transpose"), d1 = wrap_dim(a.i("dim1"), in[0].dim(), "transpose");
    std::swap(s[d0], s[d1]);
    std::swap(st[d0], st[d1]);
  }
  return {make_view(in[0], s, st, in[0].offset())};
}
TensorList backward_transpose(BackwardContext& ctx) {
  return {transpose(ctx.grad(), ctx.attrs().i("dim0"), ctx.attrs().i("dim1"))};
}

std::vector<int64_t> checked_perm(const Tensor& x, const std::vector<int64_t>& dims) {
  NABLA_CHECK(static_cast<int64_t>(dims.size()) == x.dim(), "permute: expected " + std::to_string(x.dim()) +
                                                                " dims for a tensor of shape " + x.shape_str() +
                                                                ", got " + std::to_string(dims.size()));
  std::vector<int64_t> perm;
  std::vector<bool> seen(dims.size(), false);
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, x.dim(), "permute");
    NABLA_CHECK(!seen[w], "permute: dim " + std::to_string(w) + " appears twice");
    seen[w] = true;
    perm.push_back(w);
  }
  return perm;
}
std::vector<TensorMeta> infer_permute(const TensorList& in, const Attrs& a) {
  auto perm = checked_perm(in[0], a.ints("dims"));
  Shape s;
  for (int64_t d : perm) s.push_back(in[0].sizes()[d]);
  return one(s, in[0].dtype());
}
TensorList view_permute(const TensorList& in, const Attrs& a) {
  auto perm = checked_perm(in[0], a.ints("dims"));
  Shape s, st;
  for (int64_t d : perm) {
    s.push_back(in[0].sizes()[d]);
    st.push_back(in[0].strides()[d]);
  }
  return {make_view(in[0], s, st, in[0].offset())};
}
TensorList backward_permute(BackwardContext& ctx) {
  const auto& dims = ctx.attrs().ints("dims");
  int64_t n = static_cast<int64_t>(dims.size());
  std::vector<int64_t> inverse(dims.size());
  for (int64_t i = 0; i < n; ++i) inverse[(dims[i] % n + n) % n] = i;
  return {permute(ctx.grad(), inverse)};
}

// Python-style start/end clamping; returns the slice length.
int64_t slice_bounds(const Tensor& x, const Attrs& a, int64_t* dim, int64_t* start, int64_t* step) {
  NABLA_CHECK(x.dim() > 0, "slice: cannot slice a 0-dim tensor");
  *dim = wrap_dim(a.i("dim"), x.dim(), "slice");
  *step = a.i("step");
  NABLA_CHECK(*step > 0, "slice: step must be positive, got " + std::to_string(*step));
  int64_t size = x.sizes()[*dim];
  int64_t s = a.i("start"), e = a.i("end");
  if (s < 0) s += size;
  if (e < 0) e += size;
  s = std::clamp<int64_t>(s, 0, size);
  e = std::clamp<int64_t>(e, s, size);
  *start = s;
  return e == s ? 0 : (e - s - 1) / *step + 1;  // not (e - s + step - 1): a step near 2**63 would overflow
}
// A tensor of `shape` for slice_bounds: a stride-0 view of one byte, nothing
// allocated or read whatever the shape.
Tensor shape_stand_in(const Shape& shape) {
  return make_view(zeros({}, DType::b8), shape, Shape(shape.size(), 0), 0);
}

std::vector<TensorMeta> infer_slice(const TensorList& in, const Attrs& a) {
  int64_t dim, start, step;
  Shape s = in[0].sizes();
  int64_t len = slice_bounds(in[0], a, &dim, &start, &step);
  s[dim] = len;
  return one(s, in[0].dtype());
}
TensorList view_slice(const TensorList& in, const Attrs& a) {
  int64_t dim, start, step;
  int64_t len = slice_bounds(in[0], a, &dim, &start, &step);
  Shape s = in[0].sizes(), st = in[0].strides();
  int64_t offset = in[0].offset() + start * st[dim];
  s[dim] = len;
  if (len > 1) st[dim] *= step;  // (len - 1) * step < size: no overflow; one element keeps its stride
  return {make_view(in[0], s, st, offset)};
}
TensorList backward_slice(BackwardContext& ctx) {
  int64_t dim, start, step;
  int64_t len = slice_bounds(shape_stand_in(ctx.input_shape(0)), ctx.attrs(), &dim, &start, &step);
  int64_t end = len == 0 ? start : start + (len - 1) * step + 1;  // start + len * step could overflow
  return {slice_backward(ctx.grad(), ctx.input_shape(0).vec(), dim, start, end, step)};
}

std::vector<TensorMeta> infer_select(const TensorList& in, const Attrs& a) {
  NABLA_CHECK(in[0].dim() > 0, "select: cannot index a 0-dim tensor");
  int64_t dim = wrap_dim(a.i("dim"), in[0].dim(), "select");
  int64_t size = in[0].sizes()[dim], index = a.i("index");
  if (index < -size || index >= size)
    throw Error("select: index " + std::to_string(index) + " is out of bounds for dim " + std::to_string(dim) +
                " of size " + std::to_string(size));
  Shape s = in[0].sizes();
  s.erase(dim);
  return one(s, in[0].dtype());
}
TensorList view_select(const TensorList& in, const Attrs& a) {
  int64_t dim = wrap_dim(a.i("dim"), in[0].dim(), "select");
  int64_t index = a.i("index");
  if (index < 0) index += in[0].sizes()[dim];
  Shape s = in[0].sizes(), st = in[0].strides();
  int64_t offset = in[0].offset() + index * st[dim];
  s.erase(dim);
  st.erase(dim);
  return {make_view(in[0], s, st, offset)};
}
TensorList backward_select(BackwardContext& ctx) {
  int64_t ndim = static_cast<int64_t>(ctx.input_shape(0).size());
  int64_t dim = wrap_dim(ctx.attrs().i("dim"), ndim, "select");
  int64_t index = ctx.attrs().i("index");
  if (index < 0) index += ctx.input_shape(0)[dim];
  return {slice_backward(unsqueeze(ctx.grad(), dim), ctx.input_shape(0).vec(), dim, index, index + 1, 1)};
}

Shape expanded_shape(const Tensor& x, const std::vector<int64_t>& shape) {
  NABLA_CHECK(
      shape.size() >= static_cast<size_t>(x.dim()),
      "expand: the target shape " + shape_str(Shape(shape)) + " has fewer dims than the input shape " + x.shape_str());
  Shape out(shape.begin(), shape.end());
  size_t lead = shape.size() - x.dim();
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t have = i < lead ? -2 : x.sizes()[i - lead];
    if (out[i] == -1) {
      NABLA_CHECK(i >= lead, "expand: -1 is not allowed for a new leading dim");
      out[i] = have;
    } else if (out[i] < 0) {  // made a view of a negative size, which failed later, elsewhere
      throw Error("expand: the target shape " + shape_str(Shape(shape)) + " has a negative size " +
                  std::to_string(out[i]) + " at dim " + std::to_string(i) + " (only -1, keep the size, is allowed)");
    } else if (i >= lead && have != 1 && have != out[i]) {
      throw Error("expand: the input of shape " + x.shape_str() + " cannot be expanded to " + shape_str(Shape(shape)) +
                  " (dim " + std::to_string(i) + ": " + std::to_string(have) + " is not 1)");
    }
  }
  return out;
}
std::vector<TensorMeta> infer_expand(const TensorList& in, const Attrs& a) {
  return one(expanded_shape(in[0], a.ints("shape")), in[0].dtype());
}
TensorList view_expand(const TensorList& in, const Attrs& a) {
  Shape s = expanded_shape(in[0], a.ints("shape"));
  Shape st(s.size(), 0);
  size_t lead = s.size() - in[0].dim();
  for (size_t i = lead; i < s.size(); ++i) st[i] = in[0].sizes()[i - lead] == s[i] ? in[0].strides()[i - lead] : 0;
  return {make_view(in[0], s, st, in[0].offset())};
}
TensorList backward_expand(BackwardContext& ctx) { return {reduce_to_shape(ctx.grad(), ctx.input_shape(0))}; }

std::vector<bool> squeezed(const Tensor& x, const Attrs& a) {
  std::vector<bool> drop(x.dim(), false);
  if (a.is_none("dims")) {
    for (int64_t d = 0; d < x.dim(); ++d) drop[d] = x.sizes()[d] == 1;
  } else {
    for (int64_t d : a.ints("dims")) {
      if (x.dim() == 0) continue;
      int64_t w = wrap_dim(d, x.dim(), "squeeze");
      drop[w] = x.sizes()[w] == 1;  // a dim of size other than 1 stays, as in PyTorch
    }
  }
  return drop;
}
std::vector<TensorMeta> infer_squeeze(const TensorList& in, const Attrs& a) {
  auto drop = squeezed(in[0], a);
  Shape s;
  for (int64_t d = 0; d < in[0].dim(); ++d)
    if (!drop[d]) s.push_back(in[0].sizes()[d]);
  return one(s, in[0].dtype());
}
TensorList view_squeeze(const TensorList& in, const Attrs& a) {
  auto drop = squeezed(in[0], a);
  Shape s, st;
  for (int64_t d = 0; d < in[0].dim(); ++d)
    if (!drop[d]) {
      s.push_back(in[0].sizes()[d]);
      st.push_back(in[0].strides()[d]);
    }
  return {make_view(in[0], s, st, in[0].offset())};
}

std::vector<TensorMeta> infer_unsqueeze(const TensorList& in, const Attrs& a) {
  int64_t d = wrap_dim(a.i("dim"), in[0].dim() + 1, "unsqueeze");
  Shape s = in[0].sizes();
  s.insert(d, 1);
  return one(s, in[0].dtype());
}
TensorList view_unsqueeze(const TensorList& in, const Attrs& a) {
  int64_t d = wrap_dim(a.i("dim"), in[0].dim() + 1, "unsqueeze");
  Shape s = in[0].sizes(), st = in[0].strides();
  int64_t stride = d < in[0].dim() ? s[d] * st[d] : 1;
  s.insert(d, 1);
  st.insert(d, stride);
  return {make_view(in[0], s, st, in[0].offset())};
}

std::vector<TensorMeta> infer_same(const TensorList& in, const Attrs&) { return one(in[0].sizes(), in[0].dtype()); }
TensorList backward_identity(BackwardContext& ctx) { return {ctx.grad()}; }
// The same elements under a new tensor: what the function transforms differentiate
// or attach a tangent to, so that the caller's own tensor is left as it was.
TensorList view_alias(const TensorList& in, const Attrs&) {
  return {make_view(in[0], in[0].sizes(), in[0].strides(), in[0].offset())};
}

// The gradient must be what slice(input of input_shape, dim, start, end, step) gives:
// the kernel writes it there (tensor/layout.hpp's sliced_view).
std::vector<TensorMeta> infer_slice_backward(const TensorList& in, const Attrs& a) {
  Shape input_shape(a.ints("input_shape"));
  for (int64_t s : input_shape)
    if (s < 0) throw Error("slice_backward: input_shape " + shape_str(input_shape) + " has a negative size");
  if (in[0].dim() != static_cast<int64_t>(input_shape.size()))
    throw Error("slice_backward: grad of shape " + in[0].shape_str() + " has " + std::to_string(in[0].dim()) +
                " dims but input_shape " + shape_str(input_shape) + " has " + std::to_string(input_shape.size()));
  int64_t dim, start, step;
  Shape expected = input_shape;
  int64_t len = slice_bounds(shape_stand_in(input_shape), a, &dim, &start, &step);
  expected[dim] = len;
  if (start != a.i("start"))
    throw Error("slice_backward: start " + std::to_string(a.i("start")) + " is not within [0, " +
                std::to_string(input_shape[dim]) + "] (dim " + std::to_string(dim) + " of input_shape " +
                shape_str(input_shape) + ")");
  if (!(expected == in[0].sizes()))
    throw Error("slice_backward: grad of shape " + in[0].shape_str() + " is not the slice of dim " +
                std::to_string(dim) + " of input_shape " + shape_str(input_shape) + ", which has shape " +
                shape_str(expected));
  return one(input_shape, in[0].dtype());
}
TensorList backward_slice_backward(BackwardContext& ctx) {
  const Attrs& a = ctx.attrs();
  return {slice(ctx.grad(), a.i("dim"), a.i("start"), a.i("end"), a.i("step"))};
}

std::vector<TensorMeta> infer_to_dtype(const TensorList& in, const Attrs& a) {
  return one(in[0].sizes(), a.dtype("dtype"));
}
TensorList backward_to_dtype(BackwardContext& ctx) { return {to_dtype(ctx.grad(), ctx.input_dtype(0))}; }

// to_device makes its output itself (a view row): an alias when the tensor is already
// on the device, else a copy there (tensor/cuda/transfer.cu). Its gradient goes back
// to the device the input was on, which the node records.
TensorList view_to_device(const TensorList& in, const Attrs& a) {
  Device to = device_from_code(a.i("device"));
  if (in[0].device() == to) return {make_view(in[0], in[0].sizes(), in[0].strides(), in[0].offset())};
  return {cuda::to_device(in[0], to, a.b("non_blocking"))};
}
TensorList backward_to_device(BackwardContext& ctx) {
  return {to_device(ctx.grad(), ctx.input_device(0))};
}

}  // namespace

void register_view_ops(std::vector<OpDef>& t) {
  row(t, OpId::view) = {.num_inputs = 1,
                        .attrs = {attr_required("shape", AttrKind::ints)},
                        .infer = infer_view,
                        .view = view_view,
                        .backward = backward_reshape_like};
  row(t, OpId::reshape) = {.num_inputs = 1,
                           .attrs = {attr_required("shape", AttrKind::ints)},
                           .infer = infer_reshape,
                           .view = view_reshape,
                           .backward = backward_reshape_like};
  row(t, OpId::transpose) = {
      .num_inputs = 1,
      .attrs = {attr_required("dim0", AttrKind::integer), attr_required("dim1", AttrKind::integer)},
      .infer = infer_transpose,
      .view = view_transpose,
      .backward = backward_transpose};
  row(t, OpId::permute) = {.num_inputs = 1,
                           .attrs = {attr_required("dims", AttrKind::ints)},
                           .infer = infer_permute,
                           .view = view_permute,
                           .backward = backward_permute};
  row(t, OpId::slice) = {.num_inputs = 1,
                         .attrs = {attr_optional("dim", AttrKind::integer, int64_t{0}),
                                   attr_optional("start", AttrKind::integer, int64_t{0}),
                                   attr_optional("end", AttrKind::integer, INT64_MAX),
                                   attr_optional("step", AttrKind::integer, int64_t{1})},
                         .infer = infer_slice,
                         .view = view_slice,
                         .backward = backward_slice};
  row(t, OpId::select) = {.num_inputs = 1,
                          .attrs = {attr_required("dim", AttrKind::integer), attr_required("index", AttrKind::integer)},
                          .infer = infer_select,
                          .view = view_select,
                          .backward = backward_select};
  row(t, OpId::expand) = {.num_inputs = 1,
                          .attrs = {attr_required("shape", AttrKind::ints)},
                          .infer = infer_expand,
                          .view = view_expand,
                          .backward = backward_expand};
  row(t, OpId::squeeze) = {.num_inputs = 1,
                           .attrs = {attr_optional("dims", AttrKind::ints, NoneAttr{})},
                           .infer = infer_squeeze,
                           .view = view_squeeze,
                           .backward = backward_reshape_like};
  row(t, OpId::unsqueeze) = {.num_inputs = 1,
                             .attrs = {attr_required("dim", AttrKind::integer)},
                             .infer = infer_unsqueeze,
                             .view = view_unsqueeze,
                             .backward = backward_reshape_like};
  row(t, OpId::contiguous) = {
      .num_inputs = 1, .infer = infer_same, .cpu = cpu::contiguous, .backward = backward_identity, .half_native = true};
  row(t, OpId::slice_backward) = {
      .num_inputs = 1,
      .attrs = {attr_required("input_shape", AttrKind::ints), attr_required("dim", AttrKind::integer),
                attr_required("start", AttrKind::integer), attr_required("end", AttrKind::integer),
                attr_optional("step", AttrKind::integer, int64_t{1})},
      .infer = infer_slice_backward,
      .cpu = cpu::slice_backward,
      .backward = backward_slice_backward,
      .half_native = true};
  row(t, OpId::to_dtype) = {.num_inputs = 1,
                            .attrs = {attr_required("dtype", AttrKind::dtype)},
                            .infer = infer_to_dtype,
                            .cpu = cpu::to_dtype,
                            .backward = backward_to_dtype,
                            .half_native = true};
  row(t, OpId::to_device) = {.num_inputs = 1,
                             .attrs = {attr_required("device", AttrKind::integer),
                                       attr_optional("non_blocking", AttrKind::boolean, false)},
                             .infer = infer_same,
                             .view = view_to_device,
                             .backward = backward_to_device,
                             .half_native = true};
  row(t, OpId::alias) = {.num_inputs = 1, .infer = infer_same, .view = view_alias, .backward = backward_identity};
  // No backward: the output carries no gradient (Note [Detach in a graph]).
  row(t, OpId::detach) = {.num_inputs = 1, .infer = infer_same, .view = view_alias};
  // Copies (views keep the default: they cost nothing); to_device is a view row on
  // one device but moves every byte between two.
  for (OpId id : {OpId::contiguous, OpId::slice_backward, OpId::to_dtype, OpId::to_device}) row(t, id).cost = cost_copy;
  name_inputs(t, {{OpId::view, {"input"}},
                  {OpId::reshape, {"input"}},
                  {OpId::transpose, {"input"}},
                  {OpId::permute, {"input"}},
                  {OpId::slice, {"input"}},
                  {OpId::select, {"input"}},
                  {OpId::expand, {"input"}},
                  {OpId::squeeze, {"input"}},
                  {OpId::unsqueeze, {"input"}},
                  {OpId::contiguous, {"input"}},
                  {OpId::slice_backward, {"grad"}},
                  {OpId::to_dtype, {"input"}},
                  {OpId::to_device, {"input"}},
                  {OpId::alias, {"input"}},
                  {OpId::detach, {"input"}}});
  // What :help prints for each op of this family; tests/interp/op_docs.cpp runs every example.
  document_ops(t,
               {{OpId::view,
                 "The same storage seen with another shape, as torch.Tensor.view: -1 infers one size, and strides "
                 "that forbid it are an error (reshape copies instead). "
                 "Example: arange(12).view(3, 4)"},
                {OpId::reshape,
                 "The tensor with another shape, as torch.reshape: a view when the strides allow it, else a copy (-1 "
                 "infers one size). "
                 "Example: reshape(arange(6), 2, -1)"},
                {OpId::transpose,
                 "A view with dims dim0 and dim1 swapped, as torch.transpose. "
                 "Example: transpose(randn(2, 3), 0, 1)"},
                {OpId::permute,
                 "A view with the dims reordered, dims[i] becoming dim i, as torch.permute. "
                 "Example: permute(randn(2, 3, 4), 2, 0, 1)"},
                {OpId::slice,
                 "A view of the elements start, start + step, ... before end along dim, what x[start:end:step] "
                 "makes. "
                 "Example: slice(arange(10), dim=0, start=2, end=8, step=2)"},
                {OpId::select,
                 "A view of the slice at index along dim, that dim removed, what x[index] makes, as torch.select. "
                 "Example: select(randn(3, 4), dim=0, index=1)"},
                {OpId::expand,
                 "A view repeating dims of size 1 up to the given shape without copying, as torch.Tensor.expand (-1 "
                 "keeps a size). "
                 "Example: expand(randn(1, 3), 4, -1)"},
                {OpId::squeeze,
                 "A view without the dims of size 1, or without the given dims where their size is 1, as "
                 "torch.squeeze. "
                 "Example: squeeze(randn(2, 1, 3), 1)"},
                {OpId::unsqueeze,
                 "A view with a new dim of size 1 at position dim, as torch.unsqueeze. "
                 "Example: unsqueeze(randn(3), dim=0)"},
                {OpId::contiguous,
                 "The tensor itself when its elements are in row-major order, else a row-major copy, as "
                 "torch.Tensor.contiguous. "
                 "Example: randn(2, 3).t().contiguous()"},
                {OpId::slice_backward,
                 "The gradient of slice: grad placed at the sliced positions of a zero tensor of input_shape "
                 "(slice's adjoint). "
                 "Example: slice_backward(ones(2), input_shape=[5], dim=0, start=1, end=3)"},
                {OpId::to_dtype,
                 "The tensor converted to dtype, as torch.Tensor.to(dtype). "
                 "Example: to_dtype(arange(3), f64)"},
                {OpId::to_device,
                 "The tensor on another device, as torch.Tensor.to(device): device is -1 for the CPU or the index of "
                 "a CUDA device, and a tensor already there is returned as it is. "
                 "Example: to_device(randn(2), -1)"},
                {OpId::alias,
                 "A new tensor sharing the input's storage, shape and strides, as torch.Tensor.view_as(input). "
                 "Example: alias(randn(3))"},
                {OpId::detach,
                 "A new tensor sharing the input's storage, shape and strides that carries no gradient, as "
                 "torch.Tensor.detach(). Example: detach(randn(3, requires_grad=true))"}});
}

// The functional API of this family.

Tensor view(const Tensor& x, const IntList& shape) { return call1(OpId::view, {x}, {{"shape", shape}}); }
Tensor reshape(const Tensor& x, const IntList& shape) { return call1(OpId::reshape, {x}, {{"shape", shape}}); }
Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1) {
  return call1(OpId::transpose, {x}, {{"dim0", dim0}, {"dim1", dim1}});
}
Tensor permute(const Tensor& x, const IntList& dims) { return call1(OpId::permute, {x}, {{"dims", dims}}); }
Tensor slice(const Tensor& x, int64_t dim, int64_t start, int64_t end, int64_t step) {
  return call1(OpId::slice, {x}, {{"dim", dim}, {"start", start}, {"end", end}, {"step", step}});
}
Tensor select(const Tensor& x, int64_t dim, int64_t index) {
  return call1(OpId::select, {x}, {{"dim", dim}, {"index", index}});
}
Tensor expand(const Tensor& x, const IntList& shape) { return call1(OpId::expand, {x}, {{"shape", shape}}); }
Tensor squeeze(const Tensor& x) { return call1(OpId::squeeze, {x}, {{"dims", NoneAttr{}}}); }
Tensor squeeze(const Tensor& x, const IntList& dims) { return call1(OpId::squeeze, {x}, {{"dims", dims}}); }
Tensor unsqueeze(const Tensor& x, int64_t dim) { return call1(OpId::unsqueeze, {x}, {{"dim", dim}}); }
Tensor alias(const Tensor& x) { return call1(OpId::alias, {x}); }
Tensor contiguous(const Tensor& x) { return x.is_contiguous() ? x : call1(OpId::contiguous, {x}); }
Tensor slice_backward(const Tensor& grad, const IntList& input_shape, int64_t dim, int64_t start, int64_t end,
                      int64_t step) {
  return call1(OpId::slice_backward, {grad},
               {{"input_shape", input_shape}, {"dim", dim}, {"start", start}, {"end", end}, {"step", step}});
}
Tensor to_dtype(const Tensor& x, DType dtype) {
  return x.dtype() == dtype ? x : call1(OpId::to_dtype, {x}, {{"dtype", dtype}});
}
Tensor to_device(const Tensor& x, const Device& device, bool non_blocking) {
  if (x.device() == device) return x;
  return call1(OpId::to_device, {x},
               {{"device", device_code(device)}, {"non_blocking", non_blocking}});
}
Tensor flatten(const Tensor& x, int64_t start_dim, int64_t end_dim) {
  if (x.dim() == 0) return reshape(x, {1});
  int64_t s = wrap_dim(start_dim, x.dim(), "flatten"), e = wrap_dim(end_dim, x.dim(), "flatten");
  NABLA_CHECK(s <= e, "flatten: start_dim must not come after end_dim");
  IntList shape;
  for (int64_t d = 0; d < s; ++d) shape.push_back(x.sizes()[d]);
  int64_t merged = 1;
  for (int64_t d = s; d <= e; ++d) merged *= x.sizes()[d];
  shape.push_back(merged);
  for (int64_t d = e + 1; d < x.dim(); ++d) shape.push_back(x.sizes()[d]);
  return reshape(x, shape);
}

// Note [Detach in a graph]
// Eagerly, detach() is a view made outside the op table: it records nothing, and the
// capture used to take the result for its input (same storage and layout). That is
// right where a graph's gradients come from eager autograd (a training step's top
// level), but a lowered branch's or loop's gradient comes from replaying its region's
// ops (graph/control_flow_grad.cpp), and there the gradient went through the detach:
// `acc = acc + h.detach()` in a lowered loop gave wrong weight gradients. Under an
// observer (a capture) x.detach() is therefore the op-table row `detach`, a view with no
// backward, so the region replays a stop-gradient. That is the language's detach
// (detach_op); detach() itself records nothing, for the engine's own uses (saved
// outputs, a .grad without history), which are no step of the program.
Tensor detach(const Tensor& x) {
  if (const auto& b = x.impl()->batched) return transforms::make_batched(detach(b->physical), b->level, b->bdim);
  if (const auto& l = x.impl()->lifted) return transforms::lift(detach(l->inner), l->level);
  Tensor t = make_view(x, x.sizes(), x.strides(), x.offset());
  t.impl()->is_view = x.impl()->is_view;
  return t;
}

Tensor detach_op(const Tensor& x) {
  if (!op_observer() || x.impl()->batched || x.impl()->lifted) return detach(x);
  return call1(OpId::detach, {x});  // Note [Detach in a graph]
}

}  // namespace nabla
