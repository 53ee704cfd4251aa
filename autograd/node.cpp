#include "autograd/node.hpp"

#include <atomic>

#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "autograd/transforms/levels.hpp"
#include "autograd/transforms/reverse.hpp"
#include "tensor/print.hpp"

namespace nabla {

namespace {
std::atomic<uint64_t> next_sequence_nr{0};
thread_local bool tl_grad_enabled = true;
thread_local std::optional<DType> tl_autocast;

// "max_dim" -> "MaxDimBackward"
std::string backward_name(const char* op) {
  std::string out;
  bool upper = true;
  for (const char* c = op; *c; ++c) {
    if (*c == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(*c)) : *c;
    upper = false;
  }
  return out + "Backward";
}
// Printing's "grad_fn=<MulBackward>" suffix asks autograd for node names through
// this hook (tensor/ only forward-declares Node). Any tensor with a grad_fn implies
// this file is linked, so the hook is always installed in time.
[[maybe_unused]] const bool kGradFnNameInstalled = [] {
  g_grad_fn_name = [](const Node& node) { return node.name(); };
  return true;
}();

}  // namespace

constinit thread_local bool detail::t_anomaly_enabled = false;

bool grad_enabled() { return tl_grad_enabled; }
void set_grad_enabled(bool enabled) { tl_grad_enabled = enabled; }
std::optional<DType> autocast_dtype() { return tl_autocast; }
void set_autocast_dtype(std::optional<DType> dtype) { tl_autocast = dtype; }

Node::Node() : sequence_nr(next_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {}

Node::~Node() {
  for (Edge& e : next_edges) release_iteratively(std::move(e.fn));
}

Edge gradient_edge(const Tensor& t) {
  AutogradMeta& meta = t.impl()->autograd_meta();
  if (meta.grad_fn) return Edge{meta.grad_fn, meta.output_nr};
  std::shared_ptr<Node> acc = meta.grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t);
    meta.grad_accumulator = acc;
  } else if (TensorMeta& m = acc->output_metas[0]; m.dtype != t.dtype() || m.device != t.device()) {
    m = {t.sizes(), t.dtype(), t.device()};  // Module.to moved or retyped the leaf since (retype, relocate)
  }
  return Edge{acc, 0};
}

SavedTensor::SavedTensor(const Tensor& t, bool is_output)
    : version_(t.version()), is_output_(is_output), requires_grad_(t.requires_grad()), output_nr_(t.output_nr()) {
  // An output is kept as a plain alias: holding the tensor itself would make
  // node -> output -> grad_fn(node) a cycle.
  // (A lifted output keeps the value it wraps, with that value's own history:
  // Note [Reverse levels].)
  data_ = !is_output ? t : t.impl()->lifted ? transforms::relifted(t) : detach(t);
  if (is_output) transforms::share_tangents(t, data_);  // jvp of a backward pass reads them
}

Tensor SavedTensor::unpack(const std::shared_ptr<Node>& owner, const char* op, int index) const {
  if (absent_) return Tensor();
  if (!data_.defined())
    throw Error(std::string("backward of '") + op +
                "': its saved tensors were already freed; call backward with retain_graph=true to go through the "
                "graph a second time");
  if (data_.version() != version_)
    throw Error(std::string("backward of '") + op + "': " + (is_output_ ? "output " : "input ") +
                std::to_string(index) + " was saved at version " + std::to_string(version_) +
                " but has been modified by an in-place operation since (now version " +
                std::to_string(data_.version()) + "); use an out-of-place op or clone it first" +
                (owner->origin == 0 ? "" : " (op called at " + origin_text(owner->origin) + ")"));
  if (!is_output_ || !requires_grad_) return data_;
  Tensor t = data_.impl()->lifted ? transforms::relifted(data_)
                                  : make_view(data_, data_.sizes(), data_.strides(), data_.offset());
  t.impl()->is_view = data_.impl()->is_view;
  AutogradMeta& meta = t.impl()->autograd_meta();
  meta.requires_grad = true;
  meta.grad_fn = owner;
  meta.output_nr = output_nr_;
  transforms::share_tangents(data_, t);
  return t;
}

Tensor BackwardContext::input(size_t i) const {
  return node_.inputs.at(i).saved.unpack(node_.shared_from_this(), node_.def().name, static_cast<int>(i));
}

Tensor BackwardContext::output(size_t k) const {
  return node_.saved_outputs.at(k).unpack(node_.shared_from_this(), node_.def().name, static_cast<int>(k));
}

std::string OpNode::name() const { return backward_name(def_.name); }

TensorList OpNode::apply(TensorList&& grads) {
  if (released)
    throw Error("backward through '" + std::string(def_.name) +
                "' a second time: its saved tensors were freed after the first backward; pass retain_graph=true "
                "to the first call");
  BackwardContext ctx(*this, std::move(grads));
  TensorList result = def_.backward(ctx);
  result.resize(next_edges.size());
  return result;
}

void OpNode::release_saved() {
  for (auto& slot : inputs) slot.saved.reset();
  for (auto& s : saved_outputs) s.reset();
  released = true;
}

Tensor dense_grad(const Tensor& g) {
  const Shape& sizes = g.sizes();
  const Shape& strides = g.strides();
  for (size_t d = 0; d < sizes.size(); ++d)
    if (strides[d] == 0 && sizes[d] > 1) return contiguous(g);
  return g;
}

AccumulateGrad::AccumulateGrad(const Tensor& t) : leaf(t.impl_ptr()) {
  output_metas.push_back({t.sizes(), t.dtype(), t.device()});
}

// Note [A leaf's first gradient is its own]
// .grad is written in place (clip_grad_norm_, grad.mul_(), an optimizer's in-place
// steps, zero_grad(set_to_none=false)), so the tensor a leaf keeps as its first
// gradient must share its storage with no other tensor. A backward may hand one tensor
// to two leaves (LSTM's bias_ih and bias_hh get the same gradient: clipping scaled it
// twice) or pass on a tensor that lives on elsewhere (the gradient given to
// backward(g) through x + 0, which x.grad.mul_() then changed). As PyTorch's
// AccumulateGrad, the incoming tensor is kept when nothing else holds it or its
// storage (apply()'s list and its copy g are the two expected holders), and copied
// otherwise.
static Tensor own_copy(const Tensor& g) {
  // an op (x * 1 is exact), not a raw copy: a graph capture records it, where a raw copy
  // would be a constant of the capture's run; under create_graph it keeps the history
  return mul(g, scalar_tensor(1.0, g.dtype()));
}

TensorList AccumulateGrad::apply(TensorList&& grads) {
  std::shared_ptr<TensorImpl> impl = leaf.lock();
  if (!impl || !grads[0].defined()) return {};
  Tensor t(impl);
  Tensor g = grads[0];  // the engine already ran the leaf's hooks
  const bool shared = g.impl_ptr().use_count() > 2 || (g.storage() && g.storage().use_count() > 1);
  NABLA_CHECK(g.sizes() == t.sizes(), "gradient of shape " + g.shape_str() + " does not match the leaf of shape " + t.shape_str());
  if (!grad_enabled()) g = detach(g);  // create_graph=false: .grad holds no history
  Tensor old = t.grad();
  t.set_grad(old.defined() ? add(old, g) : shared ? own_copy(g) : dense_grad(g));
  return {};
}

TensorList CopyBackward::apply(TensorList&& grads) {
  // next_edges: [0] the overwritten history of dst (gets nothing), [1] src.
  TensorList out(2);
  if (next_edges[1].valid()) out[1] = reduce_to_shape(grads[0], src_shape_);
  return out;
}

}  // namespace nabla
