// What may be assigned to a model's field that already holds a parameter, a
// submodule or a buffer (Note [Assigning to a registered field] in
// interp/models/model_methods.cpp).
#pragma once
#include "interp/values/value.hpp"

namespace nabla::interp {

// The kind the field `f` of `inst` takes when `v` (whose own kind is `kind`) is
// assigned to it; an error when v cannot replace what the field registers.
FieldKind checked_field_kind(const InstanceObj& inst, const Field& f, const Value& v, FieldKind kind);

// An error when `name` is one of the methods inst's model defines: a field of that
// name would be read by inst.name but never called (Note [A field named as a method]).
void check_not_a_method(const InstanceObj& inst, const std::string& name);

}  // namespace nabla::interp
