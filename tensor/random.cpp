#include "tensor/random.hpp"

#include <cmath>
#include <mutex>

namespace nabla {

namespace {

// SplitMix64: tiny, fast, passes BigCrush, and its sequence is fixed by its seed.
struct Generator {
  uint64_t seed = 0x853c49e6748fea9bULL;
  uint64_t state = seed;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

Generator& generator() {
  static Generator g;
  return g;
}
std::mutex& generator_mutex() {
  static std::mutex m;
  return m;
}

template <class Draw>
void fill_into(Tensor& t, Draw draw) {
  NABLA_CHECK(t.is_contiguous(), "random draws are written into a contiguous tensor");
  std::lock_guard<std::mutex> lock(generator_mutex());
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = static_cast<T*>(t.raw_data());
    for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<T>(static_cast<compute_t<T>>(draw(generator())));
  });
}

template <class Draw>
Tensor fill_with(const Shape& sizes, DType dtype, Draw draw) {
  Tensor t = empty(sizes, dtype);
  fill_into(t, draw);
  return t;
}

// Box-Muller, one value per pair of uniforms (simple and order-independent).
double standard_normal(Generator& g) {
  double u1 = 1.0 - g.uniform(), u2 = g.uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

// Rejection sampling keeps every value in [low, high) equally likely.
int64_t integer_in(Generator& g, int64_t low, uint64_t range) {
  uint64_t limit = UINT64_MAX - UINT64_MAX % range, v;
  do v = g.next();
  while (v >= limit);
  return low + static_cast<int64_t>(v % range);
}

}  // namespace

void manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(generator_mutex());
  generator().seed = seed;
  generator().state = seed;
}

uint64_t initial_seed() { return generator().seed; }

uint64_t generator_state() {
  std::lock_guard<std::mutex> lock(generator_mutex());
  return generator().state;
}

void set_generator_state(uint64_t state) {
  std::lock_guard<std::mutex> lock(generator_mutex());
  generator().state = state;
}

double random_uniform() {
  std::lock_guard<std::mutex> lock(generator_mutex());
  return generator().uniform();
}

uint64_t random_bits() {
  std::lock_guard<std::mutex> lock(generator_mutex());
  return generator().next();
}

void fill_uniform(Tensor& out, double low, double high) {
  fill_into(out, [&](Generator& g) { return low + (high - low) * g.uniform(); });
}

void fill_normal(Tensor& out, double mean, double std) {
  fill_into(out, [&](Generator& g) { return mean + std * standard_normal(g); });
}

void fill_integers(Tensor& out, int64_t low, int64_t high) {
  NABLA_CHECK(high > low, "randint: expected low < high, got low=" + std::to_string(low) + " high=" + std::to_string(high));
  uint64_t range = static_cast<uint64_t>(high - low);
  // An integer dtype takes the draw as it is: through a double, draws past 2^53 were
  // rounded (randint(2**62, 2**62 + 2) never drew 2^62 + 1). A floating one keeps the
  // double, so its values for a seed are unchanged.
  if (!is_floating(out.dtype())) {
    fill_into(out, [&](Generator& g) { return integer_in(g, low, range); });
    return;
  }
  fill_into(out, [&](Generator& g) { return static_cast<double>(integer_in(g, low, range)); });
}

Tensor rand(const Shape& sizes, DType dtype) {
  NABLA_CHECK(is_floating(dtype), std::string("rand: expected a floating dtype, got ") + dtype_name(dtype));
  Tensor t = empty(sizes, dtype);
  fill_uniform(t, 0.0, 1.0);
  return t;
}

Tensor randn(const Shape& sizes, DType dtype) {
  NABLA_CHECK(is_floating(dtype), std::string("randn: expected a floating dtype, got ") + dtype_name(dtype));
  Tensor t = empty(sizes, dtype);
  fill_normal(t, 0.0, 1.0);
  return t;
}

Tensor randint(int64_t low, int64_t high, const Shape& sizes, DType dtype) {
  Tensor t = empty(sizes, dtype);
  fill_integers(t, low, high);
  return t;
}

Tensor bernoulli(const Shape& sizes, double p, DType dtype) {
  NABLA_CHECK(p >= 0 && p <= 1, "bernoulli: p must be in [0, 1], got " + std::to_string(p));
  return fill_with(sizes, dtype, [&](Generator& g) { return g.uniform() < p ? 1.0 : 0.0; });
}

}  // namespace nabla
