// The caching allocator's statistics, and the seeded RNG.
#include <doctest/doctest.h>

#include "autograd/ops.hpp"
#include "tensor/allocator.hpp"
#include "tensor/random.hpp"

using namespace nabla;

TEST_CASE("allocator statistics follow allocations, frees and the cache") {
  CpuAllocator& a = CpuAllocator::instance();
  a.empty_cache();
  AllocatorStats before = a.stats();
  size_t bytes = CpuAllocator::size_class(1 << 20);
  {
    Tensor t = empty({1 << 18});  // 1 MiB of f32
    AllocatorStats during = a.stats();
    CHECK(during.allocated == before.allocated + bytes);
    CHECK(during.reserved >= before.reserved + bytes);
    CHECK(during.allocations == before.allocations + 1);
    CHECK(during.peak_allocated >= during.allocated);
  }
  AllocatorStats after = a.stats();
  CHECK(after.allocated == before.allocated);
  CHECK(after.reserved >= before.reserved + bytes);  // the block stays cached
  {
    Tensor again = empty({1 << 18});
    CHECK(a.stats().cache_hits == after.cache_hits + 1);
  }
  a.reset_peak();
  CHECK(a.stats().peak_allocated == a.stats().allocated);
  a.empty_cache();
  CHECK(a.stats().reserved == a.stats().allocated);
}

TEST_CASE("size classes bound the rounding waste") {
  CHECK(CpuAllocator::size_class(1) == 64);
  CHECK(CpuAllocator::size_class(4096) == 4096);
  CHECK(CpuAllocator::size_class(5000) == 5120);
  for (size_t n : {4097ul, 100000ul, 3000000ul}) {
    size_t c = CpuAllocator::size_class(n);
    CHECK(c >= n);
    CHECK(c <= n + n / 4);
  }
}

TEST_CASE("manual_seed reproduces every generator") {
  manual_seed(7);
  auto a = to_double_vector(randn({16}));
  auto b = to_double_vector(rand({16}));
  auto c = to_double_vector(randint(0, 10, {16}));
  auto d = to_double_vector(bernoulli({16}, 0.3));
  manual_seed(7);
  CHECK(to_double_vector(randn({16})) == a);
  CHECK(to_double_vector(rand({16})) == b);
  CHECK(to_double_vector(randint(0, 10, {16})) == c);
  CHECK(to_double_vector(bernoulli({16}, 0.3)) == d);
  manual_seed(8);
  CHECK(to_double_vector(randn({16})) != a);
}

TEST_CASE("random values have the right ranges and moments") {
  manual_seed(1);
  auto u = to_double_vector(rand({20000}, DType::f64));
  double avg = 0;
  for (double v : u) {
    CHECK(v >= 0);
    CHECK(v < 1);
    avg += v / u.size();
  }
  CHECK(avg == doctest::Approx(0.5).epsilon(0.02));
  Tensor n = randn({20000}, DType::f64);
  CHECK(std::abs(nabla::mean(n).item()) < 0.03);
  CHECK(var(n).item() == doctest::Approx(1.0).epsilon(0.05));
  auto r = to_double_vector(randint(-3, 3, {1000}));
  for (double v : r) CHECK((v >= -3 && v < 3));
  CHECK(sum(bernoulli({10000}, 0.25)).item() == doctest::Approx(2500).epsilon(0.1));
  CHECK_THROWS_WITH(randint(3, 3, {1}), "randint: expected low < high, got low=3 high=3");
}

TEST_CASE("impossible allocations are errors, not crashes") {
  CHECK_THROWS_WITH_AS(empty({int64_t{1} << 40, int64_t{1} << 40}),
                       "the shape [1099511627776, 1099511627776] has more elements than fit in 64 bits", Error);
  CHECK_THROWS_WITH_AS(empty({int64_t{1} << 50}),
                       doctest::Contains("out of memory: tried to allocate 4096.00 TiB (4503599627370496 bytes) on the CPU"),
                       Error);
  CHECK_THROWS_WITH_AS(empty({int64_t{1} << 62}, DType::f64),
                       "the shape [4611686018427387904] of f64 needs more bytes than fit in 64 bits", Error);
}
