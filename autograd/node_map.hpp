// The backward engine's per-node table: Node* -> V, flat (open addressing with
// linear probing in one power-of-two array of (key, value) slots). A graph of 10^7
// nodes then costs the engine ~21 bytes a node and no allocation per node, where a
// std::unordered_map costs ~70 bytes and a malloc each (Note [Iterative graph
// walks] in engine.cpp). Keys are never erased; pointers into the table are valid
// until the next try_emplace.
#pragma once
#include <bit>
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

  // Fibonacci hashing: the top bits of the key times 2^64/phi spread aligned pointers.
  size_t index(const Node* key) const {
    uint64_t h = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(key)) * 0x9E3779B97F4A7C15ull;
    return static_cast<size_t>(h >> shift_);
  }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    size_t capacity = old.empty() ? 64 : old.size() * 2;
    slots_.assign(capacity, Slot{});
    shift_ = 64 - std::countr_zero(capacity);
    size_ = 0;
    for (Slot& s : old)
      if (s.key != nullptr) *try_emplace(s.key).first = std::move(s.value);
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
  int shift_ = 64;
};

}  // namespace nabla
