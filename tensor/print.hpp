// PyTorch-style printing (Tensor::str, in print.cpp) and its one link to autograd.
#pragma once
#include <string>

#include "tensor/tensor.hpp"

namespace nabla {

// The name of a grad_fn node ("MulBackward"), for the "grad_fn=<...>" suffix.
// tensor/ knows Node only by its forward declaration, so autograd installs this
// at start-up (autograd/node.cpp); while it is null the suffix is left out.
extern std::string (*g_grad_fn_name)(const Node&);

}  // namespace nabla
