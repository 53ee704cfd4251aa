// How much memory the system can still give this process, for the CPU allocator's
// check before a large request (Note [CPU out of memory] in allocator.cpp). Reads
// Linux's /proc/meminfo and the memory cgroup's limit (a container's); knows nothing
// of tensors.
#pragma once
#include <cstddef>
#include <string>

namespace nabla {

struct SystemMemory {
  size_t available = 0;  // MemAvailable + SwapFree, or less under a lower cgroup limit
  size_t total = 0;      // MemTotal + SwapTotal, or the cgroup limit if lower
  bool known = false;    // false where /proc/meminfo cannot be read (then nothing is checked)
};

SystemMemory system_memory();

// The numbers behind system_memory(), from the text of /proc/meminfo and, when the
// process is in a memory cgroup with a limit, its limit, usage and reclaimable page
// cache (pass limit = 0 for none). Separate so that tests give it made-up files.
SystemMemory system_memory_from(const std::string& meminfo, size_t cgroup_limit, size_t cgroup_usage,
                                size_t cgroup_reclaimable);

}  // namespace nabla
