// Helpers shared by the rows of the op table: broadcasting and type promotion with
// error messages that name the op, the argument and the shapes.
#pragma once
#include <string>

#include "autograd/node.hpp"
#include "autograd/ops.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/layout.hpp"

namespace nabla {

// The broadcast shape of a and b; the error names the op and both arguments.
Shape broadcast_shapes(const char* op, const Shape& a, const Shape& b, const char* a_name = "self",
                       const char* b_name = "other");
// Floating ops on integer or bool inputs compute in f32.
inline DType float_result(DType t) { return is_floating(t) ? t : DType::f32; }
// Errors unless t is defined and floating; `arg` names the argument.
void check_floating(const char* op, const char* arg, const Tensor& t);
// Both floating, and of one dtype (an, bn: the arguments' names).
void check_same_float(const char* op, const Tensor& a, const char* an, const Tensor& b, const char* bn);
// reduction_dims, the dims normaliser the kernels use too, is in tensor/layout.hpp.
// The output shape of reducing `dims` of `sizes`.
Shape reduced_shape(const Shape& sizes, const std::vector<int64_t>& dims, bool keepdim);
// g (the gradient of a reduction) reshaped so it broadcasts against the input.
Tensor unsqueeze_reduced(const Tensor& g, const Shape& input_shape, const std::vector<int64_t>& dims, bool keepdim);

// Note [Shape arithmetic]
// Sizes come from the program (an expand to 2**62 costs nothing), so a shape rule's sum
// or product of sizes can pass INT64_MAX; wrapped, it becomes a negative size ("cat:
// sizes must be non-negative, got [-9223372036854775808]") or a small one that the
// kernel then overruns. Shape rules add and multiply sizes with these, which throw an
// error naming the op; the element count of a whole shape is checked when the tensor
// is made (shape_numel), and conv and pooling windows in conv_geometry.hpp.
int64_t size_add(const char* op, int64_t a, int64_t b);
int64_t size_mul(const char* op, int64_t a, int64_t b);

// Attribute specs for rows.
inline AttrSpec attr_required(const char* name, AttrKind kind) { return {name, kind, NoneAttr{}, true}; }
inline AttrSpec attr_optional(const char* name, AttrKind kind, AttrValue v) { return {name, kind, std::move(v), false}; }

inline OpDef& row(std::vector<OpDef>& table, OpId id) { return table[static_cast<size_t>(id)]; }

inline std::vector<TensorMeta> one(Shape s, DType t) { return {TensorMeta{std::move(s), t}}; }

}  // namespace nabla
