// TEMPORARY until the cost branch merges.
#include "autograd/op_table.hpp"
namespace nabla {
OpCost op_cost(const OpDef&, const TensorList&, const Attrs&, const TensorList&) { return {}; }
}
