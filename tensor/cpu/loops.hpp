// Elementwise loops over strided, broadcast operands: the one iteration helper every
// CPU elementwise kernel uses. Operand 0 is the output, already allocated with the
// broadcast shape; inputs may have any strides and broadcast (stride 0) dims.
// Adjacent dims that are contiguous for every operand are merged first, so the
// common all-contiguous case becomes one flat, vectorisable loop.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "tensor/cpu/parallel.hpp"
#include "tensor/tensor.hpp"

namespace nabla::cpu {

constexpr int kMaxLoopDims = 25;

template <int N>
struct StridedLoop {
  int ndim = 0;
  int64_t sizes[kMaxLoopDims];
  int64_t strides[N][kMaxLoopDims];  // bytes
  char* base[N];

  // operands[0] is the output; the others are broadcast to its shape.
  explicit StridedLoop(const std::array<const Tensor*, N>& operands) {
    const Tensor& out = *operands[0];
    ndim = static_cast<int>(out.dim());
    NABLA_CHECK(ndim <= kMaxLoopDims, "tensors of more than 25 dims are not supported");
    for (int k = 0; k < N; ++k) {
      const Tensor& t = *operands[k];
      base[k] = static_cast<char*>(t.raw_data());
      int64_t esize = static_cast<int64_t>(dtype_size(t.dtype()));
      int shift = ndim - static_cast<int>(t.dim());
      for (int d = 0; d < ndim; ++d) {
        int td = d - shift;
        bool broadcast = td < 0 || t.sizes()[td] == 1;
        strides[k][d] = broadcast ? 0 : t.strides()[td] * esize;
      }
    }
    for (int d = 0; d < ndim; ++d) sizes[d] = out.sizes()[d];
    coalesce();
  }

  // Drop size-1 dims, then merge dim d into the previous kept dim w whenever every
  // operand steps through the pair as through one dim.
  void coalesce() {
    int w = -1;
    for (int d = 0; d < ndim; ++d) {
      if (sizes[d] == 1) continue;
      bool mergeable = w >= 0;
      for (int k = 0; k < N && mergeable; ++k)
        mergeable = strides[k][w] == strides[k][d] * sizes[d];
      if (mergeable) {
        sizes[w] *= sizes[d];
      } else {
        ++w;
        sizes[w] = sizes[d];
      }
      for (int k = 0; k < N; ++k) strides[k][w] = strides[k][d];
    }
    ndim = w + 1;
  }

  int64_t numel() const {
    int64_t n = 1;
    for (int d = 0; d < ndim; ++d) n *= sizes[d];
    return n;
  }

  // Calls inner(ptrs, n, inner_strides) for runs along the innermost dim, covering
  // the linear element range [begin, end).
  template <class Inner>
  void run_range(int64_t begin, int64_t end, Inner&& inner) const {
    if (ndim == 0) {
      char* ptrs[N];
      int64_t zero[N] = {};
      for (int k = 0; k < N; ++k) ptrs[k] = base[k];
      if (begin < end) inner(ptrs, int64_t(1), zero);
      return;
    }
    int64_t index[kMaxLoopDims];
    int64_t rest = begin;
    for (int d = ndim - 1; d >= 0; --d) {
      index[d] = rest % sizes[d];
      rest /= sizes[d];
    }
    int last = ndim - 1;
    int64_t inner_strides[N];
    for (int k = 0; k < N; ++k) inner_strides[k] = strides[k][last];
    int64_t pos = begin;
    while (pos < end) {
      char* ptrs[N];
      for (int k = 0; k < N; ++k) {
        char* p = base[k];
        for (int d = 0; d < ndim; ++d) p += index[d] * strides[k][d];
        ptrs[k] = p;
      }
      int64_t n = std::min(sizes[last] - index[last], end - pos);
      inner(ptrs, n, static_cast<const int64_t*>(inner_strides));
      pos += n;
      index[last] += n;
      for (int d = last; d > 0 && index[d] == sizes[d]; --d) {
        index[d] = 0;
        ++index[d - 1];
      }
    }
  }

  template <class Inner>
  void run(Inner&& inner) const {
    int64_t total = numel();
    parallel_for(0, total, total, [&](int64_t b, int64_t e) { run_range(b, e, inner); });
  }
};

// Batched matrix kernels (matmul, attention): the element offset, in x, of batch `b`
// counted row-major over the output's batch shape `batch`; x's leading (batch) dims
// broadcast against it, so its size-1 dims repeat. The last two dims of x are the matrix.
inline int64_t batch_offset(const Tensor& x, const Shape& batch, int64_t b) {
  int64_t off = 0;
  int64_t lead = static_cast<int64_t>(batch.size()) - (x.dim() - 2);
  for (int64_t d = static_cast<int64_t>(batch.size()) - 1; d >= 0; --d) {
    int64_t i = b % batch[d];
    b /= batch[d];
    int64_t xd = d - lead;
    if (xd >= 0 && x.sizes()[xd] != 1) off += i * x.strides()[xd];
  }
  return off;
}

// The element at position i of a strided run.
template <class T>
inline T& at(char* base, int64_t stride, int64_t i) {
  return *reinterpret_cast<T*>(base + i * stride);
}

// out[i] = f(in[i]) with Out and In the storage types (16-bit floats convert through
// float on load and store). The output may be strided too (copy_into writes views).
template <class Out, class In, class F>
void map1(const Tensor& out, const Tensor& in, F f) {
  StridedLoop<2> loop({&out, &in});
  loop.run([&](char** p, int64_t n, const int64_t* s) {
    if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
      Out* o = reinterpret_cast<Out*>(p[0]);
      const In* a = reinterpret_cast<const In*>(p[1]);
      for (int64_t i = 0; i < n; ++i) o[i] = static_cast<Out>(f(static_cast<compute_t<In>>(a[i])));
    } else {
      for (int64_t i = 0; i < n; ++i)
        at<Out>(p[0], s[0], i) = static_cast<Out>(f(static_cast<compute_t<In>>(at<const In>(p[1], s[1], i))));
    }
  });
}

template <class Out, class A, class B, class F>
void map2(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  StridedLoop<3> loop({&out, &a, &b});
  loop.run([&](char** p, int64_t n, const int64_t* s) {
    Out* o = reinterpret_cast<Out*>(p[0]);
    const A* x = reinterpret_cast<const A*>(p[1]);
    const B* y = reinterpret_cast<const B*>(p[2]);
    bool out_dense = s[0] == sizeof(Out);
    if (out_dense && s[1] == sizeof(A) && s[2] == sizeof(B)) {
      for (int64_t i = 0; i < n; ++i)
        o[i] = static_cast<Out>(f(static_cast<compute_t<A>>(x[i]), static_cast<compute_t<B>>(y[i])));
    } else if (out_dense && s[1] == sizeof(A) && s[2] == 0) {
      auto yv = static_cast<compute_t<B>>(*y);
      for (int64_t i = 0; i < n; ++i) o[i] = static_cast<Out>(f(static_cast<compute_t<A>>(x[i]), yv));
    } else {
      for (int64_t i = 0; i < n; ++i)
        at<Out>(p[0], s[0], i) = static_cast<Out>(f(static_cast<compute_t<A>>(at<const A>(p[1], s[1], i)),
                                                    static_cast<compute_t<B>>(at<const B>(p[2], s[2], i))));
    }
  });
}

// out[i] = f(a[i], b[i], c[i]) (where, and the fused loops' ternary ops). Runs whose
// operands are dense, or dense but for one broadcast number in b or c (relu's
// backward: where(mask, g, 0)), are plain loops the compiler vectorizes.
template <class Out, class A, class B, class C, class F>
void map3(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c, F f) {
  StridedLoop<4> loop({&out, &a, &b, &c});
  loop.run([&](char** p, int64_t n, const int64_t* s) {
    if (n == 0) return;
    Out* o = reinterpret_cast<Out*>(p[0]);
    const A* x = reinterpret_cast<const A*>(p[1]);
    const B* y = reinterpret_cast<const B*>(p[2]);
    const C* z = reinterpret_cast<const C*>(p[3]);
    auto dense_run = [&](auto load_y, auto load_z) {
      for (int64_t i = 0; i < n; ++i)
        o[i] = static_cast<Out>(f(static_cast<compute_t<A>>(x[i]), load_y(i), load_z(i)));
    };
    auto each_y = [&](int64_t i) { return static_cast<compute_t<B>>(y[i]); };
    auto each_z = [&](int64_t i) { return static_cast<compute_t<C>>(z[i]); };
    compute_t<B> y0 = static_cast<compute_t<B>>(*y);
    compute_t<C> z0 = static_cast<compute_t<C>>(*z);
    auto one_y = [&](int64_t) { return y0; };
    auto one_z = [&](int64_t) { return z0; };
    bool dense = s[0] == sizeof(Out) && s[1] == sizeof(A);
    if (dense && s[2] == sizeof(B) && s[3] == sizeof(C)) return dense_run(each_y, each_z);
    if (dense && s[2] == sizeof(B) && s[3] == 0) return dense_run(each_y, one_z);
    if (dense && s[2] == 0 && s[3] == sizeof(C)) return dense_run(one_y, each_z);
    for (int64_t i = 0; i < n; ++i)
      at<Out>(p[0], s[0], i) = static_cast<Out>(f(static_cast<compute_t<A>>(at<const A>(p[1], s[1], i)),
                                                  static_cast<compute_t<B>>(at<const B>(p[2], s[2], i)),
                                                  static_cast<compute_t<C>>(at<const C>(p[3], s[3], i))));
  });
}

}  // namespace nabla::cpu
