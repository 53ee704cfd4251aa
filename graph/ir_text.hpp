// Pieces of the IR text form shared by the printer (ir.cpp) and the parser
// (ir_parse.cpp), and the rules for constants' values (ir_constants.cpp).
#pragma once
#include <string>
#include <vector>

#include "autograd/op_table.hpp"
#include "tensor/attrs.hpp"

namespace nabla::graph {

// Constants with at most this many elements print their values inline; larger ones
// print "= <pool>" and are looked up by name when parsing.
inline constexpr int64_t kInlineConstantLimit = 16;

// A double as the shortest text that reads back to it, always with a point or an
// exponent ("1.0", "0.1", "1e-05", "inf", "nan"), so that it never reads as an int.
std::string number_text(double x);
// An attribute value: ints "3", numbers as number_text, "true", "[1, 2]", "f32", "none".
std::string attr_text(const AttrValue& v);

// Note [IR constants]
// A constant's values must fit its dtype, never wrap or round to inf: an integer dtype
// takes integers in its range (1000 is no i8; "3.0" reads as 3, "3.5" is an error, as
// are inf and nan), read exactly (an i64 past 2^53 does not go through a double); a
// float dtype takes numbers whose rounding stays finite (1e5 is no f16: its largest is
// 65504), unless the text says inf or nan; bool takes true and false.
struct ConstantElement {
  int64_t i = 0;  // integer dtypes and bool
  double d = 0;   // float dtypes
};
// Fill *out from a number read as an int or as a double (`text` as written, for the
// message); "" when it fits `dtype`, else why not ("the i8 constant '1000' is out of
// its range (-128 to 127)"). graph/ir_constants.cpp.
std::string constant_from_int(DType dtype, int64_t value, const std::string& text, ConstantElement* out);
std::string constant_from_double(DType dtype, double value, const std::string& text, ConstantElement* out);
// The constant's tensor from its checked elements, one per element of `meta`.
Tensor constant_tensor(const std::vector<ConstantElement>& xs, const TensorMeta& meta);

}  // namespace nabla::graph
