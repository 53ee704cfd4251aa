// CUDA kernels of the loss rows (semantics: tensor/cpu/loss.cpp). Each loss is
// computed per element (or per target position for the class losses), into the output
// for reduction none (attribute 0), else into a temporary that is then reduced to the
// 0-dim output: averaged (1) or summed (2). Pointwise losses reduce through this
// backend's mean/sum kernels; the class losses divide by the number of targets that
// are not ignore_index, counted on the device with the sum. Losses compute in the
// input's dtype (f32 or f64; the rows are registered without f16/bf16 support, so
// dispatch runs those through f32), where the CPU computes in f64.
//
// Value checks that the CPU makes before computing (class indices in range,
// probabilities in [0, 1]) are device-side checks here (see reduce.cuh): the kernel
// prints the culprit and traps, and the next synchronising call fails.
#include "tensor/cpu/copy.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/cuda/kernels.hpp"
#include "tensor/cuda/reduce.cuh"
#include "tensor/layout.hpp"

namespace nabla::cuda {

namespace {

constexpr int64_t kNone = 0, kMean = 1;

// f32 or f64 only (see the file comment).
template <class F>
void visit_loss_dtype(DType dt, const char* op, F&& f) {
  if (dt == DType::f32) return f(TypeTag<float>{});
  if (dt == DType::f64) return f(TypeTag<double>{});
  throw Error(std::string(op) + ": the CUDA kernel takes f32 or f64, got " + dtype_name(dt));
}

// Reduces per-element losses to out[0] (0-dim) with this backend's mean or sum.
void reduce_pointwise_losses(const Tensor& losses, int64_t reduction, TensorList& out) {
  TensorList in{losses};
  Attrs all{{"dims", std::vector<int64_t>{}}, {"keepdim", false}};
  if (reduction == kMean)
    mean(in, all, out);
  else
    sum(in, all, out);
}

// ---- losses of two same-shape tensors -----------------------------------------------

__device__ __noinline__ void fail_probability(double p) {
  printf(
      "nabla (CUDA): binary_cross_entropy: every element of argument 'input' must be a probability in [0, 1], "
      "found %g\n",
      p);
  __trap();
}

struct MseLoss {
  template <class A>
  __device__ A operator()(A x, A t) const {
    A d = x - t;
    return d * d;
  }
};

// -(t log p + (1 - t) log(1 - p)) with each log clamped at -100, as PyTorch does.
struct BinaryCrossEntropyLoss {
  template <class A>
  __device__ A operator()(A p, A t) const {
    if (!(p >= A(0) && p <= A(1))) fail_probability(static_cast<double>(p));  // NaN fails too
    A log_p = max_of(log_of(p), A(-100)), log_q = max_of(log1p_of(-p), A(-100));
    return -(t * log_p + (A(1) - t) * log_q);
  }
};

// max(x, 0) - x t + log(1 + exp(-|x|)): never overflows. Written so that a NaN x
// stays NaN, as the CPU's std::max(x, 0.0) keeps it.
struct BinaryCrossEntropyWithLogitsLoss {
  template <class A>
  __device__ A operator()(A x, A t) const {
    A positive = x < A(0) ? A(0) : x;
    A magnitude = x < A(0) ? -x : x;
    return positive - x * t + log1p_of(exp_of(-magnitude));
  }
};

template <class T, class Loss>
__global__ void pointwise_loss_kernel(T* losses, const T* x, const T* t, int64_t n, OffsetCalculator<2> calc,
                                      Loss loss) {
  NABLA_GRID_STRIDE_LOOP(i, n) {
    int64_t off[2];
    calc.offsets(i, off);
    losses[i] = loss(x[off[0]], t[off[1]]);
  }
}

template <class Loss>
void pointwise_loss(const char* op, const TensorList& in, const Attrs& attrs, TensorList& out, Loss loss) {
  const Tensor& y = out[0];
  DeviceGuard guard(y.device().index);
  DType dt = y.dtype();
  Tensor x = cpu::as_dtype(in[0], dt), t = cpu::as_dtype(in[1], dt);
  int64_t n = x.numel(), reduction = attrs.i("reduction");
  Tensor losses = reduction == kNone ? y : empty(x.sizes(), dt, y.device());
  if (n > 0) {
    auto calc = make_offset_calculator<2>(x.sizes(), {&x, &t});
    visit_loss_dtype(dt, op, [&](auto tag) {
      using T = typename decltype(tag)::type;
      pointwise_loss_kernel<T, Loss><<<blocks_for(n), kThreads, 0, stream_for(y)>>>(
          device_data<T>(losses), device_data<const T>(x), device_data<const T>(t), n, calc, loss);
    });
    NABLA_CUDA_LAUNCH_CHECK();
  }
  if (reduction != kNone) reduce_pointwise_losses(losses, reduction, out);
}

// ---- class losses --------------------------------------------------------------------
// The input is seen as a contiguous [outer, C, inner] block (ClassLayout,
// tensor/layout.hpp); target position p = o * inner + s picks input[o, :, s].

__device__ __noinline__ void fail_target(const char* op, int64_t target, int64_t classes, int64_t ignore_index) {
  printf("nabla (CUDA): %s: target %lld is out of bounds for %lld classes (expected 0..%lld or ignore_index %lld)\n",
         op, static_cast<long long>(target), static_cast<long long>(classes), static_cast<long long>(classes - 1),
         static_cast<long long>(ignore_index));
  __trap();
}

// What both class losses read.
template <class T>
struct ClassLossArgs {
  const T* x;
  const int64_t* target;
  T* losses;  // one per position; 0 where the target is ignore_index
  int64_t classes, inner, ignore_index;

  // The target at p, or -1 when it is ignored (after checking it is a class).
  __device__ int64_t class_at(int64_t p, const char* op) const {
    int64_t t = target[p];
    if (t == ignore_index) return -1;
    if (t < 0 || t >= classes) fail_target(op, t, classes, ignore_index);
    return t;
  }
  __device__ T x_at(int64_t p, int64_t c) const { return x[class_offset(p, c, classes, inner)]; }
};

template <class A>
struct CrossEntropyState {
  LogSumExpState<A> lse;
  A sum_x;  // for label smoothing: the mean of -log_softmax is lse - mean(x)
};

// A reduce op over the classes of each position (reduce.cuh): the log-sum-exp and the
// sum of the logits, then -log_softmax(x)[target] mixed with the mean of
// -log_softmax(x) over the classes by label_smoothing.
template <class T>
struct CrossEntropyOp {
  using State = CrossEntropyState<T>;
  ClassLossArgs<T> a;
  T smoothing;
  __device__ State identity() const { return {lse_identity<T>(), T(0)}; }
  __device__ State load(int64_t offset, int64_t) const { return {lse_of(a.x[offset]), a.x[offset]}; }
  __device__ State combine(State u, State v) const { return {lse_combine(u.lse, v.lse), u.sum_x + v.sum_x}; }
  __device__ void store(int64_t p, State s) const {
    int64_t t = a.class_at(p, "cross_entropy");
    if (t < 0) {
      a.losses[p] = T(0);
      return;
    }
    // The CPU (and PyTorch) subtract the max logit, so a +inf logit gives inf - inf =
    // NaN there; the merged state alone would give a loss of inf.
    if (s.lse.max == -negative_infinity<T>()) {
      a.losses[p] = T(NAN);
      return;
    }
    T lse = lse_value(s.lse);
    T nll = lse - a.x_at(p, t);
    if (smoothing == T(0)) {
      a.losses[p] = nll;
      return;
    }
    T mean_nll = lse - s.sum_x / static_cast<T>(a.classes);
    a.losses[p] = (T(1) - smoothing) * nll + smoothing * mean_nll;
  }
};

template <class T>
__global__ void nll_loss_kernel(ClassLossArgs<T> a, int64_t positions) {
  NABLA_GRID_STRIDE_LOOP(p, positions) {
    int64_t t = a.class_at(p, "nll_loss");
    a.losses[p] = t < 0 ? T(0) : -a.x_at(p, t);
  }
}

template <class A>
struct CountedSum {
  A sum;
  int64_t count;
};

// The sum of the per-position losses, divided for mean by the number of targets
// that are not ignore_index (0 / 0 = NaN when every target is, as in PyTorch).
template <class T>
struct CountedLossOp {
  using State = CountedSum<T>;
  const T* losses;
  const int64_t* target;
  int64_t ignore_index;
  T* out;
  bool mean;
  __device__ State identity() const { return {T(0), 0}; }
  __device__ State load(int64_t offset, int64_t) const {
    return {losses[offset], target[offset] != ignore_index ? int64_t{1} : int64_t{0}};
  }
  __device__ State combine(State u, State v) const { return {u.sum + v.sum, u.count + v.count}; }
  __device__ void store(int64_t i, State s) const {
    out[i] = mean ? static_cast<T>(static_cast<double>(s.sum) / static_cast<double>(s.count)) : s.sum;
  }
};

// Runs `per_position(args, layout)`, which writes one loss per target position into
// args.losses: out[0] itself (reduction none), or a temporary then summed or averaged.
template <class PerPosition>
void class_loss(const char* op, const TensorList& in, const Attrs& attrs, TensorList& out, PerPosition per_position) {
  const Tensor& y = out[0];
  DeviceGuard guard(y.device().index);
  DType dt = y.dtype();
  Tensor x = contiguous_raw(cpu::as_dtype(in[0], dt));
  Tensor target = contiguous_raw(cpu::as_dtype(in[1], DType::i64));
  ClassLayout l = class_layout(x);
  int64_t reduction = attrs.i("reduction"), ignore_index = attrs.i("ignore_index");
  Tensor losses = reduction == kNone ? y : empty(Shape{l.positions()}, dt, y.device());
  visit_loss_dtype(dt, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t* t = device_data<const int64_t>(target);
    ClassLossArgs<T> args{device_data<const T>(x), t, device_data<T>(losses), l.classes, l.inner, ignore_index};
    per_position(args, l);
    if (reduction == kNone) return;
    CountedLossOp<T> total{device_data<const T>(losses), t, ignore_index, device_data<T>(y), reduction == kMean};
    launch_reduce(total, 1, l.positions(), 1, y.device());
  });
}

}  // namespace

void cross_entropy(const TensorList& in, const Attrs& attrs, TensorList& out) {
  double smoothing = attrs.f("label_smoothing");
  Device device = out[0].device();
  class_loss("cross_entropy", in, attrs, out, [&](auto args, const ClassLayout& l) {
    using T = std::remove_pointer_t<decltype(args.losses)>;
    CrossEntropyOp<T> op{args, static_cast<T>(smoothing)};
    launch_reduce(op, l.positions(), l.classes, l.inner, device);
  });
}

void nll_loss(const TensorList& in, const Attrs& attrs, TensorList& out) {
  cudaStream_t stream = stream_for(out[0]);
  class_loss("nll_loss", in, attrs, out, [&](auto args, const ClassLayout& l) {
    using T = std::remove_pointer_t<decltype(args.losses)>;
    int64_t n = l.positions();
    if (n == 0) return;
    nll_loss_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(args, n);
    NABLA_CUDA_LAUNCH_CHECK();
  });
}

void mse_loss(const TensorList& in, const Attrs& attrs, TensorList& out) {
  pointwise_loss("mse_loss", in, attrs, out, MseLoss{});
}

void binary_cross_entropy(const TensorList& in, const Attrs& attrs, TensorList& out) {
  pointwise_loss("binary_cross_entropy", in, attrs, out, BinaryCrossEntropyLoss{});
}

void binary_cross_entropy_with_logits(const TensorList& in, const Attrs& attrs, TensorList& out) {
  pointwise_loss("binary_cross_entropy_with_logits", in, attrs, out, BinaryCrossEntropyWithLogitsLoss{});
}

}  // namespace nabla::cuda
