#include "tensor/tensor.hpp"

#include <atomic>
#include <type_traits>
#include <cmath>

#include "tensor/allocator.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/origin.hpp"
#include "tensor/storage_views.hpp"

namespace nabla {

uint64_t new_tensor_serial() {
  static std::atomic<uint64_t> next{0};
  return next.fetch_add(1, std::memory_order_relaxed);
}


Storage::Storage(size_t n, Device dev, bool pin) : nbytes(n), device(dev), pinned(pin) {
  if (dev.kind == DeviceKind::cuda)
    data = cuda::allocate(dev.index, n, current_origin());
  else if (pinned)
    data = cuda::allocate_pinned(n);
  else
    data = CpuAllocator::instance().allocate(n, current_origin_id());
}

Storage::~Storage() {
  if (device.kind == DeviceKind::cuda)
    cuda::release(device.index, data);
  else if (pinned)
    cuda::release_pinned(data);
  else
    CpuAllocator::instance().deallocate(data, nbytes);
}

namespace {
// The queue of the outermost release_iteratively running on this thread (null when
// none runs). A plain pointer: it has no destructor, so tensors freed while the
// program's statics are destroyed still find it valid.
constinit thread_local std::vector<std::shared_ptr<void>>* t_release_queue = nullptr;
}  // namespace

void release_iteratively(std::shared_ptr<void> owner) noexcept {
  if (!owner || owner.use_count() > 1) return;  // not the last reference: dropping it frees nothing
  if (t_release_queue) {
    try {
      t_release_queue->push_back(std::move(owner));
    } catch (...) {
      owner.reset();  // out of memory for the queue: free it here, recursively
    }
    return;
  }
  std::vector<std::shared_ptr<void>> queue;
  t_release_queue = &queue;
  owner.reset();  // its destructor queues what it held (one level of frames)
  while (!queue.empty()) {
    std::shared_ptr<void> next = std::move(queue.back());
    queue.pop_back();
    next.reset();
  }
  t_release_queue = nullptr;
}

AutogradMeta::~AutogradMeta() {
  release_iteratively(std::move(grad_fn));
  release_iteratively(std::move(grad));
  // A leaf's hooks may hold tensors (a closure over the leaf made before it).
  if (leaf_hooks.empty()) return;
  try {
    release_iteratively(std::make_shared<std::vector<TensorHook>>(std::move(leaf_hooks)));
  } catch (...) {  // out of memory: they are freed here, recursively
  }
}

void TensorImpl::refresh_layout() {
  numel = shape_numel(sizes);
  contiguous = true;
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) {
      contiguous = false;
      break;
    }
    expected *= sizes[i];
  }
}

int64_t wrap_dim(int64_t d, int64_t ndim, const char* op) {
  int64_t n = ndim == 0 ? 1 : ndim;  // a 0-dim tensor accepts dim 0 and -1, like PyTorch
  if (d < -n || d >= n)
    throw Error(std::string(op) + ": dim " + std::to_string(d) + " is out of range for a tensor of " +
                std::to_string(ndim) + " dimension" + (ndim == 1 ? "" : "s") + " (expected a dim in [" +
                std::to_string(-n) + ", " + std::to_string(n - 1) + "])");
  return d < 0 ? d + n : d;
}

int64_t Tensor::size(int64_t d) const { return sizes()[wrap_dim(d, dim(), "size")]; }
int64_t Tensor::stride(int64_t d) const { return strides()[wrap_dim(d, dim(), "stride")]; }

void Tensor::throw_batched_read() {
  throw Error(
      "cannot read the values of a tensor batched by vmap (item(), tolist(), printing, a number or a branch made "
      "from it): inside vmap each batch element has its own values; return the tensor from the function instead");
}

void* Tensor::wrapped_raw_data() const {
  if (impl_->batched) throw_batched_read();
  return impl_->lifted->inner.raw_data();  // the same address; an error if the inner is batched
}

namespace {
std::atomic<int64_t> lifted_count{0};
}

LiftedInfo::LiftedInfo(Tensor inner_, uint64_t level_) : inner(std::move(inner_)), level(level_) {
  lifted_count.fetch_add(1, std::memory_order_relaxed);
}
LiftedInfo::~LiftedInfo() { lifted_count.fetch_sub(1, std::memory_order_relaxed); }
int64_t live_lifted_tensors() { return lifted_count.load(std::memory_order_relaxed); }

double Tensor::item() const {
  NABLA_CHECK(numel() == 1, "item(): expected a tensor with one element, got shape " + shape_str());
  if (device().kind != DeviceKind::cpu) return cpu_copy(*this).item();  // waits for the device
  return visit_dtype(dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return static_cast<double>(static_cast<compute_t<T>>(*static_cast<const T*>(raw_data())));
  });
}

int64_t Tensor::item_int() const {
  NABLA_CHECK(numel() == 1, "item(): expected a tensor with one element, got shape " + shape_str());
  NABLA_CHECK(!is_floating(dtype()), std::string("item_int(): expected an integer or bool tensor, got ") + dtype_name(dtype()));
  if (device().kind != DeviceKind::cpu) return cpu_copy(*this).item_int();  // waits for the device
  return visit_dtype(dtype(), [&](auto tag) -> int64_t {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) return static_cast<int64_t>(*static_cast<const T*>(raw_data()));
    else return 0;  // not reached: floating dtypes were refused above
  });
}

Tensor& Tensor::set_requires_grad(bool value) {
  if (value)
    NABLA_CHECK(is_floating(dtype()), std::string("requires_grad: only floating tensors can require gradients, got ") + dtype_name(dtype()));
  NABLA_CHECK(is_leaf(), "requires_grad: can only change the flag of a leaf tensor; use detach() first");
  impl_->autograd_meta().requires_grad = value;
  return *this;
}

const std::shared_ptr<Node>& Tensor::grad_fn() const {
  static const std::shared_ptr<Node> none;
  return impl_->autograd ? impl_->autograd->grad_fn : none;
}

Tensor Tensor::grad() const {
  if (!impl_->autograd || !impl_->autograd->grad) return Tensor();
  return *impl_->autograd->grad;
}

void Tensor::set_grad(const Tensor& g) {
  auto& meta = impl_->autograd_meta();
  if (!g.defined())
    meta.grad.reset();
  else
    meta.grad = std::make_shared<Tensor>(g);
}

std::string shape_str(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

std::string Tensor::shape_str() const { return nabla::shape_str(sizes()); }

// Checked: a shape with a zero size has no elements, yet the strides of its other
// sizes must still fit in 64 bits ([0, 2**40, 2**40]; found by the fuzzer,
// tests/fuzz/regressions/idx/).
Shape contiguous_strides(const Shape& sizes) {
  Shape strides(sizes.size());
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = s;
    if (i > 0 && __builtin_mul_overflow(s, std::max<int64_t>(sizes[i], 1), &s))
      throw Error("the shape " + shape_str(sizes) + " has strides that do not fit in 64 bits");
  }
  return strides;
}

int64_t shape_numel(const Shape& sizes) {
  // A zero size makes no elements, whatever the others (zeros(3, 2**62, 0), as
  // PyTorch's): the product overflowed at 3 * 2^62 before it met the 0.
  for (int64_t s : sizes)
    if (s == 0) return 0;
  int64_t n = 1;
  for (int64_t s : sizes)
    if (__builtin_mul_overflow(n, s, &n)) throw Error("the shape " + shape_str(sizes) + " has more elements than fit in 64 bits");
  return n;
}

namespace {
Tensor new_tensor(const Shape& sizes, DType dtype, Device device, bool pinned) {
  for (int64_t s : sizes)
    NABLA_CHECK(s >= 0, "empty: sizes must be non-negative, got " + shape_str(sizes));
  auto impl = std::make_shared<TensorImpl>();
  impl->sizes = sizes;
  impl->strides = contiguous_strides(sizes);
  impl->dtype = dtype;
  impl->numel = shape_numel(sizes);
  impl->contiguous = true;
  size_t nbytes;
  if (__builtin_mul_overflow(static_cast<size_t>(impl->numel), dtype_size(dtype), &nbytes))
    throw Error("the shape " + shape_str(sizes) + " of " + dtype_name(dtype) + " needs more bytes than fit in 64 bits");
  impl->storage = std::make_shared<Storage>(nbytes, device, pinned);
  return Tensor(std::move(impl));
}
}  // namespace

Tensor empty(const Shape& sizes, DType dtype, Device device) { return new_tensor(sizes, dtype, device, false); }
Tensor empty_pinned(const Shape& sizes, DType dtype) { return new_tensor(sizes, dtype, cpu_device(), true); }

Tensor full(const Shape& sizes, double value, DType dtype, Device device) {
  Tensor t = empty(sizes, dtype, device);
  fill_raw(t, value);
  return t;
}

Tensor zeros(const Shape& sizes, DType dtype, Device device) { return full(sizes, 0.0, dtype, device); }
Tensor ones(const Shape& sizes, DType dtype, Device device) { return full(sizes, 1.0, dtype, device); }
Tensor scalar_tensor(double value, DType dtype) { return full({}, value, dtype); }

Tensor int_scalar_tensor(int64_t value, DType dtype) {
  Tensor t = empty({}, dtype);
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    *static_cast<T*>(t.raw_data()) = static_cast<T>(element_cast<T>(value));
  });
  return t;
}

Tensor wrapped_scalar(double value) {
  Tensor t = scalar_tensor(value, DType::f64);
  t.impl()->wrapped_number = true;
  return t;
}

DType result_type(const std::vector<Tensor>& inputs) {
  bool has[3] = {false, false, false};
  DType tier[3] = {DType::b8, DType::b8, DType::b8};  // dimensioned, 0-dim, wrapped
  for (const Tensor& t : inputs) {
    if (!t.defined()) continue;
    int k = t.impl()->wrapped_number ? 2 : t.dim() == 0 ? 1 : 0;
    DType d = t.dtype();
    if (k == 2) d = dtype_category(d) == 2 ? DType::f32 : dtype_category(d) == 1 ? DType::i64 : DType::b8;
    tier[k] = has[k] ? promote_types(tier[k], d) : d;
    has[k] = true;
  }
  bool found = false;
  DType result = DType::f32;
  for (int k = 0; k < 3; ++k) {
    if (!has[k]) continue;
    if (!found) {
      result = tier[k];
      found = true;
    } else if (dtype_category(tier[k]) > dtype_category(result)) {
      result = tier[k];
    }
  }
  return result;
}

Tensor arange(int64_t end, DType dtype, Device device) {
  // Written into the tensor itself: a host vector of `end` doubles made first threw
  // std::vector's "cannot create std::vector larger than max_size()" for a huge end,
  // before empty() could check the size.
  Tensor t = empty({std::max<int64_t>(end, 0)}, dtype);
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = static_cast<T*>(t.raw_data());
    for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<T>(element_cast<T>(static_cast<double>(i)));
  });
  return device == t.device() ? t : cuda::to_device(t, device);
}

Tensor tensor_from(const std::vector<double>& values, const Shape& sizes, DType dtype) {
  NABLA_CHECK(static_cast<int64_t>(values.size()) == shape_numel(sizes),
        "tensor_from: " + std::to_string(values.size()) + " values do not fill shape " + shape_str(sizes));
  Tensor t = empty(sizes, dtype);
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = static_cast<T*>(t.raw_data());
    for (size_t i = 0; i < values.size(); ++i) p[i] = static_cast<T>(element_cast<T>(values[i]));
  });
  return t;
}

Tensor make_view(const Tensor& base, const Shape& sizes, const Shape& strides, int64_t offset) {
  if (base.impl()->batched) (void)base.raw_data();  // vmap's tensors have no layout to view: the error
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = base.storage();
  impl->sizes = sizes;
  impl->strides = strides;
  impl->offset = offset;
  impl->dtype = base.dtype();
  impl->is_view = true;
  impl->refresh_layout();
  return Tensor(std::move(impl));
}

Tensor over_storage(const std::shared_ptr<Storage>& storage, const Tensor& like) {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = storage;
  impl->sizes = like.sizes();
  impl->strides = like.strides();
  impl->offset = like.offset();
  impl->dtype = like.dtype();
  impl->refresh_layout();
  return Tensor(std::move(impl));
}

Tensor bytes_of(const std::shared_ptr<Storage>& storage) {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = storage;
  impl->sizes = {static_cast<int64_t>(storage->nbytes)};
  impl->strides = {1};
  impl->dtype = DType::u8;
  impl->refresh_layout();
  return Tensor(std::move(impl));
}

Tensor cpu_copy(const Tensor& t) {
  return t.device().kind == DeviceKind::cpu ? t : cuda::to_device(t, cpu_device());
}

void relocate(const Tensor& t, const Device& device) {
  if (t.device() == device) return;
  Tensor moved = cuda::to_device(t, device);
  TensorImpl* impl = t.impl();
  impl->storage = moved.storage();
  impl->strides = moved.strides();
  impl->offset = 0;
  impl->refresh_layout();
  Tensor g = t.grad();
  if (g.defined()) {
    relocate(g, device);
  }
}

void retype(const Tensor& t, DType dtype) {
  if (t.dtype() == dtype) return;
  Tensor converted = to_dtype_raw(t, dtype);
  TensorImpl* impl = t.impl();
  impl->storage = converted.storage();
  impl->strides = converted.strides();
  impl->offset = converted.offset();
  impl->dtype = dtype;
  impl->refresh_layout();
  Tensor g = t.grad();
  if (g.defined()) retype(g, dtype);
}

std::vector<double> to_double_vector(const Tensor& t) {
  Tensor c = to_dtype_raw(cpu_copy(t), DType::f64);
  const double* p = static_cast<const double*>(c.raw_data());
  return std::vector<double>(p, p + c.numel());
}

std::vector<int64_t> to_int64_vector(const Tensor& t) {
  NABLA_CHECK(!is_floating(t.dtype()), std::string("to_int64_vector: expected an integer or bool tensor, got ") + dtype_name(t.dtype()));
  Tensor c = to_dtype_raw(cpu_copy(t), DType::i64);
  const int64_t* p = static_cast<const int64_t*>(c.raw_data());
  return std::vector<int64_t>(p, p + c.numel());
}

}  // namespace nabla
