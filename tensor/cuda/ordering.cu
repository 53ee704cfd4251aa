// CUDA kernels of the scans, ordering and indexing ops (semantics:
// tensor/cpu/ordering.cpp). Inputs are made contiguous [outer, n, inner] blocks along
// the op's dim, as on the CPU.
//
// sort and topk: a bitonic network per line, ordering (value, position) pairs so the
// result is the CPU's exactly (NaN above every number, ties by position: stable). A
// line of up to kSharedSortSize elements is sorted by one block in shared memory;
// longer lines are padded to a power of two in global memory and sorted by one
// launch per step of the network. topk sorts the line and keeps its first k.
//
// roll and repeat are the device-neutral copies of tensor/ordering.hpp. multinomial
// draws on the host: its rows are sequential draws over the categories, it is called
// on small batches of distributions, and drawing there gives the CPU's samples for
// the same seed bit for bit. A class out of range in one_hot fails a device-side check
// (check_index in reduce.cuh), as gather's indices do.
#include "tensor/cpu/copy.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/cuda/kernels.hpp"
#include "tensor/cuda/reduce.cuh"
#include "tensor/layout.hpp"
#include "tensor/ordering.hpp"

namespace nabla::cuda {

namespace {

// x (at least 1-D, contiguous) as [outer, n, inner] along dim.
struct Lines {
  int64_t outer = 1, n = 1, inner = 1;
  __host__ __device__ int64_t count() const { return outer * inner; }
  // Element j of line r, for a block with `len` elements along dim.
  __host__ __device__ int64_t at(int64_t r, int64_t j, int64_t len) const {
    return ((r / inner) * len + j) * inner + r % inner;
  }
};
Lines lines_along(const Shape& sizes, int64_t dim) {
  return {size_product(sizes, 0, dim), sizes[dim], size_product(sizes, dim + 1, sizes.size())};
}

// ---------------------------------------------------------------------------
// cumsum / cumprod: one thread per line, accumulating in double (floats) or i64.

template <class T, bool kProduct>
__global__ void scan_kernel(T* out, const T* x, Lines l) {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
  NABLA_GRID_STRIDE_LOOP(r, l.count()) {
    Acc acc = kProduct ? Acc(1) : Acc(0);
    for (int64_t j = 0; j < l.n; ++j) {
      int64_t p = l.at(r, j, l.n);
      acc = kProduct ? acc * static_cast<Acc>(x[p]) : acc + static_cast<Acc>(x[p]);
      out[p] = static_cast<T>(acc);
    }
  }
}

template <bool kProduct>
void scan(const TensorList& in, const Attrs& attrs, TensorList& out) {
  DeviceGuard guard(out[0].device().index);
  Tensor x = at_least_1d(contiguous_raw(to_dtype_raw(in[0], out[0].dtype())));
  Lines l = lines_along(x.sizes(), wrap_dim(attrs.i("dim"), x.dim(), "scan"));
  if (x.numel() == 0) return;
  visit_device_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int64_t>) {
      scan_kernel<T, kProduct><<<blocks_for(l.count()), kThreads, 0, stream_for(out[0])>>>(device_data<T>(out[0]),
                                                                                           device_data<const T>(x), l);
    } else {
      throw Error(std::string("scan: unexpected dtype ") + dtype_name(x.dtype()));
    }
  });
  NABLA_CUDA_LAUNCH_CHECK();
}

// ---------------------------------------------------------------------------
// sort / topk

constexpr int64_t kSharedSortSize = 2048;  // two elements per thread of a 1024-thread block

// Whether (a, ia) comes before (b, ib): padding (position >= n) last, then by value
// (NaN above every number), then by position.
template <class T>
__device__ __forceinline__ bool before(T a, int64_t ia, T b, int64_t ib, int64_t n, bool descending) {
  if (ia >= n || ib >= n) return ia < ib;
  bool a_nan = false, b_nan = false;
  if constexpr (std::is_floating_point_v<T>) {
    a_nan = isnan(a);
    b_nan = isnan(b);
  }
  bool a_less = (a < b) || (!a_nan && b_nan), b_less = (b < a) || (a_nan && !b_nan);
  if (descending ? b_less : a_less) return true;
  if (descending ? a_less : b_less) return false;
  return ia < ib;
}

// One compare-exchange of the network: pair t of a line of `size` (a power of two)
// at stage (k, j); afterwards the two are in the order the stage wants.
__device__ __forceinline__ void bitonic_pair(int64_t t, int64_t k, int64_t j, int64_t& lo, int64_t& hi,
                                             bool& ascending) {
  lo = (t / j) * 2 * j + t % j;
  hi = lo + j;
  ascending = (lo & k) == 0;
}

template <class T>
__global__ void sort_shared_kernel(T* values, int64_t* indices, const T* x, Lines l, int64_t size, int64_t keep,
                                   bool descending) {
  extern __shared__ unsigned char smem[];
  int* pos = reinterpret_cast<int*>(smem);  // first: size ints keep the keys aligned
  T* key = reinterpret_cast<T*>(pos + size);
  int64_t r = blockIdx.x;
  for (int64_t j = threadIdx.x; j < size; j += blockDim.x) {
    key[j] = j < l.n ? x[l.at(r, j, l.n)] : T();
    pos[j] = static_cast<int>(j);
  }
  __syncthreads();
  for (int64_t k = 2; k <= size; k <<= 1) {
    for (int64_t j = k >> 1; j > 0; j >>= 1) {
      for (int64_t t = threadIdx.x; t < size / 2; t += blockDim.x) {
        int64_t lo, hi;
        bool ascending;
        bitonic_pair(t, k, j, lo, hi, ascending);
        bool hi_first = before(key[hi], pos[hi], key[lo], pos[lo], l.n, descending);
        if (hi_first == ascending) {
          T kv = key[lo];
          key[lo] = key[hi];
          key[hi] = kv;
          int pv = pos[lo];
          pos[lo] = pos[hi];
          pos[hi] = pv;
        }
      }
      __syncthreads();
    }
  }
  for (int64_t j = threadIdx.x; j < keep; j += blockDim.x) {
    values[l.at(r, j, keep)] = key[j];
    indices[l.at(r, j, keep)] = pos[j];
  }
}

template <class T>
__global__ void sort_load_kernel(T* key, int64_t* pos, const T* x, Lines l, int64_t size) {
  NABLA_GRID_STRIDE_LOOP(p, l.count() * size) {
    int64_t r = p / size, j = p % size;
    key[p] = j < l.n ? x[l.at(r, j, l.n)] : T();
    pos[p] = j;
  }
}

template <class T>
__global__ void sort_step_kernel(T* key, int64_t* pos, Lines l, int64_t size, int64_t k, int64_t j, bool descending) {
  NABLA_GRID_STRIDE_LOOP(p, l.count() * (size / 2)) {
    int64_t r = p / (size / 2), lo, hi;
    bool ascending;
    bitonic_pair(p % (size / 2), k, j, lo, hi, ascending);
    lo += r * size;
    hi += r * size;
    bool hi_first = before(key[hi], pos[hi], key[lo], pos[lo], l.n, descending);
    if (hi_first == ascending) {
      T kv = key[lo];
      key[lo] = key[hi];
      key[hi] = kv;
      int64_t pv = pos[lo];
      pos[lo] = pos[hi];
      pos[hi] = pv;
    }
  }
}

template <class T>
__global__ void sort_store_kernel(T* values, int64_t* indices, const T* key, const int64_t* pos, Lines l, int64_t size,
                                  int64_t keep) {
  NABLA_GRID_STRIDE_LOOP(p, l.count() * keep) {
    int64_t r = p / keep, j = p % keep;
    values[l.at(r, j, keep)] = key[r * size + j];
    indices[l.at(r, j, keep)] = pos[r * size + j];
  }
}

int64_t next_power_of_two(int64_t n) {
  int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

// Sorts every line of x and writes the first `keep` of each to values and indices.
template <class T>
void sort_lines(const Tensor& x, Lines l, int64_t keep, bool descending, const Tensor& values, const Tensor& indices) {
  int64_t size = next_power_of_two(std::max<int64_t>(l.n, 2));
  cudaStream_t stream = stream_for(values);
  if (size <= kSharedSortSize) {
    int threads = static_cast<int>(std::min<int64_t>(size / 2, 1024));
    size_t bytes = static_cast<size_t>(size) * (sizeof(T) + sizeof(int));
    NABLA_CHECK(l.count() <= INT32_MAX, "sort (CUDA): more than 2^31 - 1 lines");
    sort_shared_kernel<T><<<static_cast<unsigned>(l.count()), threads, bytes, stream>>>(
        device_data<T>(values), device_data<int64_t>(indices), device_data<const T>(x), l, size, keep, descending);
    NABLA_CUDA_LAUNCH_CHECK();
    return;
  }
  Tensor key = empty(Shape{l.count() * size}, x.dtype(), x.device());
  Tensor pos = empty(Shape{l.count() * size}, DType::i64, x.device());
  int64_t pairs = l.count() * (size / 2);
  sort_load_kernel<T><<<blocks_for(l.count() * size), kThreads, 0, stream>>>(
      device_data<T>(key), device_data<int64_t>(pos), device_data<const T>(x), l, size);
  for (int64_t k = 2; k <= size; k <<= 1)
    for (int64_t j = k >> 1; j > 0; j >>= 1)
      sort_step_kernel<T><<<blocks_for(pairs), kThreads, 0, stream>>>(device_data<T>(key), device_data<int64_t>(pos), l,
                                                                      size, k, j, descending);
  sort_store_kernel<T><<<blocks_for(l.count() * keep), kThreads, 0, stream>>>(
      device_data<T>(values), device_data<int64_t>(indices), device_data<const T>(key), device_data<const int64_t>(pos),
      l, size, keep);
  NABLA_CUDA_LAUNCH_CHECK();
}

void sort_kernel_entry(const Tensor& input, int64_t dim_attr, int64_t keep, bool descending, TensorList& out) {
  DeviceGuard guard(out[0].device().index);
  Tensor x = contiguous_raw(at_least_1d(input));
  Lines l = lines_along(x.sizes(), wrap_dim(dim_attr, x.dim(), "sort"));
  if (x.numel() == 0 || keep == 0) return;
  visit_device_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>) {
      throw Error("sort: unexpected 16-bit dtype on CUDA");
    } else {
      sort_lines<T>(x, l, keep, descending, out[0], out[1]);
    }
  });
}

// ---------------------------------------------------------------------------
// flip: out[i] = x[the offset of i's coordinates, flipped where asked].

template <class E>
__global__ void flip_kernel(E* out, const E* x, int64_t n, OffsetCalculator<1> calc, int64_t base) {
  NABLA_GRID_STRIDE_LOOP(i, n) {
    int64_t off[1];
    calc.offsets(i, off);
    out[i] = x[base + off[0]];
  }
}

// ---------------------------------------------------------------------------
// tril / triu: the element at (row i, column j) of each matrix is kept where
// j - i <= diagonal (tril) or j - i >= diagonal (triu), else zero.

template <class E>
__global__ void triangle_kernel(E* out, const E* x, int64_t n, int64_t rows, int64_t cols, int64_t diagonal,
                                bool upper) {
  NABLA_GRID_STRIDE_LOOP(p, n) {
    int64_t j = p % cols, i = (p / cols) % rows;
    bool keep = upper ? j - i >= diagonal : j - i <= diagonal;
    out[p] = keep ? x[p] : E(0);
  }
}

void triangle(const TensorList& in, const Attrs& attrs, TensorList& out, bool upper) {
  DeviceGuard guard(out[0].device().index);
  Tensor x = contiguous_raw(in[0]);
  int64_t n = x.numel(), nd = x.dim();
  if (n == 0) return;
  visit_bytes(dtype_size(x.dtype()), [&](auto tag) {
    using E = typename decltype(tag)::type;
    triangle_kernel<E><<<blocks_for(n), kThreads, 0, stream_for(out[0])>>>(
        device_data<E>(out[0]), device_data<const E>(x), n, x.sizes()[nd - 2], x.sizes()[nd - 1], attrs.i("diagonal"),
        upper);
  });
  NABLA_CUDA_LAUNCH_CHECK();
}

// ---------------------------------------------------------------------------
// masked_fill: out = *value where mask (broadcast) is true, else x (broadcast-free).
// value is a 0-dim tensor on the device, already in out's dtype.

template <class T>
__global__ void masked_fill_kernel(T* out, const T* x, const bool* mask, int64_t n, OffsetCalculator<2> calc,
                                   const T* value) {
  NABLA_GRID_STRIDE_LOOP(i, n) {
    int64_t off[2];
    calc.offsets(i, off);
    out[i] = mask[off[1]] ? *value : x[off[0]];
  }
}

// ---------------------------------------------------------------------------
// one_hot: out (zeroed) gets a 1 at each element's class.

__global__ void one_hot_kernel(int64_t* out, const int64_t* x, int64_t n, int64_t classes) {
  NABLA_GRID_STRIDE_LOOP(i, n) {
    int64_t c = x[i];
    check_index("one_hot", c, classes);
    out[i * classes + c] = 1;
  }
}

}  // namespace

void cumsum(const TensorList& in, const Attrs& attrs, TensorList& out) { scan<false>(in, attrs, out); }
void cumprod(const TensorList& in, const Attrs& attrs, TensorList& out) { scan<true>(in, attrs, out); }

void sort(const TensorList& in, const Attrs& attrs, TensorList& out) {
  int64_t n = in[0].dim() == 0 ? 1 : in[0].sizes()[wrap_dim(attrs.i("dim"), in[0].dim(), "sort")];
  sort_kernel_entry(in[0], attrs.i("dim"), n, attrs.b("descending"), out);
}

// Sorted results come sorted whatever `sorted` says (any order is allowed).
void topk(const TensorList& in, const Attrs& attrs, TensorList& out) {
  sort_kernel_entry(in[0], attrs.i("dim"), attrs.i("k"), attrs.b("largest"), out);
}

void flip(const TensorList& in, const Attrs& attrs, TensorList& out) {
  DeviceGuard guard(out[0].device().index);
  Tensor x = contiguous_raw(in[0]);
  int64_t n = x.numel();
  if (n == 0) return;
  int nd = static_cast<int>(x.dim());
  NABLA_CHECK(nd <= kMaxDims, "flip (CUDA): tensors of more than " + std::to_string(kMaxDims) + " dims");
  std::vector<bool> flipped(static_cast<size_t>(nd), false);
  for (int64_t d : attrs.ints("dims")) flipped[wrap_dim(d, nd, "flip")] = true;
  // A flipped dim reads from its far end with a negative step.
  OffsetCalculator<1> calc;
  calc.dims = nd;
  int64_t base = 0;
  for (int d = 0; d < nd; ++d) {
    int src = nd - 1 - d;
    int64_t size = x.sizes()[src], stride = x.strides()[src];
    calc.sizes[d] = size;
    calc.strides[0][d] = flipped[src] ? -stride : stride;
    if (flipped[src]) base += (size - 1) * stride;
  }
  visit_bytes(dtype_size(x.dtype()), [&](auto tag) {
    using E = typename decltype(tag)::type;
    flip_kernel<E><<<blocks_for(n), kThreads, 0, stream_for(out[0])>>>(device_data<E>(out[0]), device_data<const E>(x),
                                                                       n, calc, base);
  });
  NABLA_CUDA_LAUNCH_CHECK();
}

void roll(const TensorList& in, const Attrs& attrs, TensorList& out) {
  DeviceGuard guard(out[0].device().index);
  roll_into(in[0], attrs.ints("shifts"), attrs.ints("dims"), out[0]);
}

void tril(const TensorList& in, const Attrs& attrs, TensorList& out) { triangle(in, attrs, out, false); }
void triu(const TensorList& in, const Attrs& attrs, TensorList& out) { triangle(in, attrs, out, true); }

void masked_fill(const TensorList& in, const Attrs&, TensorList& out) {
  DeviceGuard guard(out[0].device().index);
  int64_t n = out[0].numel();
  if (n == 0) return;
  auto calc = make_offset_calculator<2>(out[0].sizes(), {&in[0], &in[1]});
  Tensor value = to_dtype_raw(in[2], out[0].dtype());  // on the device: the dispatcher moved it
  visit_device_dtype(out[0].dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    masked_fill_kernel<T><<<blocks_for(n), kThreads, 0, stream_for(out[0])>>>(
        device_data<T>(out[0]), device_data<const T>(in[0]), device_data<const bool>(in[1]), n, calc,
        device_data<const T>(value));
  });
  NABLA_CUDA_LAUNCH_CHECK();
}

void repeat(const TensorList& in, const Attrs& attrs, TensorList& out) {
  DeviceGuard guard(out[0].device().index);
  repeat_into(in[0], attrs.ints("sizes"), out[0]);
}

void one_hot(const TensorList& in, const Attrs& attrs, TensorList& out) {
  DeviceGuard guard(out[0].device().index);
  Tensor x = contiguous_raw(cpu::as_dtype(in[0], DType::i64));
  int64_t n = x.numel(), classes = attrs.i("num_classes");
  cudaStream_t stream = stream_for(out[0]);
  if (out[0].numel() == 0) return;
  NABLA_CUDA_CHECK(cudaMemsetAsync(out[0].raw_data(), 0, out[0].numel() * sizeof(int64_t), stream));
  if (n == 0) return;
  one_hot_kernel<<<blocks_for(n), kThreads, 0, stream>>>(device_data<int64_t>(out[0]), device_data<const int64_t>(x), n,
                                                         classes);
  NABLA_CUDA_LAUNCH_CHECK();
}

void multinomial(const TensorList& in, const Attrs& attrs, TensorList& out) {
  TensorList host_in{cpu_copy(in[0])};
  TensorList host_out{empty(out[0].sizes(), DType::i64)};
  cpu::multinomial(host_in, attrs, host_out);
  nabla::copy_into(out[0], host_out[0]);
}

}  // namespace nabla::cuda
