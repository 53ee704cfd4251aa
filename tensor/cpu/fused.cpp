// Elementwise programs: a fused chain of elementwise ops run block by block. Each
// block of kBlock elements loads its inputs (a dense input is read in place, a
// broadcast or strided one gathered), runs every step over the block with a plain
// loop the compiler vectorises, and writes the result register to the output. The
// intermediate registers live in a per-thread scratch of a few KiB, so the fused
// chain reads each input from memory once and writes once, where the unfused ops
// would write and re-read every intermediate.
#include "tensor/cpu/fused.hpp"

#include <cstring>

#include "tensor/cpu/kernels.hpp"
#include "tensor/cpu/loops.hpp"
#include "tensor/cpu/parallel.hpp"
#include "tensor/scalar_ops.hpp"

namespace nabla::cpu {

namespace {

constexpr int64_t kBlock = 512;

// How a block of one input is found: in place (dense, the output's layout and
// dtype), once per thread (a single element), or gathered through strides.
enum class Load : uint8_t { in_place, scalar, gather };

struct InputPlan {
  Load load;
  StridedLoop<2> gather_loop;  // output positions -> this input's elements (gather only)
};

template <class T>
void apply_step(const ElementwiseStep& s, const T* const* reg, T* dst, int64_t n) {
  const T* a = reg[s.args[0]];
  const T* b = s.args[1] >= 0 ? reg[s.args[1]] : nullptr;
  const T* c = s.args[2] >= 0 ? reg[s.args[2]] : nullptr;
  switch (s.op) {
    case OpId::where:
      for (int64_t i = 0; i < n; ++i) dst[i] = a[i] != T(0) ? b[i] : c[i];
      return;
    case OpId::clamp: {
      T lo = static_cast<T>(s.attr[0]), hi = static_cast<T>(s.attr[1]);
      for (int64_t i = 0; i < n; ++i) {
        T v = a[i];
        if (s.has_lo && v < lo) v = lo;
        if (s.has_hi && v > hi) v = hi;
        dst[i] = v;
      }
      return;
    }
    case OpId::threshold_backward: {
      T threshold = static_cast<T>(s.attr[0]);
      for (int64_t i = 0; i < n; ++i) dst[i] = scalar::threshold_backward<T>(a[i], b[i], threshold);
      return;
    }
#define NABLA_UNARY(name)                                           \
  case OpId::name:                                                  \
    for (int64_t i = 0; i < n; ++i) dst[i] = scalar::name<T>(a[i]); \
    return;
#define NABLA_PARAMETRIC_UNARY(name)                                        \
  case OpId::name: {                                                        \
    T p0 = static_cast<T>(s.attr[0]), p1 = static_cast<T>(s.attr[1]);       \
    for (int64_t i = 0; i < n; ++i) dst[i] = scalar::name<T>(a[i], p0, p1); \
    return;                                                                 \
  }
#define NABLA_BINARY(name)                                                \
  case OpId::name:                                                        \
    for (int64_t i = 0; i < n; ++i) dst[i] = scalar::name<T>(a[i], b[i]); \
    return;
#define NABLA_COMPARE(name)                                                             \
  case OpId::name:                                                                      \
    for (int64_t i = 0; i < n; ++i) dst[i] = scalar::name<T>(a[i], b[i]) ? T(1) : T(0); \
    return;
      NABLA_UNARY_OPS(NABLA_UNARY)
      NABLA_PARAMETRIC_UNARY_OPS(NABLA_PARAMETRIC_UNARY)
      NABLA_BINARY_OPS(NABLA_BINARY)
      NABLA_COMPARISON_OPS(NABLA_COMPARE)
#undef NABLA_UNARY
#undef NABLA_PARAMETRIC_UNARY
#undef NABLA_BINARY
#undef NABLA_COMPARE
    default:
      return;  // not reached: run_elementwise_program checked every step
  }
}

// Reads one element of dtype dt as T, as the op table's kernels convert a mixed
// input (as_dtype) before computing.
template <class T>
T load_as(const char* p, DType dt) {
  switch (dt) {
    case DType::f32:
      return static_cast<T>(*reinterpret_cast<const float*>(p));
    case DType::f64:
      return static_cast<T>(*reinterpret_cast<const double*>(p));
    case DType::i64:
      return static_cast<T>(*reinterpret_cast<const int64_t*>(p));
    case DType::i32:
      return static_cast<T>(*reinterpret_cast<const int32_t*>(p));
    case DType::b8:
      return *reinterpret_cast<const bool*>(p) ? T(1) : T(0);
    default:
      throw Error(std::string("fused elementwise kernel: cannot read ") + dtype_name(dt));
  }
}

template <class T>
void gather_block(const InputPlan& plan, DType dt, int64_t begin, int64_t n, T* dst) {
  int64_t written = 0;
  plan.gather_loop.run_range(begin, begin + n, [&](char** p, int64_t count, const int64_t* s) {
    for (int64_t i = 0; i < count; ++i) dst[written + i] = load_as<T>(p[1] + i * s[1], dt);
    written += count;
  });
}

template <class T>
void run_program(const ElementwiseProgram& prog, const TensorList& inputs, const Tensor& out) {
  int64_t total = out.numel();
  std::vector<InputPlan> plans;
  plans.reserve(inputs.size());
  for (const Tensor& in : inputs) {
    bool dense = in.is_contiguous() && in.numel() == total && in.dtype() == out.dtype();
    Load load = dense ? Load::in_place : in.numel() == 1 ? Load::scalar : Load::gather;
    plans.push_back({load, StridedLoop<2>({&out, &in})});
  }
  int num_regs = prog.num_inputs + static_cast<int>(prog.steps.size());
  T* result = static_cast<T*>(out.raw_data());
  int64_t blocks = (total + kBlock - 1) / kBlock;
  parallel_for(0, blocks, total * static_cast<int64_t>(prog.steps.size()), [&](int64_t lo, int64_t hi) {
    std::vector<T> scratch(static_cast<size_t>(num_regs * kBlock));
    std::vector<const T*> reg(static_cast<size_t>(num_regs));
    auto slot = [&](int r) { return scratch.data() + r * kBlock; };
    for (int k = 0; k < prog.num_inputs; ++k) {
      if (plans[k].load != Load::scalar) continue;
      T v = load_as<T>(static_cast<const char*>(inputs[k].raw_data()), inputs[k].dtype());
      std::fill(slot(k), slot(k) + kBlock, v);
      reg[k] = slot(k);
    }
    for (size_t s = 0; s < prog.steps.size(); ++s)
      reg[prog.num_inputs + s] = slot(prog.num_inputs + static_cast<int>(s));
    for (int64_t blk = lo; blk < hi; ++blk) {
      int64_t begin = blk * kBlock, n = std::min(kBlock, total - begin);
      for (int k = 0; k < prog.num_inputs; ++k) {
        if (plans[k].load == Load::in_place) reg[k] = static_cast<const T*>(inputs[k].raw_data()) + begin;
        if (plans[k].load == Load::gather) {
          gather_block<T>(plans[k], inputs[k].dtype(), begin, n, slot(k));
          reg[k] = slot(k);
        }
      }
      // The last step writes straight into the output.
      for (size_t s = 0; s < prog.steps.size(); ++s) {
        int r = prog.num_inputs + static_cast<int>(s);
        T* dst = r == prog.result ? result + begin : slot(r);
        apply_step<T>(prog.steps[s], reg.data(), dst, n);
        reg[r] = dst;
      }
      if (prog.result < prog.num_inputs) std::memcpy(result + begin, reg[prog.result], sizeof(T) * n);
    }
  });
}

}  // namespace

bool elementwise_program_reads(DType dt) {
  return dt == DType::f32 || dt == DType::f64 || dt == DType::i64 || dt == DType::i32 || dt == DType::b8;
}

void run_elementwise_program(const ElementwiseProgram& program, const TensorList& inputs, const Tensor& out) {
  NABLA_CHECK(static_cast<int>(inputs.size()) == program.num_inputs, "elementwise program: wrong number of inputs");
  NABLA_CHECK(out.is_contiguous(), "elementwise program: the output must be contiguous");
  for (const ElementwiseStep& step : program.steps)
    if (!is_fusable_elementwise(step.op))
      throw Error(std::string("elementwise program: ") + op_name(step.op) + " cannot run in a fused loop");
  for (const Tensor& in : inputs)
    if (!elementwise_program_reads(in.dtype()))
      throw Error(std::string("fused elementwise kernel: cannot read an input of dtype ") + dtype_name(in.dtype()));
  if (out.numel() == 0) return;
  switch (out.dtype()) {
    case DType::f32:
      return run_program<float>(program, inputs, out);
    case DType::f64:
      return run_program<double>(program, inputs, out);
    default:
      throw Error(std::string("fused elementwise kernel: no kernel for ") + dtype_name(out.dtype()));
  }
}

}  // namespace nabla::cpu
