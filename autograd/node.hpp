// Autograd graph nodes. Every differentiable op call records an OpNode holding the
// op's row, its attributes, the tensors its backward rule needs (each with the
// version it saw) and one edge per input. Leaves end in AccumulateGrad nodes.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "autograd/op_table.hpp"
#include "tensor/origin.hpp"
#include "tensor/tensor.hpp"

namespace nabla {

struct Node;

// Where the gradient of an input goes: input slot `input_nr` of node `fn`.
struct Edge {
  std::shared_ptr<Node> fn;
  uint32_t input_nr = 0;
  bool valid() const { return fn != nullptr; }
};

struct Node : std::enable_shared_from_this<Node> {
  Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  // Hands next_edges to release_iteratively (Note [Iterative graph release] in
  // tensor/tensor.hpp), so freeing a long chain never recurses per node.
  virtual ~Node();

  // Gradients for each next edge from the gradients of this node's outputs.
  virtual TensorList apply(TensorList&& grads) = 0;
  virtual std::string name() const = 0;  // "MulBackward"
  virtual void release_saved() {}
  size_t num_outputs() const { return output_metas.size(); }

  std::vector<Edge> next_edges;
  std::vector<TensorMeta> output_metas;        // to materialise zero gradients
  std::vector<std::vector<TensorHook>> hooks;  // tensor hooks per output slot (empty until one is registered)
  uint64_t sequence_nr;
  OriginId origin = 0;  // DSL location of the forward call (origin_text), 0 when unknown
};

// The gradient edge of a tensor: its grad_fn slot, or its leaf accumulator.
Edge gradient_edge(const Tensor& t);

// Records an OpNode for one call of `def` as the outputs' grad_fn (they then require
// grad). Inputs whose bit is set in `constant_inputs` get no edge: a reverse level
// (autograd/transforms/reverse.hpp) differentiates only what it lifted.
void record_call(const OpDef& def, const TensorList& inputs, const Attrs& attrs, TensorList& outs,
                 uint64_t constant_inputs = 0);

// A tensor kept for backward with the version it had then. Outputs are kept
// without their grad_fn (it would be a cycle) and get it back on unpack.
class SavedTensor {
 public:
  SavedTensor() = default;
  SavedTensor(const Tensor& t, bool is_output);
  // An optional input that was left out: unpacks as an undefined tensor.
  static SavedTensor absent() {
    SavedTensor s;
    s.absent_ = true;
    return s;
  }
  Tensor unpack(const std::shared_ptr<Node>& owner, const char* op, int index) const;
  bool defined() const { return data_.defined(); }
  // The tensor as saved, without the version check or grad_fn (anomaly reports).
  const Tensor& peek() const { return data_; }
  void reset() { data_ = Tensor(); }

 private:
  Tensor data_;
  bool absent_ = false;  // an optional input left out: unpacks as undefined, never "freed"
  uint32_t version_ = 0;
  bool is_output_ = false;
  bool requires_grad_ = false;
  uint32_t output_nr_ = 0;
};

class OpNode : public Node {
 public:
  OpNode(const OpDef& def, Attrs attrs) : def_(def), attrs_(std::move(attrs)) {}
  TensorList apply(TensorList&& grads) override;
  std::string name() const override;
  void release_saved() override;

  const OpDef& def() const { return def_; }
  const Attrs& attrs() const { return attrs_; }

  // Per input: its shape and dtype, and the tensor itself when the rule needs it.
  struct InputSlot {
    TensorMeta meta;
    SavedTensor saved;
  };
  std::vector<InputSlot> inputs;
  std::vector<SavedTensor> saved_outputs;  // by output index; empty when the row saves none
  bool released = false;

 private:
  friend class BackwardContext;
  const OpDef& def_;
  Attrs attrs_;
};

// What a backward rule sees: the gradients of the node's outputs (zeros where an
// output got none), the saved tensors, attributes, and which inputs need gradients.
class BackwardContext {
 public:
  BackwardContext(OpNode& node, TensorList grads) : node_(node), grads_(std::move(grads)) {}

  const Tensor& grad(size_t output = 0) const { return grads_[output]; }
  Tensor input(size_t i) const;   // a saved input (error if changed in place since)
  Tensor output(size_t k) const;  // a saved output
  const Shape& input_shape(size_t i) const { return node_.inputs[i].meta.sizes; }
  DType input_dtype(size_t i) const { return node_.inputs[i].meta.dtype; }
  Device input_device(size_t i) const { return node_.inputs[i].meta.device; }
  size_t num_inputs() const { return node_.inputs.size(); }
  size_t num_outputs() const { return grads_.size(); }
  bool needs_grad(size_t i) const { return i < node_.next_edges.size() && node_.next_edges[i].valid(); }
  const Attrs& attrs() const { return node_.attrs(); }

 private:
  OpNode& node_;
  TensorList grads_;
};

// Note [Dense gradients]
// A rule may return an expanded gradient (sum's is its seed expanded to the input's
// shape: one element, stride 0). Stored as `.grad` as it was, an in-place update of
// the gradient (zero_(), clip_grad_norm_'s mul_, `w.grad += g`) wrote into memory that
// all its elements share, which in-place writes refuse (Note [Overlapping writes] in
// autograd/inplace.cpp). As PyTorch's AccumulateGrad (its layout contract), a gradient
// kept in `.grad` is copied to a dense tensor when it shares memory between elements;
// any other gradient is kept as it is, with no copy.
Tensor dense_grad(const Tensor& g);

// Accumulates into `.grad` of a leaf (out of place, so a gradient tensor that a
// user also holds is never changed behind their back).
class AccumulateGrad : public Node {
 public:
  explicit AccumulateGrad(const Tensor& leaf);
  TensorList apply(TensorList&& grads) override;
  std::string name() const override { return "AccumulateGrad"; }
  std::weak_ptr<TensorImpl> leaf;
};

// A CopyBackward node rebases history for an in-place write dst.copy_(src): the
// gradient goes to src (summed over broadcast dims); the overwritten value gets none.
class CopyBackward : public Node {
 public:
  explicit CopyBackward(Shape src_shape) : src_shape_(std::move(src_shape)) {}
  TensorList apply(TensorList&& grads) override;
  std::string name() const override { return "CopyBackward"; }

 private:
  Shape src_shape_;
};

}  // namespace nabla
