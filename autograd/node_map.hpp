// The backward engine's per-node table: Node* -> V, flat (open addressing with
// linear probing in one power-of-two array of (key, value) slots). A graph of 10^7
// nodes then costs the engine ~21 bytes a node and no allocation per node, where a
// std::unordered_map costs ~70 bytes and a malloc each (Note [Iterative graph
// walks] in engine.cpp). Keys are never erased; pointers into the table are valid
// until the next try_emplace.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace nabla {

struct Node;

template <class V>
class NodeMap {
 public:
  // The value of `key`, or null when it was never added.
  V* find(const Node* key) {
    if (slots_.empty()) return nullptr;
    for (size_t i = index(key);; i = (i + 1) & mask()) {
      if (slots_[i].key == key) return &slots_[i].value;
      if (slots_[i].key == nullptr) return nullptr;
    }
  }

  // The value of `key`, value-initialised when it is new, and whether it is.
  std::pair<V*, bool> try_emplace(const Node* key) {
    if ((size_ + 1) * 4 > slots_.size() * 3) grow();  // load factor <= 3/4
    for (size_t i = index(key);; i = (i + 1) & mask()) {
      if (slots_[i].key == key) return {&slots_[i].value, false};
      if (slots_[i].key == nullptr) {
        slots_[i].key = key;
        ++size_;
        return {&slots_[i].value, true};
      }
    }
  }

  size_t size() const { return size_; }

 private:
  struct Slot {
    const Node* key = nullptr;
    V value{};
  };

  size_t mask() const { return slots_.size() - 1; }

  // The address itself, mixed only with its own high bits: nodes made one after
  // another (a chain) land in nearby slots, so walking a 10^7-node graph reads the
  // table in order instead of missing the cache on every node (a multiplicative hash
  // made backward through 10^7 nodes three times slower). The high bits keep blocks
  // of the heap that are a table size apart from landing on the same slots.
  size_t index(const Node* key) const {
    uint64_t a = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(key));
    return static_cast<size_t>(((a >> 4) ^ (a >> 24) ^ (a >> 44)) & mask());
  }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    size_t capacity = old.empty() ? 64 : old.size() * 2;
    slots_.assign(capacity, Slot{});
    size_ = 0;
    for (Slot& s : old)
      if (s.key != nullptr) *try_emplace(s.key).first = std::move(s.value);
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace nabla
