// CUDA kernels of the reduction rows: sum, mean, max, min, max_dim, min_dim, argmax,
// argmin, var, std, logsumexp. Each is a reduce op (a state, how to load, combine and
// store it) run by the generic kernel of reduce.cuh over the [outer, reduced, inner]
// layout that the CPU kernels use (tensor/layout.hpp: a strided input is copied once
// on the device with the reduced dims last). 16-bit floats accumulate in f32, f32 in
// f32, f64 in f64, integer sums in i64. Semantics follow
// tensor/cpu/reduce.cpp: NaN wins a max/min, ties keep the first index, variance
// divides by max(0, N - correction), logsumexp handles infinities as the CPU does.
#include <algorithm>
#include <atomic>
#include <limits>

#include "tensor/cpu/copy.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/cuda/kernels.hpp"
#include "tensor/cuda/reduce.cuh"

namespace nabla::cuda {

int multiprocessor_count(int device) {
  static std::atomic<int> cache[64];
  bool cached = device >= 0 && device < 64;
  int n = cached ? cache[device].load(std::memory_order_relaxed) : 0;
  if (n > 0) return n;
  NABLA_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device));
  if (cached) cache[device].store(n, std::memory_order_relaxed);
  return n;
}

namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Rows of at least this many elements get a block each; shorter ones a warp.
constexpr int64_t kBlockPerRow = 1024;
// A split chunk gives each thread at least this many elements.
constexpr int64_t kMinPerThread = 16;
// Blocks that keep every multiprocessor busy (8 blocks of 256 threads fill one).
constexpr int64_t kBlocksPerMultiprocessor = 8;
// Partials per output at most: the second pass combines them in one block row.
constexpr int64_t kMaxSplits = 1024;

}  // namespace

ReducePlan plan_reduce(int64_t outputs, int64_t reduced, int64_t inner, int device, bool allow_split) {
  ReducePlan p;
  ReduceArgs& a = p.args;
  a.outputs = outputs;
  a.reduced = reduced;
  a.inner = inner;
  a.rows = inner == 1;
  int lanes = 0;
  int64_t outputs_per_block = 0;
  if (a.rows) {
    lanes = reduced >= kBlockPerRow ? kReduceThreads : kWarpSize;
    outputs_per_block = kReduceThreads / lanes;
    p.block = dim3(lanes, static_cast<unsigned>(outputs_per_block));
  } else {
    // Short columns: every thread takes its own output; else 8 threads share one.
    lanes = reduced >= 2 * kMinPerThread ? 8 : 1;
    outputs_per_block = kReduceThreads / lanes;
    p.block = dim3(static_cast<unsigned>(outputs_per_block), lanes);
  }
  int64_t blocks = ceil_div(outputs, outputs_per_block);
  NABLA_CHECK(blocks <= std::numeric_limits<int32_t>::max(),
              "CUDA reduction: " + std::to_string(outputs) + " outputs are too many for one launch");
  a.chunk = reduced;
  a.splits = 1;
  int64_t target = kBlocksPerMultiprocessor * multiprocessor_count(device);
  if (allow_split && blocks < target) {
    int64_t splits = std::min({ceil_div(target, blocks), reduced / (lanes * kMinPerThread), kMaxSplits});
    if (splits > 1) {
      a.chunk = ceil_div(reduced, splits);
      a.splits = ceil_div(reduced, a.chunk);
    }
  }
  p.grid = dim3(static_cast<unsigned>(blocks), static_cast<unsigned>(a.splits));
  return p;
}

namespace {

// ---------------------------------------------------------------------------
// Reduce ops (the interface is in reduce.cuh).

// The sum times `scale` (1, or 1/N for mean). Integer sums (i64) store exactly.
template <class T>
struct SumOp {
  using State = dcompute_t<T>;
  const T* x;
  T* out;
  double scale;
  __device__ State identity() const { return State(0); }
  __device__ State load(int64_t offset, int64_t) const { return load_as_compute(x + offset); }
  __device__ State combine(State a, State b) const { return a + b; }
  __device__ void store(int64_t i, State s) const {
    if constexpr (std::is_integral_v<State>)
      out[i] = s;
    else
      out[i] = convert<T>(static_cast<double>(s) * scale);
  }
};

template <class C>
struct ArgState {
  C value;
  int64_t index;
};

// The max (or min) and its first position. NaN beats every number and the first NaN
// wins; equal values keep the smaller index: the order-independent form of the CPU's
// sequential "strictly beats" scan. Either output pointer may be null.
template <class T>
struct ExtremumOp {
  using C = dcompute_t<T>;
  using State = ArgState<C>;
  const T* x;
  T* values;
  int64_t* indices;
  bool is_max;
  C worst;  // loses to every value: -inf / +inf, or the type's lowest / highest
  __device__ State identity() const { return {worst, INT64_MAX}; }
  __device__ State load(int64_t offset, int64_t r) const { return {load_as_compute(x + offset), r}; }
  __device__ State combine(State a, State b) const {
    if constexpr (std::is_floating_point_v<C>) {
      bool a_nan = a.value != a.value, b_nan = b.value != b.value;
      if (a_nan != b_nan) return a_nan ? a : b;
      if (a_nan) return a.index <= b.index ? a : b;
    }
    if (a.value != b.value) return (is_max ? a.value > b.value : a.value < b.value) ? a : b;
    return a.index <= b.index ? a : b;
  }
  __device__ void store(int64_t i, State s) const {
    if (values) values[i] = convert<T>(s.value);
    if (indices) indices[i] = s.index;
  }
};

template <class A>
struct WelfordState {
  A mean;
  A m2;  // sum of squared deviations from the mean
  int64_t count;
};

// Sum of squared deviations by Welford's merge (Chan et al.): no cancellation when
// the mean is large against the spread, as the CPU's two passes avoid it.
template <class T>
struct VarianceOp {
  using A = dcompute_t<T>;
  using State = WelfordState<A>;
  const T* x;
  T* out;
  double divisor;
  bool take_sqrt;
  __device__ State identity() const { return {A(0), A(0), 0}; }
  __device__ State load(int64_t offset, int64_t) const { return {load_as_compute(x + offset), A(0), 1}; }
  __device__ State combine(State a, State b) const {
    if (a.count == 0) return b;
    if (b.count == 0) return a;
    int64_t n = a.count + b.count;
    A delta = b.mean - a.mean;
    A b_share = static_cast<A>(b.count) / static_cast<A>(n);
    return {a.mean + delta * b_share, a.m2 + b.m2 + delta * delta * static_cast<A>(a.count) * b_share, n};
  }
  __device__ void store(int64_t i, State s) const {
    double v = static_cast<double>(s.m2) / divisor;
    out[i] = convert<T>(take_sqrt ? ::sqrt(v) : v);
  }
};

template <class T>
struct LogSumExpOp {
  using A = dcompute_t<T>;
  using State = LogSumExpState<A>;
  const T* x;
  T* out;
  __device__ State identity() const { return lse_identity<A>(); }
  __device__ State load(int64_t offset, int64_t) const { return lse_of<A>(load_as_compute(x + offset)); }
  __device__ State combine(State a, State b) const { return lse_combine(a, b); }
  __device__ void store(int64_t i, State s) const { out[i] = convert<T>(lse_value(s)); }
};

// ---------------------------------------------------------------------------
// Host side.

template <class T>
const T* layout_data(const ReduceLayout& l) {
  return static_cast<const T*>(l.data.raw_data());
}

template <class Op>
void run(const Op& op, const ReduceLayout& l, const Tensor& out) {
  launch_reduce(op, l.outer * l.inner, l.reduced, l.inner, out.device());
}

void sum_or_mean(const TensorList& in, const Attrs& attrs, TensorList& out, bool mean) {
  const Tensor& y = out[0];
  if (y.numel() == 0) return;
  DeviceGuard guard(y.device().index);
  Tensor x = cpu::as_dtype(in[0], y.dtype());  // integer and bool sums widen to i64 first
  ReduceLayout l = reduce_layout(x, reduction_dims(x, attrs.ints("dims")));
  double scale = mean ? 1.0 / static_cast<double>(l.reduced) : 1.0;
  visit_device_dtype(y.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, int32_t>)
      throw Error(std::string("sum: cannot sum into a ") + dtype_name(y.dtype()) + " tensor");
    else
      run(SumOp<T>{layout_data<T>(l), device_data<T>(y), scale}, l, y);
  });
}

// The value every element beats in a max (is_max) or min.
template <class C>
C worst_value(bool is_max) {
  using limits = std::numeric_limits<C>;
  if constexpr (limits::has_infinity)
    return is_max ? -limits::infinity() : limits::infinity();
  else
    return is_max ? limits::lowest() : limits::max();
}

// The max/min of x over `dims` into `values` and/or `indices` (either may be undefined).
void extremum(const Tensor& x, const std::vector<int64_t>& dims, bool is_max, const Tensor& values,
              const Tensor& indices) {
  const Tensor& y = values.defined() ? values : indices;
  if (y.numel() == 0) return;
  DeviceGuard guard(y.device().index);
  ReduceLayout l = reduce_layout(x, dims);
  visit_device_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = dcompute_t<T>;
    ExtremumOp<T> op{layout_data<T>(l), values.defined() ? device_data<T>(values) : nullptr,
                     indices.defined() ? device_data<int64_t>(indices) : nullptr, is_max, worst_value<C>(is_max)};
    run(op, l, y);
  });
}

std::vector<int64_t> all_dims(const Tensor& x) { return reduction_dims(x, {}); }
std::vector<int64_t> one_dim(const Tensor& x, int64_t dim) { return reduction_dims(x, {dim}); }

void variance(const TensorList& in, const Attrs& attrs, TensorList& out, bool take_sqrt) {
  const Tensor& y = out[0];
  if (y.numel() == 0) return;
  DeviceGuard guard(y.device().index);
  ReduceLayout l = reduce_layout(in[0], reduction_dims(in[0], attrs.ints("dims")));
  // PyTorch divides by max(0, N - correction): too large a correction gives inf/nan.
  double divisor = static_cast<double>(std::max<int64_t>(0, l.reduced - attrs.i("correction")));
  visit_device_float(y.dtype(), take_sqrt ? "std" : "var", [&](auto tag) {
    using T = typename decltype(tag)::type;
    run(VarianceOp<T>{layout_data<T>(l), device_data<T>(y), divisor, take_sqrt}, l, y);
  });
}

}  // namespace

void sum(const TensorList& in, const Attrs& attrs, TensorList& out) { sum_or_mean(in, attrs, out, false); }
void mean(const TensorList& in, const Attrs& attrs, TensorList& out) { sum_or_mean(in, attrs, out, true); }

void max(const TensorList& in, const Attrs&, TensorList& out) {
  extremum(in[0], all_dims(in[0]), true, out[0], Tensor());
}
void min(const TensorList& in, const Attrs&, TensorList& out) {
  extremum(in[0], all_dims(in[0]), false, out[0], Tensor());
}
void max_dim(const TensorList& in, const Attrs& attrs, TensorList& out) {
  extremum(in[0], one_dim(in[0], attrs.i("dim")), true, out[0], out[1]);
}
void min_dim(const TensorList& in, const Attrs& attrs, TensorList& out) {
  extremum(in[0], one_dim(in[0], attrs.i("dim")), false, out[0], out[1]);
}
void argmax(const TensorList& in, const Attrs& attrs, TensorList& out) {
  extremum(in[0], arg_dims(in[0], attrs), true, Tensor(), out[0]);
}
void argmin(const TensorList& in, const Attrs& attrs, TensorList& out) {
  extremum(in[0], arg_dims(in[0], attrs), false, Tensor(), out[0]);
}

void var(const TensorList& in, const Attrs& attrs, TensorList& out) { variance(in, attrs, out, false); }
void std(const TensorList& in, const Attrs& attrs, TensorList& out) { variance(in, attrs, out, true); }

void logsumexp(const TensorList& in, const Attrs& attrs, TensorList& out) {
  const Tensor& y = out[0];
  if (y.numel() == 0) return;
  DeviceGuard guard(y.device().index);
  // Integer inputs compute in the output's floating dtype (PyTorch promotes them too).
  Tensor x = cpu::as_dtype(in[0], y.dtype());
  ReduceLayout l = reduce_layout(x, reduction_dims(x, attrs.ints("dims")));
  visit_device_float(y.dtype(), "logsumexp", [&](auto tag) {
    using T = typename decltype(tag)::type;
    run(LogSumExpOp<T>{layout_data<T>(l), device_data<T>(y)}, l, y);
  });
}

}  // namespace nabla::cuda
