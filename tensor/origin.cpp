#include "tensor/origin.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace nabla {

namespace {

// Texts live in fixed-size chunks that never move, so a reader indexes them without a
// lock while another thread appends (See Note [Interned origins]).
constexpr uint32_t kChunkBits = 12;
constexpr uint32_t kChunkSize = uint32_t(1) << kChunkBits;
constexpr uint32_t kMaxChunks = 4096;  // 16M distinct origins; past that, new texts get id 0

struct OriginTable {
  std::mutex mutex;
  std::unordered_map<std::string, OriginId> ids;
  std::atomic<std::string*> chunks[kMaxChunks] = {};
  uint32_t count = 1;  // id 0 is the empty text

  OriginTable() {
    chunks[0].store(new std::string[kChunkSize], std::memory_order_release);
    ids.emplace("", 0);
  }
};

OriginTable& table() {
  static OriginTable* t = new OriginTable();  // never destroyed: texts outlive statics
  return *t;
}

}  // namespace

constinit thread_local OriginId detail::t_current_origin = 0;

OriginId intern_origin(const std::string& text) {
  OriginTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.ids.find(text);
  if (it != t.ids.end()) return it->second;
  OriginId id = t.count;
  uint32_t chunk = id >> kChunkBits;
  if (chunk >= kMaxChunks) return 0;
  if (!t.chunks[chunk].load(std::memory_order_relaxed))
    t.chunks[chunk].store(new std::string[kChunkSize], std::memory_order_release);
  t.chunks[chunk].load(std::memory_order_relaxed)[id & (kChunkSize - 1)] = text;
  ++t.count;
  t.ids.emplace(text, id);
  return id;
}

namespace {
struct ExpressionTable {
  std::mutex mutex;
  std::unordered_map<OriginId, std::string> expressions;
};
ExpressionTable& expression_table() {
  static ExpressionTable* t = new ExpressionTable();
  return *t;
}
}  // namespace

void note_origin_expression(OriginId id, const std::string& expression) {
  ExpressionTable& t = expression_table();
  std::lock_guard<std::mutex> lock(t.mutex);
  std::string& kept = t.expressions[id];
  if (expression.size() > kept.size()) kept = expression;
}

std::string origin_expression(OriginId id) {
  ExpressionTable& t = expression_table();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.expressions.find(id);
  return it == t.expressions.end() ? "" : it->second;
}

const std::string& origin_text(OriginId id) {
  return table().chunks[id >> kChunkBits].load(std::memory_order_acquire)[id & (kChunkSize - 1)];
}

}  // namespace nabla
