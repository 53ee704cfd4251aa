// CPU kernels of the reduction rows.
#include "tensor/cpu/reduce.hpp"

#include <omp.h>

#include <algorithm>

#include "tensor/cpu/copy.hpp"
#include "tensor/cpu/kernels.hpp"

namespace nabla::cpu {

std::vector<int64_t> attr_dims(const Tensor& x, const std::vector<int64_t>& dims) {
  std::vector<int64_t> out;
  if (dims.empty()) {
    for (int64_t d = 0; d < x.dim(); ++d) out.push_back(d);
    return out;
  }
  for (int64_t d : dims) {
    if (x.dim() == 0) continue;
    out.push_back(wrap_dim(d, x.dim(), "reduction"));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
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

namespace {

// out[o, j] = scale * sum_r x[o, r, j]
template <class T>
void sum_kernel(const ReduceLayout& l, T* out, double scale) {
  using A = acc_t<T>;
  const T* x = static_cast<const T*>(l.data.raw_data());
  int64_t work = l.outer * l.reduced * l.inner;
#pragma omp parallel for if (work > 65536 && l.outer > 1)
  for (int64_t o = 0; o < l.outer; ++o) {
    const T* base = x + o * l.reduced * l.inner;
    if (l.inner == 1) {
      A acc = 0;
      for (int64_t r = 0; r < l.reduced; ++r) acc += static_cast<A>(static_cast<compute_t<T>>(base[r]));
      out[o] = static_cast<T>(static_cast<compute_t<T>>(acc * scale));
    } else {
      std::vector<A> acc(l.inner, A(0));
      for (int64_t r = 0; r < l.reduced; ++r)
        for (int64_t j = 0; j < l.inner; ++j) acc[j] += static_cast<A>(static_cast<compute_t<T>>(base[r * l.inner + j]));
      for (int64_t j = 0; j < l.inner; ++j) out[o * l.inner + j] = static_cast<T>(static_cast<compute_t<T>>(acc[j] * scale));
    }
  }
}

void sum_or_mean(const TensorList& in, const Attrs& attrs, TensorList& out, bool mean) {
  auto dims = attr_dims(in[0], attrs.ints("dims"));
  Tensor x = as_dtype(in[0], out[0].dtype());
  ReduceLayout l = reduce_layout(x, dims);
  double scale = mean ? 1.0 / static_cast<double>(l.reduced) : 1.0;
  visit_dtype(out[0].dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>)
      throw Error("sum: cannot sum into a bool tensor");
    else
      sum_kernel<T>(l, static_cast<T*>(out[0].raw_data()), scale);
  });
}

}  // namespace

void sum(const TensorList& in, const Attrs& attrs, TensorList& out) { sum_or_mean(in, attrs, out, false); }
void mean(const TensorList& in, const Attrs& attrs, TensorList& out) { sum_or_mean(in, attrs, out, true); }

}  // namespace nabla::cpu
