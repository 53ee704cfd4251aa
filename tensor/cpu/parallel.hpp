// parallel_for: OpenMP over [begin, end) only when the work is big enough to pay for
// waking the thread team. (`#pragma omp parallel for if(...)` still enters libgomp
// and allocates a team when the condition is false, which costs more than a tiny
// kernel; see Note [Tiny op latency] in autograd/dispatch.cpp.)
#pragma once
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace nabla::cpu {

// fn(lo, hi) is called on disjoint chunks covering [begin, end). `work` is the total
// cost estimate (elements touched); below `grain` everything runs on this thread.
template <class F>
void parallel_for(int64_t begin, int64_t end, int64_t work, F&& fn, int64_t grain = 32768) {
  if (end <= begin) return;
  if (work < grain || end - begin == 1 || omp_get_max_threads() == 1 || omp_in_parallel()) {
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
T parallel_reduce(int64_t begin, int64_t end, int64_t work, T identity, Chunk&& chunk, Combine&& combine,
                  int64_t grain = 32768) {
  if (end <= begin) return identity;
  if (work < grain || end - begin == 1 || omp_get_max_threads() == 1 || omp_in_parallel()) return chunk(begin, end);
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
