// gradcheck and gradgradcheck: the engine's gradients against central differences
// (f64). gradcheck checks d/d inputs of sum_k <f(inputs)_k, w_k> for fixed
// pseudo-random weights w; gradgradcheck checks the gradient of the first-order
// gradient with respect to the inputs and to w, so it exercises backward rules'
// own backward. Used by the op-table sweep, the C++ tests and the language's
// gradcheck builtin.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "tensor/tensor.hpp"

namespace nabla {

using TensorList = std::vector<Tensor>;
using GradcheckFn = std::function<TensorList(const TensorList&)>;

struct GradcheckResult {
  bool ok = true;
  std::string message;  // the first mismatch: input, element, analytic and numeric values
};

struct GradcheckOptions {
  double eps = 1e-6;
  double atol = 1e-5;
  double rtol = 1e-3;
};

// `which` lists the inputs to differentiate; f gets fresh copies of `inputs` (those
// in `which` require grad), so it may be called many times.
GradcheckResult gradcheck(const GradcheckFn& f, const TensorList& inputs, const std::vector<size_t>& which,
                          const GradcheckOptions& opt = {});
GradcheckResult gradgradcheck(const GradcheckFn& f, const TensorList& inputs, const std::vector<size_t>& which,
                              const GradcheckOptions& opt = {});
// Forward mode (jvp): each output's tangent for fixed random input tangents against
// central differences along those tangents.
GradcheckResult jvpcheck(const GradcheckFn& f, const TensorList& inputs, const std::vector<size_t>& which,
                         const GradcheckOptions& opt = {});

}  // namespace nabla
