// Where a tensor's storage lives: the CPU, or a CUDA device (cuda:N) when the CUDA
// backend is built and a GPU is present (docs/DESIGN.md, seams).
#pragma once
#include <cstdint>
#include <string>

namespace nabla {

enum class DeviceKind : uint8_t { cpu, cuda };

struct Device {
  DeviceKind kind = DeviceKind::cpu;
  int index = 0;
  bool operator==(const Device& o) const { return kind == o.kind && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string str() const { return kind == DeviceKind::cpu ? "cpu" : "cuda:" + std::to_string(index); }
};

inline Device cpu_device() { return Device{}; }
inline Device cuda_device(int index) { return Device{DeviceKind::cuda, index}; }

// "cpu", "cuda" (cuda:0) or "cuda:N"; false for anything else.
inline bool parse_device(const std::string& s, Device* out) {
  if (s == "cpu") {
    *out = cpu_device();
    return true;
  }
  if (s == "cuda") {
    *out = cuda_device(0);
    return true;
  }
  if (s.rfind("cuda:", 0) != 0 || s.size() == 5 || s.size() > 8) return false;
  int index = 0;
  for (size_t i = 5; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    index = index * 10 + (s[i] - '0');
  }
  *out = cuda_device(index);
  return true;
}

// A device as an integer attribute of an op (to_device): -1 for the CPU, N for cuda:N.
inline int64_t device_code(const Device& d) { return d.kind == DeviceKind::cpu ? -1 : d.index; }
inline Device device_from_code(int64_t code) { return code < 0 ? cpu_device() : cuda_device(static_cast<int>(code)); }

}  // namespace nabla
