// CPU kernels of interpolate, interpolate_backward, pad (every dtype) and pad_backward. Both
// interpolate kernels are one sum over the tap tables of tensor/resample.hpp, with the
// tap counts as template arguments so that the inner loops unroll; planes (or rows)
// go to threads. The backward kernels scatter-add, one thread per plane (interpolate)
// or per outer slab (pad), so no two threads write the same element.
#include "tensor/resample.hpp"

#include <cstring>
#include <type_traits>

#include "tensor/cpu/copy.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/cpu/loops.hpp"
#include "tensor/cpu/parallel.hpp"

namespace nabla::cpu {

namespace {

// Calls f with std::integral_constant<int, taps> for a tap count of 1, 2 or 4, and
// with 0 for any other (area's windows): the kernels then read the table's count.
template <class F>
void with_taps(int taps, F&& f) {
  switch (taps) {
    case 1:
      return f(std::integral_constant<int, 1>{});
    case 2:
      return f(std::integral_constant<int, 2>{});
    case 4:
      return f(std::integral_constant<int, 4>{});
    default:
      return f(std::integral_constant<int, 0>{});
  }
}

// The tap count a kernel instantiated for K uses: K itself, so that the fixed loops
// unroll, or the table's for K = 0.
template <int K>
int tap_count(const ResampleTaps& t) {
  return K > 0 ? K : t.taps;
}

// A tap table in the kernel's dtype.
template <class T>
std::vector<T> weights_as(const ResampleTaps& t) {
  return std::vector<T>(t.weight.begin(), t.weight.end());
}

// y[p, oh, :] for every output row r = p * out_h + oh in [lo, hi).
template <class T, int KH, int KW>
void interpolate_rows(const T* x, T* y, const ResamplePlanes& p, const ResampleTaps& th, const ResampleTaps& tw,
                      int64_t lo, int64_t hi) {
  std::vector<T> wh = weights_as<T>(th), ww = weights_as<T>(tw);
  const int64_t* iw = tw.index.data();
  const int kh = tap_count<KH>(th), kw = tap_count<KW>(tw);
  std::vector<const T*> rows(static_cast<size_t>(kh));
  std::vector<T> row_weight(static_cast<size_t>(kh));
  for (int64_t r = lo; r < hi; ++r) {
    int64_t plane = r / p.out_h, oh = r % p.out_h;
    for (int a = 0; a < kh; ++a) {
      rows[a] = x + (plane * p.in_h + th.index[oh * kh + a]) * p.in_w;
      row_weight[a] = wh[oh * kh + a];
    }
    T* out = y + r * p.out_w;
    for (int64_t ow = 0; ow < p.out_w; ++ow) {
      const int64_t* cols = iw + ow * kw;
      const T* colw = ww.data() + ow * kw;
      T acc = 0;
      for (int a = 0; a < kh; ++a) {
        T s = 0;
        for (int b = 0; b < kw; ++b) s += colw[b] * rows[a][cols[b]];
        acc += row_weight[a] * s;
      }
      out[ow] = acc;
    }
  }
}

// gx[plane] += the adjoint of interpolate_rows, for planes [lo, hi) (gx zeroed).
template <class T, int KH, int KW>
void interpolate_backward_planes(const T* g, T* gx, const ResamplePlanes& p, const ResampleTaps& th,
                                 const ResampleTaps& tw, int64_t lo, int64_t hi) {
  std::vector<T> wh = weights_as<T>(th), ww = weights_as<T>(tw);
  const int kh = tap_count<KH>(th), kw = tap_count<KW>(tw);
  for (int64_t plane = lo; plane < hi; ++plane) {
    T* dst = gx + plane * p.in_h * p.in_w;
    for (int64_t oh = 0; oh < p.out_h; ++oh) {
      const T* grow = g + (plane * p.out_h + oh) * p.out_w;
      for (int a = 0; a < kh; ++a) {
        T* row = dst + th.index[oh * kh + a] * p.in_w;
        T rw = wh[oh * kh + a];
        for (int64_t ow = 0; ow < p.out_w; ++ow) {
          T v = rw * grow[ow];
          for (int b = 0; b < kw; ++b) row[tw.index[ow * kw + b]] += ww[ow * kw + b] * v;
        }
      }
    }
  }
}

// The input offsets of the rows of a padded tensor: for output row r (every dim but
// the last), the offset of the input row it copies, or -1 for a row of the fill.
int64_t pad_row_source(const PadGeometry& g, int64_t r, int64_t mode) {
  int64_t offset = 0, stride = 1;
  for (int d = g.dims - 2; d >= 0; --d) {
    int64_t o = r % g.out[d];
    r /= g.out[d];
    int64_t i = pad_source(o, g.left[d], g.in[d], mode);
    if (i < 0) return -1;
    offset += i * stride;
    stride *= g.in[d];
  }
  return (r * stride + offset) * g.in[g.dims - 1];  // r is now the outer index
}

// The last dim's map: output column -> input column (-1: the fill).
std::vector<int64_t> pad_column_map(const PadGeometry& g, int64_t mode) {
  int last = g.dims - 1;
  std::vector<int64_t> map(static_cast<size_t>(g.out[last]));
  for (int64_t o = 0; o < g.out[last]; ++o) map[o] = pad_source(o, g.left[last], g.in[last], mode);
  return map;
}

// Rows of the padded tensor per outer index.
int64_t rows_per_outer(const PadGeometry& g) {
  int64_t rows = 1;
  for (int d = 0; d + 1 < g.dims; ++d) rows *= g.out[d];
  return rows;
}

}  // namespace

void interpolate(const TensorList& in, const Attrs& attrs, TensorList& out) {
  Tensor x = contiguous_raw(in[0]);
  ResamplePlanes p = resample_planes(x, out[0]);
  auto [th, tw] = resample_taps_hw(p, attrs);
  int64_t rows = p.planes * p.out_h;
  visit_float(x.dtype(), "interpolate", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = static_cast<const T*>(x.raw_data());
    T* yp = static_cast<T*>(out[0].raw_data());
    with_taps(th.taps, [&](auto kh_tag) {
      with_taps(tw.taps, [&](auto kw_tag) {
        constexpr int kh = decltype(kh_tag)::value, kw = decltype(kw_tag)::value;
        parallel_for(
            0, rows, rows * p.out_w * th.taps * tw.taps,
            [&](int64_t lo, int64_t hi) { interpolate_rows<T, kh, kw>(xp, yp, p, th, tw, lo, hi); });
      });
    });
  });
}

// Inputs (grad); the gradient of an input of shape attrs "input_size".
void interpolate_backward(const TensorList& in, const Attrs& attrs, TensorList& out) {
  Tensor g = contiguous_raw(in[0]);
  ResamplePlanes p = resample_planes(out[0], g);
  auto [th, tw] = resample_taps_hw(p, attrs);
  fill_raw(out[0], 0.0);
  visit_float(g.dtype(), "interpolate_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* gp = static_cast<const T*>(g.raw_data());
    T* gx = static_cast<T*>(out[0].raw_data());
    with_taps(th.taps, [&](auto kh_tag) {
      with_taps(tw.taps, [&](auto kw_tag) {
        constexpr int kh = decltype(kh_tag)::value, kw = decltype(kw_tag)::value;
        parallel_for(
            0, p.planes, g.numel() * th.taps * tw.taps,
            [&](int64_t lo, int64_t hi) { interpolate_backward_planes<T, kh, kw>(gp, gx, p, th, tw, lo, hi); });
      });
    });
  });
}

void pad(const TensorList& in, const Attrs& attrs, TensorList& out) {
  Tensor x = contiguous_raw(in[0]);
  PadGeometry geo = pad_geometry(x.sizes(), attrs.ints("pad"));
  if (geo.dims == 0 || out[0].numel() == 0) {
    if (out[0].numel() > 0) copy_into(out[0], x);
    return;
  }
  int64_t mode = attrs.i("mode");
  double value = attrs.f("value");
  std::vector<int64_t> columns = pad_column_map(geo, mode);
  int64_t width = geo.out[geo.dims - 1], rows = out[0].numel() / width;
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = static_cast<const T*>(x.raw_data());
    T* yp = static_cast<T*>(out[0].raw_data());
    T fill = static_cast<T>(element_cast<T>(value));
    parallel_for(
        0, rows, rows * width,
        [&](int64_t lo, int64_t hi) {
          for (int64_t r = lo; r < hi; ++r) {
            T* dst = yp + r * width;
            int64_t src = pad_row_source(geo, r, mode);
            if (src < 0) {
              std::fill(dst, dst + width, fill);
              continue;
            }
            const T* row = xp + src;
            for (int64_t j = 0; j < width; ++j) dst[j] = columns[j] < 0 ? fill : row[columns[j]];
          }
        });
  });
}

// Inputs (grad) of the padded shape; out[0] has the unpadded one.
void pad_backward(const TensorList& in, const Attrs& attrs, TensorList& out) {
  Tensor g = contiguous_raw(in[0]);
  fill_raw(out[0], 0.0);
  PadGeometry geo = pad_geometry(out[0].sizes(), attrs.ints("pad"));
  if (geo.dims == 0 || g.numel() == 0) {
    if (geo.dims == 0 && g.numel() > 0) copy_into(out[0], g);
    return;
  }
  int64_t mode = attrs.i("mode");
  std::vector<int64_t> columns = pad_column_map(geo, mode);
  int64_t width = geo.out[geo.dims - 1], rows = rows_per_outer(geo);
  visit_float(g.dtype(), "pad_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* gp = static_cast<const T*>(g.raw_data());
    T* gx = static_cast<T*>(out[0].raw_data());
    // Each outer index owns its own slab of gx: threads split those.
    parallel_for(
        0, geo.outer, g.numel(),
        [&](int64_t lo, int64_t hi) {
          for (int64_t r = lo * rows; r < hi * rows; ++r) {
            int64_t src = pad_row_source(geo, r, mode);
            if (src < 0) continue;
            const T* grow = gp + r * width;
            T* row = gx + src;
            for (int64_t j = 0; j < width; ++j)
              if (columns[j] >= 0) row[columns[j]] += grow[j];
          }
        });
  });
}

}  // namespace nabla::cpu
