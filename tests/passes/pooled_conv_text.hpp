// The text form of a small graph with one conv2d_relu_max_pool2d node, shared by the
// IR tests (tests/passes/node_kinds.cpp) and the ONNX export tests (tests/onnx/).
#pragma once
#include <string>

namespace nabla::testing {

// The node's graph returning `result` (%3: the pooled values, %4: the indices).
inline std::string pooled_conv_text(const std::string& result) {
  return "graph g(%x: f32[1, 1, 4, 4], %w: param f32[2, 1, 1, 1], %b: param f32[2]) {\n"
         "  %3, %4 = conv2d_relu_max_pool2d(%x, %w, %b) : f32[1, 2, 2, 2], i64[1, 2, 2, 2] {\n"
         "    body(%in0: f32[1, 1, 4, 4], %in1: f32[2, 1, 1, 1], %in2: f32[2])\n"
         "    %3 = conv2d(%in0, %in1, %in2) {stride=[1, 1], padding=[0, 0], dilation=[1, 1], groups=1} : "
         "f32[1, 2, 4, 4]\n"
         "    %4 = relu(%3) : f32[1, 2, 4, 4]\n"
         "    %5, %6 = max_pool2d(%4) {kernel_size=[2, 2], stride=[], padding=[0, 0], dilation=[1, 1], "
         "ceil_mode=false} : f32[1, 2, 2, 2], i64[1, 2, 2, 2]\n"
         "    yield %5, %6\n"
         "  }\n"
         "  return " + result + "\n}\n";
}

}  // namespace nabla::testing
