// The path of a walk over nested values, cycle detection and the errors of walks that
// stop (Note [Walks over nested values] in value_walk.hpp).
#include "interp/values/value_walk.hpp"

#include <algorithm>
#include <functional>
#include <unordered_map>

#include "interp/eval/evaluator.hpp"
#include "interp/values/value.hpp"

namespace nabla::interp {

// ---- the path ---------------------------------------------------------------------------

size_t WalkPath::KeyHash::operator()(const Key& k) const {
  return std::hash<const void*>()(k.first) * 31 + std::hash<const void*>()(k.second);
}

bool WalkPath::contains(const Key& k) const {
  if (!on_path_.empty()) return on_path_.count(k) != 0;
  return std::find(path_.begin(), path_.end(), k) != path_.end();
}

bool WalkPath::enter(const void* a, const void* b) {
  Key k{a, b};
  if (contains(k)) return false;
  path_.push_back(k);
  if (path_.size() > kLinear) {
    if (on_path_.empty()) on_path_.insert(path_.begin(), path_.end());
    else on_path_.insert(k);
  }
  return true;
}

void WalkPath::leave() {
  if (!on_path_.empty()) {
    on_path_.erase(path_.back());
    // Back to a short path: drop the set and its buckets (a deep walk leaves no
    // megabytes behind).
    if (path_.size() - 1 <= kLinear) std::unordered_set<Key, KeyHash>().swap(on_path_);
  }
  path_.pop_back();
  if (path_.empty() && path_.capacity() > 1024) std::vector<Key>().swap(path_);
}

WalkPath& walk_path(Walk kind) {
  thread_local WalkPath paths[5];
  return paths[static_cast<int>(kind)];
}

// ---- cycles -------------------------------------------------------------------------------

namespace {

// The values a container holds directly, for holds_itself (data only: a function's
// closure is not part of what a value prints or compares).
void held_values(const Value& v, std::vector<const Value*>& out) {
  switch (v.tag) {
    case Tag::List:
    case Tag::Tuple:
      for (const Value& x : v.as<ListObj>()->items) out.push_back(&x);
      return;
    case Tag::Dict:
      for (const auto& [k, x] : v.as<DictObj>()->entries) {
        out.push_back(&k);
        out.push_back(&x);
      }
      return;
    case Tag::Instance:
      for (const Field& f : v.as<InstanceObj>()->fields) out.push_back(&f.value);
      return;
    case Tag::Object:
      for (const auto& [name, x] : v.as<ObjectObj>()->attrs) out.push_back(&x);
      return;
    case Tag::Bound: out.push_back(&v.as<BoundObj>()->self); return;
    default: return;
  }
}

bool is_walked_container(const Value& v) {
  switch (v.tag) {
    case Tag::List: case Tag::Tuple: case Tag::Dict: case Tag::Instance: case Tag::Object: case Tag::Bound:
      return true;
    default: return false;
  }
}

}  // namespace

bool holds_itself(const Value& root) {
  if (!is_walked_container(root)) return false;
  // Depth-first with an explicit stack; a container met again while it is still on
  // the stack (entered, not finished) closes a cycle.
  enum class State : uint8_t { open, done };
  std::unordered_map<const void*, State> state;
  struct Step {
    const Value* value;
    std::vector<const Value*> held;
    size_t next = 0;
  };
  std::vector<Step> stack;
  auto open = [&](const Value& v) {
    state[v.o.get()] = State::open;
    Step s{&v, {}};
    held_values(v, s.held);
    stack.push_back(std::move(s));
  };
  open(root);
  while (!stack.empty()) {
    Step& top = stack.back();
    if (top.next == top.held.size()) {
      state[top.value->o.get()] = State::done;
      stack.pop_back();
      continue;
    }
    const Value& x = *top.held[top.next++];
    if (!is_walked_container(x)) continue;
    auto it = state.find(x.o.get());
    if (it == state.end()) open(x);
    else if (it->second == State::open) return true;
  }
  return false;
}

// ---- errors ---------------------------------------------------------------------------------

void fail_cycle(const std::string& what, const Value& v, const std::string& where) {
  fail(what + ": the " + type_name(v) + " contains itself (a reference cycle" +
       (where.empty() ? std::string() : ", at '" + where + "'") + ")");
}

void fail_too_deep(const std::string& what, const Value& v, int depth) {
  fail(what + ": the " + type_name(v) + " is nested too deeply (" + std::to_string(depth) +
       " levels in, the stack is nearly full)" + (holds_itself(v) ? "; it contains itself (a reference cycle)" : ""));
}

}  // namespace nabla::interp
