// The context statements (docs/LANGUAGE.md): no_grad { }, enable_grad { },
// detect_anomaly { }, and those with arguments, profile(...) { }, autocast(dtype) { }
// and no_sync(ddp) { }.
#include "autograd/grad_mode.hpp"
#include "interp/eval/evaluator_impl.hpp"
#include "interp/builtins/profile.hpp"

namespace nabla::interp {

Flow Evaluator::Impl::exec_context(const ContextStmt& c) {
  if (c.keyword == "profile") return exec_profiled(c);
  if (c.keyword == "no_sync") return exec_no_sync(c);
  if (!c.args.empty() && c.keyword != "autocast")
    fail("'" + c.keyword + "' takes no arguments");
  if (c.keyword == "no_grad") {
    NoGradGuard g;
    return exec_block(c.body);
  }
  if (c.keyword == "enable_grad") {
    GradModeGuard g(true);
    return exec_block(c.body);
  }
  if (c.keyword == "detect_anomaly") {
    AnomalyGuard g;
    return exec_block(c.body);
  }
  if (c.keyword == "autocast") {
    AutocastGuard g(autocast_region_dtype(c));
    return exec_block(c.body);
  }
  fail("unknown context '" + c.keyword + "' (expected no_grad, enable_grad, detect_anomaly, profile, autocast or no_sync)");
}

// no_sync(ddp) { ... }: backward in the block leaves local gradients, not averaged
// (dist.DistributedDataParallel._set_sync, stdlib/dist.dsl); restored after the block.
Flow Evaluator::Impl::exec_no_sync(const ContextStmt& c) {
  if (c.args.size() != 1 || !c.args[0].name.empty())
    fail("no_sync takes one argument, the dist.DistributedDataParallel model");
  Value ddp = eval(*c.args[0].value);
  auto set_sync = [&](bool on) {
    CallArgs a;
    a.pos.push_back(Value::boolean(on));
    return ev.call_method(ddp, "_set_sync", a);
  };
  bool before = truthy(set_sync(false));
  Flow flow;
  try {
    flow = exec_block(c.body);
  } catch (...) {
    set_sync(before);
    throw;
  }
  set_sync(before);
  return flow;
}

// profile(sort="time", group="op", rows=20, trace="t.json", print=true) { ... }
// (interp/builtins/profile.hpp).
Flow Evaluator::Impl::exec_profiled(const ContextStmt& c) {
  std::vector<std::pair<std::string, Value>> kw;
  for (const auto& a : c.args) {
    if (a.name.empty()) fail("profile takes keyword arguments only (sort, group, rows, trace, print)");
    kw.emplace_back(a.name, eval(*a.value));
  }
  ProfileOptions options = profile_options(kw);
  Flow flow = Flow::Normal;
  run_profiled(ev, options, [&] { flow = exec_block(c.body); });
  return flow;
}

// autocast(dtype=bf16) or autocast(f16): the region's lower dtype (bf16 by default).
DType Evaluator::Impl::autocast_region_dtype(const ContextStmt& c) {
  if (c.args.size() > 1 || (c.args.size() == 1 && !c.args[0].name.empty() && c.args[0].name != "dtype"))
    fail("autocast takes one argument, dtype (bf16 or f16)");
  if (c.args.empty()) return DType::bf16;
  Value v = eval(*c.args[0].value);
  if (v.tag != Tag::DType || !is_half(v.dt))
    fail("autocast: dtype must be bf16 or f16, got " + repr(v));
  return v.dt;
}

}  // namespace nabla::interp
