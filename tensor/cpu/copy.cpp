#include "tensor/cpu/copy.hpp"

#include "tensor/cpu/loops.hpp"

namespace nabla {

void copy_into(const Tensor& dst, const Tensor& src) {
  visit_dtype(dst.dtype(), [&](auto out_tag) {
    using O = typename decltype(out_tag)::type;
    visit_dtype(src.dtype(), [&](auto in_tag) {
      using I = typename decltype(in_tag)::type;
      cpu::map1<O, I>(dst, src, [](auto v) { return static_cast<compute_t<O>>(v); });
    });
  });
}

void fill_raw(const Tensor& dst, double value) {
  visit_dtype(dst.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v = static_cast<T>(static_cast<compute_t<T>>(value));
    if (dst.is_contiguous()) {
      T* p = static_cast<T*>(dst.raw_data());
      std::fill(p, p + dst.numel(), v);
      return;
    }
    cpu::StridedLoop<1> loop({&dst});
    loop.run([&](char** p, int64_t n, const int64_t* s) {
      for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(p[0] + i * s[0]) = v;
    });
  });
}

Tensor contiguous_raw(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor out = empty(t.sizes(), t.dtype());
  copy_into(out, t);
  return out;
}

Tensor to_dtype_raw(const Tensor& t, DType dtype) {
  if (t.dtype() == dtype && t.is_contiguous()) return t;
  Tensor out = empty(t.sizes(), dtype);
  copy_into(out, t);
  return out;
}

}  // namespace nabla
