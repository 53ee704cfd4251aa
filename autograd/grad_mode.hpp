// Thread-local switches of autograd: whether ops record nodes (no_grad), whether the
// engine checks every backward result for NaN/Inf (anomaly mode), and the source
// location that nodes remember as their origin (the interpreter sets it per
// expression so that errors in backward can name the DSL line of the forward op).
#pragma once
#include <optional>
#include <string>

#include "tensor/dtype.hpp"
#include "tensor/origin.hpp"

namespace nabla {

bool grad_enabled();
void set_grad_enabled(bool enabled);

class NoGradGuard {
 public:
  NoGradGuard() : previous_(grad_enabled()) { set_grad_enabled(false); }
  ~NoGradGuard() { set_grad_enabled(previous_); }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

class GradModeGuard {
 public:
  explicit GradModeGuard(bool enabled) : previous_(grad_enabled()) { set_grad_enabled(enabled); }
  ~GradModeGuard() { set_grad_enabled(previous_); }
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;

 private:
  bool previous_;
};

// Inline (constinit: no TLS wrapper call), because run_op asks once per op.
namespace detail {
extern constinit thread_local bool t_anomaly_enabled;
}
inline bool anomaly_enabled() { return detail::t_anomaly_enabled; }
inline void set_anomaly_enabled(bool enabled) { detail::t_anomaly_enabled = enabled; }

class AnomalyGuard {
 public:
  AnomalyGuard() : previous_(anomaly_enabled()) { set_anomaly_enabled(true); }
  ~AnomalyGuard() { set_anomaly_enabled(previous_); }
  AnomalyGuard(const AnomalyGuard&) = delete;
  AnomalyGuard& operator=(const AnomalyGuard&) = delete;

 private:
  bool previous_;
};

// Mixed precision: inside an autocast region ops marked `lower` in the op table run in
// the region's dtype (bf16 or f16) and ops marked `f32` in f32 (see
// Note [Autocast] in dispatch.cpp). none outside a region.
std::optional<DType> autocast_dtype();
void set_autocast_dtype(std::optional<DType> dtype);

class AutocastGuard {
 public:
  explicit AutocastGuard(DType dtype) : previous_(autocast_dtype()) { set_autocast_dtype(dtype); }
  ~AutocastGuard() { set_autocast_dtype(previous_); }
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  std::optional<DType> previous_;
};


}  // namespace nabla
