#include "tensor/cuda/fused_codegen.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "tensor/error.hpp"

namespace nabla::cuda {

namespace {

// The C++ type of a dtype's elements in the kernel (bool is read as its byte).
const char* element_type(DType dtype) {
  switch (dtype) {
    case DType::f32: return "float";
    case DType::f64: return "double";
    case DType::i64: return "long long";
    case DType::i32: return "int";
    case DType::b8: return "unsigned char";
    case DType::i8: return "signed char";
    case DType::u8: return "unsigned char";
    case DType::i16: return "short";
    case DType::f16:
    case DType::bf16: return "unsigned short";  // the bits, converted as they are read
    default: throw Error(std::string("generated fused kernel: no element type for ") + dtype_name(dtype));
  }
}

// 16-bit floats read exactly as the interpreted kernel reads them (__half2float, and
// bf16's bits as the top of a float's), without cuda_fp16.h, which NVRTC cannot find
// without the toolkit's headers.
constexpr const char* kHalfConversions =
    "__device__ __forceinline__ float nabla_f16_to_float(unsigned short h) {\n"
    "  float f;\n"
    "  asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(h));\n"
    "  return f;\n"
    "}\n"
    "__device__ __forceinline__ float nabla_bf16_to_float(unsigned short b) {\n"
    "  return __uint_as_float(static_cast<unsigned int>(b) << 16);\n"
    "}\n";

// A double as a C++ literal that reads back to the same bits (hexadecimal), as T. An
// infinity or NaN has no literal (%a writes "inf"): its bits, as a double.
std::string number(double v) {
  char buf[80];
  if (std::isfinite(v)) {
    std::snprintf(buf, sizeof buf, "T(%a)", v);
  } else {
    unsigned long long bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    std::snprintf(buf, sizeof buf, "T(__longlong_as_double((long long)0x%016llxULL))", bits);
  }
  return buf;
}

// A name with a number: "r3", "in0" (appended: GCC 12 warns falsely of "r" + to_string).
std::string numbered(const char* stem, size_t k) {
  return std::string(stem).append(std::to_string(k));
}

std::string reg(int r) { return numbered("r", static_cast<size_t>(r)); }

// The expression of one step, over registers r0, r1, ... (as run_step in fused.cu).
std::string step_expression(const cpu::ElementwiseStep& s) {
  std::string a = reg(s.args[0]);
  std::string name = op_name(s.op);
  if (s.op == OpId::where) return "(" + a + " != T(0) ? " + reg(s.args[1]) + " : " + reg(s.args[2]) + ")";
  if (s.op == OpId::clamp) {
    std::string v = a;
    if (s.has_lo) v = "(" + v + " < " + number(s.attr[0]) + " ? " + number(s.attr[0]) + " : " + v + ")";
    if (s.has_hi) v = "(" + v + " > " + number(s.attr[1]) + " ? " + number(s.attr[1]) + " : " + v + ")";
    return v;
  }
  if (s.op == OpId::threshold_backward)
    return "threshold_backward<T>(" + a + ", " + reg(s.args[1]) + ", " + number(s.attr[0]) + ")";
  if (is_parametric_unary_op(s.op))
    return name + "<T>(" + a + ", " + number(s.attr[0]) + ", " + number(s.attr[1]) + ")";
  if (is_comparison_op(s.op)) return "(" + name + "<T>(" + a + ", " + reg(s.args[1]) + ") ? T(1) : T(0))";
  if (is_binary_op(s.op)) return name + "<T>(" + a + ", " + reg(s.args[1]) + ")";
  return name + "<T>(" + a + ")";
}

// Statements that set `offsets` of the strided inputs from the output index i.
std::string strided_offsets(const FusedKernelSpec& spec) {
  std::string code;
  for (size_t k = 0; k < spec.inputs.size(); ++k)
    if (spec.inputs[k].access == OperandAccess::strided) code += "    long long " + numbered("o", k) + " = 0;\n";
  if (code.empty()) return code;
  code += "    long long rest = i;\n";
  for (size_t d = spec.out_sizes.size(); d-- > 0;) {
    std::string size = std::to_string(spec.out_sizes[d]) + "LL";
    code += "    { long long c = rest % " + size + "; rest /= " + size + ";";
    for (size_t k = 0; k < spec.inputs.size(); ++k) {
      const FusedOperand& in = spec.inputs[k];
      if (in.access == OperandAccess::strided && in.strides[d] != 0)
        code += " o" + std::to_string(k) + " += c * " + std::to_string(in.strides[d]) + "LL;";
    }
    code += " }\n";
  }
  return code;
}

// The load of input k into register k, converted to T (a bool byte reads as 0 or 1).
std::string load(const FusedKernelSpec& spec, size_t k) {
  const FusedOperand& in = spec.inputs[k];
  std::string index = in.access == OperandAccess::dense    ? "i"
                      : in.access == OperandAccess::single ? "0"
                                                           : numbered("o", k);
  std::string value = numbered("in", k) + "[" + index + "]";
  if (in.dtype == DType::b8) value = "(" + value + " != 0)";
  if (in.dtype == DType::f16) value = "nabla_f16_to_float(" + value + ")";
  if (in.dtype == DType::bf16) value = "nabla_bf16_to_float(" + value + ")";
  return "    T " + reg(static_cast<int>(k)) + " = T(" + value + ");\n";
}

}  // namespace

bool generated_kernel_writes(DType dtype) { return dtype == DType::f32 || dtype == DType::f64; }

bool generated_kernel_fits(const cpu::ElementwiseProgram& program, const TensorList& inputs, const Tensor& out) {
  if (!generated_kernel_writes(out.dtype()) || static_cast<int>(inputs.size()) != program.num_inputs) return false;
  for (const Tensor& t : inputs)
    if (!t.defined()) return false;
  return true;
}

FusedKernelSpec fused_kernel_spec(const cpu::ElementwiseProgram& program, const TensorList& inputs, const Tensor& out) {
  NABLA_CHECK(generated_kernel_fits(program, inputs, out), "generated fused kernel: dtypes it cannot take");
  FusedKernelSpec spec;
  spec.program = program;
  spec.out_dtype = out.dtype();
  spec.out_sizes = out.sizes();
  for (const Tensor& t : inputs) {
    FusedOperand in;
    in.dtype = t.dtype();
    if (t.numel() == 1) {
      in.access = OperandAccess::single;
    } else if (t.is_contiguous() && t.sizes() == out.sizes()) {
      in.access = OperandAccess::dense;
    } else {
      in.access = OperandAccess::strided;
      // Broadcast from the right: a missing or size-1 dim reads stride 0.
      size_t lead = out.sizes().size() - t.sizes().size();
      for (size_t d = 0; d < out.sizes().size(); ++d)
        in.strides.push_back(d < lead || t.sizes()[d - lead] == 1 ? 0 : t.strides()[d - lead]);
    }
    spec.inputs.push_back(in);
  }
  return spec;
}

std::string fused_kernel_source(const FusedKernelSpec& spec) {
  const cpu::ElementwiseProgram& p = spec.program;
  std::string code = "// Generated by nabla (tensor/cuda/fused_codegen.cpp): one fused elementwise kernel.\n";
  code += "#include \"scalar_ops.hpp\"\nusing namespace nabla::scalar;\n";
  code += kHalfConversions;
  code += "using T = " + std::string(element_type(spec.out_dtype)) + ";\n";
  // No __restrict__: with a memory plan the output may be an input's own memory (an
  // elementwise loop reads element i before it writes it, which is all that needs).
  code += "extern \"C\" __global__ void " + std::string(kFusedKernelName) + "(T* out";
  for (size_t k = 0; k < spec.inputs.size(); ++k)
    code += ", const " + std::string(element_type(spec.inputs[k].dtype)) + "* " + numbered("in", k);
  code += ", long long n) {\n";
  code += "  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; "
          "i += (long long)blockDim.x * gridDim.x) {\n";
  code += strided_offsets(spec);
  for (size_t k = 0; k < spec.inputs.size(); ++k) code += load(spec, k);
  for (size_t s = 0; s < p.steps.size(); ++s)
    code += "    T " + reg(p.num_inputs + static_cast<int>(s)) + " = " + step_expression(p.steps[s]) + ";\n";
  code += "    out[i] = " + reg(p.result) + ";\n  }\n}\n";
  return code;
}

}  // namespace nabla::cuda
