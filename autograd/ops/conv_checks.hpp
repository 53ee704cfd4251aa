// What the rows that convolve share (conv2d and its adjoints in conv.cpp,
// quantized_conv2d in quant.cpp): their attributes and the validation of their shapes.
#pragma once
#include <vector>

#include "autograd/op_table.hpp"
#include "tensor/cpu/conv_geometry.hpp"

namespace nabla {

// stride, padding, dilation (int lists, one value for both dims) and groups, after
// `shape_attr` (a required int list) when one is given; spatial = 1: one value each.
std::vector<AttrSpec> conv_attrs(const char* shape_attr = nullptr, int spatial = 2);

// Validates a convolution of input shape x with weight shape w (named as the calling
// row names them: x_arg, w_arg) and returns its geometry; the errors name the op,
// the arguments and their shapes. spatial = 1: a 1-D row ([N, C, L], one value per
// list), whose geometry is the 2-D one on a unit height.
cpu::ConvGeometry check_conv(const char* op, const Shape& x, const char* x_arg, const Shape& w, const char* w_arg,
                             const Attrs& a, int spatial = 2);

}  // namespace nabla
