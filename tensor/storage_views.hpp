// Tensors made directly over a Storage, for code that manages storages itself (a CUDA
// graph's recorded buffers in graph/replay.cpp, deepcopy's copied storages in
// interp/builtins/builtins_models.cpp). Defined in tensor.cpp.
#pragma once
#include <memory>

#include "tensor/tensor.hpp"

namespace nabla {

// A tensor over `storage` laid out as `like` (sizes, strides, offset, dtype), with no
// autograd state of its own.
Tensor over_storage(const std::shared_ptr<Storage>& storage, const Tensor& like);
// All of a storage's bytes, as a u8 tensor (copy_into moves them on any device; b8
// would turn each byte into 0 or 1).
Tensor bytes_of(const std::shared_ptr<Storage>& storage);

}  // namespace nabla
