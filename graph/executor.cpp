#include "graph/executor.hpp"

#include <map>

#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "autograd/profiler.hpp"
#include "graph/control_flow.hpp"
#include "graph/cost.hpp"
#include "graph/fused_kernels.hpp"
#include "graph/memory_plan.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/origin.hpp"

namespace nabla::graph {

namespace {

// "copy_"(dst, src): an in-place write into a parameter or buffer that the capture saw
// (see graph/capture.hpp); no outputs.
void copy_into_param(const Node&, const TensorList& ins, TensorList&) {
  copy_into(ins[0], ins[1]);
  ins[0].bump_version();
}

// Ops registered by name (register_graph_op), for custom nodes.
std::map<std::string, GraphOpFn>& registered_ops() {
  static std::map<std::string, GraphOpFn> ops;
  return ops;
}

// The executor's own kernel for a graph-level node, or null: copy_, the nodes of the
// fusion passes (graph/fused_kernels.hpp), a custom op registered under its name.
GraphOpFn graph_kernel(const Node& n) {
  switch (n.kind) {
    case NodeKind::table: return nullptr;
    case NodeKind::copy: return copy_into_param;
    case NodeKind::fused:
    case NodeKind::epilogue: return fused_kernel(n);
    case NodeKind::cond:
    case NodeKind::while_loop:
    case NodeKind::scan: return run_control_flow;
    case NodeKind::custom: {
      auto it = registered_ops().find(n.custom_name);
      return it == registered_ops().end() ? nullptr : it->second;
    }
  }
  return nullptr;
}

// For each value, the index of the last node that reads it (-1: none; graph outputs
// and inputs are never freed).
std::vector<int> last_uses(const Graph& g) {
  std::vector<int> last(g.values.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int v : g.nodes[i].inputs)
      if (v >= 0) last[static_cast<size_t>(v)] = static_cast<int>(i);
  for (int v : g.outputs) last[static_cast<size_t>(v)] = static_cast<int>(g.nodes.size());
  for (int v : g.inputs) last[static_cast<size_t>(v)] = static_cast<int>(g.nodes.size());
  return last;
}

// Where a run's values live: on the device of the run's arguments; with a memory
// plan, one arena (allocated per run, so that two runs of one graph never share it)
// in which each planned value is a contiguous view at its slot's offset; every other
// value gets its own allocation.
struct Buffers {
  const MemoryPlan* plan = nullptr;
  Device device;
  Tensor arena;  // bytes (b8), 64-byte aligned by the CPU allocator (512 by the CUDA one)
  const std::vector<int>* last_use = nullptr;  // last_uses(g): -1 for a value nothing reads

  bool unread(int value) const { return (*last_use)[static_cast<size_t>(value)] < 0; }

  Tensor place(const Value& v) const {
    const PlannedBuffer* b = plan ? plan->find(v.id) : nullptr;
    if (!b) return empty(v.meta.sizes, v.meta.dtype, device);
    auto impl = std::make_shared<TensorImpl>();
    impl->storage = arena.storage();
    impl->sizes = v.meta.sizes;
    impl->strides = contiguous_strides(v.meta.sizes);
    impl->offset = b->offset / static_cast<int64_t>(dtype_size(v.meta.dtype));
    impl->dtype = v.meta.dtype;
    impl->is_view = true;
    impl->refresh_layout();
    return Tensor(std::move(impl));
  }
};

Buffers buffers_for(const Graph& g, Device device, const std::vector<int>& last_use) {
  Buffers b;
  b.device = device;
  b.last_use = &last_use;
  if (!g.plan) return b;
  check_plan_fits(g, *g.plan);
  b.plan = g.plan.get();
  b.arena = empty({g.plan->arena_bytes}, DType::b8, device);
  return b;
}

// The device a run computes on: that of its arguments (the first one that is not a
// CPU number; dispatch reports arguments on two devices when an op reads both).
Device run_device(const TensorList& args) {
  for (const Tensor& a : args)
    if (a.defined() && !(a.device().kind == DeviceKind::cpu && a.dim() == 0)) return a.device();
  return cpu_device();
}

// The outputs of a node that its kernel skips when handed undefined: the row's
// OpDef::optional_outputs, and for conv2d_<act>_max_pool2d the pool's.
uint32_t optional_outputs(const Node& n) {
  if (const OpDef* def = Graph::table_op(n)) return def->optional_outputs;
  if (n.kind == NodeKind::epilogue && n.epilogue.pool != OpId::kCount) return op_def(n.epilogue.pool).optional_outputs;
  return 0;
}

// The node's output buffers; an optional output that nothing reads is left undefined,
// and the kernel skips it (an inference graph's max pool computes no indices).
TensorList allocate_outputs(const Graph& g, const Node& n, const Buffers& buffers) {
  uint32_t optional = optional_outputs(n);
  TensorList outs;
  outs.reserve(n.outputs.size());
  for (size_t k = 0; k < n.outputs.size(); ++k) {
    int v = n.outputs[k];
    bool skip = (optional >> k & 1u) && buffers.unread(v);
    outs.push_back(skip ? Tensor() : buffers.place(g.value(v)));
  }
  return outs;
}

TensorList run_node(const Graph& g, const Node& n, const TensorList& ins, const Buffers& buffers) {
  if (const OpDef* def = Graph::table_op(n)) {
    if (def->view) return call(def->id, ins, n.attrs);
    TensorList outs = allocate_outputs(g, n, buffers);
    call_into(def->id, ins, n.attrs, outs);
    return outs;
  }
  if (GraphOpFn kernel = graph_kernel(n)) {
    TensorList outs = allocate_outputs(g, n, buffers);
    kernel(n, ins, outs);
    return outs;
  }
  if (n.body) {  // a fused body without its own kernel: run it, then place its results
    TensorList results = run_graph(*n.body, ins);
    TensorList outs = allocate_outputs(g, n, buffers);
    for (size_t k = 0; k < outs.size(); ++k) copy_into(outs[k], results[k]);
    return outs;
  }
  throw Error("graph executor: no implementation of op '" + n.name() + "'");
}

// run_node under the active profiler: each node an op of the profile, with its DSL
// line and cost. View nodes are not recorded here: they run through call(), which
// records them itself.
TensorList run_node_profiled(Profiler& profiler, const Graph& g, const Node& n, const TensorList& ins,
                             const Buffers& buffers) {
  int64_t start = profiler.now_ns();
  TensorList outs = run_node(g, n, ins, buffers);
  wait_for_device_work(outs);
  int64_t end = profiler.now_ns();
  OpCost cost = node_cost(g, n).cost;
  profiler.record_native_op(n.name(), n.origin, outs, start, end, cost.flops, cost.bytes);
  return outs;
}

}  // namespace

void register_graph_op(const std::string& name, GraphOpFn fn) { registered_ops()[name] = fn; }
bool has_graph_op(const std::string& name) { return registered_ops().count(name) > 0; }


TensorList run_graph(const Graph& g, const TensorList& args) {
  NoGradGuard no_grad;
  std::vector<Tensor> vals(g.values.size());
  size_t next_arg = 0;
  Device device = run_device(args);
  for (int id : g.inputs) {
    const Value& v = g.value(id);
    if (v.kind == ValueKind::constant) {
      // Constants are kept on the CPU and moved for a run on a GPU (numbers through
      // dispatch's cache, so that a run does not upload them again).
      const Tensor& c = g.constants.at(v.name);
      vals[static_cast<size_t>(id)] = c.device() == device ? c
                                      : c.dim() == 0     ? number_on_device(c, device)
                                                         : to_device(c, device);
      continue;
    }
    if (next_arg >= args.size())
      throw Error("graph " + g.name + ": expected more arguments than the " + std::to_string(args.size()) + " given");
    const Tensor& a = args[next_arg++];
    if (!(a.sizes() == v.meta.sizes) || a.dtype() != v.meta.dtype)
      throw Error("graph " + g.name + ": argument %" + v.name + " must be " + meta_str(v.meta) + ", got " +
                  meta_str({a.sizes(), a.dtype()}));
    vals[static_cast<size_t>(id)] = a;
  }
  if (next_arg != args.size())
    throw Error("graph " + g.name + ": " + std::to_string(args.size()) + " arguments given, it takes " +
                std::to_string(next_arg));
  std::vector<int> last = last_uses(g);
  Buffers buffers = buffers_for(g, device, last);
  Profiler* profiler = active_profiler();
  ProfileSpan span([&] { return std::pair<std::string, std::string>("graph " + g.name, current_origin()); });
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    TensorList ins;
    ins.reserve(n.inputs.size());
    for (int v : n.inputs) ins.push_back(v < 0 ? Tensor() : vals[static_cast<size_t>(v)]);
    const OpDef* def = Graph::table_op(n);
    TensorList outs = profiler && !(def && def->view) ? run_node_profiled(*profiler, g, n, ins, buffers)
                                                      : run_node(g, n, ins, buffers);
    for (size_t k = 0; k < n.outputs.size(); ++k) vals[static_cast<size_t>(n.outputs[k])] = std::move(outs[k]);
    for (int v : n.inputs)
      if (v >= 0 && last[static_cast<size_t>(v)] == static_cast<int>(i)) vals[static_cast<size_t>(v)] = Tensor();
  }
  TensorList out;
  for (int v : g.outputs) out.push_back(vals[static_cast<size_t>(v)]);
  return out;
}

}  // namespace nabla::graph
