// Recursive walks over nested values (equality, ordering, hashing, printing,
// tensor(), save(), deepcopy()): the path of containers a walk is inside, which finds
// a container that holds itself, and the errors such walks give. Must not touch how
// values are freed (value.cpp, Note [Freeing deep values]).
//
// Note [Walks over nested values]
// Values nest as deep as a program makes them (`l = [l]` a million times), and a
// container can hold itself at any distance (`a.append(b); b.append(a)`). A walk that
// recurses into containers, the natural shape for ==, <, hash, repr and the like,
// would then overflow the stack or never end. Each such walk therefore:
//   - asks lang::stack_nearly_full() (Note [Stack depth]) as it descends, and stops
//     with a clean error naming the operation (fail_too_deep) when the stack is
//     nearly full: a deep value either works (the evaluator's worker thread has a
//     256 MiB stack) or fails cleanly;
//   - keeps a WalkPath of the containers (or pairs of containers, for ==) it is
//     inside. Meeting one again on its own path is a cycle: printing shows it as
//     [...], {...}, (...) as Python does, the others stop with fail_cycle(), as
//     Python's RecursionError does. Printing tracks every level; the hot walks (==,
//     ordering) only from kTrackFrom levels down, so that comparing small tuples
//     (dict keys) costs nothing extra, and a cycle is found a few levels later.
// Hashing needs no path (a key nests only through tuples, which cannot hold
// themselves) and deepcopy() has its memo; both check the stack. Some walks are
// bounded instead: tensor() at 25 levels (a tensor's dims), save() at 100 (what
// load() reads back), and check_dict_key() and holds_itself() are iterative.
#pragma once
#include <cstddef>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "lang/stack_depth.hpp"

namespace nabla::interp {

struct Value;

// Levels a hot walk descends before it keeps a path and checks the stack.
inline constexpr int kTrackFrom = 16;

// The containers (or pairs of them) a walk is inside, outermost first.
class WalkPath {
 public:
  using Key = std::pair<const void*, const void*>;
  // Enters (a, b); false when the walk is inside (a, b) already (a cycle).
  bool enter(const void* a, const void* b);
  void leave();
  size_t size() const { return path_.size(); }

 private:
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  static constexpr size_t kLinear = 16;  // a scan below this many; a hash set above
  bool contains(const Key& k) const;
  std::vector<Key> path_;
  std::unordered_set<Key, KeyHash> on_path_;  // mirrors path_ while it is longer than kLinear
};

// One path per kind of walk and thread: walks of different kinds may nest (a dict
// comparison looks its keys up), a walk of one kind nests only within itself.
enum class Walk { print, equality, order, save, tree };
WalkPath& walk_path(Walk kind);

// One level of a walk: enters (a, b) on `path` (nothing when path is null: a hot walk
// above kTrackFrom) and leaves it again, also when an error unwinds the walk.
class WalkLevel {
 public:
  WalkLevel(WalkPath* path, const void* a, const void* b = nullptr)
      : path_(path), cycle_(path && !path->enter(a, b)) {}
  ~WalkLevel() {
    if (path_ && !cycle_) path_->leave();
  }
  WalkLevel(const WalkLevel&) = delete;
  WalkLevel& operator=(const WalkLevel&) = delete;
  bool cycle() const { return cycle_; }

 private:
  WalkPath* path_;
  bool cycle_;
};

// True when a container reachable from v (lists, tuples, dicts, models' fields,
// objects' attributes, bound methods' self) holds itself, at any distance. Iterative.
bool holds_itself(const Value& v);

// The errors of a walk that stopped, naming `what` (the operation: "==", "sorted()",
// "hash", "tensor()", ...) and the type of `v`, the container it stopped at: v holds
// itself, or v nests deeper than the stack allows (`depth` levels in).
[[noreturn]] void fail_cycle(const std::string& what, const Value& v, const std::string& where = "");
[[noreturn]] void fail_too_deep(const std::string& what, const Value& v, int depth);

// The stack check of a hot walk at `depth`: from kTrackFrom levels on, stops the walk
// when the stack is nearly full.
inline void check_walk_depth(const char* what, const Value& v, int depth) {
  if (depth >= kTrackFrom && lang::stack_nearly_full()) fail_too_deep(what, v, depth);
}

}  // namespace nabla::interp
