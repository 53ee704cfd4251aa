#include "autograd/anomaly.hpp"

#include <cmath>
#include <cstdio>
#include <functional>

#include "autograd/grad_mode.hpp"
#include "tensor/origin.hpp"

namespace nabla {

// Note [Anomaly rule]
// PyTorch's detect_anomaly checks backward only. Forward is checked too, and an op
// is blamed when a floating output holds a NaN or Inf while every floating input
// (masked_fill's -inf value) and every number attribute (pad's fill value) is
// finite: that is the op that made the first non-finite value. An op that only passes one on (x * 0 where x
// holds Inf gives NaN) is not blamed, so the report names where the trouble started,
// not the last op it reached; a non-finite value made outside the region is never
// blamed. Views make no values and are not checked. In backward every value the rule
// returns is checked, and the error names the forward line (node->origin), which is
// where a user can change something. The ops inside a backward rule run with the
// check off (ForwardAnomalyPause): otherwise the rule's `div` would be blamed at the
// line of .backward() instead of sqrt at its own line.

namespace {

struct ValueStats {
  size_t count = 0, nan = 0, inf = 0, finite = 0;
  double min = 0, max = 0, sum = 0;
};

ValueStats stats_of(const Tensor& t) {
  ValueStats s;
  for (double v : to_double_vector(t)) {
    ++s.count;
    if (std::isnan(v))
      ++s.nan;
    else if (std::isinf(v))
      ++s.inf;
    else {
      s.min = s.finite == 0 ? v : std::min(s.min, v);
      s.max = s.finite == 0 ? v : std::max(s.max, v);
      s.sum += v;
      ++s.finite;
    }
  }
  return s;
}

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", v);
  return text;
}

bool non_finite(const Tensor& t) {
  if (!t.defined() || !is_floating(t.dtype())) return false;
  ValueStats s = stats_of(t);
  return s.nan + s.inf > 0;
}

// "NaN", "Inf" or "NaN and Inf", with how many of how many values.
std::string what_was_made(const Tensor& t) {
  ValueStats s = stats_of(t);
  std::string kind = s.nan && s.inf ? "NaN and Inf" : s.nan ? "NaN" : "Inf";
  return kind + " (" + std::to_string(s.nan + s.inf) + " of " + std::to_string(s.count) + " values)";
}

bool attrs_finite(const Attrs& attrs) {
  for (const Attr& a : attrs.items())
    if (const double* d = std::get_if<double>(&a.value); d && !std::isfinite(*d)) return false;
  return true;
}

std::string input_name(const OpDef& def, size_t i) {
  return i < def.input_names.size() ? def.input_names[i] : "input " + std::to_string(i);
}

// "self f32[3] min=... ; other f32[] ..." for the defined tensors of a list.
std::string describe_list(const TensorList& ts, const std::function<std::string(size_t)>& name) {
  std::string out;
  for (size_t i = 0; i < ts.size(); ++i) {
    if (!ts[i].defined()) continue;
    out += (out.empty() ? "" : "; ") + name(i) + " " + describe_values(ts[i]);
  }
  return out.empty() ? "none" : out;
}

// What the rule of an OpNode saved: its inputs and outputs that it kept.
std::string describe_saved(const Node& node) {
  auto* op = dynamic_cast<const OpNode*>(&node);
  if (!op) return "";
  std::string out;
  for (size_t i = 0; i < op->inputs.size(); ++i)
    if (op->inputs[i].saved.defined())
      out += "; saved " + input_name(op->def(), i) + " " + describe_values(op->inputs[i].saved.peek());
  for (size_t k = 0; k < op->saved_outputs.size(); ++k)
    if (op->saved_outputs[k].defined())
      out += "; saved output " + std::to_string(k) + " " + describe_values(op->saved_outputs[k].peek());
  return out;
}

}  // namespace

std::string describe_values(const Tensor& t) {
  std::string out = std::string(dtype_name(t.dtype())) + t.shape_str();
  ValueStats s = stats_of(t);
  if (s.finite > 0)
    out += " min=" + number(s.min) + " max=" + number(s.max) + " mean=" + number(s.sum / double(s.finite));
  if (is_floating(t.dtype())) out += " nan=" + std::to_string(s.nan) + " inf=" + std::to_string(s.inf);
  return out;
}

void check_forward_anomaly(const OpDef& def, const TensorList& inputs, const Attrs& attrs, const TensorList& outs) {
  for (size_t k = 0; k < outs.size(); ++k) {
    if (!non_finite(outs[k])) continue;
    for (const Tensor& t : inputs)
      if (non_finite(t)) return;  // passed on, not made here (Note [Anomaly rule])
    if (!attrs_finite(attrs)) return;
    std::string output = outs.size() > 1 ? " in output " + std::to_string(k) : "";
    throw Error(
        "anomaly: " + std::string(def.name) + " produced " + what_was_made(outs[k]) + output +
        " in forward from finite inputs: " + describe_list(inputs, [&](size_t i) { return input_name(def, i); }));
  }
}

void check_backward_anomaly(const Node& node, const TensorList& grads, const TensorList& results) {
  for (size_t i = 0; i < results.size(); ++i) {
    if (!non_finite(results[i])) continue;
    std::string where = node.origin == 0 ? "" : "; the forward op was called at " + origin_text(node.origin);
    std::string given = describe_list(grads, [&](size_t k) {
      return grads.size() > 1 ? "grad of output " + std::to_string(k) : std::string("grad");
    });
    throw Error("anomaly: backward of " + node.name() + " produced " + what_was_made(results[i]) +
                " in the gradient of its input " + std::to_string(i) + where + "; it was given " + given +
                describe_saved(node));
  }
}

ForwardAnomalyPause::ForwardAnomalyPause() : previous_(anomaly_enabled()) { set_anomaly_enabled(false); }
ForwardAnomalyPause::~ForwardAnomalyPause() { set_anomaly_enabled(previous_); }

}  // namespace nabla
