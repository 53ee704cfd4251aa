#include "autograd/engine.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "autograd/anomaly.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/node.hpp"
#include "autograd/ops.hpp"
#include "autograd/profiler.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/origin.hpp"

namespace nabla {

namespace {

// Where grad() wants a gradient captured: input slot `input_nr` of `node`.
struct CaptureKey {
  Node* node;
  uint32_t input_nr;
  bool operator<(const CaptureKey& o) const { return node != o.node ? node < o.node : input_nr < o.input_nr; }
};

// Per node of the running graph: how many edges still have to deliver a gradient,
// and the gradients delivered so far (one slot per output of the node).
struct NodeTask {
  int dependencies = 0;
  TensorList grads;
};

struct GraphTask {
  bool create_graph = false;
  bool retain_graph = false;
  bool capturing = false;  // grad(): collect gradients, never touch .grad
  std::unordered_map<Node*, NodeTask> nodes;  // every node reachable from the roots
  std::unordered_set<Node*> needed;           // when capturing: nodes that lead to a capture
  std::map<CaptureKey, std::vector<size_t>> captures;
  TensorList captured;
};

// Walks the graph once, registering every reachable node and counting its
// incoming edges.
void count_dependencies(GraphTask& task, const std::vector<Node*>& roots) {
  std::vector<Node*> stack;
  for (Node* r : roots)
    if (task.nodes.try_emplace(r).second) stack.push_back(r);
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next_edges) {
      if (!e.valid()) continue;
      auto [it, inserted] = task.nodes.try_emplace(e.fn.get());
      ++it->second.dependencies;
      if (inserted) stack.push_back(e.fn.get());
    }
  }
}

// A node needs to run when one of its next nodes is a capture point or leads to one
// (iterative post-order walk).
void mark_needed(GraphTask& task, const std::vector<Node*>& roots) {
  std::unordered_map<Node*, bool> memo;
  for (Node* root : roots) {
    std::vector<std::pair<Node*, size_t>> stack{{root, 0}};
    while (!stack.empty()) {
      auto& [n, child] = stack.back();
      if (memo.count(n) && child == 0) {
        stack.pop_back();
        continue;
      }
      if (child < n->next_edges.size()) {
        Node* next = n->next_edges[child++].fn.get();
        if (next && !memo.count(next)) stack.push_back({next, 0});
        continue;
      }
      // leads: n is a capture point or reaches one; n runs only if a child leads.
      bool runs = false;
      for (const Edge& e : n->next_edges) runs |= e.valid() && memo[e.fn.get()];
      bool is_capture = false;
      for (const auto& entry : task.captures) is_capture |= entry.first.node == n;
      memo[n] = runs || is_capture;
      if (runs) task.needed.insert(n);
      stack.pop_back();
    }
  }
}

void accumulate(TensorList& slots, size_t slot, const Tensor& g) {
  if (slots.size() <= slot) slots.resize(slot + 1);
  slots[slot] = slots[slot].defined() ? add(slots[slot], g) : g;
}

// Each hook sees the gradient and may replace it (an undefined result keeps it).
Tensor run_hooks(const std::vector<TensorHook>& hooks, Tensor g) {
  for (const TensorHook& hook : hooks) {
    if (!hook) continue;
    Tensor replaced = hook(g);
    if (replaced.defined()) g = replaced;
  }
  return g;
}

// The hooks registered on output slot k of node (for a leaf: the leaf's hooks).
const std::vector<TensorHook>* hooks_of(Node* node, size_t k) {
  if (auto* acc = dynamic_cast<AccumulateGrad*>(node)) {
    auto leaf = acc->leaf.lock();
    return leaf && leaf->autograd ? &leaf->autograd->leaf_hooks : nullptr;
  }
  return k < node->hooks.size() ? &node->hooks[k] : nullptr;
}

void apply_hooks(Node* node, TensorList& grads) {
  for (size_t k = 0; k < grads.size(); ++k)
    if (const auto* hooks = hooks_of(node, k); hooks && grads[k].defined()) grads[k] = run_hooks(*hooks, grads[k]);
}

// Outputs that received no gradient get zeros, so every rule sees defined grads.
void fill_missing_grads(const Node& node, TensorList& grads) {
  for (size_t k = 0; k < grads.size(); ++k)
    if (!grads[k].defined()) {
      const TensorMeta& m = node.output_metas[k];
      grads[k] = zeros(m.sizes, m.dtype, m.device);
    }
}

// The node's backward rule. In anomaly mode its results are checked, and the error
// describes the gradients it was given (Note [Anomaly rule] in anomaly.cpp).
TensorList apply_node(Node* node, TensorList&& grads) {
  if (!anomaly_enabled()) return node->apply(std::move(grads));
  TensorList given = grads;
  TensorList results;
  {
    ForwardAnomalyPause pause;
    results = node->apply(std::move(grads));
  }
  check_backward_anomaly(*node, given, results);
  return results;
}

void run_node(GraphTask& task, Node* node, std::priority_queue<std::pair<uint64_t, Node*>>& ready) {
  TensorList grads = std::move(task.nodes[node].grads);
  grads.resize(node->num_outputs());
  apply_hooks(node, grads);
  if (task.capturing) {
    for (size_t k = 0; k < grads.size(); ++k) {
      auto it = task.captures.find({node, static_cast<uint32_t>(k)});
      if (it == task.captures.end() || !grads[k].defined()) continue;
      for (size_t idx : it->second) task.captured[idx] = grads[k];
    }
    if (!task.needed.count(node) || dynamic_cast<AccumulateGrad*>(node)) return;
  }
  fill_missing_grads(*node, grads);
  TensorList outputs;
  {
    BackwardAttribution profiled(*node);  // see autograd/profiler.hpp
    outputs = apply_node(node, std::move(grads));
  }
  if (!task.retain_graph) node->release_saved();
  for (size_t i = 0; i < node->next_edges.size(); ++i) {
    const Edge& e = node->next_edges[i];
    if (!e.valid()) continue;
    NodeTask& next = task.nodes[e.fn.get()];
    if (i < outputs.size() && outputs[i].defined()) accumulate(next.grads, e.input_nr, outputs[i]);
    if (--next.dependencies == 0) ready.push({e.fn->sequence_nr, e.fn.get()});
  }
}

// Runs the graph behind `roots` (their gradient edges) seeded with `seeds`.
void execute(GraphTask& task, const std::vector<Edge>& root_edges, const TensorList& seeds) {
  GradModeGuard mode(task.create_graph);
  ProfileSpan span([] { return std::pair<std::string, std::string>("backward", current_origin()); });
  std::vector<Node*> roots;
  for (const Edge& e : root_edges) roots.push_back(e.fn.get());
  count_dependencies(task, roots);
  if (task.capturing) mark_needed(task, roots);
  for (size_t i = 0; i < root_edges.size(); ++i)
    accumulate(task.nodes[roots[i]].grads, root_edges[i].input_nr, seeds[i]);
  std::priority_queue<std::pair<uint64_t, Node*>> ready;  // newest node first
  for (size_t i = 0; i < roots.size(); ++i) {
    bool repeated = std::find(roots.begin(), roots.begin() + static_cast<long>(i), roots[i]) != roots.begin() + static_cast<long>(i);
    if (!repeated && task.nodes[roots[i]].dependencies == 0) ready.push({roots[i]->sequence_nr, roots[i]});
  }
  while (!ready.empty()) {
    Node* node = ready.top().second;
    ready.pop();
    run_node(task, node, ready);
  }
}

std::vector<Edge> root_edges_of(const TensorList& roots, const char* what) {
  std::vector<Edge> edges;
  for (size_t i = 0; i < roots.size(); ++i) {
    NABLA_CHECK(roots[i].defined(), std::string(what) + ": output " + std::to_string(i) + " is undefined");
    if (!roots[i].requires_grad())
      throw Error(std::string(what) + ": output " + std::to_string(i) +
                  " does not require grad and has no grad_fn (was it computed under no_grad, or from tensors "
                  "that do not require grad?)");
    edges.push_back(gradient_edge(roots[i]));
  }
  return edges;
}

TensorList seeds_of(const TensorList& roots, const TensorList& grads, const char* what) {
  TensorList seeds(roots.size());
  for (size_t i = 0; i < roots.size(); ++i) {
    if (i < grads.size() && grads[i].defined()) {
      if (!(grads[i].sizes() == roots[i].sizes()))
        throw Error(std::string(what) + ": grad_output " + std::to_string(i) + " has shape " + grads[i].shape_str() +
                    " but the output has shape " + roots[i].shape_str());
      seeds[i] = grads[i];
    } else {
      if (roots[i].numel() != 1)
        throw Error(std::string(what) + ": a gradient can be implied only for one-element outputs; output " +
                    std::to_string(i) + " has shape " + roots[i].shape_str() + ", so pass its grad_output");
      seeds[i] = ones(roots[i].sizes(), roots[i].dtype(), roots[i].device());
    }
  }
  return seeds;
}

}  // namespace

namespace {

// The callbacks of the outermost backward() running on this thread.
struct BackwardCallbacks {
  int depth = 0;
  std::vector<std::function<void(bool)>> queued;
};
thread_local BackwardCallbacks t_backward_callbacks;

void run_backward_callbacks(bool completed) {
  std::vector<std::function<void(bool)>> queued = std::move(t_backward_callbacks.queued);
  t_backward_callbacks.queued.clear();
  for (auto& callback : queued) callback(completed);
}

}  // namespace

bool queue_backward_callback(std::function<void(bool completed)> callback) {
  if (t_backward_callbacks.depth == 0) return false;
  t_backward_callbacks.queued.push_back(std::move(callback));
  return true;
}

void backward(const TensorList& roots, const TensorList& grads, bool retain_graph, bool create_graph) {
  GraphTask task;
  task.create_graph = create_graph;
  task.retain_graph = retain_graph;
  BackwardCallbacks& callbacks = t_backward_callbacks;
  bool outermost = callbacks.depth == 0;
  ++callbacks.depth;
  try {
    execute(task, root_edges_of(roots, "backward"), seeds_of(roots, grads, "backward"));
  } catch (...) {
    --callbacks.depth;
    if (outermost) run_backward_callbacks(false);
    throw;
  }
  --callbacks.depth;
  if (outermost) run_backward_callbacks(true);
}

void backward(const Tensor& root, const Tensor& grad, bool retain_graph, bool create_graph) {
  backward(TensorList{root}, TensorList{grad}, retain_graph, create_graph);
}

TensorList grad(const TensorList& outputs, const TensorList& inputs, const TensorList& grad_outputs,
                std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
  GraphTask task;
  task.create_graph = create_graph;
  task.retain_graph = retain_graph.value_or(create_graph);
  task.capturing = true;
  task.captured.resize(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].requires_grad())
      throw Error("grad: input " + std::to_string(i) + " does not require grad");
    Edge e = gradient_edge(inputs[i]);
    task.captures[{e.fn.get(), e.input_nr}].push_back(i);
  }
  // Keep the accumulators of leaf inputs alive while the graph runs.
  std::vector<Edge> keep;
  for (const Tensor& t : inputs) keep.push_back(gradient_edge(t));
  execute(task, root_edges_of(outputs, "grad"), seeds_of(outputs, grad_outputs, "grad"));
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!task.captured[i].defined() && !allow_unused)
      throw Error("grad: input " + std::to_string(i) +
                  " was not used to compute the outputs; pass allow_unused=true to get an undefined gradient");
  return task.captured;
}

HookHandle register_hook(const Tensor& t, TensorHook hook) {
  NABLA_CHECK(t.requires_grad(), "register_hook: the tensor does not require grad, so no gradient will reach the hook");
  AutogradMeta& meta = t.impl()->autograd_meta();
  if (!meta.grad_fn) {
    meta.leaf_hooks.push_back(std::move(hook));
    return HookHandle{t.impl_ptr(), 0, meta.leaf_hooks.size() - 1, true};
  }
  auto& hooks = meta.grad_fn->hooks;
  if (hooks.size() < meta.grad_fn->num_outputs()) hooks.resize(meta.grad_fn->num_outputs());
  auto& slot_hooks = hooks[meta.output_nr];
  slot_hooks.push_back(std::move(hook));
  return HookHandle{meta.grad_fn, meta.output_nr, slot_hooks.size() - 1, false};
}

void remove_hook(const HookHandle& handle) {
  std::shared_ptr<void> owner = handle.owner.lock();
  if (!owner) return;
  if (handle.on_leaf)
    static_cast<TensorImpl*>(owner.get())->autograd_meta().leaf_hooks.at(handle.index) = nullptr;
  else
    static_cast<Node*>(owner.get())->hooks.at(handle.slot).at(handle.index) = nullptr;
}

void retain_grad(const Tensor& t) {
  NABLA_CHECK(t.requires_grad(), "retain_grad: the tensor does not require grad");
  AutogradMeta& meta = t.impl()->autograd_meta();
  if (!meta.grad_fn || meta.retains_grad) return;
  meta.retains_grad = true;
  std::weak_ptr<TensorImpl> weak = t.impl_ptr();
  register_hook(t, [weak](const Tensor& g) {
    if (auto impl = weak.lock()) {
      Tensor self(impl);
      Tensor old = self.grad();
      Tensor value = grad_enabled() ? g : detach(g);
      self.set_grad(old.defined() ? add(old, value) : value);
    }
    return Tensor();
  });
}

}  // namespace nabla
