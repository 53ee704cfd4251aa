#include "tensor/system_memory.hpp"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>

namespace nabla {

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The number after "key" at the start of a line of `text` ("MemAvailable:   24113328 kB",
// "inactive_file 32768"), times `unit`; 0 when absent.
size_t field(const std::string& text, const std::string& key, size_t unit) {
  for (size_t at = 0; (at = text.find(key, at)) != std::string::npos; at += key.size()) {
    if (at != 0 && text[at - 1] != '\n') continue;
    size_t after = at + key.size();
    if (after >= text.size() || (text[after] != ' ' && text[after] != ':')) continue;  // a longer key
    std::istringstream in(text.substr(after + 1, 32));
    uint64_t value = 0;
    in >> value;
    return static_cast<size_t>(value) * unit;
  }
  return 0;
}

size_t number_in(const std::string& path) {
  std::istringstream in(read_text(path));
  uint64_t value = 0;
  return in >> value ? static_cast<size_t>(value) : 0;  // "max" (no limit) reads as 0
}

// The memory cgroup's limit, usage and reclaimable page cache as a container sees
// them (its own cgroup at the root of the mount): cgroup v2, else v1. The v1 file
// says "no limit" with a number near 2^63, which is above any MemTotal anyway.
void cgroup_numbers(size_t* limit, size_t* usage, size_t* reclaimable) {
  *limit = number_in("/sys/fs/cgroup/memory.max");
  if (*limit) {
    *usage = number_in("/sys/fs/cgroup/memory.current");
    *reclaimable = field(read_text("/sys/fs/cgroup/memory.stat"), "inactive_file", 1);
    return;
  }
  *limit = number_in("/sys/fs/cgroup/memory/memory.limit_in_bytes");
  *usage = number_in("/sys/fs/cgroup/memory/memory.usage_in_bytes");
  *reclaimable = field(read_text("/sys/fs/cgroup/memory/memory.stat"), "total_inactive_file", 1);
}

}  // namespace

SystemMemory system_memory_from(const std::string& meminfo, size_t cgroup_limit, size_t cgroup_usage,
                                size_t cgroup_reclaimable) {
  SystemMemory m;
  m.known = field(meminfo, "MemTotal", 1024) > 0;
  if (!m.known) return m;
  m.available = field(meminfo, "MemAvailable", 1024) + field(meminfo, "SwapFree", 1024);
  m.total = field(meminfo, "MemTotal", 1024) + field(meminfo, "SwapTotal", 1024);
  if (cgroup_limit > 0 && cgroup_limit < m.total) {
    size_t used = cgroup_usage - std::min(cgroup_usage, cgroup_reclaimable);
    m.total = cgroup_limit;
    m.available = std::min(m.available, cgroup_limit - std::min(cgroup_limit, used));
  }
  return m;
}

SystemMemory system_memory() {
  size_t limit = 0, usage = 0, reclaimable = 0;
  cgroup_numbers(&limit, &usage, &reclaimable);
  return system_memory_from(read_text("/proc/meminfo"), limit, usage, reclaimable);
}

}  // namespace nabla
