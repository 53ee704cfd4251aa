// The vectorisable f32 exp/tanh/sigmoid against the C library in double, over a
// dense sweep of their range and at the special values.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "tensor/cpu/vec_math.hpp"
#include "tensor/scalar_ops.hpp"

using namespace nabla::cpu;

namespace {
// Distance in units of the last place of `want` (as an f32).
double ulps(float got, double want) {
  float w = static_cast<float>(want);
  if (got == w) return 0;
  float spacing = std::nextafter(std::fabs(w), INFINITY) - std::fabs(w);
  if (!std::isfinite(spacing) || spacing == 0) spacing = std::numeric_limits<float>::denorm_min();
  return std::fabs(static_cast<double>(got) - want) / spacing;
}

template <class F, class G>
double max_ulps(F fast, G exact, float lo, float hi, int steps) {
  double worst = 0;
  for (int i = 0; i <= steps; ++i) {
    float x = lo + (hi - lo) * static_cast<float>(i) / static_cast<float>(steps);
    worst = std::max(worst, ulps(fast(x), exact(static_cast<double>(x))));
  }
  return worst;
}
}  // namespace

TEST_CASE("vmath::exp is within 2 ulp of exp over the float range") {
  auto fast = [](float x) { return vmath::exp(x); };
  auto exact = [](double x) { return std::exp(x); };
  CHECK(max_ulps(fast, exact, -87.0f, 88.5f, 400000) <= 2);
  CHECK(max_ulps(fast, exact, -103.0f, -87.0f, 20000) <= 2);  // subnormal results
  CHECK(vmath::exp(0.0f) == 1.0f);
  CHECK(vmath::exp(89.0f) == INFINITY);
  CHECK(vmath::exp(-INFINITY) == 0.0f);
  CHECK(vmath::exp(INFINITY) == INFINITY);
  CHECK(std::isnan(vmath::exp(NAN)));
}

TEST_CASE("vmath::tanh and vmath::sigmoid are within a few ulp") {
  CHECK(max_ulps([](float x) { return vmath::tanh(x); }, [](double x) { return std::tanh(x); }, -12.0f, 12.0f,
                 400000) <= 4);
  CHECK(max_ulps([](float x) { return vmath::tanh(x); }, [](double x) { return std::tanh(x); }, -1e-3f, 1e-3f,
                 10000) <= 2);
  CHECK(vmath::tanh(1e-30f) == 1e-30f);
  CHECK(vmath::tanh(50.0f) == 1.0f);
  CHECK(vmath::tanh(-INFINITY) == -1.0f);
  CHECK(std::isnan(vmath::tanh(NAN)));
  auto sig = [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
  CHECK(max_ulps([](float x) { return vmath::sigmoid(x); }, sig, -30.0f, 30.0f, 400000) <= 4);
  CHECK(vmath::sigmoid(-200.0f) == 0.0f);
  CHECK(vmath::sigmoid(200.0f) == 1.0f);
}

// pow's scalar function (tensor/scalar_ops.hpp) squares by one multiply and returns x
// for an exponent of 1, as PyTorch's kernel: bit for bit x * x and x, NaN, infinities
// and signed zeros included; other exponents are the library's pow. Integers too.
TEST_CASE("pow squares by a multiply and passes x ** 1 through") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (float x : {0.0f, -0.0f, 1.5f, -3.25f, 1e-30f, 3e38f, inf, -inf, 1.1754944e-38f}) {
    CAPTURE(x);
    float sq = nabla::scalar::pow(x, 2.0f), one = nabla::scalar::pow(x, 1.0f);
    CHECK(std::memcmp(&sq, &(const float&)(x * x), sizeof(float)) == 0);
    CHECK(std::memcmp(&one, &x, sizeof(float)) == 0);
    float half = nabla::scalar::pow(x, 0.5f), library = std::pow(x, 0.5f);
    CHECK((half == library || (std::isnan(half) && std::isnan(library))));
  }
  CHECK(std::isnan(nabla::scalar::pow(nan, 2.0f)));
  CHECK(std::isnan(nabla::scalar::pow(nan, 1.0f)));
  CHECK(nabla::scalar::pow(2.0f, 3.0f) == 8.0f);
  CHECK(nabla::scalar::pow<int64_t>(-7, 2) == 49);
  CHECK(nabla::scalar::pow<double>(-0.1, 2.0) == -0.1 * -0.1);
}
