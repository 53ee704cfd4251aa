// FSDP's collectives on a thread of their own, so that a unit's parameters can be
// gathered while another unit computes (prefetch).
//
// Note [One queue for a unit's collectives]
// Every rank must make the same collectives in the same order (communicator.hpp), and
// a communicator runs one call at a time. A gather started early on another thread
// must therefore not race with a reduce-scatter the main thread makes meanwhile: the
// order would differ between ranks. So every collective of FSDP's units goes through
// one queue, run by one thread in the order it was queued; each rank queues the same
// calls in the same order because it runs the same graph. The main thread waits for
// a call only when it needs its result, which is where the overlap comes from.
#pragma once
#include <cstdint>
#include <functional>

#include "tensor/dist/communicator.hpp"

namespace nabla::dist {

// Queues `call` (a collective on comm) behind those queued before it; returns a
// ticket to wait for. An error the call throws is rethrown by wait().
uint64_t queue_collective(std::function<void(Communicator&)> call);
// Waits until the call of `ticket` has run (at once when it has); each ticket is
// waited for once.
void wait_collective(uint64_t ticket);

// Microseconds, since the process started, that the queue's thread spent running
// calls, and that callers of wait_collective spent waiting: the difference is
// communication that overlapped the callers' own work.
struct QueueTimes {
  double run_us = 0, wait_us = 0;
};
QueueTimes collective_queue_times();

// Queued all-gather of `shard` into `full` (FSDP's refill: bytes taken first here, on
// the caller's thread, when full gave them back; full's version kept).
uint64_t queue_gather(const Tensor& shard, Tensor full);

}  // namespace nabla::dist
