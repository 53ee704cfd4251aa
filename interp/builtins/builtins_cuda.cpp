// The language's side of devices: the native `cuda` module (PyTorch's torch.cuda
// names: is_available, device_count, synchronize, streams, TF32, memory statistics of the
// caching allocator, whose figures and summary are the top-level ones of
// builtins_memory.cpp for a GPU), and as_device, which reads "cpu", "cuda" and "cuda:N" for
// `.to(...)`, `device=` keywords and the training scripts' device argument.
#include "interp/builtins/builtins_internal.hpp"
#include "tensor/cuda/caching_allocator.hpp"
#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/cuda/kernel_cache.hpp"
#include "tensor/cuda/rtc.hpp"
#include "tensor/cuda/settings.hpp"
#include "tensor/memory_stats.hpp"

namespace nabla::interp {

Device as_device(const Value& v, const std::string& what) {
  if (v.tag != Tag::Str) fail(what + ": expected a device such as \"cpu\" or \"cuda:0\", got " + type_name(v));
  Device d;
  const std::string& s = v.as<StrObj>()->s;
  if (!parse_device(s, &d)) fail(what + ": unknown device '" + s + "' (expected \"cpu\", \"cuda\" or \"cuda:N\")");
  if (d.kind == DeviceKind::cuda) cuda::check_device(d.index);
  return d;
}

namespace {

// The device index of an optional argument: none is cuda:0, else "cuda:N" or N.
int device_index(const Bound& b, size_t k, const std::string& fname) {
  if (!b.has(k)) return 0;
  if (b[k].tag == Tag::Int) {
    int index = static_cast<int>(as_int(b[k], fname + "(): device"));
    cuda::check_device(index);
    return index;
  }
  Device d = as_device(b[k], fname + "(): device");
  if (d.kind != DeviceKind::cuda) fail(fname + "(): expected a cuda device, got " + d.str());
  return d.index;
}

Value is_available_builtin(Evaluator&, CallArgs& a) {
  bind("is_available", a, {}, 0);
  return Value::boolean(cuda::device_count() > 0);
}

// is_built(): whether this nabla has the CUDA backend (NABLA_CUDA=ON), GPU or not.
Value is_built_builtin(Evaluator&, CallArgs& a) {
  bind("is_built", a, {}, 0);
  return Value::boolean(cuda::built_with_cuda());
}

Value device_count_builtin(Evaluator&, CallArgs& a) {
  bind("device_count", a, {}, 0);
  return Value::integer(cuda::device_count());
}

Value get_device_name_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("get_device_name", a, {"device"}, 0);
  return make_str(cuda::device_name(device_index(b, 0, "get_device_name")));
}

Value synchronize_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("synchronize", a, {"device"}, 0);
  cuda::synchronize(device_index(b, 0, "synchronize"));
  return Value();
}

// Streams are opaque integers: new_stream() makes one, set_stream(s) queues this
// thread's later work on the device there, set_stream(0) goes back to the default.
Value new_stream_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("new_stream", a, {"device"}, 0);
  return Value::integer(static_cast<int64_t>(cuda::new_stream(device_index(b, 0, "new_stream"))));
}

Value current_stream_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("current_stream", a, {"device"}, 0);
  return Value::integer(static_cast<int64_t>(cuda::current_stream(device_index(b, 0, "current_stream"))));
}

Value set_stream_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("set_stream", a, {"stream", "device"}, 1);
  cuda::set_current_stream(device_index(b, 1, "set_stream"), static_cast<cuda::StreamId>(as_int(b[0], "set_stream(): stream")));
  return Value();
}

// TF32 for f32 matmuls and convolutions (off by default: f32 computes in f32).
Value set_allow_tf32_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("set_allow_tf32", a, {"allow"}, 1);
  cuda::set_allow_tf32(as_bool(b[0], "set_allow_tf32(): allow"));
  return Value();
}

// cuDNN's benchmark mode: convolution algorithms chosen by timing (off by default).
Value set_benchmark_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("set_benchmark", a, {"on"}, 1);
  cuda::set_benchmark(as_bool(b[0], "set_benchmark(): on"));
  return Value();
}

Value benchmark_builtin(Evaluator&, CallArgs& a) {
  bind("benchmark", a, {}, 0);
  return Value::boolean(cuda::benchmark());
}

// Fused elementwise groups as kernels generated and compiled with NVRTC (on by default).
Value set_generated_kernels_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("set_generated_kernels", a, {"on"}, 1);
  cuda::set_generated_kernels(as_bool(b[0], "set_generated_kernels(): on"));
  return Value();
}

Value generated_kernels_builtin(Evaluator&, CallArgs& a) {
  bind("generated_kernels", a, {}, 0);
  return Value::boolean(cuda::generated_kernels());
}

// How many times the host has waited for a GPU (cuda::host_waits).
Value host_waits_builtin(Evaluator&, CallArgs& a) {
  bind("host_waits", a, {}, 0);
  return Value::integer(static_cast<int64_t>(cuda::host_waits()));
}

// What the generated kernels did in this process, and where the disk cache is.
Value kernel_cache_stats_builtin(Evaluator&, CallArgs& a) {
  bind("kernel_cache_stats", a, {}, 0);
  cuda::GeneratedKernelStats s = cuda::generated_kernel_stats();
  auto d = std::make_shared<DictObj>();
  auto count = [&](const char* key, size_t v) { d->set(make_str(key), Value::integer(static_cast<int64_t>(v))); };
  count("compiled", s.compiled);
  count("disk_hits", s.disk_hits);
  count("loaded", s.loaded);
  count("launches", s.launches);
  count("fallbacks", s.fallbacks);
  d->set(make_str("last_problem"), make_str(s.last_problem));
  d->set(make_str("dir"), make_str(cuda::kernel_cache_dir()));
  return Value::object(Tag::Dict, d);
}

Value allow_tf32_builtin(Evaluator&, CallArgs& a) {
  bind("allow_tf32", a, {}, 0);
  return Value::boolean(cuda::allow_tf32());
}

// The figures every device has, as the top-level builtins give them (tensor/memory_stats).
Value memory_figure(const std::string& name, size_t MemoryFigures::*field, CallArgs& a) {
  Bound b = bind(name, a, {"device"}, 0);
  return Value::integer(static_cast<int64_t>(memory_figures(cuda_device(device_index(b, 0, name))).*field));
}
Value memory_allocated_builtin(Evaluator&, CallArgs& a) {
  return memory_figure("memory_allocated", &MemoryFigures::allocated, a);
}
Value max_memory_allocated_builtin(Evaluator&, CallArgs& a) {
  return memory_figure("max_memory_allocated", &MemoryFigures::peak_allocated, a);
}
Value memory_reserved_builtin(Evaluator&, CallArgs& a) {
  return memory_figure("memory_reserved", &MemoryFigures::reserved, a);
}

// A figure only the caching allocator has.
Value max_memory_reserved_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("max_memory_reserved", a, {"device"}, 0);
  int index = device_index(b, 0, "max_memory_reserved");
  return Value::integer(static_cast<int64_t>(cuda::device_allocator(index).stats().peak_reserved));
}

Value reset_peak_memory_stats_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("reset_peak_memory_stats", a, {"device"}, 0);
  reset_peak_memory_stats(cuda_device(device_index(b, 0, "reset_peak_memory_stats")));
  return Value();
}

Value empty_cache_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("empty_cache", a, {"device"}, 0);
  cuda::device_allocator(device_index(b, 0, "empty_cache")).empty_cache();
  return Value();
}

Value memory_summary_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("memory_summary", a, {"device", "top"}, 0);
  int64_t top = b.has(1) ? as_int(b[1], "memory_summary(): top") : 10;
  return make_report(memory_summary(cuda_device(device_index(b, 0, "memory_summary")),
                                 static_cast<size_t>(std::max<int64_t>(top, 0))));
}

// A `device` argument is "cuda", "cuda:N" or N, and cuda:0 when left out.
const BuiltinEntry kCudaFunctions[] = {
    {"is_available", is_available_builtin, "is_available()", "Whether a GPU can be used. Example: cuda.is_available()"},
    {"is_built", is_built_builtin, "is_built()",
     "Whether this nabla has the CUDA backend, GPU or not. Example: cuda.is_built()"},
    {"device_count", device_count_builtin, "device_count()", "How many GPUs there are. Example: cuda.device_count()"},
    {"get_device_name", get_device_name_builtin, "get_device_name(device=0)",
     "The GPU's name. Example: cuda.get_device_name(0)"},
    {"synchronize", synchronize_builtin, "synchronize(device=0)",
     "Waits until the GPU has finished the work queued so far (for timing). Example: cuda.synchronize()"},
    {"new_stream", new_stream_builtin, "new_stream(device=0)",
     "A new stream (an int) for work that may overlap the default stream's. Example: let s = cuda.new_stream()"},
    {"current_stream", current_stream_builtin, "current_stream(device=0)",
     "The stream this thread queues work on (0: the default). Example: cuda.current_stream()"},
    {"set_stream", set_stream_builtin, "set_stream(stream, device=0)",
     "Queues this thread's later work on stream (0: the default). Example: cuda.set_stream(cuda.new_stream())"},
    {"set_allow_tf32", set_allow_tf32_builtin, "set_allow_tf32(allow)",
     "Lets f32 matmuls and convolutions use TF32 (off by default). Example: cuda.set_allow_tf32(true)"},
    {"allow_tf32", allow_tf32_builtin, "allow_tf32()", "Whether TF32 is allowed. Example: cuda.allow_tf32()"},
    {"set_benchmark", set_benchmark_builtin, "set_benchmark(on)",
     "Chooses each convolution's cuDNN algorithm by timing the candidates on its first call (per size and dtype), as "
     "torch.backends.cudnn.benchmark; off: cuDNN's heuristics. Example: cuda.set_benchmark(true)"},
    {"set_generated_kernels", set_generated_kernels_builtin, "set_generated_kernels(on)",
     "Runs a compiled graph's fused elementwise groups as kernels generated for each group and compiled with NVRTC "
     "(on by default; off: one interpreted kernel for every group). Example: cuda.set_generated_kernels(false)"},
    {"generated_kernels", generated_kernels_builtin, "generated_kernels()",
     "Whether fused groups run as generated kernels (cuda.set_generated_kernels). Example: cuda.generated_kernels()"},
    {"host_waits", host_waits_builtin, "host_waits()",
     "How many times this process has waited for a GPU: synchronize(), copies to the host (item(), printing, "
     ".cpu()), the allocator waiting for an event. A training loop that reads no value adds none. "
     "Example: cuda.host_waits()"},
    {"kernel_cache_stats", kernel_cache_stats_builtin, "kernel_cache_stats()",
     "What the generated kernels did in this process: compiled, disk_hits (read from the cache on disk, "
     "$NABLA_KERNEL_CACHE or ~/.cache/nabla/kernels), loaded, launches, fallbacks, last_problem, and the dir. "
     "Example: cuda.kernel_cache_stats()[\"launches\"]"},
    {"benchmark", benchmark_builtin, "benchmark()",
     "Whether convolutions choose their algorithm by timing (cuda.set_benchmark). Example: cuda.benchmark()"},
    {"memory_allocated", memory_allocated_builtin, "memory_allocated(device=0)",
     "Bytes held by live tensors on the GPU. Example: cuda.memory_allocated()"},
    {"max_memory_allocated", max_memory_allocated_builtin, "max_memory_allocated(device=0)",
     "The most bytes live tensors held at once since the last reset. Example: cuda.max_memory_allocated()"},
    {"memory_reserved", memory_reserved_builtin, "memory_reserved(device=0)",
     "Bytes the caching allocator holds, live tensors and cache. Example: cuda.memory_reserved()"},
    {"max_memory_reserved", max_memory_reserved_builtin, "max_memory_reserved(device=0)",
     "The most bytes the caching allocator held at once since the last reset. Example: cuda.max_memory_reserved()"},
    {"reset_peak_memory_stats", reset_peak_memory_stats_builtin, "reset_peak_memory_stats(device=0)",
     "Starts the peak figures again from what is live now. Example: cuda.reset_peak_memory_stats()"},
    {"empty_cache", empty_cache_builtin, "empty_cache(device=0)",
     "Gives the GPU memory the caching allocator keeps unused back to the driver. Example: cuda.empty_cache()"},
    {"memory_summary", memory_summary_builtin, "memory_summary(device=0, top=10)",
     "The GPU's memory as text: its figures and the largest live tensors with their lines. "
     "Example: print(cuda.memory_summary())"},
};

}  // namespace

const BuiltinLibrary kCudaLibrary = {"cuda", "cuda", kCudaFunctions, nullptr};

}  // namespace nabla::interp
