// The bytes of a storage released and taken back while the Storage object stays:
// what FSDP needs for a unit's gathered flat parameter (Note [FSDP resharding]).
// Touches one Storage's bytes; knows nothing of autograd or the language.
//
// Note [FSDP resharding]
// Under sharding="full" a unit's parameters are gathered into one flat tensor before
// its forward; the unit's ops save views of it for backward. After forward its
// bytes go back to the allocator (release_bytes) while the views and the Storage
// they share stay in the autograd graph; before the unit's backward the bytes are
// taken again and the flat parameter is gathered into them (take_gather_bytes, then
// gather_keeping_version: communicator.hpp's all_gather_into, run on FSDP's queue,
// collective_queue.hpp), which restores the storage's version: the
// values are the same the ops saved, and autograd must not take the refill for an
// in-place change. As PyTorch's FSDP does with storage().resize_(0) and resize_(n).
// A released storage has no data: only stdlib/_fsdp.dsl holds views of one, and it
// refills before anything reads them.
#pragma once
#include "tensor/dist/communicator.hpp"

namespace nabla::dist {

// Whether t's storage holds bytes (false after release_bytes).
bool has_bytes(const Tensor& t);
// Gives t's storage's bytes back to its device's allocator; its views stay valid
// objects with no data until they are taken again. Nothing when already released.
void release_bytes(const Tensor& t);
// A refill in two parts, the gather run on another thread (collective_queue.hpp):
// the bytes taken again if released (on the caller's thread), then every rank's
// shard gathered into them with full's version kept (Note [FSDP resharding]).
void take_gather_bytes(const Tensor& full);
void gather_keeping_version(Communicator& comm, const Tensor& shard, Tensor& full);

}  // namespace nabla::dist
