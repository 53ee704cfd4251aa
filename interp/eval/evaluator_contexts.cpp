// The context statements (docs/LANGUAGE.md): no_grad { }, enable_grad { },
// detect_anomaly { }, and those with arguments, profile(...) { }, autocast(dtype) { }
// and no_sync(ddp) { }.
#include "autograd/autocast_lists.hpp"
#include "autograd/grad_mode.hpp"
#include "interp/eval/evaluator_impl.hpp"
#include "interp/builtins/profile.hpp"

#include <string>
#include <unordered_set>

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
  if (c.keyword == "autocast") return exec_autocast(c);
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

// Note [CPU autocast in f16]
// PyTorch 1.13's CPU autocast runs in bf16 only: torch.autocast("cpu", dtype=torch.float16)
// warns "In CPU autocast, but the target dtype is not supported. Disabling autocast." and
// turns itself off (its __enter__ then fails in set_autocast_cpu_dtype, a bug later
// versions fixed by taking f16). nabla keeps PyTorch's stated intent: one warning per
// block (a loop must not repeat it), and the block runs in the tensors' own dtypes.
static void warn_cpu_f16_autocast(Evaluator& ev, const ContextStmt& c) {
  static std::unordered_set<std::string> warned;
  std::string where = c.span.valid() ? c.span.where() : "";
  if (!warned.insert(where).second || !ev.warning_output) return;
  ev.warning_output((where.empty() ? "" : where + ": ") +
                    "warning: autocast: CPU autocast supports only bf16 (as PyTorch 1.13's); f16 disables it, and the "
                    "block runs in the tensors' own dtypes (use dtype=bf16)\n");
}

// The region an autocast block opens: autocast(dtype=bf16), autocast(f16), or PyTorch's
// torch.autocast arguments, autocast("cpu", dtype=bf16, enabled=true, cache_enabled=true)
// (device_type may be named). A device_type chooses PyTorch's op lists for that device
// (Note [Autocast lists] in autograd/dispatch.cpp) and its default dtype (bf16 on the
// CPU, f16 on CUDA); enabled=false turns autocast off inside the block, as PyTorch's.
AutocastRegion Evaluator::Impl::autocast_region(const ContextStmt& c) {
  const char* usage = "autocast(device_type=\"cpu\" or \"cuda\", dtype=bf16 or f16, enabled=true, cache_enabled=true)";
  static const char* const kPositional[] = {"device_type", "dtype", "enabled", "cache_enabled"};
  std::optional<std::string> device;
  std::optional<DType> dtype;
  bool enabled = true;
  bool dtype_first = false;  // autocast(f16): nabla's own form, the dtype alone
  for (size_t k = 0; k < c.args.size(); ++k) {
    Value v = eval(*c.args[k].value);
    std::string name = c.args[k].name;
    if (name.empty()) {  // otherwise torch.autocast's order
      dtype_first = dtype_first || (k == 0 && v.tag == Tag::DType);
      if ((dtype_first && k > 0) || k >= 4) fail(std::string("autocast: too many positional arguments: ") + usage);
      name = dtype_first ? "dtype" : kPositional[k];
    }
    if (name == "device_type") {
      if (v.tag != Tag::Str || (v.as<StrObj>()->s != "cpu" && v.as<StrObj>()->s != "cuda"))
        fail("autocast: device_type must be \"cpu\" or \"cuda\", got " + repr(v));
      device = v.as<StrObj>()->s;
    } else if (name == "dtype") {
      if (v.tag != Tag::DType || !is_half(v.dt)) fail("autocast: dtype must be bf16 or f16, got " + repr(v));
      dtype = v.dt;
    } else if (name == "enabled" || name == "cache_enabled") {
      if (v.tag != Tag::Bool) fail("autocast: " + name + " must be true or false, got " + repr(v));
      if (name == "enabled") enabled = v.b;
    } else {
      fail("autocast has no argument '" + name + "': " + usage);
    }
  }
  if (enabled && device == "cpu" && dtype == DType::f16) {
    warn_cpu_f16_autocast(ev, c);
    enabled = false;
  }
  AutocastRegion region;
  region.lists = device == "cpu" ? AutocastLists::cpu : AutocastLists::cuda;
  if (enabled) region.dtype = dtype ? *dtype : device == "cuda" ? DType::f16 : DType::bf16;
  return region;
}

Flow Evaluator::Impl::exec_autocast(const ContextStmt& c) {
  AutocastRegion region = autocast_region(c);
  AutocastListsGuard lists(region.lists);
  struct DTypeScope {
    std::optional<DType> previous = autocast_dtype();
    ~DTypeScope() { set_autocast_dtype(previous); }
  } scope;
  set_autocast_dtype(region.dtype);
  return exec_block(c.body);
}

}  // namespace nabla::interp
