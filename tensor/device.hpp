// Where a tensor's storage lives. Only the CPU has kernels today; the cuda slot is
// the seam the CUDA backend fills (see DESIGN.md).
#pragma once
#include <string>

namespace nabla {

enum class DeviceKind : uint8_t { cpu, cuda };

struct Device {
  DeviceKind kind = DeviceKind::cpu;
  int index = 0;
  bool operator==(const Device& o) const { return kind == o.kind && index == o.index; }
  std::string str() const {
    return kind == DeviceKind::cpu ? "cpu" : "cuda:" + std::to_string(index);
  }
};

inline Device cpu_device() { return Device{}; }

}  // namespace nabla
