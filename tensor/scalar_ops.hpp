// The scalar functions of the elementwise ops (tensor/scalar_fns.hpp) and the scalar
// attributes of the parametric ones (softplus's beta and threshold, ...).
#pragma once
#include <array>

#include "tensor/attrs.hpp"
#include "tensor/op_list.hpp"
#include "tensor/scalar_fns.hpp"

namespace nabla::scalar {

// Note [Scalar attributes of unary ops]
// A parametric op's scalar function takes the value and two numbers a and b, its
// attributes in the order scalar_attrs lists them (an op with one ignores b). The
// same list gives the op's row its attributes (names, defaults) and gives every
// path the numbers from a row's Attrs (scalar_attr_values): the CPU and CUDA
// kernels, and the fused loops, whose steps carry them (ElementwiseStep::attr), so a
// new parametric op needs no code outside this file, its scalar function
// (tensor/scalar_fns.hpp), its list entry and its row.
struct ScalarAttr {
  const char* name = nullptr;  // nullptr: no attribute in this place
  double default_value = 0;
  // The default is none, which the scalar function reads as default_value (logit's
  // eps: none, read as -1, is no clamping, as PyTorch reads a negative eps).
  bool default_none = false;
};
using ScalarAttrList = std::array<ScalarAttr, 2>;

constexpr ScalarAttrList scalar_attrs(OpId id) {
  switch (id) {
    case OpId::softplus:
      return {{{"beta", 1.0}, {"threshold", 20.0}}};
    case OpId::elu:
      return {{{"alpha", 1.0}}};
    case OpId::leaky_relu:
      return {{{"negative_slope", 0.01}}};
    case OpId::hardtanh:
      return {{{"min_val", -1.0}, {"max_val", 1.0}}};
    case OpId::logit:
      return {{{"eps", -1.0, true}}};
    default:
      return {};
  }
}

// The numbers a parametric op computes with, from its attributes (the defaults for
// those `attrs` lacks; none read as the default value).
inline std::array<double, 2> scalar_attr_values(OpId id, const Attrs& attrs) {
  std::array<double, 2> values{};
  ScalarAttrList list = scalar_attrs(id);
  for (size_t k = 0; k < list.size(); ++k) {
    const ScalarAttr& spec = list[k];
    if (!spec.name) continue;
    bool given = attrs.has(spec.name) && !attrs.is_none(spec.name);
    values[k] = given ? attrs.f(spec.name) : spec.default_value;
  }
  return values;
}

}  // namespace nabla::scalar
