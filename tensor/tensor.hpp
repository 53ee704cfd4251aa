// Tensor: a strided view (sizes, strides, offset, dtype) over refcounted Storage.
// Views share the storage and its version counter, which autograd reads to detect an
// in-place change to a tensor it saved. This header is data only: ops live in the
// op table (autograd/ops.hpp), and autograd state is stored here but run elsewhere.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tensor/device.hpp"
#include "tensor/dtype.hpp"
#include "tensor/small_vec.hpp"

namespace nabla {

struct Node;  // autograd/node.hpp
class Tensor;
struct ForwardGrads;  // a tensor's jvp tangents: autograd/transforms/levels.hpp
struct BatchedInfo;   // what a vmap-batched tensor wraps: autograd/transforms/levels.hpp
struct LiftedInfo;    // what a tensor lifted to a reverse level wraps: below

// Refcounted bytes on one device, plus the version counter shared by all views.
// CPU bytes come from the caching CPU allocator, or pinned (page-locked, for copies
// to a GPU that overlap compute) from the CUDA backend's pinned allocator; cuda bytes
// from the device's caching allocator, tagged with the DSL line that asked.
struct Storage {
  Storage(size_t nbytes, Device device, bool pinned = false);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data = nullptr;
  size_t nbytes = 0;
  Device device;
  bool pinned = false;
  std::atomic<uint32_t> version{0};
};

// A hook sees the gradient flowing into a tensor and may return a replacement
// (an undefined Tensor keeps the gradient as it is).
using TensorHook = std::function<Tensor(const Tensor&)>;

// Note [Iterative graph release]
// An autograd graph is as long as the loop that built it (`total = total + loss` over
// a million steps), and its owners chain: node -> next_edges -> node, node -> saved
// tensor -> its grad_fn -> node, tensor -> .grad -> its grad_fn, hook -> captured
// tensor -> grad_fn or leaf hooks. Freed by plain shared_ptr destructors, that is a
// few C++ frames per node, and the stack overflows (at exit, typically) past ~10^5
// nodes. So every owner on those paths that can hold the last reference to the rest
// of a graph (Node::next_edges in autograd/node.cpp; AutogradMeta's grad_fn, grad and
// leaf hooks here) hands it to release_iteratively instead of dropping it: the
// outermost call frees it and queues what its destructor hands back, in a loop, so
// the depth stays constant whatever the graph's shape (as PyTorch's deleteNode does
// for next_edges). Every other path from a node to a node (saved tensors, a custom
// function's ctx, node hooks) passes through a tensor, whose AutogradMeta breaks it.
// A view keeps only its storage, never the tensor it was viewed from, so views of
// views do not chain.
void release_iteratively(std::shared_ptr<void> owner) noexcept;

// Autograd state of one tensor; absent for tensors that never touched autograd.
struct AutogradMeta {
  AutogradMeta() = default;
  AutogradMeta(const AutogradMeta&) = delete;
  AutogradMeta& operator=(const AutogradMeta&) = delete;
  ~AutogradMeta();  // releases grad_fn and grad iteratively (Note [Iterative graph release])

  bool requires_grad = false;
  bool retains_grad = false;
  std::shared_ptr<Tensor> grad;          // .grad of a leaf (or of a retains_grad non-leaf)
  std::shared_ptr<Node> grad_fn;         // the node that produced this tensor; null for leaves
  uint32_t output_nr = 0;                // which output of grad_fn this is
  std::weak_ptr<Node> grad_accumulator;  // a leaf's AccumulateGrad node, made on demand
  std::vector<TensorHook> leaf_hooks;    // hooks of a leaf (non-leaf hooks live on grad_fn)
  // Tangents of jvp levels (Note [Transform levels]); shared with the aliases that
  // autograd saves of this tensor, so that a backward run inside jvp sees them.
  std::shared_ptr<ForwardGrads> forward;
};

// A number that orders tensor creations (graph capture tells tensors that existed
// before it started from those made while it ran).
uint64_t new_tensor_serial();

struct TensorImpl {
  std::shared_ptr<Storage> storage;
  Shape sizes;
  Shape strides;  // in elements
  int64_t offset = 0;  // in elements
  int64_t numel = 0;
  DType dtype = DType::f32;
  bool contiguous = true;
  bool is_view = false;  // shares storage with a tensor it was viewed from
  bool wrapped_number = false;  // made from a plain number: does not drive type promotion
  uint64_t serial = new_tensor_serial();
  std::unique_ptr<AutogradMeta> autograd;
  // Set on a tensor that vmap batched (Note [Transform levels]): sizes are the
  // per-example ones, the values live in the physical tensor this points to, and
  // reading raw data is an error.
  std::shared_ptr<BatchedInfo> batched;
  // Set on a tensor that a reverse level lifted (Note [Reverse levels] in
  // autograd/transforms/reverse.hpp): same layout and storage as the tensor it wraps,
  // its own autograd history.
  std::shared_ptr<LiftedInfo> lifted;

  AutogradMeta& autograd_meta() {
    if (!autograd) autograd = std::make_unique<AutogradMeta>();
    return *autograd;
  }
  void refresh_layout();  // recompute numel and contiguous from sizes/strides
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_ != nullptr; }
  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }

  // Shape and layout.
  const Shape& sizes() const { return impl_->sizes; }
  const Shape& strides() const { return impl_->strides; }
  int64_t dim() const { return static_cast<int64_t>(impl_->sizes.size()); }
  int64_t size(int64_t d) const;  // negative d counts from the end
  int64_t stride(int64_t d) const;
  int64_t numel() const { return impl_->numel; }
  int64_t offset() const { return impl_->offset; }
  DType dtype() const { return impl_->dtype; }
  Device device() const { return impl_->storage->device; }
  bool is_contiguous() const { return impl_->contiguous; }
  const std::shared_ptr<Storage>& storage() const { return impl_->storage; }

  // Raw element access (the storage pointer plus the offset).
  void* raw_data() const {
    if (impl_->batched || impl_->lifted) [[unlikely]] return wrapped_raw_data();
    return static_cast<char*>(impl_->storage->data) + impl_->offset * static_cast<int64_t>(dtype_size(dtype()));
  }
  template <class T>
  T* data() const {
    NABLA_CHECK(dtype_of<T>::value == dtype(), std::string("data<T>: tensor holds ") + dtype_name(dtype()));
    return static_cast<T*>(raw_data());
  }
  double item() const;  // the single value of a one-element tensor, as a double
  // The single value of a one-element integer or bool tensor, exactly (a double
  // rounds int64 values past 2^53, and 2^63 - 1 up to 2^63, which no int64 holds).
  int64_t item_int() const;

  // Version counter (shared with every view of the same storage).
  uint32_t version() const { return impl_->storage->version.load(std::memory_order_relaxed); }
  void bump_version() const { impl_->storage->version.fetch_add(1, std::memory_order_relaxed); }

  // Autograd state (the engine and the op table act on it; see autograd/).
  bool requires_grad() const { return impl_ && impl_->autograd && impl_->autograd->requires_grad; }
  Tensor& set_requires_grad(bool value);
  bool is_leaf() const { return !impl_->autograd || !impl_->autograd->grad_fn; }
  const std::shared_ptr<Node>& grad_fn() const;
  uint32_t output_nr() const { return impl_->autograd ? impl_->autograd->output_nr : 0; }
  Tensor grad() const;
  void set_grad(const Tensor& g);

  std::string shape_str() const;  // "[2, 3]"
  std::string str() const;        // PyTorch-style printing (print.cpp)

 private:
  [[noreturn]] static void throw_batched_read();
  void* wrapped_raw_data() const;  // a vmap wrapper's (an error) or a lifted tensor's
  std::shared_ptr<TensorImpl> impl_;
};

// What a tensor lifted to reverse level `level` wraps. Lifted tensors are counted
// (live_lifted_tensors) so that op calls outside every transform can tell in one
// read whether one might be among their inputs.
struct LiftedInfo {
  LiftedInfo(Tensor inner, uint64_t level);
  ~LiftedInfo();
  LiftedInfo(const LiftedInfo&) = delete;
  LiftedInfo& operator=(const LiftedInfo&) = delete;
  Tensor inner;
  uint64_t level;
};
int64_t live_lifted_tensors();

std::string shape_str(const Shape& s);
Shape contiguous_strides(const Shape& sizes);
int64_t shape_numel(const Shape& sizes);
// Turns a possibly negative dim into [0, ndim) or throws naming the op.
int64_t wrap_dim(int64_t d, int64_t ndim, const char* op);

// Factories of uninitialised or filled tensors (no autograd involved).
Tensor empty(const Shape& sizes, DType dtype = DType::f32, Device device = cpu_device());
// Uninitialised CPU memory that is page-locked (see Storage).
Tensor empty_pinned(const Shape& sizes, DType dtype);
Tensor full(const Shape& sizes, double value, DType dtype = DType::f32, Device device = cpu_device());
Tensor zeros(const Shape& sizes, DType dtype = DType::f32, Device device = cpu_device());
Tensor ones(const Shape& sizes, DType dtype = DType::f32, Device device = cpu_device());
Tensor scalar_tensor(double value, DType dtype = DType::f32);
// A 0-dim CPU tensor of an integer, exact in i64 (through a double, 2^53 + 1 would be
// 2^53 and 2^63 - 1 would wrap to -2^63); cast to `dtype` as a cast of the element.
Tensor int_scalar_tensor(int64_t value, DType dtype = DType::i64);
Tensor wrapped_scalar(double value);  // a 0-dim tensor from a number (f64; does not promote)
// PyTorch's result_type: dimensioned tensors decide, then 0-dim tensors, then
// wrapped numbers, each only when it raises the category (bool < int < float). The
// dtype binary ops compute in (comparisons included: f32 > 0.1 compares in f32).
DType result_type(const std::vector<Tensor>& inputs);
Tensor arange(int64_t end, DType dtype = DType::i64, Device device = cpu_device());
// From values given row-major; `values` are converted to dtype.
Tensor tensor_from(const std::vector<double>& values, const Shape& sizes, DType dtype = DType::f32);
// A view sharing `base`'s storage; the view ops of the op table call this.
Tensor make_view(const Tensor& base, const Shape& sizes, const Shape& strides, int64_t offset);

// Values of a tensor of any layout and device, row-major, as doubles (tests and printing).
std::vector<double> to_double_vector(const Tensor& t);
// The values of an integer or bool tensor as int64, exactly (a double rounds past 2^53).
std::vector<int64_t> to_int64_vector(const Tensor& t);
// t on the CPU (t itself when it is there): what printing and item() read.
Tensor cpu_copy(const Tensor& t);
// Moves t's values (and its .grad) to `device` in place: the same tensor object, now
// contiguous on the device, so everything that holds it (an optimizer) sees the move.
// What Module.to(device) does to parameters and buffers; other views of the old
// storage keep the old values.
void relocate(const Tensor& t, const Device& device);
// t's values converted to `dtype` in place, keeping the tensor's identity (and its
// gradient's, converted too): Module.to(dtype) for parameters an optimizer holds.
void retype(const Tensor& t, DType dtype);

}  // namespace nabla
