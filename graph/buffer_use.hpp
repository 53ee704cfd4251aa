// A memory plan as viz/ draws it (memory_plan_dot in viz/graphviz.hpp). Data only,
// with no Graphviz and no IR types. It lives here, below viz/, so that the memory
// planner fills it (plan_buffer_uses, graph/memory_plan.hpp) without including the
// drawing code: viz/ includes graph/, never the other way round.
#pragma once
#include <cstdint>
#include <string>

namespace nabla::graph {

// One buffer of a memory plan. Steps are node indices in execution order; a buffer
// is live from the step that defines it to the last step that reads it, both
// inclusive (graph inputs start at step 0). Buffers that share a slot share memory,
// so their lifetimes must not overlap: the drawing shows a plan where they do.
struct BufferUse {
  int value = -1;      // the IR value it holds (%5 -> 5)
  int slot = 0;        // the planner's slot (arena region); colours the drawing
  int first_step = 0;  // defining step
  int last_step = 0;   // last reading step (>= first_step)
  int64_t bytes = 0;   // its size
  std::string label;   // its cell's text ("%5 relu"); empty: "%<value>"
  // Computed in place of the slot's previous buffer, which it takes over at its
  // first step (that buffer's last): it may start on the step where that one ends.
  bool in_place = false;
};

}  // namespace nabla::graph
