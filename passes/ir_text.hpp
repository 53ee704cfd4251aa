// Pieces of the IR text form shared by the printer (ir.cpp) and the parser
// (ir_parse.cpp).
#pragma once
#include <string>

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

}  // namespace nabla::graph
