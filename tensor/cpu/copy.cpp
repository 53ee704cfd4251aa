#include "tensor/cpu/copy.hpp"

#include "tensor/cpu/loops.hpp"
#include "tensor/cpu/parallel.hpp"
#include "tensor/cuda/cuda_runtime.hpp"

namespace nabla {

namespace {

// dst = src over the last two (coalesced) dims when src walks them transposed
// (its inner dim strided, its outer dim contiguous): copying in 32x32 tiles keeps
// both the reads and the writes inside cache lines, where a plain loop would touch
// a new line of src for every element.
template <class O, class I>
bool copy_transposed_tiles(const cpu::StridedLoop<2>& loop) {
  int nd = loop.ndim;
  if (nd < 2) return false;
  int64_t ds_row = loop.strides[0][nd - 2], ds_col = loop.strides[0][nd - 1];
  int64_t ss_row = loop.strides[1][nd - 2], ss_col = loop.strides[1][nd - 1];
  if (ds_col != sizeof(O) || ss_row != sizeof(I) || ss_col == sizeof(I)) return false;
  constexpr int64_t kTile = 32;
  int64_t rows = loop.sizes[nd - 2], cols = loop.sizes[nd - 1];
  int64_t row_tiles = (rows + kTile - 1) / kTile, col_tiles = (cols + kTile - 1) / kTile;
  int64_t outer = 1;
  for (int d = 0; d < nd - 2; ++d) outer *= loop.sizes[d];
  int64_t tiles = outer * row_tiles * col_tiles;
  cpu::parallel_for(0, tiles, rows * cols * outer, [&](int64_t lo, int64_t hi) {
    for (int64_t t = lo; t < hi; ++t) {
      int64_t o = t / (row_tiles * col_tiles), rt = t / col_tiles % row_tiles, ct = t % col_tiles;
      char* d = loop.base[0];
      const char* s = loop.base[1];
      for (int dim = nd - 3; dim >= 0; --dim) {  // offsets of outer index o
        int64_t i = o % loop.sizes[dim];
        o /= loop.sizes[dim];
        d += i * loop.strides[0][dim];
        s += i * loop.strides[1][dim];
      }
      int64_t r1 = std::min(rows, (rt + 1) * kTile), c1 = std::min(cols, (ct + 1) * kTile);
      for (int64_t r = rt * kTile; r < r1; ++r)
        for (int64_t c = ct * kTile; c < c1; ++c)
          *reinterpret_cast<O*>(d + r * ds_row + c * ds_col) = static_cast<O>(
              element_cast<O>(static_cast<compute_t<I>>(*reinterpret_cast<const I*>(s + r * ss_row + c * ss_col))));
    }
  });
  return true;
}

}  // namespace

bool on_cuda(const Tensor& t) { return t.device().kind == DeviceKind::cuda; }

void copy_into(const Tensor& dst, const Tensor& src) {
  if (on_cuda(dst) || on_cuda(src)) return cuda::copy_into(dst, src);
  visit_dtype(dst.dtype(), [&](auto out_tag) {
    using O = typename decltype(out_tag)::type;
    visit_dtype(src.dtype(), [&](auto in_tag) {
      using I = typename decltype(in_tag)::type;
      if (copy_transposed_tiles<O, I>(cpu::StridedLoop<2>({&dst, &src}))) return;
      cpu::map1<O, I>(dst, src, [](auto v) { return element_cast<O>(v); });
    });
  });
}

void fill_raw(const Tensor& dst, double value) {
  if (on_cuda(dst)) return cuda::fill(dst, value);
  visit_dtype(dst.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v = static_cast<T>(element_cast<T>(value));
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
  Tensor out = empty(t.sizes(), t.dtype(), t.device());
  copy_into(out, t);
  return out;
}

Tensor to_dtype_raw(const Tensor& t, DType dtype) {
  if (t.dtype() == dtype && t.is_contiguous()) return t;
  Tensor out = empty(t.sizes(), dtype, t.device());
  copy_into(out, t);
  return out;
}

}  // namespace nabla
