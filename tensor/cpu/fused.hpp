// Kernels for what the graph passes fuse (passes/fuse.cpp, passes/fuse_epilogue.cpp):
// a chain or tree of elementwise ops run as one loop, and linear or conv2d with
// their bias and activation applied inside the library call (oneDNN post-ops).
// Nothing here knows the IR: the passes translate their nodes into these structs.
#pragma once
#include <string>
#include <vector>

#include "tensor/attrs.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/op_list.hpp"
#include "tensor/tensor.hpp"

namespace nabla::cpu {

// ---------------------------------------------------------------------------
// Elementwise programs

// The ops an elementwise program can run: NABLA_ELEMENTWISE_OPS (tensor/op_list.hpp),
// each computing with the scalar function its unfused kernel uses
// (tensor/scalar_ops.hpp), so a fused result equals the unfused one. Comparisons
// write 1 or 0 in the program's dtype (a where reads it). is_fusable_elementwise
// (tensor/op_list.hpp) says whether a step's op is one of them.

// How many registers a step of `op` reads (where 3; binary ops, comparisons and
// threshold_backward 2).
constexpr int elementwise_arity(OpId op) {
  return op == OpId::where                                                             ? 3
         : is_binary_op(op) || is_comparison_op(op) || op == OpId::threshold_backward ? 2
                                                                                      : 1;
}

// One step: registers are numbered inputs first (0..num_inputs-1), then one per
// step in order; step k writes register num_inputs + k.
struct ElementwiseStep {
  OpId op = OpId::kCount;
  int args[3] = {-1, -1, -1};
  // The step's numbers: clamp's bounds (each where has_lo, has_hi say it has one),
  // threshold_backward's threshold, or a parametric op's attributes
  // (scalar::scalar_attr_values).
  bool has_lo = false, has_hi = false;
  double attr[2] = {0, 0};
};

struct ElementwiseProgram {
  int num_inputs = 0;
  std::vector<ElementwiseStep> steps;
  int result = -1;  // the register written to the output
};

// Runs `program` over out's elements, in blocks small enough that the intermediate
// registers stay in the L1 cache: each input is read once, the output written once.
// Inputs broadcast to out's shape and may have any strides; out is f32 or f64, and
// inputs of another dtype convert as they are read (bool reads as 0 or 1).
bool elementwise_program_reads(DType dt);
void run_elementwise_program(const ElementwiseProgram& program, const TensorList& inputs, const Tensor& out);

// ---------------------------------------------------------------------------
// Epilogues

// The activation a library call applies to its result: none or one of
// NABLA_EPILOGUE_ACTIVATIONS (tensor/op_list.hpp).
enum class Activation : uint8_t {
  none,
#define NABLA_ACTIVATION_ENUM(name) name,
  NABLA_EPILOGUE_ACTIVATIONS(NABLA_ACTIVATION_ENUM)
#undef NABLA_ACTIVATION_ENUM
};
// "relu" -> relu; false for a name that is not an activation.
bool activation_from_name(const std::string& name, Activation* act);
const char* activation_name(Activation act);
// y = act(y), in place, with the scalar functions of the op table's kernels.
void apply_activation(const Tensor& y, Activation act);

// Where linear_act and conv2d_act read W from: as it is, or reordered into the layout
// the kernel computes on, once per weight tensor and version (so an optimizer step is
// seen).
enum class WeightLayout : uint8_t { plain, packed };

// out = act(x W^T + b): f32 on oneDNN's matmul primitive with the bias and the
// activation as post-ops (eager linear is linear_act with none, plain); other dtypes
// through linear_gemm, then the activation.
void linear_act(const Tensor& x, const Tensor& w, const Tensor& bias, Activation act, WeightLayout layout,
                const Tensor& out);
// out = x W^T + b on GEMM (sgemm/dgemm), any float dtype.
void linear_gemm(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& out);

// Whether f32 activations can be handed between convolutions in oneDNN's nChw16c
// (AVX-512; Note [Blocked activations between convolutions] in passes/block_layout.cpp):
// where not, kernels ignore the blocked flags below, producers and readers alike.
bool blocked_activations();
// Whether a graph node's input `slot`, and its 4-D f32 outputs, hold nChw16c: its
// attributes blocked_inputs (the slots) and blocked_out, set by the block_layout pass;
// false wherever blocked_activations() is (so every kernel of a graph agrees).
bool blocked_input(const Attrs& a, int64_t slot);
bool blocked_output(const Attrs& a);
// Whether a graph's max_pool2d_backward reads its nChw16c indices as window codes (Note
// [Window codes] in kernels.hpp; the plain 2x2 pool's): its attribute window_codes,
// set by block_layout.
bool reads_window_codes(const Attrs& a);

// out = act(conv2d(x, w, b)) with conv2d's attributes; f32 applies act as a oneDNN
// post-op of the convolution (eager conv2d is conv2d_act with none, plain).
// `blocked_in`: x holds nChw16c (its type still says [N, C, H, W]).
// conv2d_backward_weight(x, grad) into dw and the bias's gradient (grad summed over N,
// H, W) into db, in one oneDNN backward-weights call that reads grad once (the
// graph's conv2d_backward_weight_bias, passes/fuse_epilogue.cpp). f32; false, with
// nothing written, for anything else (the caller computes the two apart).
// `blocked_x`, `blocked_grad`: those hold nChw16c.
bool conv2d_backward_weight_bias(const Tensor& x, const Tensor& grad, const Attrs& attrs, const Tensor& dw,
                                 const Tensor& db, bool blocked_x = false, bool blocked_grad = false);

// The same of max_pool2d_backward(pooled_grad, indices) for the plain 2x2 pool over
// the convolution's output, without that gradient in memory: a first layer's
// (kernels.hpp, FewChannelWeightGrad), f32, pooled_grad and indices in nChw16c.
// false, with nothing written, where it does not apply.
bool conv2d_pool_backward_weight_bias(const Tensor& x, const Tensor& pooled_grad, const Tensor& indices,
                                      const Attrs& attrs, const Tensor& dw, const Tensor& db);

void conv2d_act(const Tensor& x, const Tensor& w, const Tensor& bias, const Attrs& conv_attrs, Activation act,
                WeightLayout layout, const Tensor& out, bool blocked_in = false);
// out, indices = max_pool2d(act(conv2d(x, w, b))) with each op's attributes (indices
// may be undefined: not computed). f32 with a 2x2 stride-2 pool pools from oneDNN's
// channels-last result straight into `out`; otherwise the two kernels one by one.
// `blocked_in`: x holds nChw16c; `blocked_out`: out, and indices when defined, are
// written in nChw16c (C a multiple of 16).
void conv2d_act_max_pool2d(const Tensor& x, const Tensor& w, const Tensor& bias, const Attrs& conv_attrs,
                           Activation act, const Attrs& pool_attrs, WeightLayout layout, const Tensor& out,
                           const Tensor& indices, bool blocked_in = false, bool blocked_out = false);

}  // namespace nabla::cpu
