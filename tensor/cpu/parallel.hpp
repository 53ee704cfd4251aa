// parallel_for: OpenMP over [begin, end) only when the work is big enough to pay for
// waking the thread team. (`#pragma omp parallel for if(...)` still enters libgomp
// and allocates a team when the condition is false, which costs more than a tiny
// kernel; see Note [Tiny op latency] in autograd/dispatch.cpp.)
#pragma once
#include <omp.h>

#include <algorithm>
#include <cstdint>

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

}  // namespace nabla::cpu
