// Pytrees, as JAX calls them: a value of nested lists, tuples and dicts whose leaves
// are tensors (and other values, which stay as they are). The function transforms
// differentiate, batch and return every tensor leaf of their arguments and results.
#pragma once
#include <vector>

#include "interp/values/value.hpp"
#include "interp/values/value_walk.hpp"

namespace nabla::interp {

// One container level of a walk over a pytree (Note [Walks over nested values]): an
// error, not a stack overflow, when the container holds itself (a dict given to vmap
// or grad that holds itself was SIGSEGV) or nests deeper than the stack allows.
class TreeLevel {
 public:
  explicit TreeLevel(const Value& container);
  TreeLevel(const TreeLevel&) = delete;
  TreeLevel& operator=(const TreeLevel&) = delete;

 private:
  WalkLevel level_;
};

// The tensor leaves of v, depth first (dicts in their order).
std::vector<Tensor> tree_leaves(const Value& v);
// A value shaped like `like` with its tensor leaves replaced, in order, by
// leaves[next...]; an undefined replacement becomes none. Advances next.
Value tree_replace(const Value& like, const std::vector<Tensor>& leaves, size_t& next);
// tree_replace from the first leaf, checking that every leaf was used.
Value tree_rebuild(const Value& like, const std::vector<Tensor>& leaves);
// Each of `likes` rebuilt in turn from one flat list of leaves (the gradients of
// several arguments, in their order), checking that every leaf was used.
std::vector<Value> tree_rebuild_each(const std::vector<Value>& likes, const std::vector<Tensor>& leaves);
// A value shaped like `like` with its tensor leaves replaced, in order, by any values
// (a Jacobian's per-output structures). Advances next.
Value tree_place(const Value& like, const std::vector<Value>& values, size_t& next);

}  // namespace nabla::interp
