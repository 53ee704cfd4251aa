// The fused Adam/AdamW updates for the optim stdlib module (stdlib/optim.dsl), bound
// as `optim_adam_step_` (one parameter) and `optim_adam_step_multi_` (lists of
// parameters, gradients and states: every parameter of a group in one kernel), and
// SGD's, `optim_sgd_step_multi_`. The
// kernels are tensor/optim.hpp's (CPU and CUDA), run under the profiler by
// autograd/optim_step.hpp. Each returns false (and does nothing) for tensors it does
// not handle (not contiguous, not one same f32/f64 dtype, device and shape), and
// optim.dsl then takes the next path: per parameter, then tensor ops.
#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "autograd/optim_step.hpp"
#include "autograd/trace.hpp"
#include "interp/builtins/builtins_internal.hpp"

namespace nabla::interp {

namespace {

// Whether arguments [first, last) are plain numbers. A hyperparameter set to anything
// else (a tensor in a param group) makes the builtin return false, so that optim.dsl's
// tensor-op path runs and reports what the user wrote wrong, as it would without the
// fused kernels.
bool numbers_at(const Bound& b, size_t first, size_t last) {
  for (size_t k = first; k < last; ++k)
    if (!b[k].is_num()) return false;
  return true;
}

// optim_adam_step_(p, g, exp_avg, exp_avg_sq, lr, beta1, beta2, eps, step, weight_decay, decoupled)
Value adam_step(Evaluator&, CallArgs& a) {
  Bound b =
      bind("optim_adam_step_", a,
           {"p", "g", "exp_avg", "exp_avg_sq", "lr", "beta1", "beta2", "eps", "step", "weight_decay", "decoupled"}, 11);
  const std::string f = "optim_adam_step_()";
  notify_untraced_effect("opt.step() (" + f + ") updates the parameters in place outside the op table");
  const Tensor& p = as_tensor(b[0], f);
  const Tensor& g = as_tensor(b[1], f);
  const Tensor& m = as_tensor(b[2], f);
  const Tensor& v = as_tensor(b[3], f);
  if (!adam_step_supported(p, g, m, v) || !numbers_at(b, 4, 11)) return Value::boolean(false);
  AdamHyper hyper;
  hyper.lr = as_num(b[4], f), hyper.beta1 = as_num(b[5], f), hyper.beta2 = as_num(b[6], f);
  hyper.eps = as_num(b[7], f), hyper.step = as_num(b[8], f), hyper.weight_decay = as_num(b[9], f);
  hyper.decoupled = as_bool(b[10], f);
  return Value::boolean(adam_step_(p, g, m, v, hyper));
}

// optim_adam_step_multi_(params, grads, exp_avgs, exp_avg_sqs, steps, lr, beta1, beta2, eps, weight_decay, decoupled)
Value adam_step_multi(Evaluator&, CallArgs& a) {
  Bound b = bind("optim_adam_step_multi_", a,
                 {"params", "grads", "exp_avgs", "exp_avg_sqs", "steps", "lr", "beta1", "beta2", "eps", "weight_decay",
                  "decoupled"},
                 11);
  const std::string f = "optim_adam_step_multi_()";
  notify_untraced_effect("opt.step() (" + f + ") updates the parameters in place outside the op table");
  AdamMultiArgs args{tensor_list_arg(b[0], f + ": params"), tensor_list_arg(b[1], f + ": grads"),
                     tensor_list_arg(b[2], f + ": exp_avgs"), tensor_list_arg(b[3], f + ": exp_avg_sqs"),
                     as_numbers(b[4], f + ": steps")};
  if (!adam_step_multi_supported(args) || !numbers_at(b, 5, 11)) return Value::boolean(false);
  AdamHyper hyper;
  hyper.lr = as_num(b[5], f), hyper.beta1 = as_num(b[6], f), hyper.beta2 = as_num(b[7], f);
  hyper.eps = as_num(b[8], f), hyper.weight_decay = as_num(b[9], f);
  hyper.decoupled = as_bool(b[10], f);
  return Value::boolean(adam_step_multi_(args, hyper));
}

// optim_sgd_step_multi_(params, grads, momentum_buffers, fresh, lr, momentum, dampening, weight_decay, nesterov)
Value sgd_step_multi(Evaluator&, CallArgs& a) {
  Bound b = bind("optim_sgd_step_multi_", a,
                 {"params", "grads", "momentum_buffers", "fresh", "lr", "momentum", "dampening", "weight_decay",
                  "nesterov"},
                 9);
  const std::string f = "optim_sgd_step_multi_()";
  notify_untraced_effect("opt.step() (" + f + ") updates the parameters in place outside the op table");
  if (!numbers_at(b, 4, 9)) return Value::boolean(false);
  SgdHyper hyper;
  hyper.lr = as_num(b[4], f), hyper.momentum = as_num(b[5], f), hyper.dampening = as_num(b[6], f);
  hyper.weight_decay = as_num(b[7], f), hyper.nesterov = as_bool(b[8], f);
  SgdMultiArgs args{tensor_list_arg(b[0], f + ": params"), tensor_list_arg(b[1], f + ": grads"),
                    tensor_list_arg(b[2], f + ": momentum_buffers"), {}};
  for (double fresh : as_numbers(b[3], f + ": fresh")) args.fresh.push_back(fresh != 0);
  return Value::boolean(sgd_step_multi_(args, hyper));
}

// Note [A step's checks, natively first]
// Every optimizer step checks that its param_groups and state still hold the kinds
// step() reads (_check_groups_kept in stdlib/_optim_groups.dsl): values may be assigned
// by hand between steps, and one of the wrong kind failed deep inside the update.
// Interpreted, that check was 82k of the 222k instructions of an eager Adam step over
// six parameters. optim_groups_kept_ answers the common case, every kind right, in one
// pass here; when it says false the interpreted check runs and names what is wrong,
// so each message has one source. It is never more lenient than that check.
// optim_step_lists_ and optim_adam_advance_ do the same for the step's two loops over
// the parameters (gathering those with a grad, and advancing Adam's states): they
// answer the plain case (tensors, states already made with a numeric step) and say
// none otherwise, and the interpreted loop, which makes the first step's states and
// names what is wrong, runs instead.

// Whether v is of `kind` (a value of _options in _optim_groups.dsl), as _check_kind_kept
// and the numeric fast path before it decide.
bool holds_kind(const std::string& kind, const Value& v) {
  auto number = [](const Value& x) { return x.tag == Tag::Int || x.tag == Tag::Float; };
  if (kind == "betas" || kind == "etas" || kind == "step_sizes") {
    if (v.tag != Tag::List && v.tag != Tag::Tuple) return false;
    const auto& items = v.as<ListObj>()->items;
    return items.size() == 2 && number(items[0]) && number(items[1]);
  }
  if (kind == "bool") return v.tag == Tag::Bool;
  if (kind == "int > 0 or none") return v.tag == Tag::None || v.tag == Tag::Int;
  if (kind == "int > 0") return v.tag == Tag::Int;
  if (kind == "line search") return v.tag == Tag::None || (v.tag == Tag::Str && v.as<StrObj>()->s == "strong_wolfe");
  return number(v);
}

// A group: a dict with a list or tuple under "params", and each hyperparameter of its kind.
bool group_kept(const Value& g, DictObj* kinds, size_t* params) {
  if (g.tag != Tag::Dict) return false;
  bool has_params = false;
  for (const auto& [name, v] : g.as<DictObj>()->entries) {
    if (name.tag != Tag::Str) continue;
    if (name.as<StrObj>()->s == "params") {
      if (v.tag != Tag::List && v.tag != Tag::Tuple) return false;
      has_params = true;
      *params += v.as<ListObj>()->items.size();
    }
    const Value* kind = kinds->find(name);
    if (kind && (kind->tag != Tag::Str || !holds_kind(kind->as<StrObj>()->s, v))) return false;
  }
  return has_params;
}

// optim_groups_kept_(param_groups, kinds, params, state): Note [A step's checks, natively first]
Value groups_kept(Evaluator&, CallArgs& a) {
  Bound b = bind("optim_groups_kept_", a, {"param_groups", "kinds", "params", "state"}, 4);
  const Value &groups = b[0], &kinds = b[1], &params = b[2], &state = b[3];
  if (groups.tag != Tag::List || kinds.tag != Tag::Dict || (params.tag != Tag::List && params.tag != Tag::Tuple) ||
      state.tag != Tag::List)
    return Value::boolean(false);
  size_t n = 0;
  for (const Value& g : groups.as<ListObj>()->items)
    if (!group_kept(g, kinds.as<DictObj>(), &n)) return Value::boolean(false);
  const auto& states = state.as<ListObj>()->items;
  if (n != params.as<ListObj>()->items.size() || states.size() != n) return Value::boolean(false);
  for (const Value& st : states)
    if (st.tag != Tag::Dict) return Value::boolean(false);
  return Value::boolean(true);
}

// optim_step_lists_(params, states, first, negate): for the params with a grad, the
// lists [params, grads (negated when the group maximizes), states] with states[first +
// k] for params[k]; none when a param is not a tensor or a state is missing.
Value step_lists(Evaluator&, CallArgs& a) {
  Bound b = bind("optim_step_lists_", a, {"params", "states", "first", "negate"}, 4);
  if ((b[0].tag != Tag::List && b[0].tag != Tag::Tuple) || b[1].tag != Tag::List || b[2].tag != Tag::Int ||
      b[3].tag != Tag::Bool)
    return Value();
  const auto& params = b[0].as<ListObj>()->items;
  const auto& states = b[1].as<ListObj>()->items;
  const int64_t first = b[2].i;
  if (first < 0 || static_cast<size_t>(first) + params.size() > states.size()) return Value();
  for (const Value& p : params)
    if (p.tag != Tag::Tensor) return Value();
  NoGradGuard no_grad;
  std::vector<Value> ps, gs, sts;
  for (size_t k = 0; k < params.size(); ++k) {
    Tensor g = params[k].t.grad();
    if (!g.defined()) continue;
    ps.push_back(params[k]);
    gs.push_back(Value::tensor(b[3].b ? -g : g));
    sts.push_back(states[static_cast<size_t>(first) + k]);
  }
  return make_list({make_list(std::move(ps)), make_list(std::move(gs)), make_list(std::move(sts))});
}

// optim_adam_advance_(states, amsgrad): each state's step advanced by one (an int stays
// an int), and [exp_avgs, exp_avg_sqs, steps]; none, changing nothing, unless every
// state already holds a numeric step and its moments (the first step makes them).
Value adam_advance(Evaluator&, CallArgs& a) {
  Bound b = bind("optim_adam_advance_", a, {"states", "amsgrad"}, 2);
  static const Value step_key = make_str("step"), m_key = make_str("exp_avg"), v_key = make_str("exp_avg_sq"),
                     max_key = make_str("max_exp_avg_sq");
  if ((b[0].tag != Tag::List && b[0].tag != Tag::Tuple) || b[1].tag != Tag::Bool) return Value();
  const auto& states = b[0].as<ListObj>()->items;
  for (const Value& st : states) {
    if (st.tag != Tag::Dict) return Value();
    DictObj* d = st.as<DictObj>();
    const Value* step = d->find(step_key);
    if (!step || (step->tag != Tag::Int && step->tag != Tag::Float) || !d->find(m_key) || !d->find(v_key) ||
        (b[1].b && !d->find(max_key)))
      return Value();
  }
  std::vector<Value> ms, vs, steps;
  for (const Value& st : states) {
    DictObj* d = st.as<DictObj>();
    Value* step = d->find(step_key);
    *step = step->tag == Tag::Int ? Value::integer(step->i + 1) : Value::number(step->f + 1);
    steps.push_back(*step);
    ms.push_back(*d->find(m_key));
    vs.push_back(*d->find(v_key));
  }
  return make_list({make_list(std::move(ms)), make_list(std::move(vs)), make_list(std::move(steps))});
}

const BuiltinEntry kOptimBuiltins[] = {
    {"optim_groups_kept_", groups_kept, "optim_groups_kept_(param_groups, kinds, params, state)",
     "Whether an optimizer's param_groups and state hold what its step() reads: dicts with a list of params and "
     "each hyperparameter of its kind in kinds, as many params as the optimizer's, one state dict each; false "
     "sends the step to the check that names what is wrong. Example: "
     "optim_groups_kept_([{\"params\": [], \"lr\": 0.1}], {\"lr\": \">= 0\"}, [], [])"},
    {"optim_step_lists_", step_lists, "optim_step_lists_(params, states, first, negate)",
     "The params with a grad, their grads (negated with negate) and their states (states[first + k] for params[k]), "
     "as three lists; none for a param that is not a tensor or a missing state. Example: "
     "optim_step_lists_([randn(2)], [{}], 0, false)"},
    {"optim_adam_advance_", adam_advance, "optim_adam_advance_(states, amsgrad)",
     "Advances each Adam state's step by one and gives [exp_avgs, exp_avg_sqs, steps]; none, changing nothing, "
     "unless every state already holds a numeric step and its moments. Example: "
     "optim_adam_advance_([{\"step\": 1, \"exp_avg\": zeros(2), \"exp_avg_sq\": zeros(2)}], false)"},
    {"optim_adam_step_", adam_step,
     "optim_adam_step_(p, g, exp_avg, exp_avg_sq, lr, beta1, beta2, eps, step, weight_decay, decoupled)",
     "One fused Adam (AdamW when decoupled) update of p in place; false, doing nothing, for tensors it does not "
     "handle. Example: optim_adam_step_(randn(3), ones(3), zeros(3), zeros(3), 1e-3, 0.9, 0.999, 1e-8, 1, 0.0, false)"},
    {"optim_adam_step_multi_", adam_step_multi,
     "optim_adam_step_multi_(params, grads, exp_avgs, exp_avg_sqs, steps, lr, beta1, beta2, eps, weight_decay, "
     "decoupled)",
     "One fused Adam (AdamW when decoupled) update of every tensor of params in place, in one kernel, parameter k "
     "at step steps[k]; false, doing nothing, for lists it does not handle. Example: "
     "optim_adam_step_multi_([randn(3), randn(2)], [ones(3), ones(2)], [zeros(3), zeros(2)], [zeros(3), zeros(2)], "
     "[1, 1], 1e-3, 0.9, 0.999, 1e-8, 0.0, false)"},
    {"optim_sgd_step_multi_", sgd_step_multi,
     "optim_sgd_step_multi_(params, grads, momentum_buffers, fresh, lr, momentum, dampening, weight_decay, nesterov)",
     "One fused SGD update of every tensor of params in place, in one kernel, rounding as optim.SGD's tensor ops "
     "do; with momentum, momentum_buffers[k] is updated (fresh[k]: its first step, it becomes the gradient); false, "
     "doing nothing, for lists it does not handle. Example: "
     "optim_sgd_step_multi_([randn(3)], [ones(3)], [zeros(3)], [true], 0.1, 0.9, 0.0, 0.0, false)"},
};

}  // namespace

const BuiltinLibrary kOptimLibrary = {"optim", nullptr, kOptimBuiltins, nullptr};

}  // namespace nabla::interp
