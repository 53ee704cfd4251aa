// The levels of the function transforms: what jvp and vmap open while their function
// runs, and what tensors carry to take part in one.
//
// Note [Transform levels]
// jvp and vmap (and the transforms built on them: jacfwd, hessian, hvp, jacrev's
// batched cotangents) each open a level on this thread's stack while their function
// runs. Level numbers come from a counter that only grows, so an inner level has a
// larger number than every outer one, and a number is never reused.
//
// A tensor takes part in a forward level by carrying a tangent for it
// (AutogradMeta::forward), and in a batch level by being a wrapper
// (TensorImpl::batched) around a physical tensor that has the batch dim.
//
// call() (autograd/dispatch.cpp) hands an op whose inputs take part in a visible level
// to the innermost such level. The level handles the op with itself and every inner
// level hidden, calling ops again for the work. Those calls see only the outer levels,
// so each outer level handles the work of the inner one, and nesting composes in any
// order: jvp of jvp, vmap of jvp, jvp of vmap, vmap of vmap.
//
// Reverse mode (grad, vjp) is autograd's tape, not a level: its nodes record the ops
// that run, whichever level asked for them, and a backward pass runs its rules through
// call() like any other ops, so the rules see tangents and batched gradients too. The
// one nesting the tape cannot do (a reverse transform inside a jvp inside a vmap)
// opens a reverse level instead (Note [Reverse levels] in reverse.hpp); a tensor takes
// part in one by being lifted to it (TensorImpl::lifted).
//
// When a forward level ends, it removes its tangents from every tensor that got one.
// Tangents refer to outputs that refer to tangents; removing them breaks those cycles,
// as PyTorch's forward-AD levels do.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor.hpp"

namespace nabla {

// The tangents of one tensor, one per forward level it takes part in.
struct ForwardGrads {
  std::vector<std::pair<uint64_t, Tensor>> tangents;  // (level, tangent)
};

// What a tensor batched by vmap stands for.
struct BatchedInfo {
  Tensor physical;   // the values of every batch element, with the batch dim at bdim
  uint64_t level;    // the vmap level that batched it
  int64_t bdim;      // where the batch dim is in `physical`
};

using TensorList = std::vector<Tensor>;

namespace transforms {

enum class LevelKind : uint8_t { forward, batch, reverse };
// vmap's `randomness`: what random ops do inside it.
enum class Randomness : uint8_t { error, different, same };

struct Level {
  uint64_t id = 0;
  LevelKind kind = LevelKind::forward;
  // forward: the tensors that got a tangent of this level (cleared when it ends)
  std::vector<std::weak_ptr<ForwardGrads>> holders;
  // batch: the size of the batch dim, and what random ops do
  int64_t batch_size = 0;
  Randomness randomness = Randomness::error;
};

namespace detail {
// How many levels are open, and how many of those are not hidden: call() and saved
// tensors read them once per op.
extern constinit thread_local int t_open_levels;
extern constinit thread_local int t_visible_levels;
}  // namespace detail
inline bool any_level_open() { return detail::t_open_levels > 0; }
inline bool any_level_visible() { return detail::t_visible_levels > 0; }

// Opens a level for its lifetime; at the end a forward level clears its tangents.
class LevelScope {
 public:
  explicit LevelScope(LevelKind kind, int64_t batch_size = 0, Randomness randomness = Randomness::error);
  ~LevelScope();
  LevelScope(const LevelScope&) = delete;
  LevelScope& operator=(const LevelScope&) = delete;
  uint64_t id() const { return id_; }

 private:
  uint64_t id_;
};

// Hides level `id` and every inner one while it lives (Note [Transform levels]).
class HideLevels {
 public:
  explicit HideLevels(uint64_t id);
  ~HideLevels();
  HideLevels(const HideLevels&) = delete;
  HideLevels& operator=(const HideLevels&) = delete;

 private:
  uint64_t previous_;
};

// The open, visible level numbered `id`, or null (ended, or hidden).
Level* visible_level(uint64_t id);
// The innermost (outermost) visible level of a kind, or null.
Level* innermost_visible(LevelKind kind);
Level* outermost_visible(LevelKind kind);
// Whether level `id` is still open (hidden or not).
bool level_open(uint64_t id);
// The innermost visible level that one of `inputs` takes part in, or null.
Level* innermost_level_of(const TensorList& inputs);

// The tangent of t at forward level `level`; undefined when it has none.
Tensor tangent_at(const Tensor& t, uint64_t level);
// Gives t a tangent at `level` (replacing one it had), registering it with the level.
void set_tangent(const Tensor& t, Level& level, const Tensor& tangent);
// Makes `to` share the tangents of `from` (the aliases autograd saves of an output).
void share_tangents_slow(const Tensor& from, const Tensor& to);
inline void share_tangents(const Tensor& from, const Tensor& to) {
  if (any_level_open()) share_tangents_slow(from, to);
}

}  // namespace transforms
}  // namespace nabla
