// A memory plan's derived figures, its checks (the verifier's and the executor's),
// its text form and its drawing's data (see graph/memory_plan.hpp; the planner is
// graph/memory_planner.cpp).
#include "graph/memory_plan.hpp"

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "graph/control_flow.hpp"
#include "graph/rewrite.hpp"

namespace nabla::graph {

const PlannedBuffer* MemoryPlan::find(int id) const {
  if (id < 0 || static_cast<size_t>(id) >= buffer_of.size() || buffer_of[static_cast<size_t>(id)] < 0) return nullptr;
  return &buffers[static_cast<size_t>(buffer_of[static_cast<size_t>(id)])];
}

namespace {

// The peak of the bytes live at one step, each buffer counted from its first to its
// last step.
int64_t last_use_peak(const std::vector<PlannedBuffer>& buffers) {
  int steps = 0;
  for (const PlannedBuffer& b : buffers) steps = std::max(steps, b.last_step + 2);
  std::vector<int64_t> delta(static_cast<size_t>(steps), 0);
  for (const PlannedBuffer& b : buffers) {
    delta[static_cast<size_t>(b.first_step)] += b.bytes;
    delta[static_cast<size_t>(b.last_step + 1)] -= b.bytes;
  }
  int64_t live = 0, peak = 0;
  for (int64_t d : delta) peak = std::max(peak, live += d);
  return peak;
}

}  // namespace

void finish_plan(MemoryPlan& p, size_t num_values) {
  p.buffer_of.assign(num_values, -1);
  p.naive_bytes = 0;
  p.in_place = 0;
  for (size_t k = 0; k < p.buffers.size(); ++k) {
    PlannedBuffer& b = p.buffers[k];
    if (b.value >= 0 && static_cast<size_t>(b.value) < num_values) p.buffer_of[static_cast<size_t>(b.value)] = static_cast<int>(k);
    if (b.slot >= 0 && static_cast<size_t>(b.slot) < p.slots.size()) b.offset = p.slots[static_cast<size_t>(b.slot)].offset;
    p.naive_bytes += b.bytes;
    p.in_place += b.in_place_of >= 0;
  }
  p.last_use_peak_bytes = last_use_peak(p.buffers);
}

// ---- checks -----------------------------------------------------------------------

namespace {

// "%5" (appended, not "%" + name: GCC 12 warns falsely on that).
std::string ref(const Graph& g, int id) {
  std::string s = "%";
  return s.append(value_name(g, id));
}

std::string slots_problem(const MemoryPlan& p) {
  int64_t offset = 0;
  for (size_t s = 0; s < p.slots.size(); ++s) {
    const PlanSlot& slot = p.slots[s];
    if (slot.offset != offset || slot.bytes % kPlanAlignment != 0 || slot.bytes <= 0)
      return "slot " + std::to_string(s) + " is at offset " + std::to_string(slot.offset) + " with " +
             std::to_string(slot.bytes) + " bytes; slots lie back to back from 0, in multiples of " +
             std::to_string(kPlanAlignment) + " bytes";
    offset += slot.bytes;
  }
  if (p.arena_bytes != offset)
    return "the arena has " + std::to_string(p.arena_bytes) + " bytes, its slots add up to " + std::to_string(offset);
  return "";
}

// Each buffer against the graph's liveness, and every planned value placed once.
std::string buffers_problem(const Graph& g, const Liveness& live, const MemoryPlan& p) {
  std::vector<bool> placed(g.values.size(), false);
  for (const PlannedBuffer& b : p.buffers) {
    if (b.value < 0 || static_cast<size_t>(b.value) >= g.values.size())
      return "it places value " + std::to_string(b.value) + ", which the graph does not have";
    size_t v = static_cast<size_t>(b.value);
    std::string name = ref(g, b.value);
    if (placed[v]) return "it places " + name + " twice";
    placed[v] = true;
    if (!live.planned[v]) return "it places " + name + ", which needs no buffer (a view, an input or a graph output)";
    if (b.bytes != live.bytes[v])
      return name + " has " + std::to_string(live.bytes[v]) + " bytes, the plan says " + std::to_string(b.bytes);
    if (b.first_step != live.first[v] || b.last_step != live.last[v])
      return name + " is live over steps [" + std::to_string(live.first[v]) + ", " + std::to_string(live.last[v]) +
             "], the plan says [" + std::to_string(b.first_step) + ", " + std::to_string(b.last_step) + "]";
    if (b.slot < 0 || static_cast<size_t>(b.slot) >= p.slots.size())
      return name + " is in slot " + std::to_string(b.slot) + ", which does not exist";
    const PlanSlot& slot = p.slots[static_cast<size_t>(b.slot)];
    if (b.bytes > slot.bytes || b.offset != slot.offset)
      return name + " (" + std::to_string(b.bytes) + " bytes) does not fit slot " + std::to_string(b.slot);
  }
  for (size_t v = 0; v < g.values.size(); ++v)
    if (live.planned[v] && !placed[v]) return "it does not place " + ref(g, static_cast<int>(v));
  return "";
}

// Whether b may take over `source`'s buffer at b's first step.
std::string in_place_problem(const Graph& g, const Liveness& live, const PlannedBuffer& b, const PlannedBuffer* source) {
  std::string what = ref(g, b.value) + " in place of " + ref(g, b.in_place_of) + ": ";
  if (!source || source->slot != b.slot) return what + "that one is not a buffer of the same slot";
  if (source->last_step != b.first_step) return what + "that one is still live after step " + std::to_string(b.first_step);
  const Node& n = g.nodes[static_cast<size_t>(b.first_step)];
  for (size_t k = 0; k < n.inputs.size(); ++k)
    if (n.inputs[k] == b.in_place_of) {
      std::string why = in_place_refusal(g, live, b.first_step, k);
      return why.empty() ? "" : what + why;
    }
  return what + "that one is not an input of its node";
}

// Buffers of one slot must not be live at the same step, except a safe in-place.
std::string sharing_problem(const Graph& g, const Liveness& live, const MemoryPlan& p) {
  std::vector<std::vector<const PlannedBuffer*>> by_slot(p.slots.size());
  for (const PlannedBuffer& b : p.buffers) by_slot[static_cast<size_t>(b.slot)].push_back(&b);
  for (size_t s = 0; s < by_slot.size(); ++s) {
    auto& list = by_slot[s];
    std::stable_sort(list.begin(), list.end(), [](auto* a, auto* b) { return a->first_step < b->first_step; });
    const PlannedBuffer* holder = nullptr;  // the buffer live the longest so far
    for (const PlannedBuffer* b : list) {
      if (b->in_place_of >= 0)
        if (std::string why = in_place_problem(g, live, *b, p.find(b->in_place_of)); !why.empty()) return why;
      bool shared = holder && b->first_step <= holder->last_step;
      if (shared && !(b->in_place_of == holder->value && b->first_step == holder->last_step))
        return ref(g, holder->value) + " and " + ref(g, b->value) + " share slot " + std::to_string(s) +
               " and are both live at step " + std::to_string(b->first_step);
      if (!holder || b->last_step >= holder->last_step) holder = b;
    }
  }
  return "";
}

}  // namespace

std::string memory_plan_problem(const Graph& g, const MemoryPlan& p) {
  if (p.buffer_of.size() != g.values.size())
    return "it was made for a graph of " + std::to_string(p.buffer_of.size()) + " values, this one has " +
           std::to_string(g.values.size());
  Liveness live = analyze_liveness(g);
  for (auto problem : {slots_problem(p), buffers_problem(g, live, p)})
    if (!problem.empty()) return problem;
  MemoryPlan derived = p;
  finish_plan(derived, g.values.size());
  for (auto [figure, says, is] : {std::tuple{"naive", p.naive_bytes, derived.naive_bytes},
                                  {"last_use_peak", p.last_use_peak_bytes, derived.last_use_peak_bytes},
                                  {"in_place", int64_t{p.in_place}, int64_t{derived.in_place}}})
    if (says != is)
      return std::string("it says ") + figure + "=" + std::to_string(says) + ", its buffers make " + std::to_string(is);
  if (!(derived == p)) return "its value index does not match its buffers";
  return sharing_problem(g, live, p);
}

void check_plan_fits(const Graph& g, const MemoryPlan& p) {
  auto fail = [&](const std::string& why) {
    throw Error("graph " + g.name + ": its memory plan does not fit the graph (was it changed after the plan pass?): " +
                why);
  };
  if (p.buffer_of.size() != g.values.size()) fail("it was made for another number of values");
  for (const PlannedBuffer& b : p.buffers) {
    if (b.value < 0 || static_cast<size_t>(b.value) >= g.values.size()) fail("no value " + std::to_string(b.value));
    const Value& v = g.value(b.value);
    int64_t bytes = shape_numel(v.meta.sizes) * static_cast<int64_t>(dtype_size(v.meta.dtype));
    if (v.kind != ValueKind::op || bytes != b.bytes) fail(ref(g, b.value) + " is not an op result of " + std::to_string(b.bytes) + " bytes");
    if (b.offset < 0 || b.offset % kPlanAlignment != 0 || b.offset + b.bytes > p.arena_bytes)
      fail(ref(g, b.value) + " at offset " + std::to_string(b.offset) + " leaves the arena");
  }
}

// ---- reporting --------------------------------------------------------------------

namespace {

// "512 B", "4.0 KiB", "22.24 MiB".
std::string human_bytes(int64_t bytes) {
  char buf[32];
  if (bytes < 1024)
    std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
  else if (bytes < 1024 * 1024)
    std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  else
    std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buf;
}

}  // namespace

std::string plan_summary(const MemoryPlan& p) {
  double cut = p.naive_bytes > 0 ? 100.0 * (1.0 - static_cast<double>(p.arena_bytes) / static_cast<double>(p.naive_bytes)) : 0;
  char pct[16];  // "-43%"; "+100%" when alignment makes a tiny plan larger than naive
  std::snprintf(pct, sizeof pct, "%+.0f%%", -cut);
  return "plan: naive " + human_bytes(p.naive_bytes) + " -> planned " + human_bytes(p.arena_bytes) + " (" + pct + "), " +
         std::to_string(p.in_place) + " in place, " + std::to_string(p.buffers.size()) + " buffers in " +
         std::to_string(p.slots.size()) + " slots (freed after last use: " + human_bytes(p.last_use_peak_bytes) + ")";
}

std::string print_plan(const Graph& g, const MemoryPlan& p) {
  std::string out = "plan(arena=" + std::to_string(p.arena_bytes) + ", naive=" + std::to_string(p.naive_bytes) +
                    ", last_use_peak=" + std::to_string(p.last_use_peak_bytes) +
                    ", in_place=" + std::to_string(p.in_place) + ") {\n";
  for (size_t s = 0; s < p.slots.size(); ++s)
    out += "  slot " + std::to_string(s) + ": offset " + std::to_string(p.slots[s].offset) + ", " +
           std::to_string(p.slots[s].bytes) + " bytes\n";
  for (const PlannedBuffer& b : p.buffers) {
    out += "  " + ref(g, b.value) + ": slot " + std::to_string(b.slot) + ", " + std::to_string(b.bytes) +
           " bytes, steps [" + std::to_string(b.first_step) + ", " + std::to_string(b.last_step) + "]";
    if (b.in_place_of >= 0) out += ", in place of " + ref(g, b.in_place_of);
    out += "\n";
  }
  return out + "}\n";
}

std::vector<BufferUse> plan_buffer_uses(const Graph& g, const MemoryPlan& p) {
  std::vector<BufferUse> uses;
  for (const PlannedBuffer& b : p.buffers) {
    BufferUse u;
    u.value = b.value;
    u.slot = b.slot;
    u.first_step = b.first_step;
    u.last_step = b.last_step;
    u.bytes = b.bytes;
    u.label = ref(g, b.value) + " " + g.nodes[static_cast<size_t>(b.first_step)].name() +
              (b.in_place_of >= 0 ? " (in place)" : "");
    u.in_place = b.in_place_of >= 0;
    uses.push_back(u);
  }
  return uses;
}

std::vector<std::string> plan_step_labels(const Graph& g) {
  std::vector<std::string> labels;
  for (const Node& n : g.nodes) labels.push_back(n.name());
  return labels;
}

}  // namespace nabla::graph

namespace nabla::graph {

std::vector<std::pair<std::string, MemoryPlan>> region_plans(const Graph& g) {
  std::vector<std::pair<std::string, MemoryPlan>> out;
  for (const Node& n : g.nodes) {
    const std::vector<std::string>& labels = region_labels(n.kind);
    for (size_t k = 0; k < n.regions.size(); ++k) {
      const Graph& region = *n.regions[k];
      std::string where = (k < labels.size() ? labels[k] : std::string("region")) + " of " + n.name() +
                          (n.origin.empty() ? std::string() : " at " + n.origin);
      if (region.plan) out.emplace_back(where, *region.plan);
      for (auto& inner : region_plans(region)) out.push_back(std::move(inner));
    }
  }
  return out;
}

}  // namespace nabla::graph
