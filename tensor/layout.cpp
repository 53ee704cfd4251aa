#include "tensor/layout.hpp"

#include <algorithm>

#include "tensor/cpu/copy.hpp"

namespace nabla {

std::vector<int64_t> reduction_dims(const char* op, const std::vector<int64_t>& dims, int64_t ndim) {
  std::vector<int64_t> out;
  if (dims.empty()) {
    for (int64_t d = 0; d < ndim; ++d) out.push_back(d);
    return out;
  }
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, ndim, op);
    if (ndim == 0) continue;  // dim 0 / -1 of a scalar reduces nothing
    if (std::find(out.begin(), out.end(), w) != out.end())
      throw Error(std::string(op) + ": dim " + std::to_string(w) + " appears more than once in dims");
    out.push_back(w);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int64_t> arg_dims(const Tensor& x, const Attrs& attrs) {
  return attrs.is_none("dim") ? reduction_dims(x, {}) : reduction_dims(x, {attrs.i("dim")});
}

ReduceLayout reduce_layout(const Tensor& x, const std::vector<int64_t>& dims) {
  ReduceLayout r;
  int64_t nd = x.dim();
  bool consecutive = true;
  for (size_t i = 1; i < dims.size(); ++i) consecutive &= dims[i] == dims[i - 1] + 1;
  if (dims.empty()) {
    r.data = contiguous_raw(x);
    r.outer = x.numel();
    return r;
  }
  if (consecutive) {
    r.data = contiguous_raw(x);
    for (int64_t d = 0; d < dims.front(); ++d) r.outer *= x.sizes()[d];
    for (int64_t d : dims) r.reduced *= x.sizes()[d];
    for (int64_t d = dims.back() + 1; d < nd; ++d) r.inner *= x.sizes()[d];
    return r;
  }
  // Move the reduced dims last and copy once.
  Shape sizes, strides;
  for (int64_t d = 0; d < nd; ++d)
    if (!std::binary_search(dims.begin(), dims.end(), d)) {
      sizes.push_back(x.sizes()[d]);
      strides.push_back(x.strides()[d]);
      r.outer *= x.sizes()[d];
    }
  for (int64_t d : dims) {
    sizes.push_back(x.sizes()[d]);
    strides.push_back(x.strides()[d]);
    r.reduced *= x.sizes()[d];
  }
  r.data = contiguous_raw(make_view(x, sizes, strides, x.offset()));
  return r;
}

ClassLayout class_layout(const Tensor& input) {
  ClassLayout l;
  int64_t cdim = input.dim() == 1 ? 0 : 1;
  for (int64_t d = 0; d < cdim; ++d) l.outer *= input.sizes()[d];
  l.classes = input.sizes()[cdim];
  for (int64_t d = cdim + 1; d < input.dim(); ++d) l.inner *= input.sizes()[d];
  return l;
}

ChannelLayout channel_layout(const Tensor& x) {
  int64_t N = x.sizes()[0], C = x.sizes()[1];
  return {N, C, N * C == 0 ? 0 : x.numel() / (N * C)};
}

RowLayout layer_norm_rows(const Tensor& x, const std::vector<int64_t>& normalized_shape) {
  int64_t D = shape_numel(Shape(normalized_shape));
  return {D == 0 ? 0 : x.numel() / D, D};
}

Tensor at_least_1d(const Tensor& t) { return t.dim() > 0 ? t : make_view(t, {1}, {1}, t.offset()); }

Tensor without_dim_step(const Tensor& t, const Shape& sizes, int64_t dim) {
  Shape strides = t.strides();
  strides[dim] = 0;
  return make_view(t, sizes, strides, t.offset());
}

Tensor sliced_view(const Tensor& t, const Attrs& a, int64_t count) {
  int64_t dim = wrap_dim(a.i("dim"), t.dim(), "slice_backward");
  Shape sizes = t.sizes(), strides = t.strides();
  int64_t offset = t.offset() + a.i("start") * strides[dim];
  sizes[dim] = count;
  if (count > 1) strides[dim] *= a.i("step");  // one element keeps its stride: step may be near 2**63
  return make_view(t, sizes, strides, offset);
}

Tensor slab(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  Shape sizes = t.sizes();
  sizes[dim] = length;
  return make_view(t, sizes, t.strides(), t.offset() + start * t.strides()[dim]);
}

TensorList unsqueezed_at(const TensorList& inputs, int64_t dim) {
  TensorList out;
  out.reserve(inputs.size());
  for (const Tensor& t : inputs) {
    Shape sizes = t.sizes(), strides = t.strides();
    int64_t stride = dim < t.dim() ? sizes[dim] * strides[dim] : 1;
    sizes.insert(dim, 1);
    strides.insert(dim, stride);
    out.push_back(make_view(t, sizes, strides, t.offset()));
  }
  return out;
}

int64_t size_product(const Shape& sizes, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t d = begin; d < end; ++d) n *= sizes[d];
  return n;
}

Tensor gqa_view(const Tensor& t, int64_t query_heads, int64_t groups) {
  if (groups == 1 || !t.defined() || t.dim() < 3) return t;
  size_t at = static_cast<size_t>(t.dim() - 2);  // the group dim goes before the last two
  Shape sizes = t.sizes(), strides = t.strides();
  if (sizes[at - 1] == query_heads) {
    sizes[at - 1] = query_heads / groups;
    sizes.insert(at, groups);
    strides.insert(at, strides[at - 1]);
    strides[at - 1] *= groups;
  } else {
    sizes.insert(at, 1);
    strides.insert(at, 0);
  }
  return make_view(t, sizes, strides, t.offset());
}

}  // namespace nabla
