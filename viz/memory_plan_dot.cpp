// Drawing a memory plan (memory_plan_dot): one HTML-like table, a row per slot and
// a column per step, each buffer a cell spanning its lifetime in its slot's colour.
// Reuse shows as several cells on one row; an extra "overlap" row for a slot means
// two of its buffers are live at once, which a correct plan never does.
#include <algorithm>
#include <map>

#include "tensor/error.hpp"
#include "viz/dot_writer.hpp"
#include "viz/graphviz.hpp"

namespace nabla::viz {

namespace {

using graph::BufferUse;
using detail::html_bold;
using detail::html_escape;
using detail::html_note;
using detail::human_bytes;

// Light colours that stay apart from each other and keep black text readable.
const char* const kSlotColours[] = {"#bfdbfe", "#bbf7d0", "#fde68a", "#fecaca", "#ddd6fe", "#a5f3fc",
                                    "#fed7aa", "#e9d5ff", "#d9f99d", "#fbcfe8", "#c7d2fe", "#99f6e4"};
const char* slot_colour(int slot) { return kSlotColours[slot % 12]; }

std::string buffer_name(const BufferUse& b) { return b.label.empty() ? detail::numbered("%", b.value) : b.label; }

void check_buffer(const BufferUse& b, size_t index) {
  std::string where = "memory plan: buffer " + std::to_string(index) + " (" + buffer_name(b) + "): ";
  NABLA_CHECK(b.slot >= 0, where + "slot " + std::to_string(b.slot) + " is negative");
  NABLA_CHECK(b.first_step >= 0, where + "first_step " + std::to_string(b.first_step) + " is negative");
  NABLA_CHECK(b.last_step >= b.first_step, where + "last_step " + std::to_string(b.last_step) +
                                               " is before first_step " + std::to_string(b.first_step));
  NABLA_CHECK(b.bytes >= 0, where + "bytes " + std::to_string(b.bytes) + " is negative");
}

// The buffers of one slot in rows ("lanes") whose lifetimes do not overlap; a
// correct plan needs one lane per slot.
std::vector<std::vector<const BufferUse*>> lanes_of(std::vector<const BufferUse*> buffers) {
  std::stable_sort(buffers.begin(), buffers.end(),
                   [](const BufferUse* a, const BufferUse* b) { return a->first_step < b->first_step; });
  std::vector<std::vector<const BufferUse*>> lanes;
  for (const BufferUse* b : buffers) {
    auto fits = [&](const std::vector<const BufferUse*>& lane) {
      return lane.back()->last_step < b->first_step || (b->in_place && lane.back()->last_step == b->first_step);
    };
    auto lane = std::find_if(lanes.begin(), lanes.end(), fits);
    if (lane == lanes.end())
      lanes.push_back({b});
    else
      lane->push_back(b);
  }
  return lanes;
}

std::string header_row(int steps, const std::vector<std::string>& step_labels) {
  std::string row = "<TR><TD>" + html_bold("slot") + "</TD><TD>" + html_bold("size") + "</TD>";
  for (int s = 0; s < steps; ++s) {
    std::string name = std::to_string(s);
    if (static_cast<size_t>(s) < step_labels.size() && !step_labels[static_cast<size_t>(s)].empty())
      name += " " + step_labels[static_cast<size_t>(s)];
    row += "<TD>" + html_note(name) + "</TD>";
  }
  return row + "</TR>";
}

// One lane of a slot: its name and size, then empty cells and buffer cells.
std::string lane_row(int slot, int64_t slot_bytes, bool overlap, const std::vector<const BufferUse*>& lane, int steps) {
  std::string colour = slot_colour(slot);
  std::string row = "<TR><TD BGCOLOR=\"" + colour + "\">" + html_escape("slot " + std::to_string(slot));
  if (overlap) row += "<BR/><FONT COLOR=\"#dc2626\">overlap</FONT>";
  row += "</TD><TD>" + html_escape(human_bytes(slot_bytes)) + "</TD>";
  int step = 0;
  for (const BufferUse* b : lane) {
    for (; step < b->first_step; ++step) row += "<TD></TD>";
    // An in-place buffer's first step is its predecessor's last, drawn in that cell.
    if (step > b->last_step) continue;
    int span = b->last_step - step + 1;
    row += "<TD COLSPAN=\"" + std::to_string(span) + "\" BGCOLOR=\"" + colour + "\"" +
           (overlap ? " COLOR=\"#dc2626\"" : "") + ">" + html_escape(buffer_name(*b)) + "<BR/>" +
           html_note(human_bytes(b->bytes)) + "</TD>";
    step = b->last_step + 1;
  }
  for (; step < steps; ++step) row += "<TD></TD>";
  return row + "</TR>";
}

}  // namespace

std::string memory_plan_dot(const std::vector<BufferUse>& plan, const std::vector<std::string>& step_labels,
                            const std::string& title) {
  std::map<int, std::vector<const BufferUse*>> by_slot;
  int steps = static_cast<int>(step_labels.size());
  int64_t unplanned = 0;
  for (size_t i = 0; i < plan.size(); ++i) {
    check_buffer(plan[i], i);
    by_slot[plan[i].slot].push_back(&plan[i]);
    steps = std::max(steps, plan[i].last_step + 1);
    unplanned += plan[i].bytes;
  }
  std::string rows = header_row(steps, step_labels);
  int64_t planned = 0;
  for (const auto& [slot, buffers] : by_slot) {
    int64_t slot_bytes = 0;
    for (const BufferUse* b : buffers) slot_bytes = std::max(slot_bytes, b->bytes);
    planned += slot_bytes;
    auto lanes = lanes_of(buffers);
    for (size_t k = 0; k < lanes.size(); ++k) rows += lane_row(slot, slot_bytes, k > 0, lanes[k], steps);
  }
  std::string summary = title + ": " + std::to_string(plan.size()) + " buffers in " + std::to_string(by_slot.size()) +
                        " slots, " + human_bytes(planned) + " planned, " + human_bytes(unplanned) + " without reuse";
  detail::DotWriter out("memory_plan", {{"label", summary}});
  out.node("plan", {{"class", "plan"},
                    {"shape", "plaintext"},
                    {"style", ""},
                    {"label", "<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"4\">" + rows +
                                  "</TABLE>",
                     true}});
  return out.finish();
}

}  // namespace nabla::viz
