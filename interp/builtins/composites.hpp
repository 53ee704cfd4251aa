// The composite functions of PyTorch's API that are not rows of the op table but are
// made of them (so they differentiate, fuse and compile like the ops): their tables,
// which op_conventions() joins (a global function and a tensor method each, as an op),
// and what the two files share.
#pragma once
#include <span>

#include "autograd/ops.hpp"
#include "interp/builtins/builtin_table.hpp"

namespace nabla::interp {

// composite_math.cpp: elementwise math, reductions, shapes and products.
std::span<const BuiltinEntry> composite_math();
// composite_nn.cpp: torch.nn.functional's activations, distances, losses and
// reshaping functions.
std::span<const BuiltinEntry> composite_nn();
// composite_tensor.cpp: any/all, logic, whole-tensor comparisons, shape and
// arithmetic conveniences of the tensor API.
std::span<const BuiltinEntry> composite_tensor();

// floor(x / y) exactly, as Python's // (composite_math.cpp).
Tensor floor_division(const Tensor& x, const Tensor& y);

// Where x is zero (false), bool.
Tensor logical_not_of(const Tensor& x);

// ||x||_p over dims (every dim when empty), with a zero gradient where it is 0.
Tensor vector_norm(const Tensor& x, double p, const IntList& dims, bool keepdim);

}  // namespace nabla::interp
