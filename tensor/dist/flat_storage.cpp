#include "tensor/dist/flat_storage.hpp"

#include "tensor/allocator.hpp"
#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/error.hpp"
#include "tensor/origin.hpp"

namespace nabla::dist {

namespace {

// The same allocators as Storage's constructor and destructor (tensor/tensor.cpp).
void* take_bytes(const Storage& s) {
  if (s.device.kind == DeviceKind::cuda) return cuda::allocate(s.device.index, s.nbytes, current_origin());
  if (s.pinned) return cuda::allocate_pinned(s.nbytes);
  return CpuAllocator::instance().allocate(s.nbytes, current_origin_id());
}

void give_bytes(const Storage& s) {
  if (s.device.kind == DeviceKind::cuda)
    cuda::release(s.device.index, s.data);
  else if (s.pinned)
    cuda::release_pinned(s.data);
  else
    CpuAllocator::instance().deallocate(s.data, s.nbytes);
}

Storage& storage_of(const Tensor& t, const char* what) {
  if (!t.defined() || !t.storage()) throw Error(std::string(what) + ": the tensor is undefined");
  return *t.storage();
}

}  // namespace

bool has_bytes(const Tensor& t) { return storage_of(t, "has_bytes").data != nullptr || t.storage()->nbytes == 0; }

void release_bytes(const Tensor& t) {
  Storage& s = storage_of(t, "release_bytes");
  if (!s.data) return;
  give_bytes(s);
  s.data = nullptr;  // the destructor's release of nullptr does nothing
}

void take_gather_bytes(const Tensor& full) {
  Storage& s = storage_of(full, "gather");
  if (!s.data && s.nbytes > 0) s.data = take_bytes(s);
}

void gather_keeping_version(Communicator& comm, const Tensor& shard, Tensor& full) {
  Storage& s = storage_of(full, "gather");
  uint32_t version = s.version.load();
  comm.all_gather_into(shard, full);
  s.version.store(version);  // Note [FSDP resharding]: the saved values, not a change
}

}  // namespace nabla::dist
