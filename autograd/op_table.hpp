// The op table (docs/DESIGN.md seam 1): one row per op with its name, arity, attributes,
// shape/dtype rule, kernels per device, and a backward rule written only with other
// ops of the table, so that backward graphs are ordinary graphs and grad of grad
// works for every row. Rows live in autograd/ops/<family>.cpp.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tensor/attrs.hpp"
#include "tensor/op_list.hpp"
#include "tensor/tensor.hpp"

namespace nabla {

struct TensorMeta {
  Shape sizes;
  DType dtype = DType::f32;
  Device device;  // shape rules leave it; autograd nodes record where each tensor was
};

// How the interpreter and `--list-ops` learn an op's attributes.
enum class AttrKind : uint8_t { integer, number, boolean, ints, dtype };
struct AttrSpec {
  std::string name;
  AttrKind kind;
  AttrValue default_value;  // NoneAttr with `required` means the caller must give it
  bool required = false;
};

class BackwardContext;  // autograd/node.hpp
class JvpContext;       // autograd/transforms/forward.hpp
class BatchContext;     // autograd/transforms/vmap.hpp

using TensorList = std::vector<Tensor>;
// Shape and dtype of every output, checked against the inputs (errors name the op,
// the argument and the shapes involved).
using InferFn = std::vector<TensorMeta> (*)(const TensorList& inputs, const Attrs& attrs);
// Fills already allocated, contiguous outputs.
using KernelFn = void (*)(const TensorList& inputs, const Attrs& attrs, TensorList& outputs);
// For view rows: makes outputs that alias input 0's storage (no allocation, no copy).
using ViewFn = TensorList (*)(const TensorList& inputs, const Attrs& attrs);
// Gradients for every input (an undefined Tensor where an input needs none), built
// from ops of the table so that they are differentiable again.
using BackwardFn = TensorList (*)(BackwardContext& ctx);

// How a row's forward-mode derivative (jvp) is made (Note [Forward-mode rules] in
// autograd/transforms/jvp_rules.cpp). All but `rule` are derived from the row itself.
enum class JvpKind : uint8_t {
  none,         // no forward derivative (not differentiable, or a surrogate backward)
  linear,       // linear in its floating inputs together: the op of the tangents
  multilinear,  // linear in each floating input alone (mul, matmul): a sum of op calls
  elementwise,  // a diagonal Jacobian: the backward rule applied to the tangent
  rule,         // OpDef::jvp, written by hand
  transpose,    // the transpose of the backward rule (it is linear in the gradient)
};
// Output tangents from the inputs, their tangents (undefined: zero) and the outputs,
// built from ops of the table so that jvp of jvp and jvp of grad work.
using JvpFn = TensorList (*)(const JvpContext& ctx);
// How vmap runs a row on batched inputs (Note [Batching rules] in
// autograd/transforms/batch_rules.cpp): a rule, or a loop over the batch.
using BatchFn = TensorList (*)(BatchContext& ctx);

// What one call of an op costs, counted without running it (docs/cost.md):
// floating-point operations in the style of PyTorch's FLOP counters (a multiply-add
// is 2; a transcendental such as exp or tanh is 1 per element, not its instruction
// count), and the bytes the op must read and write at least (each input and output
// once; a view moves nothing).
struct OpCost {
  double flops = 0;  // floating-point operations
  double bytes = 0;  // bytes read + written
};
// A row's cost rule. Reads only sizes and dtypes, never data (graph passes call it
// with stand-ins from graph::meta_tensor); inputs may be undefined (an absent bias).
using CostFn = OpCost (*)(const TensorList& inputs, const Attrs& attrs, const TensorList& outputs);

// Which tensors a node keeps for its backward rule (bit i = input i / output i).
struct Saves {
  uint32_t inputs = 0;
  uint32_t outputs = 0;
};
constexpr uint32_t kAll = 0xffffffffu;

// What an autocast region does to an op's floating inputs (Note [Autocast]).
enum class AutocastPolicy : uint8_t {
  keep,   // run in the inputs' dtypes
  lower,  // f32 inputs go down to the region's dtype (matmul, linear, conv2d)
  f32,    // 16-bit inputs go up to f32 (reductions, softmax, norms, losses)
};

struct OpDef {
  OpId id = OpId::kCount;
  const char* name = nullptr;
  int num_inputs = 0;   // -1: a list (cat, stack)
  int num_outputs = 1;  // -1: decided by infer (split)
  // The names of the tensor arguments ("input", "weight", ...): keyword arguments in
  // the language and error messages use them. Set with name_inputs by each family.
  std::vector<std::string> input_names;
  std::vector<AttrSpec> attrs;
  // What the op does, one sentence in PyTorch's terms, then "Example: ..." with a
  // self-contained call in the language (`:help NAME` prints it; tests/ops/op_docs.cpp
  // runs every example). Set with document_ops by each family.
  const char* doc = nullptr;
  InferFn infer = nullptr;
  KernelFn cpu = nullptr;
  KernelFn cuda = nullptr;  // filled from the CUDA backend (cuda::find_kernel(id)); null without one
  bool cuda_half_native = false;  // the CUDA kernel takes f16/bf16 itself
  ViewFn view = nullptr;
  BackwardFn backward = nullptr;  // null: not differentiable (comparisons, argmax)
  Saves saves;
  // Outputs that never carry gradient (indices, masks), as a bit set.
  uint32_t nondiff_outputs = 0;
  // Forward mode (filled by register_jvp_rules once the families have registered).
  JvpKind jvp_kind = JvpKind::none;
  JvpFn jvp = nullptr;
  // A multilinear row's input that is added to the product rather than multiplied
  // (linear's and conv's bias): its tangent is added once. -1: none.
  int8_t jvp_bias_input = -1;
  // vmap's rule for the row; null: the row runs once per batch element (a loop).
  BatchFn batch = nullptr;
  // Non-null when backward exists but is not itself differentiable: says why.
  const char* no_double_backward = nullptr;
  // Non-null when backward is a surrogate rather than the derivative of the forward
  // (fake quantization's straight-through estimator): says which. The op sweep
  // checks such rows' gradients against PyTorch's instead of finite differences
  // (Note [Straight-through estimator] in autograd/ops/quant.cpp).
  const char* straight_through = nullptr;
  // Its kernel handles f16/bf16 itself; otherwise they compute through f32
  // (see Note [Half through f32] in dispatch.cpp).
  bool half_native = false;
  // Tensor arguments that may be left out (undefined): biases, batch_norm's weight,
  // bias and running statistics. call() refuses any other missing one, naming it.
  uint32_t optional_inputs = 0;
  // Outputs the kernels (CPU and CUDA) skip when handed undefined, as a bit set: the
  // graph executor leaves them out where nothing reads them (max pool's indices in an
  // inference graph). Eager calls always get every output.
  uint32_t optional_outputs = 0;
  // Inputs the kernel writes in place (batch_norm's running statistics), as a bit set.
  // Autocast hands them to the kernel as they are: a converted copy would take the
  // update and be dropped (Note [Autocast] in dispatch.cpp).
  uint32_t updated_inputs = 0;
  // Whether the graph passes may fuse it into an elementwise kernel (issue 5 reads this).
  bool elementwise = false;
  AutocastPolicy autocast = AutocastPolicy::keep;
  // FLOPs and bytes of a call (autograd/cost.hpp has the helpers rules use).
  CostFn cost = nullptr;  // null: the default rule (see op_cost)
  // Non-null for a row with no CUDA kernel by design for now (the int8 rows): says
  // why. The CUDA sweep skips these rows, and calling one on a GPU tensor is the
  // dispatcher's "no kernel for cuda" error.
  const char* cpu_only = nullptr;
};

// The rows that draw from the global random generator at each call (dropout,
// multinomial and the random_* draws): graph passes keep each such node, vmap checks
// its randomness, and a CUDA graph is not replayed over one.
bool draws_random_numbers(OpId id);

// The row of an op; every OpId has one (checked when the table is built).
const OpDef& op_def(OpId id);  // op_name(OpId) is tensor/op_list.hpp's
// Looks an op up by its name; nullptr when there is none.
const OpDef* find_op(const std::string& name);
// Rows in OpId order.
const std::vector<OpDef>& op_table();

// Names of ops whose row lacks a shape rule or a kernel (should be none).
std::vector<std::string> incomplete_rows();
// Names of the rows of `table` with a CPU kernel, no CUDA one and no cpu_only reason
// (Note [Every device has every kernel]); empty for op_table() in a CUDA build.
std::vector<std::string> rows_missing_cuda_kernel(const std::vector<OpDef>& table);

// Throws "add: argument 'other' is missing" for an undefined input that the row does
// not mark optional (OpDef::optional_inputs). Every caller of a shape rule checks this
// first, so that the rules may assume their required inputs are there: call() and the
// graph verifier (whose IR may say `none` for any argument).
void check_inputs_present(const OpDef& def, const TensorList& inputs);

// The cost of one call of `def`: its row's rule, or the default one (one FLOP per
// output element, every input and output read or written once; views cost nothing).
// attrs must be complete (complete_attrs). Implemented in autograd/cost.cpp.
OpCost op_cost(const OpDef& def, const TensorList& inputs, const Attrs& attrs, const TensorList& outputs);

// Fills missing attributes with the row's defaults; unknown names and missing
// required ones are errors that name the op. `graph_node`: `given` are a graph node's,
// which may also carry the layout attributes blocked_inputs, blocked_out and
// window_codes (Note [Blocked activations between convolutions] in
// passes/block_layout.cpp); anywhere else those are refused.
Attrs complete_attrs(const OpDef& def, const Attrs& given, bool graph_node = false);

// Sets the autocast policy of rows (each family lists its non-default ones).
void set_autocast(std::vector<OpDef>& table, AutocastPolicy policy, std::initializer_list<OpId> ops);

// Gives rows their tensor argument names (a list of (op, names) pairs).
void name_inputs(std::vector<OpDef>& table,
                 std::initializer_list<std::pair<OpId, std::vector<std::string>>> names);

// Gives rows their docs (a list of (op, doc) pairs).
void document_ops(std::vector<OpDef>& table, std::initializer_list<std::pair<OpId, const char*>> docs);

// Row registration, one function per family file.
void register_view_ops(std::vector<OpDef>& table);
void register_strided_view_ops(std::vector<OpDef>& table);  // ops/strided_views.cpp: diagonal, unfold
void register_elementwise_ops(std::vector<OpDef>& table);
void register_reduction_ops(std::vector<OpDef>& table);
void register_linalg_ops(std::vector<OpDef>& table);
void register_conv_ops(std::vector<OpDef>& table);
void register_pool_ops(std::vector<OpDef>& table);
void register_norm_ops(std::vector<OpDef>& table);
void register_resample_ops(std::vector<OpDef>& table);
void register_index_ops(std::vector<OpDef>& table);
void register_ordering_ops(std::vector<OpDef>& table);
void register_random_ops(std::vector<OpDef>& table);
void register_loss_ops(std::vector<OpDef>& table);
void register_attention_ops(std::vector<OpDef>& table);
void register_dist_ops(std::vector<OpDef>& table);
void register_quant_ops(std::vector<OpDef>& table);
void register_optim_ops(std::vector<OpDef>& table);
// Forward-mode and batching rules, set on the rows after every family registered.
void register_jvp_rules(std::vector<OpDef>& table);
void register_batch_rules(std::vector<OpDef>& table);

}  // namespace nabla
