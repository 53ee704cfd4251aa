#pragma once
// Which of PyTorch's autocast op lists an autocast region follows (Note [Autocast lists]
// in dispatch.cpp).
#include <cstdint>

namespace nabla {

enum class AutocastLists : uint8_t {
  cuda,  // autocast(dtype=bf16), autocast("cuda"): reductions, softmax and norms go up to f32
  cpu,   // autocast("cpu"): those stay in the region's dtype; losses and linalg go up to f32
};

AutocastLists autocast_lists();
void set_autocast_lists(AutocastLists lists);

class AutocastListsGuard {
 public:
  explicit AutocastListsGuard(AutocastLists lists) : previous_(autocast_lists()) { set_autocast_lists(lists); }
  ~AutocastListsGuard() { set_autocast_lists(previous_); }
  AutocastListsGuard(const AutocastListsGuard&) = delete;
  AutocastListsGuard& operator=(const AutocastListsGuard&) = delete;

 private:
  AutocastLists previous_;
};

}  // namespace nabla
