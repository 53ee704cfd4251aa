#include "autograd/transforms/levels.hpp"

#include <algorithm>
#include <atomic>
#include <deque>
#include <limits>

#include "tensor/error.hpp"

namespace nabla::transforms {

namespace detail {
constinit thread_local int t_open_levels = 0;
constinit thread_local int t_visible_levels = 0;
}  // namespace detail

namespace {

std::atomic<uint64_t> next_level_id{1};
// Outermost first, so ids ascend. A deque: references to a level (forward_call's) stay
// valid while inner levels open and close.
thread_local std::deque<Level> t_levels;
// Levels numbered from this one up are hidden (Note [Transform levels]).
thread_local uint64_t t_hidden_from = std::numeric_limits<uint64_t>::max();

void count_visible() {
  int n = 0;
  for (const Level& l : t_levels)
    if (l.id < t_hidden_from) ++n;
  nabla::transforms::detail::t_visible_levels = n;
  nabla::transforms::detail::t_open_levels = static_cast<int>(t_levels.size());
}

Level* find_open(uint64_t id) {
  auto it = std::lower_bound(t_levels.begin(), t_levels.end(), id,
                             [](const Level& l, uint64_t want) { return l.id < want; });
  return it != t_levels.end() && it->id == id ? &*it : nullptr;
}

void clear_tangents(Level& level) {
  for (const std::weak_ptr<ForwardGrads>& weak : level.holders) {
    std::shared_ptr<ForwardGrads> holder = weak.lock();
    if (!holder) continue;
    auto& list = holder->tangents;
    std::vector<std::pair<uint64_t, Tensor>> dropped;  // freed after the list is consistent
    for (auto it = list.begin(); it != list.end();) {
      if (it->first == level.id) {
        dropped.push_back(std::move(*it));
        it = list.erase(it);
      } else {
        ++it;
      }
    }
  }
}

}  // namespace

LevelScope::LevelScope(LevelKind kind, int64_t batch_size, Randomness randomness) : id_(next_level_id++) {
  Level level;
  level.id = id_;
  level.kind = kind;
  level.batch_size = batch_size;
  level.randomness = randomness;
  t_levels.push_back(std::move(level));
  count_visible();
}

LevelScope::~LevelScope() {
  // Levels end in the reverse order of their start (scopes nest), so this is the last.
  Level level = std::move(t_levels.back());
  t_levels.pop_back();
  count_visible();
  if (level.kind == LevelKind::forward) clear_tangents(level);
}

HideLevels::HideLevels(uint64_t id) : previous_(t_hidden_from) {
  t_hidden_from = std::min(t_hidden_from, id);
  count_visible();
}

HideLevels::~HideLevels() {
  t_hidden_from = previous_;
  count_visible();
}

Level* visible_level(uint64_t id) { return id < t_hidden_from ? find_open(id) : nullptr; }

Level* innermost_visible(LevelKind kind) {
  for (auto it = t_levels.rbegin(); it != t_levels.rend(); ++it)
    if (it->kind == kind && it->id < t_hidden_from) return &*it;
  return nullptr;
}

Level* outermost_visible(LevelKind kind) {
  for (Level& l : t_levels)
    if (l.kind == kind && l.id < t_hidden_from) return &l;
  return nullptr;
}

bool level_open(uint64_t id) { return find_open(id) != nullptr; }

Level* innermost_level_of(const TensorList& inputs) {
  uint64_t best = 0;
  for (const Tensor& t : inputs) {
    if (!t.defined()) continue;
    TensorImpl* impl = t.impl();
    if (impl->batched) {
      uint64_t id = impl->batched->level;
      if (!level_open(id))
        throw Error("a tensor batched by vmap was used after its vmap returned (kept in a variable outside the "
                    "function?); return it from the function instead");
      if (id < t_hidden_from) best = std::max(best, id);
    }
    if (impl->lifted && impl->lifted->level < t_hidden_from && find_open(impl->lifted->level))
      best = std::max(best, impl->lifted->level);
    if (impl->autograd && impl->autograd->forward)
      for (const auto& [id, tangent] : impl->autograd->forward->tangents)
        if (id < t_hidden_from && find_open(id)) best = std::max(best, id);
  }
  return best ? find_open(best) : nullptr;
}

Tensor tangent_at(const Tensor& t, uint64_t level) {
  if (!t.defined() || !t.impl()->autograd || !t.impl()->autograd->forward) return Tensor();
  for (const auto& [id, tangent] : t.impl()->autograd->forward->tangents)
    if (id == level) return tangent;
  return Tensor();
}

void set_tangent(const Tensor& t, Level& level, const Tensor& tangent) {
  std::shared_ptr<ForwardGrads>& holder = t.impl()->autograd_meta().forward;
  if (!holder) holder = std::make_shared<ForwardGrads>();
  for (auto& [id, existing] : holder->tangents)
    if (id == level.id) {
      existing = tangent;
      return;
    }
  holder->tangents.emplace_back(level.id, tangent);
  level.holders.push_back(holder);
}

void share_tangents_slow(const Tensor& from, const Tensor& to) {
  if (from.is_same(to)) return;
  std::shared_ptr<ForwardGrads>& holder = from.impl()->autograd_meta().forward;
  if (!holder) holder = std::make_shared<ForwardGrads>();  // its tangents may come after the save
  to.impl()->autograd_meta().forward = holder;
}

}  // namespace nabla::transforms
