// The one grain-size rule (tensor/cpu/parallel.hpp): below the grain a kernel stays on
// the calling thread, above it the team splits the range; the elementwise loops
// (loops.hpp) follow it; the bias-gradient sums give the same bits on one thread
// and on two.
#include <doctest/doctest.h>
#include <omp.h>

#include <cstring>
#include <mutex>
#include <set>

#include "autograd/ops.hpp"
#include "tensor/cpu/loops.hpp"
#include "tensor/cpu/parallel.hpp"
#include "tensor/random.hpp"

using namespace nabla;

namespace {

// Runs f with the OpenMP team limited to `threads`, then puts the old limit back.
template <class F>
void with_threads(int threads, F&& f) {
  int saved = omp_get_max_threads();
  omp_set_num_threads(threads);
  f();
  omp_set_num_threads(saved);
}

// The threads that ran the chunks of a parallel_for over [0, n) with `work`.
std::set<int> threads_of(int64_t n, int64_t work) {
  std::set<int> seen;
  std::mutex m;
  cpu::parallel_for(0, n, work, [&](int64_t, int64_t) {
    std::lock_guard<std::mutex> lock(m);
    seen.insert(omp_get_thread_num());
  });
  return seen;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.numel() == b.numel() && std::memcmp(a.raw_data(), b.raw_data(), a.numel() * dtype_size(a.dtype())) == 0;
}

}  // namespace

TEST_CASE("use_threads: the grain, the task count and nesting decide") {
  with_threads(2, [] {
    CHECK_FALSE(cpu::use_threads(cpu::kParallelGrain - 1, 100));
    CHECK(cpu::use_threads(cpu::kParallelGrain, 100));
    CHECK_FALSE(cpu::use_threads(cpu::kParallelGrain * 100, 1));  // one task cannot be split
    CHECK(cpu::copy_work(int64_t{1} << 20) == cpu::kParallelGrain);  // a copy uses the team from 1 MiB
    CHECK(threads_of(64, cpu::kParallelGrain - 1) == std::set<int>{0});
    CHECK(threads_of(64, cpu::kParallelGrain).size() == 2);
    bool nested_serial = false;
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 0) nested_serial = !cpu::use_threads(cpu::kParallelGrain * 100, 100);
    CHECK(nested_serial);
  });
  with_threads(1, [] { CHECK_FALSE(cpu::use_threads(cpu::kParallelGrain * 100, 100)); });
}

TEST_CASE("elementwise loops split by the same rule") {
  with_threads(2, [] {
    for (int64_t n : {cpu::kParallelGrain - 1, cpu::kParallelGrain}) {
      Tensor out = empty({n}, DType::f32), in = ones({n}, DType::f32);
      std::set<int> seen;
      std::mutex m;
      cpu::StridedLoop<2>({&out, &in}).run([&](char**, int64_t, const int64_t*) {
        std::lock_guard<std::mutex> lock(m);
        seen.insert(omp_get_thread_num());
      });
      CHECK(seen.size() == (n < cpu::kParallelGrain ? 1u : 2u));
    }
  });
}

TEST_CASE("the bias-gradient sums give the same bits on one thread and on two") {
  manual_seed(3);
  Tensor nchw = randn({16, 32, 28, 28}), nf = randn({512, 256});
  Tensor one_c, two_c, one_f, two_f;
  with_threads(1, [&] { one_c = sum(nchw, {0, 2, 3}), one_f = sum(nf, {0}); });
  with_threads(2, [&] { two_c = sum(nchw, {0, 2, 3}), two_f = sum(nf, {0}); });
  CHECK(same_bits(one_c, two_c));
  CHECK(same_bits(one_f, two_f));
  // And they are the sums: against the permuting path (a contiguous copy reduced whole).
  Tensor by_copy = sum(reshape(contiguous(permute(nchw, {1, 0, 2, 3})), {32, -1}), {1});
  CHECK(max(abs(two_c - by_copy)).item() < 1e-3);
}

// The channels' runs carry their float lanes from one image to the next (RunSum in
// tensor/cpu/reduce.hpp): rows of 196 (the CNN's second block), of 70 (a block of 64
// and a tail of 6), of 9, and one image, against the sum in f64.
TEST_CASE("the bias-gradient sums over many short rows stay within f32's error") {
  manual_seed(4);
  for (Shape shape : {Shape{64, 64, 14, 14}, Shape{5, 7, 7, 10}, Shape{40, 8, 3, 3}, Shape{1, 6, 30, 30}}) {
    CAPTURE(shape_str(shape));
    Tensor x = randn(shape);
    Tensor got = sum(x, {0, 2, 3});
    Tensor want = sum(to_dtype(x, DType::f64), {0, 2, 3});
    CHECK(max(abs(to_dtype(got, DType::f64) - want)).item() < 2e-4);
    Tensor one;
    with_threads(1, [&] { one = sum(x, {0, 2, 3}); });
    CHECK(same_bits(one, got));
  }
}
