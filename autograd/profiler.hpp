// The op profiler (issue 7). While a Profiler is active on a thread, every top-level
// op-table call on that thread is recorded: its name, the DSL line that ran it, its
// time on the device, and its FLOPs and bytes (op_cost, from the op's row). Spans
// record the regions around the ops (a DSL function call, a backward pass, one
// autograd node's backward rule) so that a Chrome trace shows them nested.
//
// Ops that a backward rule runs are attributed to the forward line of the node whose
// rule ran them (phase backward), so a table grouped by line shows each line's
// forward and backward time side by side.
//
// It knows ops and autograd nodes, nothing of the language: the interpreter activates
// it (`profile { }`, `:prof`) and opens spans for its calls. Reports (tables, Chrome
// trace JSON) are in profiler_report.cpp.
//
// Note [Profiler off]
// With no active profiler, dispatch pays one thread-local read and a branch per op
// call; `-DNABLA_PROFILER=OFF` compiles even that out, which is how
// scripts/bench/profiler_overhead.sh measures that the profiler off costs nothing.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "autograd/op_table.hpp"
#include "tensor/origin.hpp"

namespace nabla {
class Node;  // autograd/node.hpp
}

#ifndef NABLA_PROFILER
#define NABLA_PROFILER 1
#endif

namespace nabla {

enum class ProfilePhase : uint8_t { forward, backward };

struct ProfileEvent {
  std::string name;    // the op ("linear"), or a span's label ("MLP.forward", "LinearBackward")
  // "file:line:col" in the user's code: an op in library code (the standard library,
  // see set_library_prefix) counts under the innermost call outside it; a backward op
  // under the line of its forward op.
  std::string line;
  // The origin the op ran with: the innermost DSL expression, or in library code the
  // user's call and module path ("fc1 (train.dsl:12:9)"), the library's own line
  // under --full-trace (Note [User line] in interp/eval/evaluator_trace.cpp).
  std::string source;
  bool is_op = true;   // an op-table call, or a span (trace nesting only)
  ProfilePhase phase = ProfilePhase::forward;
  std::string device;  // "cpu", "cuda:0"
  std::string shapes;  // the inputs' shapes, "[64, 784], [256, 784], [256]"
  int64_t start_ns = 0;  // since the profiler started
  int64_t dur_ns = 0;
  double flops = 0;
  double bytes = 0;
};

class Profiler {
 public:
  Profiler();

  int64_t now_ns() const;
  // Lines that start with `prefix` ("<stdlib>/") are library code: see ProfileEvent::line.
  void set_library_prefix(std::string prefix) { library_prefix_ = std::move(prefix); }
  // An op call that ran from start to end (ns since the start); line is the DSL line
  // of a forward op (a backward op's comes from the node being run, see below).
  void record_op(const OpDef& def, const TensorList& inputs, const Attrs& attrs, const TensorList& outputs,
                 int64_t start_ns, int64_t end_ns, const std::string& line);
  // Work outside the op table whose cost the caller knows: a graph-level op of the
  // graph executor (fused kernels, linear_relu, ...), the optimizers' fused steps
  // (run_native_kernel below). `inputs`, when given, fill the shapes column.
  void record_native_op(const std::string& name, const std::string& line, const TensorList& outputs,
                       int64_t start_ns, int64_t end_ns, double flops, double bytes, const TensorList& inputs = {});

  // Spans: open returns a handle for close.
  size_t open_span(std::string name, std::string line);
  void close_span(size_t handle);

  // While a backward rule runs: the forward line and op its ops are attributed to.
  struct BackwardOf {
    std::string line;
    std::string op;
  };
  const BackwardOf* backward_of() const { return backward_depth_ > 0 ? &backward_of_ : nullptr; }
  void set_backward_of(BackwardOf b, int depth_change);
  // The user line the forward op of `node` was recorded with (node's origin if none).
  std::string forward_line(const Node& node) const;

  const std::vector<ProfileEvent>& events() const { return events_; }
  int64_t elapsed_ns() const { return stopped_ns_ >= 0 ? stopped_ns_ : now_ns(); }
  void stop() { stopped_ns_ = now_ns(); }

 private:
  std::chrono::steady_clock::time_point start_;
  int64_t stopped_ns_ = -1;
  bool is_library(const std::string& line) const;
  std::string user_line(const std::string& line) const;

  std::vector<ProfileEvent> events_;
  std::vector<size_t> open_spans_;  // innermost last
  std::string library_prefix_;
  std::unordered_map<const Node*, std::string> forward_lines_;  // nodes of recorded forward ops
  BackwardOf backward_of_;
  int backward_depth_ = 0;
};

// Waits until the GPU work that made `outputs` has finished (nothing for CPU
// tensors), so that a GPU op's time is its time on the device. This serializes the
// GPU work being profiled, as CUDA_LAUNCH_BLOCKING=1 would.
void wait_for_device_work(const TensorList& outputs);

// This thread's active profiler, or nullptr (Note [Profiler off]).
inline Profiler*& active_profiler_slot() {
  static constinit thread_local Profiler* active = nullptr;
  return active;
}
inline Profiler* active_profiler() { return active_profiler_slot(); }

// Runs `kernel`, a kernel outside the op table (the optimizers' fused steps,
// autograd/optim_step.hpp), as call() runs a row's kernel: under an active profiler
// it is timed to the end of its work on the device and recorded as `name` on the
// current DSL line, with its inputs' shapes, its device, FLOPs and bytes.
template <class Kernel>
void run_native_kernel(const char* name, const TensorList& inputs, const TensorList& outputs, double flops,
                       double bytes, Kernel&& kernel) {
  Profiler* profiler = active_profiler();
  if (!profiler) return kernel();
  const std::string& line = current_origin();
  int64_t start = profiler->now_ns();
  kernel();
  wait_for_device_work(outputs);
  profiler->record_native_op(name, line, outputs, start, profiler->now_ns(), flops, bytes, inputs);
}

// Makes `p` this thread's active profiler for its lifetime (restoring the previous one).
class ProfilerActivation {
 public:
  explicit ProfilerActivation(Profiler* p) : previous_(active_profiler_slot()) { active_profiler_slot() = p; }
  ~ProfilerActivation() { active_profiler_slot() = previous_; }
  ProfilerActivation(const ProfilerActivation&) = delete;
  ProfilerActivation& operator=(const ProfilerActivation&) = delete;

 private:
  Profiler* previous_;
};

// A span on the active profiler, if any, for its lifetime. `describe` returns the
// span's {label, DSL line}; it runs only when a profiler is active.
class ProfileSpan {
 public:
  template <class Describe>
  explicit ProfileSpan(Describe&& describe) : profiler_(active_profiler()) {
    if (!profiler_) return;
    auto [label, line] = describe();
    handle_ = profiler_->open_span(std::move(label), std::move(line));
  }
  ~ProfileSpan() {
    if (profiler_) profiler_->close_span(handle_);
  }
  ProfileSpan(const ProfileSpan&) = delete;
  ProfileSpan& operator=(const ProfileSpan&) = delete;

 private:
  Profiler* profiler_;
  size_t handle_ = 0;
};

// While a node's backward rule runs: a span named after the node ("LinearBackward")
// on the forward line, and the rule's ops attributed to that line.
class BackwardAttribution {
 public:
  explicit BackwardAttribution(const Node& node);
  ~BackwardAttribution();
  BackwardAttribution(const BackwardAttribution&) = delete;
  BackwardAttribution& operator=(const BackwardAttribution&) = delete;

 private:
  Profiler* profiler_;
  Profiler::BackwardOf saved_;
  bool had_saved_ = false;
  size_t span_ = 0;
};

// ---- reports (profiler_report.cpp) --------------------------------------------------

enum class ProfileGroup { op, line };

// One row of a table: the ops (or lines) summed. Backward ops count under the op that
// ran (group op) or under the forward line that caused them (group line).
struct ProfileRow {
  std::string key;
  int64_t calls = 0;
  double forward_us = 0;
  double backward_us = 0;
  double flops = 0;
  double bytes = 0;
  bool on_cpu = true;  // every op of the row ran on the CPU (BW% compares with its copy bandwidth)
  double total_us() const { return forward_us + backward_us; }
  // bytes / time as a fraction of machine_copy_bandwidth() (autograd/roofline.hpp),
  // or -1 where it means nothing: no time, or ops on a GPU.
  double bandwidth_fraction() const;
};

// "op" or "line"; anything else is an error naming both.
ProfileGroup profile_group_from_name(const std::string& name);
// The columns a table sorts by: name, calls, forward, backward, time (the default:
// total, largest first), avg, flops, bytes.
const std::vector<std::string>& profile_sort_columns();
std::vector<ProfileRow> profile_rows(const std::vector<ProfileEvent>& events, ProfileGroup group,
                                     const std::string& sort);
// The table as text, `limit` rows at most (0: all), with a total line.
std::string profile_table(const Profiler& p, ProfileGroup group, const std::string& sort, size_t limit);
// {"traceEvents": [...]}: complete events ("ph": "X", ts and dur in microseconds),
// which chrome://tracing and Perfetto open.
std::string chrome_trace_json(const Profiler& p);
void write_chrome_trace(const Profiler& p, const std::string& path);

}  // namespace nabla
