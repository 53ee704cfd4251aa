#include "interp/values/pytree.hpp"

#include "interp/eval/evaluator.hpp"

namespace nabla::interp {

TreeLevel::TreeLevel(const Value& container) : level_(&walk_path(Walk::tree), container.o.get()) {
  const char* what = "function transform (grad, vmap, jvp, ...)";
  if (level_.cycle()) fail_cycle(what, container);
  check_walk_depth(what, container, static_cast<int>(walk_path(Walk::tree).size()));
}

namespace {

void collect(const Value& v, std::vector<Tensor>& out) {
  switch (v.tag) {
    case Tag::Tensor: out.push_back(v.t); break;
    case Tag::List:
    case Tag::Tuple: {
      TreeLevel level(v);
      for (const Value& item : v.as<ListObj>()->items) collect(item, out);
      break;
    }
    case Tag::Dict: {
      TreeLevel level(v);
      for (const auto& [key, item] : v.as<DictObj>()->entries) collect(item, out);
      break;
    }
    default: break;
  }
}

}  // namespace

std::vector<Tensor> tree_leaves(const Value& v) {
  std::vector<Tensor> out;
  collect(v, out);
  return out;
}

// `like` rebuilt with each tensor leaf replaced by leaf(): lists, tuples and dicts anew.
template <class Leaf>
Value rebuild(const Value& like, const Leaf& leaf) {
  switch (like.tag) {
    case Tag::Tensor: return leaf();
    case Tag::List:
    case Tag::Tuple: {
      TreeLevel level(like);
      std::vector<Value> items;
      for (const Value& item : like.as<ListObj>()->items) items.push_back(rebuild(item, leaf));
      return like.tag == Tag::List ? make_list(std::move(items)) : make_tuple(std::move(items));
    }
    case Tag::Dict: {
      TreeLevel level(like);
      auto d = std::make_shared<DictObj>();
      for (const auto& [key, item] : like.as<DictObj>()->entries) d->set(key, rebuild(item, leaf));
      return Value::object(Tag::Dict, std::move(d));
    }
    default: return like;
  }
}

Value tree_replace(const Value& like, const std::vector<Tensor>& leaves, size_t& next) {
  return rebuild(like, [&] { return tensor_value(leaves.at(next++)); });
}

Value tree_place(const Value& like, const std::vector<Value>& values, size_t& next) {
  return rebuild(like, [&] { return values.at(next++); });
}

Value tree_rebuild(const Value& like, const std::vector<Tensor>& leaves) {
  size_t next = 0;
  Value out = tree_replace(like, leaves, next);
  NABLA_CHECK(next == leaves.size(), "tree_rebuild: " + std::to_string(leaves.size()) + " leaves for a tree of " +
                                         std::to_string(next));
  return out;
}

std::vector<Value> tree_rebuild_each(const std::vector<Value>& likes, const std::vector<Tensor>& leaves) {
  std::vector<Value> out;
  size_t next = 0;
  for (const Value& like : likes) out.push_back(tree_replace(like, leaves, next));
  NABLA_CHECK(next == leaves.size(), "tree_rebuild_each: " + std::to_string(leaves.size()) + " leaves for trees of " +
                                         std::to_string(next));
  return out;
}

}  // namespace nabla::interp
