// call(): the one path from an op call to its kernel and its autograd node.
//
// Note [Tiny op latency]
// A 4-element add must cost well under a microsecond, so this path allocates only
// the output tensor (shape inline in SmallVec, bytes from the caching allocator),
// the output list and the metas, and touches autograd only when some input
// requires grad and grad mode is on.
//
// Note [Autocast]
// Inside an autocast region (autograd/grad_mode.hpp) call() first converts the
// floating inputs of rows whose policy is not `keep`: `lower` rows get their f32
// inputs as the region's dtype, `f32` rows get their 16-bit inputs as f32. The
// conversion is the to_dtype op, so gradients flow back in each input's own dtype.
// Inputs that the kernel updates in place (OpDef::updated_inputs: batch_norm's
// running statistics) go as they are, or the update would land in a dropped copy.
// Outside a region this costs one thread-local read per call.
//
// Note [Autocast lists]
// PyTorch keeps two sets of lists. Its CUDA lists (the rows' own policies, and what
// autocast(dtype=bf16) follows) run reductions, softmax, log_softmax and the norms in
// f32. Its CPU lists (torch.autocast("cpu"), the region made by autocast("cpu") or
// autocast(device_type="cpu")) leave those in the region's dtype and send only the
// losses and linear algebra up to f32: under CPU autocast softmax(linear(x)) is bf16
// while cross_entropy of it is f32. A cpu region therefore keeps the rows listed in
// kept_by_cpu_lists() whatever their own policy says. Its normalizations take a 16-bit
// input with f32 weights and give the input's dtype (batch_norm in PyTorch 1.13, whose
// layer_norm and group_norm instead fail on the mix): a cpu region runs them in f32 and
// rounds their result back (normalized_in_f32()).
//
// Note [Half through f32]
// Rows whose kernels do not handle f16/bf16 (half_native false) get their 16-bit
// float inputs converted to f32, run the f32 kernel, and have their floating
// outputs rounded back. The node records the original inputs, so gradients come
// back in the input dtype.
#include <cstring>
#include <unordered_map>

#include "autograd/anomaly.hpp"
#include "autograd/autocast_lists.hpp"
#include "autograd/engine.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/node.hpp"
#include "autograd/ops.hpp"
#include "autograd/profiler.hpp"
#include "autograd/trace.hpp"
#include "autograd/transforms/forward.hpp"
#include "autograd/transforms/reverse.hpp"
#include "autograd/transforms/vmap.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/origin.hpp"

namespace nabla {

namespace {

bool any_half(const TensorList& inputs) {
  for (const Tensor& t : inputs)
    if (t.defined() && is_half(t.dtype())) return true;
  return false;
}

// Note [Devices]
// An op runs on the device of its inputs, and its outputs are made there. Inputs on
// two devices are an error naming both, except 0-dim CPU tensors (numbers such as the
// 2.0 of `x * 2.0`), which go along to the other device, as in PyTorch.
bool is_cpu_scalar(const Tensor& t) { return t.device().kind == DeviceKind::cpu && t.dim() == 0; }

std::string input_label(const OpDef& def, size_t i) {
  return i < def.input_names.size() ? "'" + def.input_names[i] + "'" : "input " + std::to_string(i);
}

Device op_device(const OpDef& def, const TensorList& inputs) {
  const Tensor* first = nullptr;
  size_t first_index = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    if (!t.defined()) continue;
    if (first && t.device() == first->device()) continue;
    if (!first || (is_cpu_scalar(*first) && !is_cpu_scalar(t))) {
      first = &t;
      first_index = i;
      continue;
    }
    if (is_cpu_scalar(t)) continue;
    throw Error(std::string(def.name) + ": expected all tensors on one device, but " + input_label(def, first_index) +
                " is on " + first->device().str() + " and " + input_label(def, i) + " is on " + t.device().str() +
                " (move one with .to(\"" + first->device().str() + "\"))");
  }
  return first ? first->device() : cpu_device();
}

// An output that the allocator cannot give is an error that names the op (the
// allocator names the bytes and the DSL expression: Note [CPU out of memory]).
TensorList allocate_outputs(const OpDef& def, const std::vector<TensorMeta>& metas, Device device) {
  TensorList outs;
  outs.reserve(metas.size());
  try {
    for (const TensorMeta& m : metas) outs.push_back(empty(m.sizes, m.dtype, device));
  } catch (const Error& e) {
    throw Error(std::string(def.name) + ": " + e.what());
  }
  return outs;
}

// The kernel of `def` on `device`, or an error that says what is missing.
KernelFn kernel_for(const OpDef& def, Device device, bool* half_native) {
  if (device.kind == DeviceKind::cpu) {
    *half_native = def.half_native;
    return def.cpu;
  }
  if (!def.cuda)
    throw Error(std::string(def.name) + ": no kernel for " + device.str() +
                (cuda::built_with_cuda() ? " yet" : ": this nabla was built without CUDA"));
  *half_native = def.cuda_half_native;
  return def.cuda;
}

Tensor uploaded_number(const Tensor& number, Device device) {
  Tensor moved = cuda::to_device(number, device);
  moved.impl()->wrapped_number = number.impl()->wrapped_number;  // still does not drive type promotion
  return moved;
}

// A CPU number (0-dim tensor) on `device`. The numbers of a program are few and
// repeat (the 2.0 of `x * 2.0` on every step), so each thread keeps the copies it
// made, keyed by value, dtype, wrapped flag, device and current stream: a step does
// not upload its numbers again. Kernels only read their inputs, so sharing a copy is
// safe on the stream that uploaded it; on another stream the upload is not ordered
// before the kernel (nor a cleared copy's reuse after it), hence the stream in the key.
Tensor number_on(const Tensor& number, Device device) {
  struct Key {
    uint64_t bits;
    DType dtype;
    bool wrapped;
    int device;
    cuda::StreamId stream;
    bool operator==(const Key& o) const {
      return bits == o.bits && dtype == o.dtype && wrapped == o.wrapped && device == o.device && stream == o.stream;
    }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<uint64_t>()(k.bits) ^ (size_t(k.dtype) << 1) ^ (size_t(k.wrapped) << 9) ^
             (size_t(k.device) << 10) ^ std::hash<cuda::StreamId>()(k.stream);
    }
  };
  // A recorded CUDA graph keeps the numbers it uploaded (Note [Memory of a recording]):
  // a shared copy could be freed under it when the cache is cleared.
  if (device.kind == DeviceKind::cuda && cuda::is_recording(device.index)) return uploaded_number(number, device);
  constexpr size_t kMaxNumbers = 4096;
  thread_local std::unordered_map<Key, Tensor, KeyHash> copies;
  Key key{0, number.dtype(), number.impl()->wrapped_number, device.index, cuda::current_stream(device.index)};
  std::memcpy(&key.bits, number.raw_data(), dtype_size(number.dtype()));  // the exact bits
  auto it = copies.find(key);
  if (it != copies.end()) return it->second;
  if (copies.size() >= kMaxNumbers) copies.clear();
  return copies.emplace(key, uploaded_number(number, device)).first->second;
}

// The inputs as the kernel of `device` reads them: CPU numbers copied over.
TensorList inputs_on(const TensorList& inputs, Device device) {
  TensorList moved = inputs;
  for (Tensor& t : moved)
    if (t.defined() && t.device() != device) t = number_on(t, device);
  return moved;
}

void run_kernel(const OpDef& def, const TensorList& given, const Attrs& attrs, TensorList& outs, Device device) {
  bool half_native = false;
  KernelFn kernel = kernel_for(def, device, &half_native);
  TensorList moved;  // only a GPU op copies its list (Note [Tiny op latency])
  const TensorList& inputs = device.kind == DeviceKind::cpu ? given : (moved = inputs_on(given, device));
  if (half_native || !any_half(inputs)) {
    kernel(inputs, attrs, outs);
    return;
  }
  TensorList wide_in;
  wide_in.reserve(inputs.size());
  for (const Tensor& t : inputs)
    wide_in.push_back(t.defined() && is_half(t.dtype()) ? to_dtype_raw(t, DType::f32) : t);
  TensorList wide_out;
  for (const Tensor& o : outs)  // an optional output may be left out (undefined)
    wide_out.push_back(o.defined() && is_half(o.dtype()) ? empty(o.sizes(), DType::f32, device) : o);
  kernel(wide_in, attrs, wide_out);
  for (size_t k = 0; k < outs.size(); ++k)
    if (!wide_out[k].is_same(outs[k])) copy_into(outs[k], wide_out[k]);
}

bool needs_recording(const OpDef& def, const TensorList& inputs) {
  if (!def.backward || !grad_enabled()) return false;
  for (const Tensor& t : inputs)
    if (t.defined() && t.requires_grad()) return true;
  return false;
}

}  // namespace

void record_call(const OpDef& def, const TensorList& inputs, const Attrs& attrs, TensorList& outs,
                 uint64_t constant_inputs) {
  auto node = std::make_shared<OpNode>(def, attrs);
  node->origin = current_origin_id();
  size_t n = inputs.size();
  node->next_edges.resize(n);
  node->inputs.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const Tensor& t = inputs[i];
    if (!t.defined()) {
      node->inputs[i].saved = SavedTensor::absent();
      continue;
    }
    node->inputs[i].meta = {t.sizes(), t.dtype(), t.device()};
    bool constant = i < 64 && (constant_inputs >> i) & 1u;
    if (t.requires_grad() && !constant) node->next_edges[i] = gradient_edge(t);
    if (i < 32 && (def.saves.inputs >> i) & 1u) node->inputs[i].saved = SavedTensor(t, false);
  }
  if (def.saves.outputs) node->saved_outputs.resize(outs.size());
  node->output_metas.resize(outs.size());
  for (size_t k = 0; k < outs.size(); ++k) {
    Tensor& out = outs[k];
    node->output_metas[k] = {out.sizes(), out.dtype(), out.device()};
    bool differentiable = is_floating(out.dtype()) && !(k < 32 && (def.nondiff_outputs >> k) & 1u);
    if (differentiable) {
      AutogradMeta& meta = out.impl()->autograd_meta();
      meta.requires_grad = true;
      meta.grad_fn = node;
      meta.output_nr = static_cast<uint32_t>(k);
    }
  }
  // Saved outputs are taken after the outputs carry their grad_fn (SavedTensor
  // drops it to avoid a cycle and restores it on unpack).
  for (size_t k = 0; k < outs.size(); ++k)
    if (k < 32 && (def.saves.outputs >> k) & 1u) node->saved_outputs[k] = SavedTensor(outs[k], true);
}

namespace {

// Graph capture (autograd/trace.hpp): the observer of this thread, and how deep we are
// inside op calls (only top-level calls are reported).
thread_local OpObserver* t_observer = nullptr;
thread_local int t_op_depth = 0;

struct NestedOpScope {
  NestedOpScope() { ++t_op_depth; }
  ~NestedOpScope() { --t_op_depth; }
};

OpObserver* traced_observer() { return t_op_depth == 0 ? t_observer : nullptr; }

// Shape rule, kernel (or view) and autograd recording of one call.
TensorList run_op(const OpDef& def, const TensorList& inputs, const Attrs& given) {
  if (def.num_inputs >= 0 && static_cast<int>(inputs.size()) != def.num_inputs)
    throw Error(std::string(def.name) + ": expected " + std::to_string(def.num_inputs) + " tensor arguments, got " +
                std::to_string(inputs.size()));
  check_inputs_present(def, inputs);
  // The functional API passes every attribute; other callers get the row's defaults.
  Attrs completed;
  const Attrs* use = &given;
  if (given.items().size() != def.attrs.size()) {
    completed = complete_attrs(def, given);
    use = &completed;
  }
  TensorList outs;
  {
    NestedOpScope nested;  // ops called by this op's rule or kernel are not traced
    std::vector<TensorMeta> metas = def.infer(inputs, *use);
    if (def.view) {
      outs = def.view(inputs, *use);
    } else {
      Device device = op_device(def, inputs);
      outs = allocate_outputs(def, metas, device);
      if (def.updated_inputs) [[unlikely]]
        if (OpObserver* observer = t_op_depth == 1 ? t_observer : nullptr)
          for (size_t k = 0; k < inputs.size() && k < 32; ++k)
            if ((def.updated_inputs >> k & 1u) && inputs[k].defined()) observer->before_write(inputs[k]);
      run_kernel(def, inputs, *use, outs, device);
      if (anomaly_enabled()) check_forward_anomaly(def, inputs, *use, outs);
    }
  }
  if (needs_recording(def, inputs)) record_call(def, inputs, *use, outs);
  if (OpObserver* observer = traced_observer()) observer->on_op(def, inputs, *use, outs);
  return outs;
}

thread_local AutocastLists tl_autocast_lists = AutocastLists::cuda;

// The f32 rows of the CUDA lists that PyTorch's CPU lists leave in the region's dtype
// (Note [Autocast lists]).
bool kept_by_cpu_lists(OpId id) {
  switch (id) {
    case OpId::sum: case OpId::mean: case OpId::var: case OpId::std: case OpId::logsumexp:
    case OpId::softmax: case OpId::log_softmax: case OpId::batch_norm_backward: case OpId::cumsum:
    case OpId::cumprod:
      return true;
    default:
      return false;
  }
}

bool is_normalization(OpId id) {
  return id == OpId::batch_norm || id == OpId::layer_norm || id == OpId::group_norm || id == OpId::rms_norm;
}

AutocastPolicy region_policy(const OpDef& def) {
  if (tl_autocast_lists == AutocastLists::cpu && kept_by_cpu_lists(def.id)) return AutocastPolicy::keep;
  return def.autocast;
}

// The inputs of `def` as an autocast region wants them (Note [Autocast]).
TensorList autocast_inputs(AutocastPolicy policy, const OpDef& def, const TensorList& inputs, DType region) {
  TensorList out = inputs;
  for (size_t i = 0; i < out.size(); ++i) {
    Tensor& t = out[i];
    if (!t.defined() || !is_floating(t.dtype()) || (def.updated_inputs >> i & 1u)) continue;
    if (policy == AutocastPolicy::lower && t.dtype() == DType::f32) t = to_dtype(t, region);
    if (policy == AutocastPolicy::f32 && is_half(t.dtype())) t = to_dtype(t, DType::f32);
  }
  return out;
}

// A normalization in a cpu region (Note [Autocast lists]): f32 inside, its result in
// the dtype of its 16-bit input.
TensorList normalized_in_f32(const OpDef& def, const TensorList& inputs, const Attrs& given, DType region) {
  TensorList outs = run_op(def, autocast_inputs(AutocastPolicy::f32, def, inputs, region), given);
  outs[0] = to_dtype(outs[0], inputs[0].dtype());
  return outs;
}

TensorList call_unprofiled(const OpDef& def, const TensorList& inputs, const Attrs& given) {
  if (def.autocast != AutocastPolicy::keep)
    if (std::optional<DType> region = autocast_dtype()) {
      if (tl_autocast_lists == AutocastLists::cpu && is_normalization(def.id) && inputs[0].defined() &&
          is_half(inputs[0].dtype()))
        return normalized_in_f32(def, inputs, given, *region);
      AutocastPolicy policy = region_policy(def);
      if (policy != AutocastPolicy::keep) return run_op(def, autocast_inputs(policy, def, inputs, *region), given);
    }
  return run_op(def, inputs, given);
}

#if NABLA_PROFILER
// An op call recorded by the active profiler (autograd/profiler.hpp): its DSL line,
// time, FLOPs and bytes. Ops it runs inside are part of it, as in tracing.
TensorList call_profiled(Profiler& profiler, const OpDef& def, const TensorList& inputs, const Attrs& given) {
  std::string line = current_origin();
  int64_t start = profiler.now_ns();
  TensorList outs = call_unprofiled(def, inputs, given);
  wait_for_device_work(outs);
  int64_t end = profiler.now_ns();
  const Attrs& attrs = given.items().size() == def.attrs.size() ? given : complete_attrs(def, given);
  profiler.record_op(def, inputs, attrs, outs, start, end, line);
  return outs;
}
#endif

}  // namespace

Tensor number_on_device(const Tensor& number, Device device) { return number_on(number, device); }

OpObserver* op_observer() { return t_observer; }

OpObserver* set_op_observer(OpObserver* observer) {
  OpObserver* previous = t_observer;
  t_observer = observer;
  return previous;
}

void notify_value_read(const Tensor& t, const std::string& what) {
  if (t_observer) t_observer->on_value_read(t, what);
}

void notify_inplace(const Tensor& dst, const Tensor& src, const std::string& what) {
  if (t_observer) t_observer->on_inplace(dst, src, what);
}

void notify_untraced_effect(const std::string& what) {
  if (t_observer) t_observer->on_untraced_effect(what);
}

void notify_flag_change(const Tensor& t, const std::string& what) {
  if (t_observer) t_observer->on_flag_change(t, what);
}

TensorList call(OpId id, const TensorList& inputs, const Attrs& given) {
  const OpDef& def = op_def(id);
  // Inputs with a tangent, a batch dim or a lift of a jvp, vmap or reverse level that
  // is running go to it (Note [Transform levels]); a wrapper of a level that has ended
  // goes as the value it wraps (Note [Reverse levels]). Outside transforms this is a
  // thread-local read and an atomic one.
  if (transforms::any_level_visible() || live_lifted_tensors() > 0) [[unlikely]] {
    if (transforms::has_unseen_lifted(inputs)) return call(id, transforms::without_unseen_lifted(inputs), given);
    transforms::Level* level = transforms::innermost_level_of(inputs);
    // A random draw answers to every vmap around it, batched input or not (Note [vmap
    // randomness]): dropout(ones(n)) inside vmap is an error, one draw or one per example.
    if (draws_random_numbers(id)) [[unlikely]]
      if (transforms::Level* batch = transforms::innermost_visible(transforms::LevelKind::batch);
          batch && (!level || level->id < batch->id))
        return transforms::batch_call(def, inputs, given, *batch);
    if (level) switch (level->kind) {
        case transforms::LevelKind::forward: return transforms::forward_call(def, inputs, given, *level);
        case transforms::LevelKind::batch: return transforms::batch_call(def, inputs, given, *level);
        case transforms::LevelKind::reverse: return transforms::reverse_call(def, inputs, given, *level);
      }
  }
#if NABLA_PROFILER
  if (Profiler* profiler = active_profiler(); profiler && t_op_depth == 0) [[unlikely]]
    return call_profiled(*profiler, def, inputs, given);
#endif
  return call_unprofiled(def, inputs, given);
}

Tensor call1(OpId id, const TensorList& inputs, const Attrs& attrs) { return std::move(call(id, inputs, attrs)[0]); }

void call_into(OpId id, const TensorList& inputs, const Attrs& attrs, TensorList& outputs) {
  const OpDef& def = op_def(id);
  if (def.view) throw Error(std::string(def.name) + ": a view has no output buffer to write into");
  if (def.num_inputs >= 0 && static_cast<int>(inputs.size()) != def.num_inputs)
    throw Error(std::string(def.name) + ": expected " + std::to_string(def.num_inputs) + " tensor arguments, got " +
                std::to_string(inputs.size()));
  NestedOpScope nested;
  Device device = op_device(def, inputs);
  if (attrs.items().size() == def.attrs.size()) {
    run_kernel(def, inputs, attrs, outputs, device);
  } else {
    run_kernel(def, inputs, complete_attrs(def, attrs, /*graph_node=*/true), outputs, device);
  }
}

AutocastLists autocast_lists() { return tl_autocast_lists; }
void set_autocast_lists(AutocastLists lists) { tl_autocast_lists = lists; }

}  // namespace nabla
