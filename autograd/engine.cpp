#include "autograd/engine.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "autograd/anomaly.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/grad_validation.hpp"
#include "autograd/node.hpp"
#include "autograd/node_map.hpp"
#include "autograd/ops.hpp"
#include "autograd/profiler.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/origin.hpp"

namespace nabla {

namespace {

// Note [Iterative graph walks]
// A graph is as deep as the loop that built it (10^7 nodes is an ordinary long
// training run that keeps its history by mistake), so nothing here takes a C++ frame
// per node: the walks keep explicit stacks, the run a ready queue. The per-node
// state sits in a flat NodeMap (~21 bytes a node); gradients wait in `waiting` only
// while some of a node's inputs are still to come, and travel with the node in the
// ready queue once all are in, so a chain never touches that map. Freeing a graph is
// iterative too (Note [Iterative graph release] in tensor/tensor.hpp).

// Where grad() wants a gradient captured: input slot `input_nr` of `node`.
struct CaptureKey {
  Node* node;
  uint32_t input_nr;
  bool operator<(const CaptureKey& o) const { return node != o.node ? node < o.node : input_nr < o.input_nr; }
};

// Per node of the running graph.
struct NodeState {
  int32_t dependencies = 0;  // edges that still have to deliver a gradient
  bool capture = false;      // grad(): an input slot of this node is captured
  bool needed = false;       // grad(): the node leads to a capture, so it runs
  uint8_t walk = 0;          // mark_needed's post-order state (0 new, 1 open, 2 done)
};

// A node whose gradients are all in, with them (one slot per output of the node).
struct ReadyNode {
  uint64_t sequence_nr;
  Node* node;
  TensorList grads;
  bool operator<(const ReadyNode& o) const { return sequence_nr < o.sequence_nr; }
};

struct GraphTask {
  bool create_graph = false;
  bool retain_graph = false;
  bool capturing = false;  // grad(): collect gradients, never touch .grad
  NodeMap<NodeState> nodes;  // every node reachable from the roots
  std::unordered_map<Node*, TensorList> waiting;  // gradients of nodes not ready yet
  std::vector<ReadyNode> ready;  // a max-heap on sequence_nr: the newest node runs first
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
      auto [state, inserted] = task.nodes.try_emplace(e.fn.get());
      ++state->dependencies;
      if (inserted) stack.push_back(e.fn.get());
    }
  }
}

// A node is needed (runs) when one of its next nodes is a capture point or needed
// itself: an iterative post-order walk.
void mark_needed(GraphTask& task, const std::vector<Node*>& roots) {
  for (const auto& entry : task.captures)
    if (NodeState* s = task.nodes.find(entry.first.node)) s->capture = true;
  std::vector<std::pair<Node*, size_t>> stack;  // (node, next edge to look at)
  for (Node* root : roots) {
    if (task.nodes.find(root)->walk != 0) continue;
    task.nodes.find(root)->walk = 1;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      Node* n = stack.back().first;
      size_t child = stack.back().second++;
      if (child < n->next_edges.size()) {
        Node* next = n->next_edges[child].fn.get();
        NodeState* s = next ? task.nodes.find(next) : nullptr;
        if (s && s->walk == 0) {
          s->walk = 1;
          stack.push_back({next, 0});
        }
        continue;
      }
      bool leads = false;
      for (const Edge& e : n->next_edges)
        if (NodeState* s = e.valid() ? task.nodes.find(e.fn.get()) : nullptr) leads |= s->needed || s->capture;
      NodeState* state = task.nodes.find(n);
      state->needed = leads;
      state->walk = 2;
      stack.pop_back();
    }
  }
}

void accumulate(TensorList& slots, size_t slot, const Tensor& g) {
  if (slots.size() <= slot) slots.resize(slot + 1);
  slots[slot] = slots[slot].defined() ? add(slots[slot], g) : g;
}

void push_ready(GraphTask& task, Node* node, TensorList&& grads) {
  task.ready.push_back(ReadyNode{node->sequence_nr, node, std::move(grads)});
  std::push_heap(task.ready.begin(), task.ready.end());
}

ReadyNode pop_ready(GraphTask& task) {
  std::pop_heap(task.ready.begin(), task.ready.end());
  ReadyNode next = std::move(task.ready.back());
  task.ready.pop_back();
  return next;
}

// Gives `g` (undefined: nothing came) to slot e.input_nr of e.fn; the node becomes
// ready when it was the last edge it waited for.
void deliver(GraphTask& task, const Edge& e, const Tensor& g) {
  Node* next = e.fn.get();
  NodeState* state = task.nodes.find(next);
  if (--state->dependencies > 0) {
    if (g.defined()) accumulate(task.waiting[next], e.input_nr, g);
    return;
  }
  TensorList grads;
  if (auto it = task.waiting.find(next); it != task.waiting.end()) {
    grads = std::move(it->second);
    task.waiting.erase(it);
  }
  if (g.defined()) accumulate(grads, e.input_nr, g);
  push_ready(task, next, std::move(grads));
}

// The hooks registered on output slot k of node (for a leaf: the leaf's hooks).
const std::vector<TensorHook>* hooks_of(Node* node, size_t k) {
  if (auto* acc = dynamic_cast<AccumulateGrad*>(node)) {
    auto leaf = acc->leaf.lock();
    return leaf && leaf->autograd ? &leaf->autograd->leaf_hooks : nullptr;
  }
  return k < node->hooks.size() ? &node->hooks[k] : nullptr;
}

// Each hook sees the gradient and may replace it (an undefined result keeps it);
// a replacement is fitted to the tensor (Note [Gradient validation]).
Tensor run_hooks(const std::vector<TensorHook>& hooks, Tensor g, const Node& node, size_t k) {
  for (const TensorHook& hook : hooks) {
    if (!hook) continue;
    Tensor replaced = hook(g);
    if (!replaced.defined()) continue;
    g = fits(replaced, node.output_metas[k]) ? replaced : fit_hook_gradient(replaced, node.output_metas[k], node, k);
  }
  return g;
}

void apply_hooks(Node* node, TensorList& grads) {
  for (size_t k = 0; k < grads.size(); ++k)
    if (const auto* hooks = hooks_of(node, k); hooks && !hooks->empty() && grads[k].defined())
      grads[k] = run_hooks(*hooks, grads[k], *node, k);
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

void capture_grads(GraphTask& task, Node* node, const TensorList& grads) {
  for (size_t k = 0; k < grads.size(); ++k) {
    auto it = task.captures.find({node, static_cast<uint32_t>(k)});
    if (it == task.captures.end() || !grads[k].defined()) continue;
    for (size_t idx : it->second) task.captured[idx] = grads[k];
  }
}

void run_node(GraphTask& task, ReadyNode&& item) {
  Node* node = item.node;
  TensorList grads = std::move(item.grads);
  grads.resize(node->num_outputs());
  apply_hooks(node, grads);
  if (task.capturing) {
    const NodeState& state = *task.nodes.find(node);
    if (state.capture) capture_grads(task, node, grads);
    if (!state.needed) return;  // its next nodes lead to no capture (an AccumulateGrad never does)
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
    static const Tensor none;
    const Tensor& g = i < outputs.size() ? outputs[i] : none;
    if (!g.defined() || e.input_nr >= e.fn->output_metas.size() || fits(g, e.fn->output_metas[e.input_nr]))
      deliver(task, e, g);
    else
      deliver(task, e, fit_rule_gradient(g, e.fn->output_metas[e.input_nr], *node, i));
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
  for (size_t i = 0; i < root_edges.size(); ++i) accumulate(task.waiting[roots[i]], root_edges[i].input_nr, seeds[i]);
  for (Node* root : roots) {
    auto it = task.waiting.find(root);  // gone when root came earlier in the list
    if (it == task.waiting.end() || task.nodes.find(root)->dependencies != 0) continue;
    TensorList grads = std::move(it->second);
    task.waiting.erase(it);
    push_ready(task, root, std::move(grads));
  }
  while (!task.ready.empty()) run_node(task, pop_ready(task));
}

std::vector<Edge> root_edges_of(const TensorList& roots, const char* what) {
  std::vector<Edge> edges;
  for (size_t i = 0; i < roots.size(); ++i) {
    NABLA_CHECK(roots[i].defined(), std::string(what) + ": output " + std::to_string(i) + " is undefined");
    if (!roots[i].requires_grad())
      throw Error(std::string(what) + ": output " + std::to_string(i) +
                  " does not require grad and has no grad_fn (was it computed under no_grad, by a graph module "
                  "compiled without train=true, or from tensors that do not require grad?)");
    edges.push_back(gradient_edge(roots[i]));
  }
  return edges;
}

TensorList seeds_of(const TensorList& roots, const TensorList& grads, const char* what) {
  TensorList seeds(roots.size());
  for (size_t i = 0; i < roots.size(); ++i) {
    if (i < grads.size() && grads[i].defined()) {
      seeds[i] = fit_seed(grads[i], roots[i], what, i);
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

int backward_depth() { return t_backward_callbacks.depth; }

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
  // The edges are kept while the graph runs: a leaf's accumulator lives only as long as
  // something holds it, and one made here for the capture key and dropped was made anew
  // for an output that is the leaf itself (grad(x, x)), under another address, so its
  // gradient was never captured.
  std::vector<Edge> keep;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].requires_grad())
      throw Error("grad: input " + std::to_string(i) + " does not require grad");
    keep.push_back(gradient_edge(inputs[i]));
    task.captures[{keep.back().fn.get(), keep.back().input_nr}].push_back(i);
  }
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
      self.set_grad(old.defined() ? add(old, value) : dense_grad(value));  // Note [Dense gradients]
    }
    return Tensor();
  });
}

}  // namespace nabla
