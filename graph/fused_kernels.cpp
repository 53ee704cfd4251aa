#include "graph/fused_kernels.hpp"

#include "autograd/ops.hpp"
#include "graph/executor.hpp"
#include "graph/rewrite.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/cpu/fused.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/cuda/epilogue.hpp"
#include "tensor/cuda/fused.hpp"
#include "tensor/optim.hpp"
#include "tensor/scalar_ops.hpp"

namespace nabla::graph {

namespace {

// The body of a fused node as an elementwise program: body inputs are registers
// 0..n-1, each body node one step.
cpu::ElementwiseProgram program_of(const Graph& body) {
  cpu::ElementwiseProgram prog;
  prog.num_inputs = static_cast<int>(body.inputs.size());
  std::vector<int> reg(body.values.size(), -1);
  for (size_t k = 0; k < body.inputs.size(); ++k) reg[static_cast<size_t>(body.inputs[k])] = static_cast<int>(k);
  for (const Node& n : body.nodes) {
    cpu::ElementwiseStep step;
    step.op = n.op;  // OpId::kCount for a graph-level node, which no program runs
    if (!is_fusable_elementwise(step.op) || n.outputs.size() != 1 || n.inputs.size() > 3)
      throw Error("fused kernel: '" + n.name() + "' is not an elementwise op it can run");
    for (size_t k = 0; k < n.inputs.size(); ++k) step.args[k] = reg.at(static_cast<size_t>(n.inputs[k]));
    if (step.op == OpId::clamp) {
      step.has_lo = !n.attrs.is_none("min");
      step.has_hi = !n.attrs.is_none("max");
      if (step.has_lo) step.attr[0] = n.attrs.f("min");
      if (step.has_hi) step.attr[1] = n.attrs.f("max");
    }
    if (step.op == OpId::threshold_backward) step.attr[0] = n.attrs.f("threshold");
    if (is_parametric_unary_op(step.op)) {
      std::array<double, 2> values = scalar::scalar_attr_values(step.op, n.attrs);
      step.attr[0] = values[0];
      step.attr[1] = values[1];
    }
    reg[static_cast<size_t>(n.outputs[0])] = prog.num_inputs + static_cast<int>(prog.steps.size());
    prog.steps.push_back(step);
  }
  prog.result = reg.at(static_cast<size_t>(body.outputs.at(0)));
  return prog;
}

bool on_gpu(const Tensor& t) { return t.device().kind == DeviceKind::cuda; }

// Whether every step of the body is one the elementwise program runs.
bool elementwise_body(const Graph& body) {
  for (const Node& n : body.nodes) {
    if (!is_fusable_elementwise(n.op) || n.outputs.size() != 1 || n.inputs.size() > 3 || n.body)
      return false;
    for (int v : n.inputs)
      if (v < 0) return false;
  }
  return true;
}

// One loop on the CPU, one kernel on a GPU; a program beyond the CUDA kernel's limits,
// or a body with other ops than elementwise ones (a text graph may hold one; the
// verifier checks each op), runs its body's ops one by one.
void run_fused(const Node& node, const TensorList& inputs, TensorList& outputs) {
  if (!elementwise_body(*node.body)) return copy_into(outputs[0], run_graph(*node.body, inputs).at(0));
  cpu::ElementwiseProgram program = program_of(*node.body);
  if (!on_gpu(outputs[0])) return cpu::run_elementwise_program(program, inputs, outputs[0]);
  if (cuda::program_fits_on_cuda(program)) return cuda::run_elementwise_program(program, inputs, outputs[0]);
  copy_into(outputs[0], run_graph(*node.body, inputs).at(0));
}

// "linear_relu" -> relu: the library's name for the activation op.
cpu::Activation epilogue_of(const Node& node) {
  switch (node.epilogue.activation) {
#define NABLA_ACTIVATION_CASE(name) \
  case OpId::name:                  \
    return cpu::Activation::name;
    NABLA_EPILOGUE_ACTIVATIONS(NABLA_ACTIVATION_CASE)
#undef NABLA_ACTIVATION_CASE
    default:
      throw Error("graph executor: no activation in op '" + node.name() + "'");
  }
}

// Argument k of the body's first node (the linear or conv2d): the node's inputs are
// its distinct operands in first-use order, and an absent bias is not among them.
Tensor base_operand(const Node& node, const TensorList& inputs, size_t k) {
  const Graph& body = *node.body;
  int v = body.nodes.at(0).inputs.at(k);
  if (v < 0) return Tensor();
  for (size_t i = 0; i < body.inputs.size(); ++i)
    if (body.inputs[i] == v) return inputs.at(i);
  throw Error("graph executor: " + node.name() + " reads a value its body does not take");
}

// Where the kernel reads the weight from: packed unless the node says otherwise
// (Note [Packed weights in a training step] in passes/fuse_epilogue.cpp).
cpu::WeightLayout weight_layout(const Node& node) {
  bool packed = !node.attrs.has("packed_weight") || node.attrs.b("packed_weight");
  return packed ? cpu::WeightLayout::packed : cpu::WeightLayout::plain;
}

void run_linear_act(const Node& node, const TensorList& inputs, TensorList& outputs) {
  Tensor x = base_operand(node, inputs, 0), w = base_operand(node, inputs, 1), b = base_operand(node, inputs, 2);
  cpu::Activation act = epilogue_of(node);
  if (on_gpu(outputs[0])) return cuda::linear_act(x, w, b, act, outputs[0]);
  cpu::linear_act(x, w, b, act, weight_layout(node), outputs[0]);
}

// conv2d_<act>_max_pool2d on a GPU: the convolution, then the pool (the CPU kernel
// pools from oneDNN's layout itself).
void run_conv2d_act_pool_on_gpu(const Node& node, const Tensor& x, const Tensor& w, const Tensor& b,
                                TensorList& outputs) {
  const Node& conv = node.body->nodes.at(0);
  Tensor activated = empty(node.body->value(conv.outputs[0]).meta.sizes, x.dtype(), x.device());
  cuda::conv2d_act(x, w, b, conv.attrs, epilogue_of(node), activated);
  call_into(OpId::max_pool2d, {activated}, node.body->nodes.at(2).attrs, outputs);
}

void run_conv2d_act(const Node& node, const TensorList& inputs, TensorList& outputs) {
  const Node& conv = node.body->nodes.at(0);  // its attributes are the convolution's
  Tensor x = base_operand(node, inputs, 0), w = base_operand(node, inputs, 1), b = base_operand(node, inputs, 2);
  cpu::Activation act = epilogue_of(node);
  bool pooled = node.epilogue.pool == OpId::max_pool2d;
  if (on_gpu(outputs[0])) {
    if (pooled) return run_conv2d_act_pool_on_gpu(node, x, w, b, outputs);
    return cuda::conv2d_act(x, w, b, conv.attrs, act, outputs[0]);
  }
  // Note [Blocked activations between convolutions] (passes/block_layout.cpp): the GPU
  // kernels above ignore the flags, producers and readers alike.
  bool blocked_in = cpu::blocked_input(node.attrs, 0);
  if (pooled)
    return cpu::conv2d_act_max_pool2d(x, w, b, conv.attrs, act, node.body->nodes.at(2).attrs, weight_layout(node),
                                      outputs[0], outputs[1], blocked_in, cpu::blocked_output(node.attrs));
  cpu::conv2d_act(x, w, b, conv.attrs, act, weight_layout(node), outputs[0], blocked_in);
}

// The width of the planes that the pool gradient in node's body scatters into (the
// last of its input_shape): what a pool's window codes need to become flat indices.
int64_t pool_gradient_width(const Node& node) {
  for (const Node& b : node.body->nodes)
    if (Graph::table_op(b) && b.op == OpId::max_pool2d_backward) return b.attrs.ints("input_shape").back();
  throw Error(node.name() + ": nChw16c indices, but no max_pool2d_backward in its body reads them");
}

// The body's inputs as the body's ops read them: any the node reads in nChw16c
// (blocked_inputs) is copied out to NCHW first, a pool's window codes as flat indices
// (Note [Window codes] in tensor/cpu/kernels.hpp); on a GPU the flags mean nothing.
TensorList planar_inputs(const Node& node, const TensorList& inputs) {
  TensorList planar = inputs;
  for (size_t k = 0; k < inputs.size(); ++k)
    if (!on_gpu(inputs[k]) && cpu::blocked_input(node.attrs, static_cast<int64_t>(k))) {
      planar[k] = empty(inputs[k].sizes(), inputs[k].dtype());
      Tensor blocked = contiguous_raw(inputs[k]);
      if (blocked.dtype() == DType::i64)
        cpu::read_window_codes16(cpu::window_codes(blocked), pool_gradient_width(node), planar[k]);
      else
        cpu::read_blocked16(blocked.raw_data(), planar[k]);
    }
  return planar;
}

// conv2d_backward_weight_bias (Note [The bias gradient with the weight gradient] in
// passes/fuse_epilogue.cpp): one call for both gradients, of the output gradient, or
// of a max_pool2d_backward in the body (Note [The pool's gradient inside the first
// layer's weight gradient]); on a GPU, or when the CPU kernel declines, the body's ops.
void run_conv2d_backward_weight_bias(const Node& node, const TensorList& inputs, TensorList& outputs) {
  const Graph& body = *node.body;
  auto find = [&](OpId op) -> const Node* {
    for (const Node& n : body.nodes)
      if (Graph::table_op(n) && n.op == op) return &n;
    return nullptr;
  };
  const Node* weight_grad = find(OpId::conv2d_backward_weight);
  const Node* pool_grad = find(OpId::max_pool2d_backward);
  auto blocked = [&](int64_t slot) { return slot >= 0 && cpu::blocked_input(node.attrs, slot); };
  // (A hand-written body of other ops, or other outputs, runs as it is.)
  int64_t x = weight_grad && weight_grad->inputs.size() == 2 ? body_input_slot(node, weight_grad->inputs[0]) : -1;
  if (x >= 0 && body.outputs.size() == 2 && outputs.size() == 2 && !on_gpu(outputs[0])) {
    size_t dw = body.outputs[0] == weight_grad->outputs[0] ? 0 : 1;
    int64_t grad = body_input_slot(node, weight_grad->inputs[1]);
    const Tensor& dw_out = outputs[dw];
    const Tensor& db_out = outputs[1 - dw];
    bool done = false;
    if (pool_grad) {  // the kernel takes the pool's two inputs in nChw16c only
      auto [g, indices] = pool_gradient_slots(node);
      done = weight_grad->inputs[1] == pool_grad->outputs[0] && !blocked(x) && blocked(g) && blocked(indices) &&
             cpu::conv2d_pool_backward_weight_bias(inputs.at(static_cast<size_t>(x)), inputs.at(static_cast<size_t>(g)),
                                                   inputs.at(static_cast<size_t>(indices)), weight_grad->attrs, dw_out,
                                                   db_out);
    } else if (grad >= 0) {  // either may hold nChw16c (Note [Blocked activations between convolutions])
      done = cpu::conv2d_backward_weight_bias(inputs.at(static_cast<size_t>(x)), inputs.at(static_cast<size_t>(grad)),
                                              weight_grad->attrs, dw_out, db_out, blocked(x), blocked(grad));
    }
    if (done) return;
  }
  TensorList results = run_graph(body, planar_inputs(node, inputs));
  for (size_t k = 0; k < outputs.size(); ++k) copy_into(outputs[k], results[k]);
}

// optimizer_steps (Note [A group's steps in one kernel] in passes/fuse_optimizer.cpp):
// its rows' tensors gathered into one multi-tensor update, or the rows one by one
// where one kernel cannot take them.
void run_optimizer_steps(const Node& node, const TensorList& inputs, TensorList&) {
  const Graph& body = *node.body;
  auto at = [&](const Node& row, size_t slot) {
    int v = row.inputs[slot];
    int64_t k = v < 0 ? -1 : body_input_slot(node, v);
    return k < 0 ? Tensor() : inputs.at(static_cast<size_t>(k));
  };
  const Node& first = body.nodes.at(0);
  const bool adam = first.op == OpId::adam_step_;
  OptimizerRows rows;
  for (const Node& row : body.nodes) {
    rows.p.push_back(at(row, 0));
    rows.g.push_back(at(row, 1));
    rows.state.push_back(at(row, 2));
    if (adam) rows.state2.push_back(at(row, 3));
    rows.step.push_back(at(row, adam ? 4 : 3));
  }
  rows.hyper = at(first, adam ? 5 : 4);
  rows.found_inf = at(first, adam ? 6 : 5);
  rows.flag = first.attrs.b(adam ? "decoupled" : "nesterov");
  if (!optimizer_rows_supported(rows, adam)) {
    run_graph(body, inputs);
    return;
  }
  if (adam)
    adam_rows_raw(rows);
  else
    sgd_rows_raw(rows);
}

}  // namespace

GraphOpFn fused_kernel(const Node& node) {
  if (is_weight_bias_gradient(node))
    return run_conv2d_backward_weight_bias;
  if (is_optimizer_steps(node) && node.body) return run_optimizer_steps;
  if (node.kind == NodeKind::fused) return run_fused;
  if (node.kind != NodeKind::epilogue) return nullptr;
  switch (node.epilogue.base) {
    case OpId::linear: return run_linear_act;
    case OpId::conv2d: return run_conv2d_act;
    default: return nullptr;  // (no other base: Node::named makes none)
  }
}

}  // namespace nabla::graph
