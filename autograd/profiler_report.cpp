// The profiler's reports: tables grouped by op or by DSL line and sorted by a column,
// and the Chrome trace event format (autograd/profiler.hpp).
#include <algorithm>
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "autograd/profiler.hpp"
#include "autograd/roofline.hpp"
#include "tensor/atomic_file.hpp"

namespace nabla {

namespace {

constexpr double kNsPerUs = 1e3;

std::string row_key(const ProfileEvent& e, ProfileGroup group) {
  if (group == ProfileGroup::op) return e.name;
  return e.line.empty() ? "(no DSL line)" : e.line;
}

double avg_us(const ProfileRow& r) { return r.calls ? r.total_us() / static_cast<double>(r.calls) : 0; }

// Largest first, except name (alphabetical); ties by name, so a table is stable.
bool row_before(const ProfileRow& a, const ProfileRow& b, const std::string& sort) {
  auto by = [&](double x, double y) { return x != y ? x > y : a.key < b.key; };
  if (sort == "name") return a.key < b.key;
  if (sort == "calls") return by(static_cast<double>(a.calls), static_cast<double>(b.calls));
  if (sort == "forward") return by(a.forward_us, b.forward_us);
  if (sort == "backward") return by(a.backward_us, b.backward_us);
  if (sort == "avg") return by(avg_us(a), avg_us(b));
  if (sort == "flops") return by(a.flops, b.flops);
  if (sort == "bytes") return by(a.bytes, b.bytes);
  return by(a.total_us(), b.total_us());  // "time"
}

std::string format(const char* fmt, double a, double b = 0, double c = 0) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, a, b, c);
  return buf;
}

std::string pad(std::string s, size_t width, bool left) {
  if (s.size() > width) s = "..." + s.substr(s.size() - (width - 3));
  std::string fill(width - s.size(), ' ');
  return left ? s + fill : fill + s;
}

// One line of the table: key, then calls, forward, backward and total ms, the share
// of the ops' time, GFLOP, GFLOP/s, MB, GB/s and GB/s as a share of the machine's
// copy bandwidth (BW%).
std::string table_line(const ProfileRow& r, double all_us, size_t key_width) {
  double total = r.total_us();
  std::string s = pad(r.key, key_width, true);
  s += pad(std::to_string(r.calls), 8, false);
  s += pad(format("%.3f", r.forward_us / 1e3), 12, false);
  s += pad(format("%.3f", r.backward_us / 1e3), 12, false);
  s += pad(format("%.3f", total / 1e3), 11, false);
  s += pad(format("%.1f%%", all_us > 0 ? 100.0 * total / all_us : 0), 8, false);
  s += pad(format("%.4f", r.flops / 1e9), 10, false);
  s += pad(total > 0 ? format("%.1f", r.flops / total / 1e3) : "-", 10, false);
  s += pad(format("%.2f", r.bytes / 1e6), 10, false);
  s += pad(total > 0 ? format("%.2f", r.bytes / total / 1e3) : "-", 9, false);
  double fraction = r.bandwidth_fraction();
  s += pad(fraction >= 0 ? format("%.0f%%", 100.0 * fraction) : "-", 6, false);
  return s + "\n";
}

}  // namespace

double ProfileRow::bandwidth_fraction() const {
  if (!on_cpu || total_us() <= 0) return -1;
  double copy = machine_copy_bandwidth();
  return copy > 0 ? bytes / (total_us() * 1e-6) / copy : -1;
}

ProfileGroup profile_group_from_name(const std::string& name) {
  if (name == "op") return ProfileGroup::op;
  if (name == "line") return ProfileGroup::line;
  throw Error("profile: group must be \"op\" or \"line\", got \"" + name + "\"");
}

const std::vector<std::string>& profile_sort_columns() {
  static const std::vector<std::string> columns{"name",     "calls", "forward", "backward",
                                                "time",     "avg",   "flops",   "bytes"};
  return columns;
}

std::vector<ProfileRow> profile_rows(const std::vector<ProfileEvent>& events, ProfileGroup group,
                                     const std::string& sort) {
  const auto& columns = profile_sort_columns();
  if (std::find(columns.begin(), columns.end(), sort) == columns.end()) {
    std::string known;
    for (const auto& c : columns) known += (known.empty() ? "" : ", ") + c;
    throw Error("profile: cannot sort by \"" + sort + "\" (columns: " + known + ")");
  }
  std::map<std::string, ProfileRow> rows;
  for (const ProfileEvent& e : events) {
    if (!e.is_op) continue;
    std::string key = row_key(e, group);
    ProfileRow& r = rows[key];
    r.key = key;
    ++r.calls;
    (e.phase == ProfilePhase::forward ? r.forward_us : r.backward_us) += static_cast<double>(e.dur_ns) / kNsPerUs;
    r.flops += e.flops;
    r.bytes += e.bytes;
    r.on_cpu = r.on_cpu && e.device == "cpu";
  }
  std::vector<ProfileRow> out;
  for (auto& [key, row] : rows) out.push_back(std::move(row));
  std::stable_sort(out.begin(), out.end(), [&](const ProfileRow& a, const ProfileRow& b) { return row_before(a, b, sort); });
  return out;
}

std::string profile_table(const Profiler& p, ProfileGroup group, const std::string& sort, size_t limit) {
  std::vector<ProfileRow> rows = profile_rows(p.events(), group, sort);
  ProfileRow total;
  total.key = "total";
  for (const ProfileRow& r : rows) {
    total.calls += r.calls;
    total.forward_us += r.forward_us;
    total.backward_us += r.backward_us;
    total.flops += r.flops;
    total.bytes += r.bytes;
    total.on_cpu = total.on_cpu && r.on_cpu;
  }
  size_t key_width = group == ProfileGroup::op ? 8 : 12;
  for (const ProfileRow& r : rows) key_width = std::max(key_width, r.key.size());
  key_width = std::min<size_t>(key_width, 44) + 2;
  std::string s = pad(group == ProfileGroup::op ? "op" : "line", key_width, true) + pad("calls", 8, false) +
                  pad("forward ms", 12, false) + pad("backward ms", 12, false) + pad("total ms", 11, false) +
                  pad("%", 8, false) + pad("GFLOP", 10, false) + pad("GFLOP/s", 10, false) + pad("MB", 10, false) +
                  pad("GB/s", 9, false) + pad("BW%", 6, false) + "\n";
  size_t shown = limit ? std::min(limit, rows.size()) : rows.size();
  for (size_t i = 0; i < shown; ++i) s += table_line(rows[i], total.total_us(), key_width);
  if (shown < rows.size()) s += "... " + std::to_string(rows.size() - shown) + " more rows\n";
  s += table_line(total, total.total_us(), key_width);
  s += format("(%.3f ms profiled; ops took %.3f ms of it)\n", static_cast<double>(p.elapsed_ns()) / 1e6,
              total.total_us() / 1e3);
  if (total.on_cpu && machine_copy_bandwidth() > 0)
    s += "(BW%: GB/s as a share of this machine's copy bandwidth, " +
         format("%.1f GB/s)\n", machine_copy_bandwidth() / 1e9);
  return s;
}

std::string chrome_trace_json(const Profiler& p) {
  nlohmann::json events = nlohmann::json::array();
  for (const ProfileEvent& e : p.events()) {
    nlohmann::json args = {{"line", e.line}, {"source", e.source}};
    if (e.is_op) {
      args["device"] = e.device;
      args["shapes"] = e.shapes;
      args["flops"] = e.flops;
      args["bytes"] = e.bytes;
    }
    const char* category = !e.is_op ? "span" : e.phase == ProfilePhase::forward ? "forward" : "backward";
    events.push_back({{"name", e.name},
                      {"cat", category},
                      {"ph", "X"},
                      {"ts", static_cast<double>(e.start_ns) / kNsPerUs},
                      {"dur", static_cast<double>(e.dur_ns) / kNsPerUs},
                      {"pid", 1},
                      {"tid", 1},
                      {"args", std::move(args)}});
  }
  return nlohmann::json{{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}}.dump();
}

void write_chrome_trace(const Profiler& p, const std::string& path) {
  write_file_atomically(path, chrome_trace_json(p), "profile");
}

}  // namespace nabla
