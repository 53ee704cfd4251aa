// Elementwise programs on CUDA: a fused chain of elementwise ops run as one kernel,
// generated for the program and compiled with NVRTC where it can be (rtc.cuh), else
// the interpreted kernel below.
// Each thread takes one output element at a time (grid-stride), loads that element of
// every input once (any dtype, strides or broadcast, converted to the program's dtype
// as it is read), runs the steps over a small per-thread register file, and writes the
// result once; the intermediates never reach global memory.
//
// The program travels as a __grid_constant__ kernel parameter of fixed size (a
// constant-memory symbol would be shared by concurrent launches on other streams), so
// a program has at most kMaxProgramInputs inputs and kMaxProgramSteps steps. Every
// thread runs the same step at the same time, so the switch over the op is uniform:
// no divergence, and the step is read from the parameter bank by all lanes at once.
// The steps call the scalar functions of the unfused kernels (tensor/scalar_ops.hpp), so a
// fused result equals the unfused ops'.
#include "tensor/cpu/copy.hpp"
#include "tensor/cuda/common.cuh"
#include "tensor/cuda/fused.hpp"
#include "tensor/cuda/rtc.cuh"
#include "tensor/scalar_ops.hpp"

namespace nabla::cuda {

namespace {

constexpr int kMaxRegisters = kMaxProgramInputs + kMaxProgramSteps;

struct DeviceStep {
  OpId op;
  int8_t args[3];  // registers; -1 when the op takes fewer
  bool has_lo, has_hi;
  double attr[2];  // clamp's bounds, a threshold or a parametric op's attributes (cpu::ElementwiseStep)
};

struct DeviceProgram {
  int num_inputs, num_steps, result;
  bool flat;  // every input dense or a single element: flat_stride, no offset calculator
  DeviceStep steps[kMaxProgramSteps];
  const void* data[kMaxProgramInputs];
  DType dtype[kMaxProgramInputs];
  int64_t flat_stride[kMaxProgramInputs];  // 1 dense, 0 a single element
};

// The classic limit on a kernel's parameters; newer toolkits allow more, but this
// keeps the launch cheap and portable.
static_assert(sizeof(DeviceProgram) + sizeof(OffsetCalculator<kMaxProgramInputs>) + 64 <= 4096,
              "the elementwise program no longer fits in 4 KiB of kernel parameters");

template <class T>
__device__ __forceinline__ T run_step(const DeviceStep& s, const T* reg) {
  T a = reg[s.args[0]];
  T b = s.args[1] >= 0 ? reg[s.args[1]] : T(0);
  T c = s.args[2] >= 0 ? reg[s.args[2]] : T(0);
  switch (s.op) {
    case OpId::where:
      return a != T(0) ? b : c;
    case OpId::clamp: {
      T lo = static_cast<T>(s.attr[0]), hi = static_cast<T>(s.attr[1]);
      if (s.has_lo && a < lo) a = lo;
      if (s.has_hi && a > hi) a = hi;
      return a;
    }
    case OpId::threshold_backward:
      return scalar::threshold_backward(a, b, static_cast<T>(s.attr[0]));
#define NABLA_UNARY(name) \
  case OpId::name:        \
    return scalar::name(a);
#define NABLA_PARAMETRIC_UNARY(name) \
  case OpId::name:                   \
    return scalar::name(a, static_cast<T>(s.attr[0]), static_cast<T>(s.attr[1]));
#define NABLA_BINARY(name) \
  case OpId::name:         \
    return scalar::name(a, b);
#define NABLA_COMPARE(name) \
  case OpId::name:          \
    return scalar::name(a, b) ? T(1) : T(0);
      NABLA_UNARY_OPS(NABLA_UNARY)
      NABLA_PARAMETRIC_UNARY_OPS(NABLA_PARAMETRIC_UNARY)
      NABLA_BINARY_OPS(NABLA_BINARY)
      NABLA_COMPARISON_OPS(NABLA_COMPARE)
#undef NABLA_UNARY
#undef NABLA_PARAMETRIC_UNARY
#undef NABLA_BINARY
#undef NABLA_COMPARE
    default:
      break;
  }
  return a;  // not reached: the host checked every op
}

// Loads element i of every input into reg[0, num_inputs).
template <class T>
__device__ __forceinline__ void load_inputs(const DeviceProgram& prog, const OffsetCalculator<kMaxProgramInputs>& calc,
                                            int64_t i, T* reg) {
  int64_t offset[kMaxProgramInputs];
  if (prog.flat) {
#pragma unroll
    for (int k = 0; k < kMaxProgramInputs; ++k) offset[k] = i * prog.flat_stride[k];
  } else {
    calc.offsets(i, offset);
  }
#pragma unroll
  for (int k = 0; k < kMaxProgramInputs; ++k)
    if (k < prog.num_inputs) reg[k] = load_converted<T>(prog.data[k], prog.dtype[k], offset[k]);
}

template <class T>
__global__ void program_kernel(T* out, const __grid_constant__ DeviceProgram prog,
                               const __grid_constant__ OffsetCalculator<kMaxProgramInputs> calc, int64_t n) {
  NABLA_GRID_STRIDE_LOOP(i, n) {
    T reg[kMaxRegisters];
    load_inputs(prog, calc, i, reg);
    for (int s = 0; s < prog.num_steps; ++s) reg[prog.num_inputs + s] = run_step(prog.steps[s], reg);
    out[i] = reg[prog.result];
  }
}

// Throws unless every step is an op of the fused loops and reads registers written before it (a bad register would
// read outside the thread's register file on the device). Arguments past the op's
// arity are ignored (device_program sets them to -1).
void check_registers(const cpu::ElementwiseProgram& program) {
  int written = program.num_inputs;
  for (size_t s = 0; s < program.steps.size(); ++s, ++written) {
    const cpu::ElementwiseStep& step = program.steps[s];
    NABLA_CHECK(is_fusable_elementwise(step.op),
                std::string("elementwise program: ") + op_name(step.op) + " cannot run in a fused loop");
    for (int a = 0; a < cpu::elementwise_arity(step.op); ++a)
      NABLA_CHECK(step.args[a] >= 0 && step.args[a] < written,
                  "elementwise program: step " + std::to_string(s) + " reads register " + std::to_string(step.args[a]) +
                      " as argument " + std::to_string(a) + ", expected one of 0.." + std::to_string(written - 1));
  }
  NABLA_CHECK(program.result >= 0 && program.result < written, "elementwise program: result register " +
                                                                   std::to_string(program.result) +
                                                                   " is not one of 0.." + std::to_string(written - 1));
}

DeviceProgram device_program(const cpu::ElementwiseProgram& program) {
  DeviceProgram prog{};
  prog.num_inputs = program.num_inputs;
  prog.num_steps = static_cast<int>(program.steps.size());
  prog.result = program.result;
  for (int s = 0; s < prog.num_steps; ++s) {
    const cpu::ElementwiseStep& from = program.steps[s];
    DeviceStep& to = prog.steps[s];
    to.op = from.op;
    for (int a = 0; a < 3; ++a)
      to.args[a] = a < cpu::elementwise_arity(from.op) ? static_cast<int8_t>(from.args[a]) : -1;
    to.has_lo = from.has_lo;
    to.has_hi = from.has_hi;
    to.attr[0] = from.attr[0];
    to.attr[1] = from.attr[1];
  }
  return prog;
}

// The inputs on out's device: CPU numbers (0-dim) go along, as dispatch does for ops.
TensorList inputs_on_device(const TensorList& inputs, const Tensor& out) {
  TensorList moved = inputs;
  for (size_t k = 0; k < moved.size(); ++k) {
    Tensor& t = moved[k];
    if (t.device() == out.device()) continue;
    NABLA_CHECK(t.device().kind == DeviceKind::cpu && t.dim() == 0, "elementwise program: input " + std::to_string(k) +
                                                                        " is on " + t.device().str() +
                                                                        " but the output is on " + out.device().str());
    t = cuda::to_device(t, out.device());
  }
  return moved;
}

template <class T>
void launch_program(DeviceProgram prog, const TensorList& inputs, const Tensor& out) {
  int64_t n = out.numel();
  // The slots past num_inputs hold a 0-dim view of out: a stride-0 operand never read.
  Tensor unused = make_view(out, Shape(), Shape(), out.offset());
  std::array<const Tensor*, kMaxProgramInputs> operands;
  prog.flat = true;
  for (int k = 0; k < kMaxProgramInputs; ++k) {
    const Tensor& t = k < prog.num_inputs ? inputs[k] : unused;
    bool dense = t.is_contiguous() && t.sizes() == out.sizes();
    operands[k] = &t;
    prog.data[k] = t.raw_data();
    prog.dtype[k] = t.dtype();
    prog.flat_stride[k] = dense ? 1 : 0;
    prog.flat = prog.flat && (dense || t.numel() == 1);
  }
  OffsetCalculator<kMaxProgramInputs> calc{};
  if (!prog.flat) calc = make_offset_calculator<kMaxProgramInputs>(out.sizes(), operands);
  DeviceGuard guard(out.device().index);
  program_kernel<T><<<blocks_for(n), kThreads, 0, stream_for(out)>>>(device_data<T>(out), prog, calc, n);
  NABLA_CUDA_LAUNCH_CHECK();
}

}  // namespace

bool program_fits_on_cuda(const cpu::ElementwiseProgram& program) {
  return program.num_inputs <= kMaxProgramInputs && static_cast<int>(program.steps.size()) <= kMaxProgramSteps;
}

void run_elementwise_program(const cpu::ElementwiseProgram& program, const TensorList& inputs, const Tensor& out) {
  NABLA_CHECK(static_cast<int>(inputs.size()) == program.num_inputs, "elementwise program: wrong number of inputs");
  NABLA_CHECK(out.device().kind == DeviceKind::cuda,
              "elementwise program: the output is on " + out.device().str() + ", expected a cuda device");
  NABLA_CHECK(out.is_contiguous(), "elementwise program: the output must be contiguous");
  NABLA_CHECK(program_fits_on_cuda(program), "elementwise program: " + std::to_string(program.num_inputs) +
                                                 " inputs and " + std::to_string(program.steps.size()) +
                                                 " steps do not fit one CUDA kernel (at most " +
                                                 std::to_string(kMaxProgramInputs) + " inputs and " +
                                                 std::to_string(kMaxProgramSteps) + " steps); split the program");
  check_registers(program);
  if (out.numel() == 0) return;
  TensorList on_device = inputs_on_device(inputs, out);
  if (run_generated_program(program, on_device, out)) return;
  DeviceProgram prog = device_program(program);
  switch (out.dtype()) {
    case DType::f32:
      return launch_program<float>(prog, on_device, out);
    case DType::f64:
      return launch_program<double>(prog, on_device, out);
    default:
      throw Error(std::string("fused elementwise kernel: no CUDA kernel for ") + dtype_name(out.dtype()));
  }
}

}  // namespace nabla::cuda
