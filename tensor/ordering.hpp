// The ordering ops that only move whole blocks of elements, written once for every
// device with copy_into: repeat (one broadcasting copy) and roll (one copy per
// piece). tensor/cpu/ordering.cpp and tensor/cuda/ordering.cu both call these; the
// shape rules (autograd/ops/ordering.cpp) have checked the attributes.
//
// Must not touch: autograd, the language, any device API.
#pragma once
#include <vector>

#include "tensor/tensor.hpp"

namespace nabla {

// out = x repeated sizes[d] times along each dim d (x's dims aligned to the right).
void repeat_into(const Tensor& x, const std::vector<int64_t>& sizes, const Tensor& out);
// out = x rolled by shifts[k] along dims[k]; no dims: along the flattened tensor.
void roll_into(const Tensor& x, const std::vector<int64_t>& shifts, const std::vector<int64_t>& dims,
               const Tensor& out);

}  // namespace nabla
