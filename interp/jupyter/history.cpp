#include "interp/jupyter/history.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <set>

namespace nabla::jupyter {

namespace {

nl::json reply_of(const std::vector<SessionHistory::Entry>& entries, bool output) {
  nl::json history = nl::json::array();
  for (const auto& e : entries) {
    if (output)
      history.push_back({e.session, e.line, {e.input, e.output}});
    else
      history.push_back({e.session, e.line, e.input});
  }
  return {{"status", "ok"}, {"history", history}};
}

// The last n of entries (all of them when n <= 0).
std::vector<SessionHistory::Entry> last(std::vector<SessionHistory::Entry> entries, int n) {
  if (n > 0 && entries.size() > static_cast<size_t>(n)) entries.erase(entries.begin(), entries.end() - n);
  return entries;
}

}  // namespace

void SessionHistory::store_inputs_impl(int session, int, const std::string& input, const std::string& output) {
  entries_.push_back({session, current_line_, input, output});
}

nl::json SessionHistory::get_tail_impl(int n, bool, bool output) const { return reply_of(last(entries_, n), output); }

// Lines start <= line < stop of `session` (0 or less: this one, the only one kept).
nl::json SessionHistory::get_range_impl(int session, int start, int stop, bool, bool output) const {
  std::vector<Entry> picked;
  for (const auto& e : entries_)
    if ((session <= 0 || e.session == session) && e.line >= start && e.line < stop) picked.push_back(e);
  return reply_of(picked, output);
}

// Inputs that match the glob `pattern` (IPython's history search), the last n;
// unique: each input once, at its latest line.
nl::json SessionHistory::search_impl(const std::string& pattern, bool, bool output, int n, bool unique) const {
  std::vector<Entry> picked;
  std::set<std::string> seen;
  for (auto e = entries_.rbegin(); e != entries_.rend(); ++e) {
    if (fnmatch(pattern.c_str(), e->input.c_str(), 0) != 0) continue;
    if (unique && !seen.insert(e->input).second) continue;
    picked.push_back(*e);
  }
  std::reverse(picked.begin(), picked.end());
  return reply_of(last(picked, n), output);
}

}  // namespace nabla::jupyter
