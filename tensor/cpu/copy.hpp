// Raw data movement with no autograd: copies between layouts, dtypes and devices,
// fills. The op table's contiguous/to/copy_ rows and the kernels build on these.
// Tensors on a GPU go to the CUDA backend (tensor/cuda/transfer.cu); results stay on
// the input's device.
#pragma once
#include "tensor/tensor.hpp"

namespace nabla {

bool on_cuda(const Tensor& t);
// dst[...] = src broadcast to dst's shape, converting dtype (and device).
void copy_into(const Tensor& dst, const Tensor& src);
void fill_raw(const Tensor& dst, double value);
// A contiguous tensor with t's values (t itself when already contiguous).
Tensor contiguous_raw(const Tensor& t);
// t converted to dtype (t itself when it already has it and is contiguous).
Tensor to_dtype_raw(const Tensor& t, DType dtype);

}  // namespace nabla
