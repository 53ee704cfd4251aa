#include "graph/executor.hpp"

#include <map>

#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "autograd/profiler.hpp"
#include "graph/collective_runs.hpp"
#include "graph/control_flow.hpp"
#include "graph/cost.hpp"
#include "graph/fused_kernels.hpp"
#include "graph/memory_plan.hpp"
#include "graph/rewrite.hpp"
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
      if (GraphOpFn fused = fused_kernel(n)) return fused;
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

// Note [Buffers kept between runs]
// A training step runs one graph thousands of times with the same shapes. Each run
// needs an arena (the memory plan's) and a buffer for each value it returns (the loss,
// the gradients; outputs are never planned, since the caller keeps them). Allocating
// them per run costs allocator calls and, for large outputs, page faults; so a graph
// module hands a KeptBuffers from each run to the next. A run takes a kept buffer only
// when nothing but the KeptBuffers holds it (one reference to the tensor, one to its
// storage: the caller dropped the result and every view of it, e.g. opt.zero_grad()
// dropped last step's gradients), so a result the caller still holds is never
// overwritten; otherwise it allocates, as without a KeptBuffers. Taking the buffers
// out of the KeptBuffers at the start of a run keeps two overlapping runs of one
// graph (a re-entrant custom op) apart: the second finds none. A reused buffer is
// handed out as a new tensor over the old storage, so no autograd state or flag of
// the old result carries over.

// Whether only its holder reaches t: no other tensor, no view of its storage.
bool unshared(const Tensor& t) {
  return t.defined() && t.impl_ptr().use_count() == 1 && t.storage().use_count() == 1;
}

// A new contiguous tensor of `meta` over storage, `offset_bytes` in.
Tensor tensor_over(const std::shared_ptr<Storage>& storage, const TensorMeta& meta, int64_t offset_bytes, bool view) {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = storage;
  impl->sizes = meta.sizes;
  impl->strides = contiguous_strides(meta.sizes);
  impl->offset = offset_bytes / static_cast<int64_t>(dtype_size(meta.dtype));
  impl->dtype = meta.dtype;
  impl->is_view = view;
  impl->refresh_layout();
  return Tensor(std::move(impl));
}

// Where a run's values live: on the device of the run's arguments; with a memory
// plan, one arena in which each planned value is a contiguous view at its slot's
// offset; every other value gets its own allocation, or for the values a run returns
// the buffer of a previous run (Note [Buffers kept between runs]).
struct Buffers {
  const MemoryPlan* plan = nullptr;
  Device device;
  Tensor arena;  // bytes (b8), 64-byte aligned by the CPU allocator (512 by the CUDA one)
  const std::vector<int>* last_use = nullptr;  // last_uses(g): -1 for a value nothing reads
  std::vector<char> returned;                  // per value: whether the run returns its storage
  std::map<int, Tensor> reusable;              // value id -> a previous run's buffer, unshared
  mutable std::vector<std::pair<int, Tensor>> handed_out;  // this run's buffers of returned values
  mutable size_t allocated = 0;                            // of those and the arena, how many are new

  bool unread(int value) const { return (*last_use)[static_cast<size_t>(value)] < 0; }

  Tensor place(const Value& v) const {
    if (const PlannedBuffer* b = plan ? plan->find(v.id) : nullptr)
      return tensor_over(arena.storage(), v.meta, b->offset, true);
    if (!returned[static_cast<size_t>(v.id)]) return empty(v.meta.sizes, v.meta.dtype, device);
    auto old = reusable.find(v.id);
    bool fits = old != reusable.end() && old->second.sizes() == v.meta.sizes && old->second.dtype() == v.meta.dtype;
    Tensor t = fits ? tensor_over(old->second.storage(), v.meta, 0, false) : empty(v.meta.sizes, v.meta.dtype, device);
    allocated += fits ? 0 : 1;
    handed_out.emplace_back(v.id, t);
    return t;
  }
};

// Per value: whether a graph output is it or a view of it (its storage leaves the run).
std::vector<char> returned_storage(const Graph& g) {
  std::vector<int> roots = storage_roots(g);
  std::vector<char> returned(g.values.size(), 0);
  for (int v : g.outputs) returned[static_cast<size_t>(roots[static_cast<size_t>(v)])] = 1;
  return returned;
}

// The previous run's buffers that this run may take: unshared, on this device.
void take_kept(Buffers& b, KeptBuffers& kept, int64_t arena_bytes) {
  Tensor arena = std::move(kept.arena);
  if (unshared(arena) && arena.device() == b.device && arena.numel() >= arena_bytes) b.arena = std::move(arena);
  for (auto& [id, t] : kept.returned)
    if (unshared(t) && t.offset() == 0 && t.device() == b.device) b.reusable.emplace(id, std::move(t));
  kept.returned.clear();
}

Buffers buffers_for(const Graph& g, Device device, const std::vector<int>& last_use, KeptBuffers* kept) {
  Buffers b;
  b.device = device;
  b.last_use = &last_use;
  b.returned = returned_storage(g);
  if (g.plan) check_plan_fits(g, *g.plan);
  if (kept) take_kept(b, *kept, g.plan ? g.plan->arena_bytes : 0);
  if (!g.plan) return b;
  b.plan = g.plan.get();
  if (!b.arena.defined()) {
    b.arena = empty({g.plan->arena_bytes}, DType::b8, device);
    b.allocated = 1;
  }
  return b;
}

// A constant of the graph on the run's device. Constants are kept on the CPU and moved
// for a run on a GPU once: a KeptBuffers keeps the copies (a recorded CUDA graph must
// not upload them at every replay, Note [CUDA graph replay]); without one, numbers go
// through dispatch's cache.
Tensor constant_on(const Graph& g, const Value& v, Device device, KeptBuffers* kept) {
  const Tensor& c = g.constants.at(v.name);
  if (c.device() == device) return c;
  if (kept) {
    auto it = kept->constants.find(v.id);
    if (it != kept->constants.end() && it->second.device() == device) return it->second;
  }
  Tensor moved = c.dim() == 0 ? number_on_device(c, device) : to_device(c, device);
  if (kept) kept->constants[v.id] = moved;
  return moved;
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

// Note [A window a graph replays] (interp/values/advanced_indexing.cpp): a window or
// an index taken with a traced tensor is an index_select whose positions are the dim's
// size where eager's window would be cut short at this call; its out-of-bounds error
// names the user's line and says why, not only index_select's positions.
[[noreturn]] void past_the_end(const Node& n, const Error& e) {
  std::string what = e.what();
  if (what.find("is out of bounds") == std::string::npos) throw;
  throw Error((n.origin.empty() ? std::string() : n.origin + ": ") +
              "a window x[t:t+w] (or an index x[i]) taken with a tensor runs past the end at this call (" + what +
              "): a graph keeps the length the window had when it was captured, where eager would return a shorter "
              "slice; keep t + w within the dim's size (pad x, or stop the loop w - 1 steps earlier)");
}

TensorList run_node(const Graph& g, const Node& n, const TensorList& ins, const Buffers& buffers) {
  if (const OpDef* def = Graph::table_op(n)) {
    if (def->view) return call(def->id, ins, n.attrs);
    TensorList outs = allocate_outputs(g, n, buffers);
    if (def->id != OpId::index_select) {
      call_into(def->id, ins, n.attrs, outs);
      return outs;
    }
    try {
      call_into(def->id, ins, n.attrs, outs);
    } catch (const Error& e) {
      past_the_end(n, e);
    }
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


TensorList run_graph(const Graph& g, const TensorList& args, KeptBuffers* kept) {
  NoGradGuard no_grad;
  std::vector<Tensor> vals(g.values.size());
  size_t next_arg = 0;
  Device device = run_device(args);
  for (int id : g.inputs) {
    const Value& v = g.value(id);
    if (v.kind == ValueKind::constant) {
      vals[static_cast<size_t>(id)] = constant_on(g, v, device, kept);
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
  Buffers buffers = buffers_for(g, device, last, kept);
  Profiler* profiler = active_profiler();
  ProfileSpan span([&] { return std::pair<std::string, std::string>("graph " + g.name, current_origin()); });
  CollectiveRuns collectives(g, device);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    TensorList ins;
    ins.reserve(n.inputs.size());
    for (int v : n.inputs) ins.push_back(v < 0 ? Tensor() : vals[static_cast<size_t>(v)]);
    const OpDef* def = Graph::table_op(n);
    collectives.before(n);
    TensorList outs = collectives.handles(n)               ? collectives.run(n, ins, allocate_outputs(g, n, buffers))
                      : profiler && !(def && def->view) ? run_node_profiled(*profiler, g, n, ins, buffers)
                                                        : run_node(g, n, ins, buffers);
    for (size_t k = 0; k < n.outputs.size(); ++k) vals[static_cast<size_t>(n.outputs[k])] = std::move(outs[k]);
    collectives.after(i);
    for (int v : n.inputs)
      if (v >= 0 && last[static_cast<size_t>(v)] == static_cast<int>(i)) vals[static_cast<size_t>(v)] = Tensor();
  }
  collectives.finish();
  TensorList out;
  for (int v : g.outputs) out.push_back(vals[static_cast<size_t>(v)]);
  if (kept) {
    kept->arena = std::move(buffers.arena);
    kept->returned = std::move(buffers.handed_out);
    kept->allocated = buffers.allocated;
  }
  return out;
}

}  // namespace nabla::graph
