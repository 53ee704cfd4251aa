// Placeholder printing (being replaced by PyTorch-style printing).
#include "tensor/tensor.hpp"
namespace nabla {
std::string Tensor::str() const { return "tensor(shape=" + shape_str() + ")"; }
}  // namespace nabla
