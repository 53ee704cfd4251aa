// What may be assigned to a model's field that already holds a parameter, a
// submodule or a buffer (Note [Assigning to a registered field] in
// interp/models/model_methods.cpp).
#pragma once
#include "interp/values/value.hpp"

namespace nabla::interp {

// The kind the field `f` of `inst` takes when `v` (whose own kind is `kind`) is
// assigned to it; an error when v cannot replace what the field registers.
FieldKind checked_field_kind(const InstanceObj& inst, const Field& f, const Value& v, FieldKind kind);

}  // namespace nabla::interp
