#include "autograd/profiler.hpp"

#include "autograd/node.hpp"
#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/origin.hpp"

namespace nabla {

namespace {

std::string shapes_of(const TensorList& inputs) {
  std::string s;
  for (const Tensor& t : inputs) {
    if (!s.empty()) s += ", ";
    s += t.defined() ? t.shape_str() : "none";
  }
  return s;
}

std::string device_of(const TensorList& inputs, const TensorList& outputs) {
  for (const TensorList* list : {&outputs, &inputs})
    for (const Tensor& t : *list)
      if (t.defined()) return t.device().str();
  return "cpu";
}

}  // namespace

void wait_for_device_work(const TensorList& outputs) {
  for (const Tensor& t : outputs)
    if (t.defined() && t.device().kind == DeviceKind::cuda) return cuda::synchronize(t.device().index);
}

Profiler::Profiler() : start_(std::chrono::steady_clock::now()) {}

int64_t Profiler::now_ns() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_).count();
}

void Profiler::record_op(const OpDef& def, const TensorList& inputs, const Attrs& attrs, const TensorList& outputs,
                         int64_t start_ns, int64_t end_ns, const std::string& line) {
  ProfileEvent e;
  e.name = def.name;
  e.source = line;
  e.line = user_line(line);
  if (const BackwardOf* b = backward_of()) {
    e.phase = ProfilePhase::backward;
    e.line = b->line;
  } else {
    for (const Tensor& t : outputs)
      if (t.defined() && t.grad_fn()) forward_lines_[t.grad_fn().get()] = e.line;
  }
  e.device = device_of(inputs, outputs);
  e.shapes = shapes_of(inputs);
  e.start_ns = start_ns;
  e.dur_ns = end_ns - start_ns;
  OpCost cost = op_cost(def, inputs, attrs, outputs);
  e.flops = cost.flops;
  e.bytes = cost.bytes;
  events_.push_back(std::move(e));
}

void Profiler::record_native_op(const std::string& name, const std::string& line, const TensorList& outputs,
                               int64_t start_ns, int64_t end_ns, double flops, double bytes, const TensorList& inputs) {
  ProfileEvent e;
  e.name = name;
  e.source = line;
  e.line = user_line(line);
  e.device = device_of(inputs, outputs);
  e.shapes = shapes_of(inputs);
  e.start_ns = start_ns;
  e.dur_ns = end_ns - start_ns;
  e.flops = flops;
  e.bytes = bytes;
  events_.push_back(std::move(e));
}

size_t Profiler::open_span(std::string name, std::string line) {
  ProfileEvent e;
  e.name = std::move(name);
  e.source = line;
  e.line = std::move(line);
  e.is_op = false;
  e.phase = backward_of() ? ProfilePhase::backward : ProfilePhase::forward;
  e.start_ns = now_ns();
  events_.push_back(std::move(e));
  open_spans_.push_back(events_.size() - 1);
  return events_.size() - 1;
}

void Profiler::close_span(size_t handle) {
  ProfileEvent& e = events_.at(handle);
  e.dur_ns = now_ns() - e.start_ns;
  if (!open_spans_.empty() && open_spans_.back() == handle) open_spans_.pop_back();
}

bool Profiler::is_library(const std::string& line) const {
  return !library_prefix_.empty() && line.compare(0, library_prefix_.size(), library_prefix_) == 0;
}

// The innermost of `line` and the open spans' call sites that is not library code.
std::string Profiler::user_line(const std::string& line) const {
  if (!is_library(line)) return line;
  for (auto it = open_spans_.rbegin(); it != open_spans_.rend(); ++it) {
    const std::string& site = events_[*it].line;
    if (!site.empty() && !is_library(site)) return site;
  }
  return line;
}

std::string Profiler::forward_line(const Node& node) const {
  auto it = forward_lines_.find(&node);
  return it != forward_lines_.end() ? it->second : origin_text(node.origin);
}

void Profiler::set_backward_of(BackwardOf b, int depth_change) {
  backward_of_ = std::move(b);
  backward_depth_ += depth_change;
}

BackwardAttribution::BackwardAttribution(const Node& node) : profiler_(active_profiler()) {
  if (!profiler_) return;
  std::string op = node.name(), forward_line = profiler_->forward_line(node);
  if (const Profiler::BackwardOf* b = profiler_->backward_of()) {
    saved_ = *b;
    had_saved_ = true;
  }
  profiler_->set_backward_of({forward_line, op}, +1);
  span_ = profiler_->open_span(op, forward_line);  // "MulBackward", as PyTorch names it
}

BackwardAttribution::~BackwardAttribution() {
  if (!profiler_) return;
  profiler_->close_span(span_);
  profiler_->set_backward_of(had_saved_ ? saved_ : Profiler::BackwardOf{}, -1);
}

}  // namespace nabla
