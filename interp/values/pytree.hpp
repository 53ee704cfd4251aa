// Pytrees, as JAX calls them: a value of nested lists, tuples and dicts whose leaves
// are tensors (and other values, which stay as they are). The function transforms
// differentiate, batch and return every tensor leaf of their arguments and results.
#pragma once
#include <vector>

#include "interp/values/value.hpp"

namespace nabla::interp {

// The tensor leaves of v, depth first (dicts in their order).
std::vector<Tensor> tree_leaves(const Value& v);
// A value shaped like `like` with its tensor leaves replaced, in order, by
// leaves[next...]; an undefined replacement becomes none. Advances next.
Value tree_replace(const Value& like, const std::vector<Tensor>& leaves, size_t& next);
// tree_replace from the first leaf, checking that every leaf was used.
Value tree_rebuild(const Value& like, const std::vector<Tensor>& leaves);

}  // namespace nabla::interp
