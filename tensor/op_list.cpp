#include "tensor/op_list.hpp"

#include <unordered_map>

namespace nabla {

namespace {

const char* const kOpNames[] = {
#define NABLA_OP_NAME(name) #name,
    NABLA_OPS(NABLA_OP_NAME)
#undef NABLA_OP_NAME
};
static_assert(sizeof(kOpNames) / sizeof(kOpNames[0]) == kNumOps, "op name table out of line with OpId");

}  // namespace

const char* op_name(OpId id) {
  auto i = static_cast<size_t>(id);
  return i < static_cast<size_t>(kNumOps) ? kOpNames[i] : "?";
}

OpId op_id_from_name(const std::string& name) {
  static const std::unordered_map<std::string, OpId> by_name = [] {
    std::unordered_map<std::string, OpId> m;
    for (int i = 0; i < kNumOps; ++i) m.emplace(kOpNames[i], static_cast<OpId>(i));
    return m;
  }();
  auto it = by_name.find(name);
  return it == by_name.end() ? OpId::kCount : it->second;
}

}  // namespace nabla
