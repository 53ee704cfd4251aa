// The oneDNN CPU engine and this thread's stream, shared by the kernels that run on
// oneDNN primitives (conv.cpp, epilogue.cpp, int8_gemm.cpp), the post-op of an
// activation, and the rule that runs small primitives on one thread.
#pragma once
#include <omp.h>

#include <memory>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <unordered_map>

#include "tensor/cpu/fused.hpp"

namespace nabla::cpu::onednn {

inline dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}
inline dnnl::stream& stream() {
  thread_local dnnl::stream s(engine());
  return s;
}

// A buffer of md's size from nabla's caching allocator (reorder targets, scratchpads).
inline Tensor buffer(const dnnl::memory::desc& md) {
  return empty({static_cast<int64_t>(md.get_size() / sizeof(float)) + 1}, DType::f32);
}

// Below this many multiply-adds a matmul runs on one thread: waking the team and
// waiting at its barrier costs more than the work (the MLP's 64x128x10 head takes
// 4.4 us on two threads and about 1.5 us on one).
inline constexpr int64_t kSerialMacs = 1 << 18;

// Runs oneDNN single-threaded for its lifetime where the problem is small. oneDNN
// reads omp_get_max_threads() when it creates and when it runs a primitive, so both
// happen inside the guard; the key of the cache already tells the sizes apart.
class SerialIfSmall {
 public:
  explicit SerialIfSmall(int64_t macs) : saved_(macs < kSerialMacs ? omp_get_max_threads() : 0) {
    if (saved_ > 1) omp_set_num_threads(1);
  }
  ~SerialIfSmall() {
    if (saved_ > 1) omp_set_num_threads(saved_);
  }
  SerialIfSmall(const SerialIfSmall&) = delete;
  SerialIfSmall& operator=(const SerialIfSmall&) = delete;

 private:
  int saved_;
};

// A weight in a primitive's own layout (`layout`; `plain` is the tensor's), reordered
// again when the tensor's data moved or its version changed (an optimizer step, a
// load). When the layouts agree the tensor's own data serves.
struct PackedWeights {
  Tensor packed;
  const void* packed_from = nullptr;
  uint32_t packed_version = 0;
  std::mutex mutex;  // one caller reorders at a time
  // The weight tensor the primitive was made for (primitive caches key packed ones by
  // its serial); unset for a primitive that reads weights where they are.
  std::weak_ptr<TensorImpl> owner;
  bool owned = false;

  void* data_for(const dnnl::memory::desc& plain, const dnnl::memory::desc& layout, const Tensor& w);
  void own(const Tensor& w) {
    owner = w.impl_ptr();
    owned = true;
  }
  bool owner_gone() const { return owned && owner.expired(); }
};

// Drops from a primitive cache (a map to shared_ptrs of entries with a PackedWeights
// `packed`) the primitives made for a weight tensor that no longer exists: its serial
// never comes again, and each holds a copy of the weight. A graph whose weight is made
// per run (FSDP's gathered views in a compiled step) would otherwise leave one copy
// per run until the cache filled. Called when an entry is added.
template <class Cache>
void drop_gone_weights(Cache& cache) {
  std::erase_if(cache, [](const auto& entry) { return entry.second->packed.owner_gone(); });
}

// Points argument `arg` of a primitive's argument map at `data`: the memory object is
// made once per argument (making and destroying them per call costs about 1.5 us) and
// its handle set only when it moved (on a padded layout setting it also zero-fills the
// padding). Not named `bind`: argument-dependent lookup would find std::bind.
void bind_argument(std::unordered_map<int, dnnl::memory>& args, int arg, const dnnl::memory::desc& md, void* data);

// Primitive attributes with a user-managed scratchpad (so that concurrent calls never
// share one) and `act` as an eltwise post-op (none: no post-op).
dnnl::primitive_attr attributes(Activation act);

}  // namespace nabla::cpu::onednn
