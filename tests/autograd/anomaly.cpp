// Anomaly mode from C++ (autograd/anomaly.cpp, Note [Anomaly rule]): the first op that
// makes a NaN or Inf from finite values is blamed, in forward and in backward, with a
// statistics line of what it read; values passed on are not blamed. The language's
// side (the DSL line and caret) is tested by tests/lang/errors_anomaly.dsl.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "autograd/anomaly.hpp"
#include "autograd/engine.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"

using namespace nabla;

namespace {
Tensor f64(std::vector<double> v) { return tensor_from(v, {int64_t(v.size())}, DType::f64); }
Tensor leaf(std::vector<double> v) { return f64(std::move(v)).set_requires_grad(true); }
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

TEST_CASE("anomaly mode: log(0) in forward names the op and describes its input") {
  AnomalyGuard anomaly;
  CHECK_THROWS_WITH(log(f64({0.0, 1.0})),
                    "anomaly: log produced Inf (1 of 2 values) in forward from finite inputs: input f64[2] min=0 "
                    "max=1 mean=0.5 nan=0 inf=0");
}

TEST_CASE("anomaly mode is off outside its region, and views are not checked") {
  Tensor y = log(f64({0.0}));  // no guard: -inf, no error
  CHECK(std::isinf(to_double_vector(y)[0]));
  AnomalyGuard anomaly;
  CHECK_NOTHROW(reshape(y, {1, 1}));
}

TEST_CASE("anomaly mode does not blame an op for a NaN or Inf it was given") {
  AnomalyGuard anomaly;
  Tensor x = f64({kNaN, 1.0});
  Tensor y = mul(x, f64({2.0, 0.0}));  // NaN passed on
  CHECK(std::isnan(to_double_vector(y)[0]));
  CHECK_THROWS_WITH(div(f64({1.0}), f64({0.0})), doctest::Contains("anomaly: div produced Inf (1 of 1 values)"));
}

TEST_CASE("anomaly mode names the forward op whose backward made an Inf, and what its rule read") {
  set_current_origin("train.dsl:4:9");
  Tensor x = leaf({0.0, 1.0});
  Tensor y = sqrt(x);  // finite: sqrt(0) = 0; d/dx at 0 is inf
  set_current_origin("train.dsl:5:1");
  AnomalyGuard anomaly;
  // SqrtBackward is blamed (not the div inside its rule, which runs unchecked), at the
  // line of the forward sqrt.
  CHECK_THROWS_WITH(backward(sum(y)),
                    "anomaly: backward of SqrtBackward produced Inf (1 of 2 values) in the gradient of its input 0; "
                    "the forward op was called at train.dsl:4:9; it was given grad f64[2] min=1 max=1 mean=1 nan=0 "
                    "inf=0; saved output 0 f64[2] min=0 max=1 mean=0.5 nan=0 inf=0");
  set_current_origin("");
}

TEST_CASE("describe_values skips non-finite values in min, max and mean") {
  CHECK(describe_values(f64({kNaN, 1.0, 3.0})) == "f64[3] min=1 max=3 mean=2 nan=1 inf=0");
  CHECK(describe_values(tensor_from({1, 2}, {2}, DType::i64)) == "i64[2] min=1 max=2 mean=1.5");
  CHECK(describe_values(f64({})) == "f64[0] nan=0 inf=0");
}
