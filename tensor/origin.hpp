// Where the evaluation is: "train.dsl:12:5" of the expression being evaluated (empty
// outside the interpreter). The interpreter sets it; autograd nodes, device
// allocations and error messages read it, so it lives at the bottom of the tree.
#pragma once
#include <string>

namespace nabla {

const std::string& current_origin();
void set_current_origin(std::string origin);

}  // namespace nabla
