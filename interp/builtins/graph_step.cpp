// Note [The optimizer inside the graph]
// compile(loss_fn, x, y, train=true) returns the gradients and leaves the optimizer
// step to the caller: on a GPU that is one launch per parameter group after the
// replayed graph, and its step count and learning rate come from the host. With
// optimizer=opt (and scaler=scaler) the step is part of the graph, so one call of a
// replayed graph is the whole training step:
//
//   - The capture differentiates the loss (times the scale), and with a scaler unscales
//     the gradients and computes found_inf, 1 when one holds Inf or NaN, as a 0-dim
//     tensor on the device (stdlib/_optim_graph.dsl): nothing reads it on the host.
//   - Each parameter's update is one adam_step_ or sgd_step_ node (autograd/ops/
//     optim.cpp), which reads its step count and hyperparameters from tensors beside
//     the parameter and skips itself when found_inf is nonzero. The step counts live in
//     the optimizer's state (so eager opt.step() and the graph share them, as
//     PyTorch's capturable optimizers do); the hyperparameters (lr, betas, eps, weight
//     decay, momentum, dampening) are one f64 tensor per group that this class keeps
//     and refreshes from param_groups before each call where a scheduler changed them
//     (OneCycleLR moves lr and momentum or beta1 every step).
//   - The scaler's schedule is tensor ops ending in copy_ into its scale and count
//     (optim.GradScaler._update_scale), on the device.
//
// Capturing runs the step once eagerly; Note [Capturing writes] (graph/capture.cpp)
// puts the parameters and state back, so compile() does not step and each call steps
// once. The captured graph depends on the optimizer's flags (maximize, nesterov,
// whether SGD has momentum) and on which tensors are the parameters and the state
// (signature(): a change captures again, as a new input shape does). The gradients stay
// inside the graph: .grad is not set, and a call clears it (Note [The step's zero_grad]).
#include "interp/builtins/graph_step.hpp"

#include <cmath>
#include <cstdio>
#include <map>

#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "tensor/cpu/copy.hpp"

namespace nabla::interp {

namespace {

// A function of stdlib/_optim_graph.dsl.
Value graph_function(Evaluator& ev, const char* name) {
  std::shared_ptr<Module> module = ev.find_module("_optim_graph");
  if (!module) throw Error("compile(optimizer=): the standard library's _optim_graph module is missing");
  return ev.get_attr(Value::object(Tag::Module, module), name);
}

Value call(Evaluator& ev, const char* name, std::vector<Value> args) {
  CallArgs call_args;
  call_args.pos = std::move(args);
  return ev.call_value(graph_function(ev, name), call_args);
}

std::vector<Value>& items(const Value& v) { return v.as<ListObj>()->items; }

std::string pointer_text(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

// A value as the signature reads it: a tensor by identity, anything else by repr.
std::string identity_text(const Value& v) {
  if (v.tag == Tag::Tensor) return "tensor@" + pointer_text(v.t.impl());
  if (v.tag == Tag::List || v.tag == Tag::Tuple) {
    std::string s = "[";
    for (const Value& x : items(v)) s += identity_text(x) + ",";
    return s + "]";
  }
  return repr(v);
}

// A dict as the signature reads it, without the keys `skip` says to leave out.
template <class Skip>
std::string dict_text(const Value& d, Skip&& skip) {
  std::string s = "{";
  for (const auto& [k, v] : d.as<DictObj>()->entries) {
    if (k.tag == Tag::Str && skip(k.template as<StrObj>()->s)) continue;
    s += repr(k) + ":" + identity_text(v) + ",";
  }
  return s + "}";
}

std::string class_name(const Value& v) { return v.as<InstanceObj>()->cls->decl->name; }

// A group's hyperparameters in the order its update reads them: the rows' (tensor/
// optim.hpp) for SGD, Adam and AdamW, the tensor ops' of stdlib/_optim_graph.dsl for
// the others.
struct HyperKey {
  const char* key;
  int item = -1;  // an entry of a tuple (betas)
};
const std::vector<HyperKey>& hyper_keys(const std::string& optimizer) {
  static const std::map<std::string, std::vector<HyperKey>> keys{
      {"SGD", {{"lr"}, {"momentum"}, {"dampening"}, {"weight_decay"}}},
      {"Adam", {{"lr"}, {"betas", 0}, {"betas", 1}, {"eps"}, {"weight_decay"}}},
      {"AdamW", {{"lr"}, {"betas", 0}, {"betas", 1}, {"eps"}, {"weight_decay"}}},
      {"Adamax", {{"lr"}, {"betas", 0}, {"betas", 1}, {"eps"}, {"weight_decay"}}},
      {"RAdam", {{"lr"}, {"betas", 0}, {"betas", 1}, {"eps"}, {"weight_decay"}}},
      {"NAdam", {{"lr"}, {"betas", 0}, {"betas", 1}, {"eps"}, {"weight_decay"}, {"momentum_decay"}}},
      {"RMSprop", {{"lr"}, {"alpha"}, {"eps"}, {"weight_decay"}, {"momentum"}}},
      {"Adagrad", {{"lr"}, {"lr_decay"}, {"weight_decay"}, {"eps"}}},
      {"Adadelta", {{"lr"}, {"rho"}, {"eps"}, {"weight_decay"}}},
      {"Rprop", {{"etas", 0}, {"etas", 1}, {"step_sizes", 0}, {"step_sizes", 1}}},
      {"ASGD", {{"lr"}, {"lambd"}, {"alpha"}, {"t0"}, {"weight_decay"}}},
  };
  static const std::vector<HyperKey> none;
  auto it = keys.find(optimizer);
  return it == keys.end() ? none : it->second;  // (prepare() has refused other kinds)
}

double group_number(const Value& group, const HyperKey& h, size_t k) {
  const Value* v = group.as<DictObj>()->find(make_str(h.key));
  if (v && h.item >= 0 && (v->tag == Tag::Tuple || v->tag == Tag::List) && items(*v).size() > static_cast<size_t>(h.item))
    v = &items(*v)[static_cast<size_t>(h.item)];
  if (!v || !v->is_num())
    throw Error("compile(optimizer=): param_groups[" + std::to_string(k) + "]['" + h.key + "'] must be a number, got " +
                (v ? repr(*v) : std::string("nothing")));
  return v->as_double();
}

bool is_hyper_key(const std::string& optimizer, const std::string& key) {
  for (const HyperKey& h : hyper_keys(optimizer))
    if (key == h.key) return true;
  return false;
}

}  // namespace

GraphStep::GraphStep(Evaluator& ev, Value optimizer, Value scaler)
    : optimizer_(std::move(optimizer)), scaler_(std::move(scaler)) {
  call(ev, "check", {optimizer_});
}

void GraphStep::prepare(Evaluator& ev) {
  call(ev, "prepare", {optimizer_});
  const std::vector<Value>& groups = items(ev.get_attr(optimizer_, "param_groups"));
  const int64_t count = static_cast<int64_t>(hyper_keys(class_name(optimizer_)).size());
  for (size_t k = hypers_.size(); k < groups.size(); ++k) {  // a group added later gets its own
    const std::vector<Value>& params = items(*groups[k].as<DictObj>()->find(make_str("params")));
    Device device = params.empty() ? cpu_device() : params[0].t.device();
    hypers_.push_back(zeros({count}, DType::f64, device));
    hyper_values_.emplace_back(static_cast<size_t>(count), std::nan(""));  // refresh() fills them
  }
  refresh(ev);
  if (!scaler_.is_none() && !hypers_.empty()) {  // the scale beside the parameters
    CallArgs to;
    to.pos = {ev.get_attr(Value::tensor(hypers_[0]), "device")};
    ev.call_method(scaler_, "_to", to);
  }
  description_ = describe(ev);
}

Tensor GraphStep::loss_to_differentiate(Evaluator& ev, const Tensor& loss) {
  if (scaler_.is_none()) return loss;
  return mul(loss, as_tensor(ev.get_attr(scaler_, "_scale"), "compile(scaler=)"));
}

void GraphStep::record(Evaluator& ev, const TensorList& targets, const TensorList& grads, const TensorList& reach) {
  NoGradGuard no_grad;
  std::vector<Value> per_param, reached;
  for (const Value& p : items(ev.get_attr(optimizer_, "params"))) {
    Value g, r;
    for (size_t k = 0; k < targets.size(); ++k)
      if (grads[k].defined() && p.tag == Tag::Tensor && targets[k].is_same(p.t)) {
        g = Value::tensor(grads[k]);
        if (reach[k].defined()) r = Value::tensor(reach[k]);
      }
    per_param.push_back(g);
    reached.push_back(r);
  }
  Value gradients = make_list(std::move(per_param));
  Value found_inf;
  if (!scaler_.is_none()) {
    Value unscaled = call(ev, "unscale", {scaler_, gradients});
    gradients = items(unscaled)[0];
    found_inf = items(unscaled)[1];
  }
  std::vector<Value> hypers;
  for (const Tensor& h : hypers_) hypers.push_back(Value::tensor(h));
  call(ev, "step", {optimizer_, gradients, found_inf, make_list(std::move(hypers)), make_list(std::move(reached))});
  if (!scaler_.is_none()) {
    CallArgs update;
    update.pos = {found_inf};
    ev.call_method(scaler_, "_update_scale", update);
  }
}

// Only the values that changed are written: on a GPU each is a small fill kernel,
// queued without waiting for the device.
void GraphStep::refresh(Evaluator& ev) {
  const std::vector<Value>& groups = items(ev.get_attr(optimizer_, "param_groups"));
  const std::vector<HyperKey>& keys = hyper_keys(class_name(optimizer_));
  for (size_t k = 0; k < groups.size() && k < hypers_.size(); ++k)
    for (size_t j = 0; j < keys.size(); ++j) {
      double v = group_number(groups[k], keys[j], k);
      if (v == hyper_values_[k][j]) continue;
      hyper_values_[k][j] = v;
      fill_raw(slice(hypers_[k], 0, static_cast<int64_t>(j), static_cast<int64_t>(j) + 1, 1), v);
    }
}

std::string GraphStep::signature(Evaluator& ev) const {
  const std::string kind = class_name(optimizer_);
  std::string s = kind + " groups:";
  for (const Value& g : items(ev.get_attr(optimizer_, "param_groups"))) {
    s += dict_text(g, [&](const std::string& key) { return is_hyper_key(kind, key); });
  }
  s += " flags:" + str(call(ev, "structure", {optimizer_}));  // momentum buffers or none, decay or none
  s += " state:";
  for (const Value& st : items(ev.get_attr(optimizer_, "state")))
    s += dict_text(st, [](const std::string&) { return false; });
  if (!scaler_.is_none()) {
    s += " scaler:";
    for (const char* field : {"_scale", "_growth_tracker", "growth", "backoff", "interval"})
      s += identity_text(ev.get_attr(scaler_, field)) + ",";
  }
  return s;
}

std::string GraphStep::describe(Evaluator& ev) const {
  size_t groups = items(ev.get_attr(optimizer_, "param_groups")).size();
  size_t params = items(ev.get_attr(optimizer_, "params")).size();
  std::string s = "optim." + class_name(optimizer_) + " (" + std::to_string(groups) +
                  (groups == 1 ? " group, " : " groups, ") + std::to_string(params) +
                  (params == 1 ? " parameter)" : " parameters)");
  if (!scaler_.is_none()) s += " and optim.GradScaler";
  return s + " step inside the graph";
}

}  // namespace nabla::interp
