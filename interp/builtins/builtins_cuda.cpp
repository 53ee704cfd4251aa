// The language's side of devices: the native `cuda` module (PyTorch's torch.cuda
// names: is_available, device_count, synchronize, streams, TF32, memory statistics of the
// caching allocator, whose figures and summary are the top-level ones of
// builtins_memory.cpp for a GPU), and as_device, which reads "cpu", "cuda" and "cuda:N" for
// `.to(...)`, `device=` keywords and the training scripts' device argument.
#include "interp/builtins/builtins_internal.hpp"
#include "tensor/cuda/caching_allocator.hpp"
#include "tensor/cuda/cuda_runtime.hpp"
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

using StatField = size_t cuda::CachingAllocatorStats::*;

Fn memory_stat(const std::string& name, StatField field) {
  return [name, field](Evaluator&, CallArgs& a) {
    Bound b = bind(name, a, {"device"}, 0);
    return Value::integer(static_cast<int64_t>(cuda::device_allocator(device_index(b, 0, name)).stats().*field));
  };
}

// The figures every device has, as the top-level builtins give them (tensor/memory_stats).
Fn memory_figure(const std::string& name, size_t MemoryFigures::*field) {
  return [name, field](Evaluator&, CallArgs& a) {
    Bound b = bind(name, a, {"device"}, 0);
    return Value::integer(static_cast<int64_t>(memory_figures(cuda_device(device_index(b, 0, name))).*field));
  };
}

}  // namespace

std::shared_ptr<Module> cuda_module(Evaluator&) {
  auto m = std::make_shared<Module>();
  m->name = "cuda";
  m->set("is_available", make_native("is_available", [](Evaluator&, CallArgs& a) {
           bind("is_available", a, {}, 0);
           return Value::boolean(cuda::device_count() > 0);
         }));
  // is_built(): whether this nabla has the CUDA backend (NABLA_CUDA=ON), GPU or not.
  m->set("is_built", make_native("is_built", [](Evaluator&, CallArgs& a) {
           bind("is_built", a, {}, 0);
           return Value::boolean(cuda::built_with_cuda());
         }));
  m->set("device_count", make_native("device_count", [](Evaluator&, CallArgs& a) {
           bind("device_count", a, {}, 0);
           return Value::integer(cuda::device_count());
         }));
  m->set("get_device_name", make_native("get_device_name", [](Evaluator&, CallArgs& a) {
           Bound b = bind("get_device_name", a, {"device"}, 0);
           return make_str(cuda::device_name(device_index(b, 0, "get_device_name")));
         }));
  m->set("synchronize", make_native("synchronize", [](Evaluator&, CallArgs& a) {
           Bound b = bind("synchronize", a, {"device"}, 0);
           cuda::synchronize(device_index(b, 0, "synchronize"));
           return Value();
         }));
  // Streams are opaque integers: new_stream() makes one, set_stream(s) queues this
  // thread's later work on the device there, set_stream(0) goes back to the default.
  m->set("new_stream", make_native("new_stream", [](Evaluator&, CallArgs& a) {
           Bound b = bind("new_stream", a, {"device"}, 0);
           return Value::integer(static_cast<int64_t>(cuda::new_stream(device_index(b, 0, "new_stream"))));
         }));
  m->set("current_stream", make_native("current_stream", [](Evaluator&, CallArgs& a) {
           Bound b = bind("current_stream", a, {"device"}, 0);
           return Value::integer(static_cast<int64_t>(cuda::current_stream(device_index(b, 0, "current_stream"))));
         }));
  m->set("set_stream", make_native("set_stream", [](Evaluator&, CallArgs& a) {
           Bound b = bind("set_stream", a, {"stream", "device"}, 1);
           cuda::set_current_stream(device_index(b, 1, "set_stream"),
                                    static_cast<cuda::StreamId>(as_int(b[0], "set_stream(): stream")));
           return Value();
         }));
  // TF32 for f32 matmuls and convolutions (off by default: f32 computes in f32).
  m->set("set_allow_tf32", make_native("set_allow_tf32", [](Evaluator&, CallArgs& a) {
           Bound b = bind("set_allow_tf32", a, {"allow"}, 1);
           cuda::set_allow_tf32(as_bool(b[0], "set_allow_tf32(): allow"));
           return Value();
         }));
  m->set("allow_tf32", make_native("allow_tf32", [](Evaluator&, CallArgs& a) {
           bind("allow_tf32", a, {}, 0);
           return Value::boolean(cuda::allow_tf32());
         }));
  m->set("memory_allocated",
         make_native("memory_allocated", memory_figure("memory_allocated", &MemoryFigures::allocated)));
  m->set("max_memory_allocated",
         make_native("max_memory_allocated", memory_figure("max_memory_allocated", &MemoryFigures::peak_allocated)));
  m->set("memory_reserved", make_native("memory_reserved", memory_figure("memory_reserved", &MemoryFigures::reserved)));
  m->set("max_memory_reserved",
         make_native("max_memory_reserved",
                     memory_stat("max_memory_reserved", &cuda::CachingAllocatorStats::peak_reserved)));
  m->set("reset_peak_memory_stats", make_native("reset_peak_memory_stats", [](Evaluator&, CallArgs& a) {
           Bound b = bind("reset_peak_memory_stats", a, {"device"}, 0);
           reset_peak_memory_stats(cuda_device(device_index(b, 0, "reset_peak_memory_stats")));
           return Value();
         }));
  m->set("empty_cache", make_native("empty_cache", [](Evaluator&, CallArgs& a) {
           Bound b = bind("empty_cache", a, {"device"}, 0);
           cuda::device_allocator(device_index(b, 0, "empty_cache")).empty_cache();
           return Value();
         }));
  m->set("memory_summary", make_native("memory_summary", [](Evaluator&, CallArgs& a) {
           Bound b = bind("memory_summary", a, {"device", "top"}, 0);
           int64_t top = b.has(1) ? as_int(b[1], "memory_summary(): top") : 10;
           return make_str(memory_summary(cuda_device(device_index(b, 0, "memory_summary")),
                                          static_cast<size_t>(std::max<int64_t>(top, 0))));
         }));
  return m;
}

}  // namespace nabla::interp
