// parallel_for / parallel_reduce: OpenMP over [begin, end) only when the work is big
// enough to pay for waking the thread team. Whether it is comes from ONE rule,
// use_threads below: every CPU kernel that splits work (elementwise loops in
// loops.hpp, fused programs, reductions, pooling, norms...) goes through these two
// helpers, so no kernel decides on its own. (`#pragma omp parallel for if(...)` still enters libgomp
// and allocates a team when the condition is false, which costs more than a tiny
// kernel; see Note [Tiny op latency] in autograd/dispatch.cpp.)
#pragma once
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace nabla::cpu {

// The grain: below this many elements touched (reads plus writes, roughly) a kernel
// runs on the calling thread. Waking the team costs a few microseconds, which a loop
// over 32K floats (128 KB, ~2 us on one core) only just repays.
constexpr int64_t kParallelGrain = 32768;

// Work of a plain byte copy (memcpy) in those units: it moves about 32 bytes in the
// time a kernel's loop touches one element, so a copy uses the team from 1 MiB.
constexpr int64_t kCopyBytesPerElement = 32;
inline int64_t copy_work(int64_t bytes) { return bytes / kCopyBytesPerElement; }

// The grain-size rule: the team is used when the work reaches the grain, there are at
// least two tasks to split, more than one thread, and we are not inside a team already.
inline bool use_threads(int64_t work, int64_t tasks) {
  return work >= kParallelGrain && tasks > 1 && omp_get_max_threads() > 1 && !omp_in_parallel();
}

// fn(lo, hi) is called on disjoint chunks covering [begin, end). `work` is the total
// cost estimate (elements touched); use_threads decides whether the team runs it.
template <class F>
void parallel_for(int64_t begin, int64_t end, int64_t work, F&& fn) {
  if (end <= begin) return;
  if (!use_threads(work, end - begin)) {
    fn(begin, end);
    return;
  }
#pragma omp parallel
  {
    int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
    int64_t chunk = (end - begin + nt - 1) / nt;
    int64_t lo = std::min(end, begin + t * chunk), hi = std::min(end, lo + chunk);
    if (lo < hi) fn(lo, hi);
  }
}

// Reduces [begin, end) by chunk(lo, hi) -> T on disjoint chunks, then combines the
// partial results in chunk order (so a given thread count always sums alike).
template <class T, class Chunk, class Combine>
T parallel_reduce(int64_t begin, int64_t end, int64_t work, T identity, Chunk&& chunk, Combine&& combine) {
  if (end <= begin) return identity;
  if (!use_threads(work, end - begin)) return chunk(begin, end);
  int max_threads = omp_get_max_threads();
  std::vector<T> partial(static_cast<size_t>(max_threads), identity);
#pragma omp parallel num_threads(max_threads)
  {
    int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
    int64_t size = (end - begin + nt - 1) / nt;
    int64_t lo = std::min(end, begin + t * size), hi = std::min(end, lo + size);
    if (lo < hi) partial[static_cast<size_t>(t)] = chunk(lo, hi);
  }
  T result = identity;
  for (const T& p : partial) result = combine(result, p);
  return result;
}

}  // namespace nabla::cpu
