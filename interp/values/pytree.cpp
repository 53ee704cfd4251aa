#include "interp/values/pytree.hpp"

#include "interp/eval/evaluator.hpp"

namespace nabla::interp {

namespace {

void collect(const Value& v, std::vector<Tensor>& out) {
  switch (v.tag) {
    case Tag::Tensor: out.push_back(v.t); break;
    case Tag::List:
    case Tag::Tuple:
      for (const Value& item : v.as<ListObj>()->items) collect(item, out);
      break;
    case Tag::Dict:
      for (const auto& [key, item] : v.as<DictObj>()->entries) collect(item, out);
      break;
    default: break;
  }
}

}  // namespace

std::vector<Tensor> tree_leaves(const Value& v) {
  std::vector<Tensor> out;
  collect(v, out);
  return out;
}

Value tree_replace(const Value& like, const std::vector<Tensor>& leaves, size_t& next) {
  switch (like.tag) {
    case Tag::Tensor: return tensor_value(leaves.at(next++));
    case Tag::List:
    case Tag::Tuple: {
      std::vector<Value> items;
      for (const Value& item : like.as<ListObj>()->items) items.push_back(tree_replace(item, leaves, next));
      return like.tag == Tag::List ? make_list(std::move(items)) : make_tuple(std::move(items));
    }
    case Tag::Dict: {
      auto d = std::make_shared<DictObj>();
      for (const auto& [key, item] : like.as<DictObj>()->entries) d->set(key, tree_replace(item, leaves, next));
      return Value::object(Tag::Dict, std::move(d));
    }
    default: return like;
  }
}

Value tree_rebuild(const Value& like, const std::vector<Tensor>& leaves) {
  size_t next = 0;
  Value out = tree_replace(like, leaves, next);
  NABLA_CHECK(next == leaves.size(), "tree_rebuild: " + std::to_string(leaves.size()) + " leaves for a tree of " +
                                         std::to_string(next));
  return out;
}

}  // namespace nabla::interp
