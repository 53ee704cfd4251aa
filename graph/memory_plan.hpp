// Memory planning: which intermediate values of a graph may share memory, and where
// each one lives in one arena per run. The planner (plan_memory,
// graph/memory_planner.cpp) makes a MemoryPlan and the `plan` pass (passes/plan.cpp)
// stores it on the graph (Graph::plan); the executor then allocates one arena per run
// and places every planned value in it; the verifier checks the plan against the
// graph after every pass; the text form prints it after the graph; viz/ draws it
// (memory_plan_dot). See "The memory plan" in docs/passes.md.
//
// Steps are node indices in execution order. A value is live from the step that
// defines it to the last step that reads it or any view of it, both inclusive. A
// planned value ("buffer") is an op output that owns its storage: not a graph input,
// parameter or constant (the caller owns those), not a view (it lives in its root's
// buffer and keeps that buffer live), not the storage of a graph output (outputs get
// buffers of their own, since the caller keeps them after the run), not empty.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "graph/buffer_use.hpp"
#include "graph/ir.hpp"

namespace nabla::graph {

// Slots start at multiples of this many bytes (a cache line, the CPU allocator's own
// alignment, so kernels see the same pointer alignment planned or not).
inline constexpr int64_t kPlanAlignment = 64;

// Where one planned value lives.
struct PlannedBuffer {
  int value = -1;        // the op value it holds
  int slot = 0;          // index in MemoryPlan::slots
  int64_t offset = 0;    // bytes from the arena's start: its slot's offset
  int64_t bytes = 0;     // the value's size (numel * dtype size)
  int first_step = 0;    // the node that defines it
  int last_step = 0;     // the last node that reads it or a view of it (>= first_step)
  int in_place_of = -1;  // an input of its node whose buffer it takes over there, or -1
  bool operator==(const PlannedBuffer&) const = default;
};

// A region of the arena that buffers with disjoint lifetimes take in turn.
struct PlanSlot {
  int64_t offset = 0;  // multiple of kPlanAlignment
  int64_t bytes = 0;   // its largest buffer, rounded up to kPlanAlignment
  bool operator==(const PlanSlot&) const = default;
};

struct MemoryPlan {
  std::vector<PlannedBuffer> buffers;  // in value order
  std::vector<PlanSlot> slots;         // in offset order, back to back
  int64_t arena_bytes = 0;             // the planned peak: the sum of the slots
  int64_t naive_bytes = 0;             // every buffer its own memory: the sum of buffers
  int64_t last_use_peak_bytes = 0;     // the peak with each buffer freed after its last use
  int in_place = 0;                    // buffers that took over an input's buffer
  std::vector<int> buffer_of;          // value id -> index in buffers, or -1 (not planned)

  // The buffer of value `id`, or nullptr when it is not planned.
  const PlannedBuffer* find(int id) const;
  bool operator==(const MemoryPlan&) const = default;
};

// What the planner knows of each value (indexed by value id).
struct Liveness {
  std::vector<int> roots;       // storage_roots (rewrite.hpp): the value whose storage it is
  std::vector<int> first, last; // defining step and last reading step (graph outputs: nodes.size())
  std::vector<bool> planned;    // gets a buffer of the plan
  std::vector<int64_t> bytes;   // numel * dtype size
};
Liveness analyze_liveness(const Graph& g);

// Why node `node`'s result may not take over the buffer of its input `input` (a
// position in Node::inputs), or "" when it may: the node is elementwise (a table row
// with OpDef::elementwise, or a "fused" node with one result and only elementwise ops
// in its body), the input is a planned buffer itself (not a view, not a graph input)
// of the result's shape and dtype, nothing reads it or a view of it after this node,
// and no other input of the node is a view of it.
std::string in_place_refusal(const Graph& g, const Liveness& live, int node, size_t input);

// Plans g's buffers: liveness, in-place reuse, then slots by greedy-by-size (largest
// first into the smallest free slot whose buffers' lifetimes do not overlap its own;
// a new slot when none is free). `refusals`, when given, gets one line per
// elementwise node whose result could not be computed in place, with the reasons.
MemoryPlan plan_memory(const Graph& g, std::vector<std::string>* refusals = nullptr);

// Sets the derived fields (offsets from slots, buffer_of, in_place, naive_bytes) from
// buffers and slots; the parser calls it after reading a printed plan.
void finish_plan(MemoryPlan& p, size_t num_values);

// "" when p is a sound plan for g, else what is wrong: a value it misses or places
// wrongly, lifetimes that do not match the graph, two buffers live at once in shared
// memory (other than a safe in-place), slots that overlap or leave the arena, figures
// that do not add up. The verifier calls it on Graph::plan after every pass, so a pass
// that changes a planned graph is caught (plan must run last).
std::string memory_plan_problem(const Graph& g, const MemoryPlan& p);

// The cheap check the executor makes before placing values: every planned value
// exists with the planned size and fits in the arena. Throws naming the graph.
void check_plan_fits(const Graph& g, const MemoryPlan& p);

// "plan: naive 12.3 MiB -> planned 4.5 MiB (-63%), 7 in place (free after last use: 5.0 MiB)"
std::string plan_summary(const MemoryPlan& p);

// The plans of g's control-flow regions (regions of regions too) that have one, each
// with where it is: "body of scan at lstm.dsl:5:3". The text form prints the
// top-level plan only.
std::vector<std::pair<std::string, MemoryPlan>> region_plans(const Graph& g);

// The text form, after the graph's closing brace (ir.hpp's grammar, extended):
//   plan := 'plan' '(' 'arena' '=' int ',' 'naive' '=' int ',' 'last_use_peak' '=' int
//           ',' 'in_place' '=' int ')' '{' slot_line* buffer_line* '}'
//   slot_line   := 'slot' int ':' 'offset' int ',' int 'bytes'
//   buffer_line := ref ':' 'slot' int ',' int 'bytes' ',' 'steps' '[' int ',' int ']'
//                  [',' 'in' 'place' 'of' ref]
std::string print_plan(const Graph& g, const MemoryPlan& p);

// The plan as viz::memory_plan_dot draws it (labels "%5 relu"), and the step labels.
std::vector<BufferUse> plan_buffer_uses(const Graph& g, const MemoryPlan& p);
std::vector<std::string> plan_step_labels(const Graph& g);

}  // namespace nabla::graph
