// CUDA kernels of the elementwise rows: the unary ops, the broadcasting binary ops,
// the comparisons, where, clamp and threshold_backward. Every op goes through one launcher: a functor
// applied per output element, with each input converted as it is read to the
// compute type (the output's dtype, float for f16/bf16, or for comparisons the
// inputs' result_type), exactly as the CPU kernels convert a mixed input with
// as_dtype before computing (tensor/cpu/elementwise.cpp).
//
// Two kernels per functor and dtype. A flat one, when every input is either dense
// (contiguous, of the output's shape) or a single element (a number such as the 2.0 of
// `x * 2.0`): no index arithmetic, and when the dense inputs all have the op's dtype
// (the common case) plain loads, several per thread in flight. And a strided one that
// finds each input's element through an OffsetCalculator (any strides, broadcast dims
// of stride 0). Inputs of other dtypes are read through load_converted, whose
// dtype switch is the same for every thread of a launch (uniform branches, no
// divergence); this keeps the instantiations to one per op and dtype, not one per
// combination of input dtypes.
#include <type_traits>
#include <variant>

#include "tensor/cpu/copy.hpp"
#include "tensor/cuda/common.cuh"
#include "tensor/cuda/kernels.hpp"
#include "tensor/scalar_ops.hpp"

namespace nabla::cuda {

// The signature of kernels.hpp (whose macro is local to that header).
#define NABLA_KERNEL(name) void name(const TensorList& in, const Attrs& attrs, TensorList& out)

namespace {

// The inputs of one launch.
template <int N>
struct Operands {
  const void* data[N];
  DType dtype[N];
  int64_t flat_stride[N];  // flat kernel: 1 for a dense input, 0 for a single element
  bool typed;              // flat kernel: every dense input has the dtype In
};

// The DType whose elements are the device type T.
template <class T>
constexpr DType dtype_of_device() {
  if constexpr (std::is_same_v<T, __half>)
    return DType::f16;
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return DType::bf16;
  else
    return dtype_of<T>::value;
}

template <class C, int N, class Op>
__device__ __forceinline__ auto apply(const Op& op, const C (&args)[N]) {
  if constexpr (N == 1)
    return op(args[0]);
  else if constexpr (N == 2)
    return op(args[0], args[1]);
  else
    return op(args[0], args[1], args[2]);
}

// Elements each thread of a typed flat kernel handles per step: their loads are all
// in flight before the first result is computed.
constexpr int kUnroll = 4;

// Dense inputs of dtype In read with plain loads; single elements (of any dtype) read
// once per thread. A block covers blockDim * kUnroll consecutive elements per step,
// thread t the ones at t, t + blockDim, ..., so every load is coalesced.
template <class Out, class In, int N, class Op>
__device__ __forceinline__ void flat_typed(Out* out, const Operands<N>& in, int64_t n, const Op& op) {
  using C = dcompute_t<In>;
  C single[N];
#pragma unroll
  for (int k = 0; k < N; ++k) single[k] = in.flat_stride[k] == 0 ? load_converted<C>(in.data[k], in.dtype[k], 0) : C(0);
  const int64_t tile = static_cast<int64_t>(blockDim.x) * kUnroll;
  for (int64_t base = blockIdx.x * tile; base < n; base += gridDim.x * tile) {
    C args[kUnroll][N];
#pragma unroll
    for (int j = 0; j < kUnroll; ++j) {
      int64_t i = base + threadIdx.x + j * static_cast<int64_t>(blockDim.x);
#pragma unroll
      for (int k = 0; k < N; ++k) {
        bool dense = in.flat_stride[k] != 0;
        args[j][k] = !dense ? single[k] : i < n ? load_as_compute(static_cast<const In*>(in.data[k]) + i) : C(0);
      }
    }
#pragma unroll
    for (int j = 0; j < kUnroll; ++j) {
      int64_t i = base + threadIdx.x + j * static_cast<int64_t>(blockDim.x);
      if (i < n) out[i] = convert<Out>(apply<C, N>(op, args[j]));
    }
  }
}

// Dense inputs of mixed dtypes, each converted as it is read.
template <class Out, class C, int N, class Op>
__device__ __forceinline__ void flat_converting(Out* out, const Operands<N>& in, int64_t n, const Op& op) {
  NABLA_GRID_STRIDE_LOOP(i, n) {
    C args[N];
#pragma unroll
    for (int k = 0; k < N; ++k) args[k] = load_converted<C>(in.data[k], in.dtype[k], i * in.flat_stride[k]);
    out[i] = convert<Out>(apply<C, N>(op, args));
  }
}

template <class Out, class In, int N, class Op>
__global__ void flat_kernel(Out* out, Operands<N> in, int64_t n, Op op) {
  if (in.typed)
    flat_typed<Out, In, N>(out, in, n, op);
  else
    flat_converting<Out, dcompute_t<In>, N>(out, in, n, op);
}

// The offset calculator is a __grid_constant__ so that its arrays, indexed by a
// runtime dim, are read from the parameter bank instead of being copied per thread.
template <class Out, class C, int N, class Op>
__global__ void strided_kernel(Out* out, Operands<N> in, const __grid_constant__ OffsetCalculator<N> calc, int64_t n,
                               Op op) {
  NABLA_GRID_STRIDE_LOOP(i, n) {
    int64_t offset[N];
    calc.offsets(i, offset);
    C args[N];
#pragma unroll
    for (int k = 0; k < N; ++k) args[k] = load_converted<C>(in.data[k], in.dtype[k], offset[k]);
    out[i] = convert<Out>(apply<C, N>(op, args));
  }
}

// out[i] = op(inputs at i, converted to In's compute type) over out's elements; inputs
// broadcast to out's shape (checked by the row's shape rule), out is contiguous. In
// is the element type inputs usually have (the typed fast path reads them as such).
template <class Out, class In, int N, class Op>
void launch_elementwise(const TensorList& inputs, const Tensor& out, Op op) {
  int64_t n = out.numel();
  if (n == 0) return;
  DeviceGuard guard(out.device().index);
  cudaStream_t stream = stream_for(out);
  Operands<N> operands;
  std::array<const Tensor*, N> tensors;
  bool flat = true;
  operands.typed = true;
  for (int k = 0; k < N; ++k) {
    const Tensor& t = inputs[k];
    tensors[k] = &t;
    operands.data[k] = t.raw_data();
    operands.dtype[k] = t.dtype();
    bool dense = t.is_contiguous() && t.sizes() == out.sizes();
    operands.flat_stride[k] = dense ? 1 : 0;
    flat = flat && (dense || t.numel() == 1);
    operands.typed = operands.typed && (!dense || t.dtype() == dtype_of_device<In>());
  }
  Out* result = device_data<Out>(out);
  if (flat) {
    unsigned blocks = blocks_for(operands.typed ? (n + kUnroll - 1) / kUnroll : n);
    flat_kernel<Out, In, N, Op><<<blocks, kThreads, 0, stream>>>(result, operands, n, op);
  } else {
    auto calc = make_offset_calculator<N>(out.sizes(), tensors);
    strided_kernel<Out, dcompute_t<In>, N, Op><<<blocks_for(n), kThreads, 0, stream>>>(result, operands, calc, n, op);
  }
  NABLA_CUDA_LAUNCH_CHECK();
}

// ---------------------------------------------------------------------------
// Functors: one per op, calling the shared scalar function at the compute type.

// Functors: one per op of the list, calling the shared scalar function
// (tensor/scalar_ops.hpp) at the compute type.
#define NABLA_UNARY_FUNCTOR(name)                        \
  struct name##_fn {                                     \
    template <class C>                                   \
    __device__ __forceinline__ C operator()(C v) const { \
      return scalar::name(v);                            \
    }                                                    \
  };
#define NABLA_BINARY_FUNCTOR(name)                            \
  struct name##_fn {                                          \
    template <class C>                                        \
    __device__ __forceinline__ C operator()(C x, C y) const { \
      return scalar::name(x, y);                              \
    }                                                         \
  };
#define NABLA_COMPARE_FUNCTOR(name)                              \
  struct name##_fn {                                             \
    template <class C>                                           \
    __device__ __forceinline__ bool operator()(C x, C y) const { \
      return scalar::name(x, y);                                 \
    }                                                            \
  };
// A parametric op's functor carries its attributes (Note [Scalar attributes of unary
// ops] in tensor/scalar_ops.hpp), converted to the compute type per call: the
// conversion is loop-invariant, and the compiler hoists it.
#define NABLA_PARAMETRIC_UNARY_FUNCTOR(name)                        \
  struct name##_fn {                                                \
    double a, b;                                                    \
    template <class C>                                              \
    __device__ __forceinline__ C operator()(C v) const {            \
      return scalar::name(v, static_cast<C>(a), static_cast<C>(b)); \
    }                                                               \
  };
NABLA_UNARY_OPS(NABLA_UNARY_FUNCTOR)
NABLA_PARAMETRIC_UNARY_OPS(NABLA_PARAMETRIC_UNARY_FUNCTOR)
NABLA_BINARY_OPS(NABLA_BINARY_FUNCTOR)
NABLA_COMPARISON_OPS(NABLA_COMPARE_FUNCTOR)
#undef NABLA_UNARY_FUNCTOR
#undef NABLA_PARAMETRIC_UNARY_FUNCTOR
#undef NABLA_BINARY_FUNCTOR
#undef NABLA_COMPARE_FUNCTOR

// The condition arrives as bool (see where), so as C it is 0 or 1.
struct where_fn {
  template <class C>
  __device__ __forceinline__ C operator()(C cond, C x, C y) const {
    return cond != C(0) ? x : y;
  }
};

template <class C>
struct clamp_fn {
  bool has_lo, has_hi;
  C lo, hi;
  __device__ __forceinline__ C operator()(C v) const {
    if (has_lo && v < lo) v = lo;
    if (has_hi && v > hi) v = hi;
    return v;
  }
};

// relu's gradient (the threshold in the compute type, converted on the host).
template <class C>
struct threshold_backward_fn {
  C threshold;
  __device__ __forceinline__ C operator()(C g, C x) const { return scalar::threshold_backward(g, x, threshold); }
};

// ---------------------------------------------------------------------------
// Dtype dispatch, with the CPU kernels' rules for which dtypes each op accepts.

// Float ops (exp, ...): the shape rule made the output floating.
template <class Op>
void float_unary(const char* name, const TensorList& in, TensorList& out, Op op = Op{}) {
  visit_device_float(out[0].dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<T, T, 1>(in, out[0], op);
  });
}

// Ops that also make sense on integers (neg, abs, sign, relu), not on bool.
template <class Op>
void numeric_unary(const char* name, const TensorList& in, TensorList& out) {
  visit_device_dtype(out[0].dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>)
      throw Error(std::string(name) + ": not defined for bool");
    else
      launch_elementwise<T, T, 1>(in, out[0], Op{});
  });
}

// Binary arithmetic in the output's dtype (the inputs' result_type); bool only where
// the op allows it (add is or, mul is and, maximum/minimum).
template <class Op, bool kBool>
void numeric_binary(const char* name, const TensorList& in, TensorList& out) {
  visit_device_dtype(out[0].dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool> && !kBool)
      throw Error(std::string(name) + ": not defined for bool");
    else
      launch_elementwise<T, T, 2>(in, out[0], Op{});
  });
}

template <class Op>
void float_binary(const char* name, const TensorList& in, TensorList& out) {
  visit_device_float(out[0].dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<T, T, 2>(in, out[0], Op{});
  });
}

// Comparisons compute in the inputs' result_type (a wrapped number does not widen:
// f32 > 0.1 compares in f32) and write bool. 16-bit floats compare in float, which
// is what the CPU does after widening them to f32.
template <class Op>
void compare(const TensorList& in, TensorList& out) {
  visit_device_dtype(result_type(in), [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<bool, T, 2>(in, out[0], Op{});
  });
}

}  // namespace

// The unary kernels: integer inputs keep their dtype for NABLA_INTEGER_UNARY_OPS
// (not bool), the others compute in the float dtype the shape rule chose.
template <OpId op, class Fn>
void unary_kernel(const char* name, const TensorList& in, TensorList& out) {
  if constexpr (keeps_integers(op))
    numeric_unary<Fn>(name, in, out);
  else
    float_unary<Fn>(name, in, out);
}
#define NABLA_UNARY_KERNEL(name) \
  NABLA_KERNEL(name) { unary_kernel<OpId::name, name##_fn>(#name, in, out); }
NABLA_UNARY_OPS(NABLA_UNARY_KERNEL)
#undef NABLA_UNARY_KERNEL

// The parametric kernels: the functor carries the row's attributes as numbers.
template <class Fn>
void parametric_unary_kernel(OpId op, const TensorList& in, const Attrs& attrs, TensorList& out) {
  std::array<double, 2> p = scalar::scalar_attr_values(op, attrs);
  float_unary<Fn>(op_name(op), in, out, Fn{p[0], p[1]});
}
#define NABLA_PARAMETRIC_UNARY_KERNEL(name) \
  NABLA_KERNEL(name) { parametric_unary_kernel<name##_fn>(OpId::name, in, attrs, out); }
NABLA_PARAMETRIC_UNARY_OPS(NABLA_PARAMETRIC_UNARY_KERNEL)
#undef NABLA_PARAMETRIC_UNARY_KERNEL

// The binary kernels compute in the output's dtype, the inputs' result type (bool
// + bool is or, bool * bool and, in the scalar functions); the float-result ops in
// the float dtype their shape rule gives.
template <OpId op, class Fn>
void binary_kernel(const char* name, const TensorList& in, TensorList& out) {
  if constexpr (has_float_result(op))
    float_binary<Fn>(name, in, out);
  else
    numeric_binary<Fn, true>(name, in, out);
}
#define NABLA_BINARY_KERNEL(name) \
  NABLA_KERNEL(name) { binary_kernel<OpId::name, name##_fn>(#name, in, out); }
NABLA_BINARY_OPS(NABLA_BINARY_KERNEL)
#undef NABLA_BINARY_KERNEL

#define NABLA_COMPARE_KERNEL(name) \
  NABLA_KERNEL(name) { compare<name##_fn>(in, out); }
NABLA_COMPARISON_OPS(NABLA_COMPARE_KERNEL)
#undef NABLA_COMPARE_KERNEL

// A condition of another dtype is first made bool (nonzero is true), as the CPU
// kernel does: read directly as an integer C, 0.5 would truncate to false.
NABLA_KERNEL(where) {
  Tensor cond = in[0].dtype() == DType::b8 ? in[0] : to_dtype_raw(in[0], DType::b8);
  visit_device_dtype(out[0].dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<T, T, 3>({cond, in[1], in[2]}, out[0], where_fn{});
  });
}

// The bounds convert to the compute type on the host, as the CPU kernel converts them:
// an int bound of an integer tensor exactly (through a double, one past 2^53 rounded).
template <class C>
static C clamp_bound(const Attrs& attrs, const char* name) {
  if constexpr (std::is_integral_v<C>) {
    if (const auto* exact = std::get_if<int64_t>(&attrs.value(name))) return static_cast<C>(*exact);
  }
  return static_cast<C>(attrs.f(name));
}

NABLA_KERNEL(clamp) {
  bool has_lo = !attrs.is_none("min"), has_hi = !attrs.is_none("max");
  visit_device_dtype(out[0].dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = dcompute_t<T>;
    if constexpr (std::is_same_v<T, bool>)
      throw Error("clamp: not defined for bool");
    else
      launch_elementwise<T, T, 1>(in, out[0], clamp_fn<C>{has_lo, has_hi, has_lo ? clamp_bound<C>(attrs, "min") : C{},
                                                         has_hi ? clamp_bound<C>(attrs, "max") : C{}});
  });
}

NABLA_KERNEL(threshold_backward) {
  double threshold = attrs.f("threshold");
  visit_device_float(out[0].dtype(), "threshold_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = dcompute_t<T>;
    launch_elementwise<T, T, 2>(in, out[0], threshold_backward_fn<C>{static_cast<C>(threshold)});
  });
}

#undef NABLA_KERNEL

}  // namespace nabla::cuda
