// The backward engine: runs nodes in dependency order from the roots, accumulates
// gradients per input slot, and either writes leaf .grad (backward) or returns the
// gradients of chosen inputs (grad). With create_graph the rules run with grad mode
// on, so the gradients are themselves differentiable, to any order.
#pragma once
#include <functional>
#include <optional>

#include "tensor/tensor.hpp"

namespace nabla {

using TensorList = std::vector<Tensor>;

// root.backward(grad): grad may be undefined for a one-element root (taken as 1).
void backward(const Tensor& root, const Tensor& grad = Tensor(), bool retain_graph = false,
              bool create_graph = false);
void backward(const TensorList& roots, const TensorList& grads, bool retain_graph, bool create_graph);

// d(outputs)/d(inputs) weighted by grad_outputs. An input that the outputs do not
// depend on is an error unless allow_unused (then its gradient is undefined).
// retain_graph defaults to create_graph.
TensorList grad(const TensorList& outputs, const TensorList& inputs, const TensorList& grad_outputs = {},
                std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
                bool allow_unused = false);

// A hook sees the gradient of t during backward and may replace it.
// Returns a handle; remove_hook(handle) takes it away again.
struct HookHandle {
  std::weak_ptr<void> owner;
  size_t slot = 0;
  size_t index = 0;
  bool on_leaf = false;
};
HookHandle register_hook(const Tensor& t, TensorHook hook);
void remove_hook(const HookHandle& handle);
// Runs `callback` on this thread when the backward() call now running finishes
// (completed: true), or fails (false); what the data-parallel reducer waits on
// (autograd/grad_reducer.hpp). Returns false, queuing nothing, outside backward()
// (grad() runs hooks too, but no callback).
bool queue_backward_callback(std::function<void(bool completed)> callback);
// How many backward() calls are running on this thread: 0 outside backward, 2 inside
// a backward() that a custom function's backward called (nn.checkpoint's
// recomputation); FSDP reshards a unit at the depth it was gathered at, plus one.
int backward_depth();

// Keeps .grad of a non-leaf tensor after backward.
void retain_grad(const Tensor& t);

}  // namespace nabla
