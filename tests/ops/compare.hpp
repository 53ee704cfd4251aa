// Comparing tensors in the op tests that check one kernel against another.
#pragma once
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "tensor/tensor.hpp"

namespace nabla::testing {

// The largest absolute elementwise difference of two tensors of the same size.
inline double max_abs_diff(const Tensor& a, const Tensor& b) {
  auto x = to_double_vector(a), y = to_double_vector(b);
  REQUIRE(x.size() == y.size());
  double m = 0;
  for (size_t i = 0; i < x.size(); ++i) m = std::max(m, std::abs(x[i] - y[i]));
  return m;
}

}  // namespace nabla::testing
