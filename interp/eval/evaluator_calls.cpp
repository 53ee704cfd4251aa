// Calls: DSL functions (closures, argument binding, one Frame per call) and custom
// differentiable functions (`function` blocks: forward under no_grad, a graph node
// whose backward calls the DSL backward). Evaluator::call_value dispatches every
// callable value. Statement and expression evaluation stay in evaluator.cpp.
#include "interp/eval/evaluator.hpp"

#include "autograd/engine.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/node.hpp"
#include "autograd/ops.hpp"
#include "autograd/profiler.hpp"
#include "interp/eval/evaluator_impl.hpp"

namespace nabla::interp {

// ---- arguments --------------------------------------------------------------------------

// f(*xs): the items of the list or tuple xs, appended as positional arguments.
void Evaluator::Impl::splat_into(const Arg& arg, std::vector<Value>& pos) {
  Value v = eval(*arg.value);
  if (v.tag != Tag::List && v.tag != Tag::Tuple) {
    try {
      fail(std::string("*argument must be a list or a tuple, got ") + type_name(v));
    } catch (...) {
      rethrow_located(arg.span);  // the caret under the *argument, not the call
    }
  }
  for (auto& x : v.as<ListObj>()->items) pos.push_back(x);
}

// ---- functions --------------------------------------------------------------------------

Value Evaluator::Impl::make_function(const std::shared_ptr<FnDecl>& decl, const std::string& name) {
  auto f = std::make_shared<FuncObj>();
  f->decl = decl;
  f->info = &fn_infos.at(decl.get());
  f->env = frame ? frame->shared_from_this() : nullptr;
  f->module = module_ptr();
  f->qualname = name;
  bool any = false;
  for (auto& p : decl->params) any |= p.default_value != nullptr;
  if (any)
    for (auto& p : decl->params) f->defaults.push_back(p.default_value ? eval(*p.default_value) : Value());
  return Value::object(Tag::Func, std::move(f));
}

// The parameters a call may name: all but `self` (the first `skip`) and a *rest.
std::vector<std::string> keyword_names(const std::vector<Param>& params, size_t skip) {
  std::vector<std::string> out;
  for (size_t k = skip; k < params.size(); ++k)
    if (!params[k].variadic) out.push_back(params[k].name);
  return out;
}

// Binds arguments to the first params of `frame` with Python's rules: a *rest
// parameter takes the extra positional arguments as a tuple, and the parameters after
// it only bind by keyword.
void Evaluator::Impl::bind_args(const std::string& fname, const std::vector<Param>& params,
                                const std::vector<Value>* defaults, CallArgs& args, Frame& fr, size_t skip) {
  size_t rest = skip;
  while (rest < params.size() && !params[rest].variadic) ++rest;
  bool variadic = rest < params.size();
  size_t np = rest - skip;  // parameters that bind by position
  if (args.pos.size() > np && !variadic)
    fail(fname + "() takes " + std::to_string(np) + " argument" + (np == 1 ? "" : "s") + " but " +
         std::to_string(args.pos.size()) + (args.pos.size() == 1 ? " was" : " were") + " given");
  std::vector<uint8_t> set(params.size(), 0);
  size_t npos = std::min(args.pos.size(), np);
  for (size_t k = 0; k < npos; ++k) {
    fr.slots[k + skip] = std::move(args.pos[k]);
    set[k + skip] = 1;
  }
  if (variadic) {
    std::vector<Value> extra(std::make_move_iterator(args.pos.begin() + npos),
                             std::make_move_iterator(args.pos.end()));
    fr.slots[rest] = make_tuple(std::move(extra));
    set[rest] = 1;
  }
  for (auto& [name, v] : args.kw) {
    size_t k = skip;
    while (k < params.size() && (params[k].name != name || params[k].variadic)) ++k;
    if (k == params.size()) fail_unexpected_keyword(fname, name, keyword_names(params, skip));
    if (set[k]) fail(fname + "() got multiple values for argument '" + name + "'");
    fr.slots[k] = std::move(v);
    set[k] = 1;
  }
  for (size_t k = skip; k < params.size(); ++k) {
    if (set[k]) continue;
    if (!params[k].default_value)
      fail(fname + "() missing required " + (k > rest && variadic ? "keyword " : "") + "argument '" +
           params[k].name + "'");
    if (defaults) {
      fr.slots[k] = (*defaults)[k];
    } else {
      fr.slots[k] = eval(*params[k].default_value);  // evaluated in the enclosing frame
    }
  }
}

Value Evaluator::Impl::invoke(const FnDecl& d, const FnInfo& info, const std::shared_ptr<Frame>& env, Module* mod,
                              const std::vector<Value>* defaults, const Value& self, CallArgs& args,
                              const std::string& name, size_t skip, std::vector<Value>* prefix) {
  const SourceSpan* site = call_site;
  ev.check_interrupt();
  ev.count_step();
  if (static_cast<int>(stack.size()) >= ev.max_depth) fail("maximum recursion depth exceeded");
  if (stack_nearly_full()) throw_stack_full();
  auto fr = std::make_shared<Frame>(info.nslots);
  fr->parent = env;
  fr->self = self;
  if (prefix)
    for (size_t k = 0; k < prefix->size(); ++k) fr->slots[k] = (*prefix)[k];
  if (skip == 0 && args.kw.empty() && args.pos.size() == d.params.size() && !info.variadic) {
    for (size_t k = 0; k < args.pos.size(); ++k) fr->slots[k] = std::move(args.pos[k]);  // the common case
  } else {
    // Defaults of methods are evaluated in the enclosing frame at call time.
    FrameGuard g(*this);
    frame = env.get();
    module = mod;
    bind_args(name, d.params, defaults && !defaults->empty() ? defaults : nullptr, args, *fr, skip);
  }
  FrameGuard g(*this);
  SiteGuard restore_site(*this);
  ProfileSpan span([&] { return std::pair<std::string, std::string>(name, site ? site->where() : ""); });
  push_call(site, &name);
  frame = fr.get();
  module = mod;
  if (d.expr_body) return eval(*d.expr_body);
  // compile(mode="script"): a return inside an if on a tensor lowers (interp/eval/script/exits.cpp).
  Flow f = ev.script ? script_body(d.block_body) : exec_block(d.block_body);
  if (f == Flow::Return) return std::move(ret);
  if (f == Flow::Break || f == Flow::Continue) fail(stray_flow_message(f));
  return Value();
}

Value Evaluator::Impl::call_func(const FuncObj& f, CallArgs& args) {
  return invoke(*f.decl, *f.info, f.env, f.module.get(), &f.defaults, Value(), args,
                f.qualname.empty() ? std::string("<lambda>") : f.qualname);
}

Evaluator::CallSiteScope::CallSiteScope(Evaluator& ev, const SourceSpan* site) : ev_(ev), saved_(ev.impl->call_site) {
  ev.impl->call_site = site;
}

Evaluator::CallSiteScope::~CallSiteScope() { ev_.impl->call_site = saved_; }

// A module named as a builtin (the module log, the op log) hides it where imported:
// the message says how to reach the builtin.
[[noreturn]] static void fail_not_callable(const Value& callee, const Evaluator& ev) {
  std::string msg = std::string("'") + type_name(callee) + "' object is not callable";
  if (callee.tag == Tag::Module) {
    const std::string& name = callee.as<Module>()->name;
    for (const auto& builtin : ev.builtins)
      if (builtin.first == name)
        fail(msg + ": 'import " + name + "' hides the builtin " + name + " in this file; import the module " +
             "under another name (import " + name + " as " + name + "_module) to call the builtin");
  }
  fail(msg);
}

Value Evaluator::call_value(const Value& callee, CallArgs& args) {
  switch (callee.tag) {
    case Tag::Func: return impl->call_func(*callee.as<FuncObj>(), args);
    case Tag::Native: return callee.as<NativeObj>()->fn(*this, args);
    case Tag::Bound: {
      auto* b = callee.as<BoundObj>();
      return call_method(b->self, b->name, args);
    }
    case Tag::ModelClass:
      return impl->instantiate(std::static_pointer_cast<ModelClassObj>(callee.o), args);
    case Tag::FnClass: return impl->apply_custom(std::static_pointer_cast<ModelClassObj>(callee.o), args);
    case Tag::Instance: return impl->call_instance(callee, args);
    case Tag::Object:
      if (callee.as<ObjectObj>()->methods.count("__call__")) return call_method(callee, "__call__", args);
      [[fallthrough]];
    default: fail_not_callable(callee, *this);
  }
}

// ---- custom differentiable functions --------------------------------------------------

namespace {

struct DslFunctionNode : Node {
  Evaluator* ev = nullptr;
  std::shared_ptr<ModelClassObj> cls;
  Value ctx;
  size_t num_inputs = 0;
  std::string node_name;

  bool released = false;
  // Note [Saved tensors of a custom function]
  // What forward left in ctx.saved, with each tensor's version as forward returned (as
  // PyTorch's save_for_backward records it): an in-place write after that, say
  // `no_grad { x.mul_(2) }` before backward, made backward read the new values and give
  // a wrong gradient, silently. It is an error now, as an op's saved input is.
  struct SavedVersion {
    size_t index;  // in ctx.saved
    Tensor tensor;
    uint32_t version;
  };
  std::vector<SavedVersion> saved_versions;

  void check_saved_versions() const {
    for (const SavedVersion& s : saved_versions) {
      if (s.tensor.version() == s.version) continue;
      fail("backward of '" + cls->decl->name + "': ctx.saved[" + std::to_string(s.index) + "] was saved at version " +
           std::to_string(s.version) + " but has been modified by an in-place operation since (now version " +
           std::to_string(s.tensor.version()) + "); use an out-of-place op or clone it first" +
           (origin == 0 ? "" : " (" + cls->decl->name + ".apply called at " + origin_text(origin) + ")"));
    }
  }

  // A second backward finds ctx none: the function's backward may say why itself
  // (_fsdp.dsl's _GatherShard does), and whatever it fails with comes after the
  // message an op's node gives (OpNode::apply), so "none has no attribute 'saved'"
  // does not stand alone.
  TensorList apply(TensorList&& grads) override {
    if (!released) return run_backward(std::move(grads));
    try {
      return run_backward(std::move(grads));
    } catch (const LangError& e) {
      if (e.interrupted) throw;
      fail("backward through '" + cls->decl->name +
           "' a second time: its saved tensors were freed after the first backward; pass retain_graph=true to the "
           "first call (its backward then failed: " + e.message + ")");
    }
  }

  TensorList run_backward(TensorList&& grads) {
    check_saved_versions();
    CallArgs args;
    args.pos.push_back(ctx);
    for (size_t k = 0; k < grads.size(); ++k) {
      Tensor g = grads[k].defined() ? grads[k] : zeros(output_metas[k].sizes, output_metas[k].dtype, output_metas[k].device);
      args.pos.push_back(Value::tensor(g));
    }
    Value out = ev->impl->call_custom_method(*cls, "backward", args);
    std::vector<Value> items;
    if (out.tag == Tag::Tuple || out.tag == Tag::List) items = out.as<ListObj>()->items;
    else items.push_back(out);
    if (items.size() != num_inputs)
      fail(cls->decl->name + ".backward returned " + std::to_string(items.size()) + " gradient" +
           (items.size() == 1 ? "" : "s") + " but forward took " + std::to_string(num_inputs) + " input" +
           (num_inputs == 1 ? "" : "s"));
    TensorList result(num_inputs);
    for (size_t k = 0; k < num_inputs; ++k) {
      if (items[k].is_none() || !next_edges[k].valid()) continue;
      if (items[k].tag != Tag::Tensor)
        fail(cls->decl->name + ".backward: gradient " + std::to_string(k) + " must be a tensor or none, got " +
             type_name(items[k]));
      result[k] = items[k].t;
    }
    return result;
  }
  std::string name() const override { return node_name; }
  void release_saved() override {
    ctx = Value();
    saved_versions.clear();
    released = true;
  }
};

}  // namespace

Value Evaluator::Impl::call_custom_method(const ModelClassObj& cls, const std::string& name, CallArgs& args) {
  auto it = cls.info->methods.find(name);
  if (it == cls.info->methods.end()) fail("function " + cls.decl->name + " has no " + name + " method");
  const FnDecl& d = *it->second;
  const std::string& qn = intern(cls.decl->name + "." + name);
  return invoke(d, fn_infos.at(&d), cls.env, cls.module.get(), nullptr, Value(), args, qn);
}

Value Evaluator::Impl::apply_custom(const std::shared_ptr<ModelClassObj>& cls, CallArgs& args) {
  if (!args.kw.empty()) fail(cls->decl->name + "() takes positional arguments only");
  OriginId origin = current_origin_id();  // this call's (enter_call set it); forward's lines follow
  auto ctxo = std::make_shared<ObjectObj>();
  ctxo->type_name = "ctx";
  ctxo->set("saved", make_tuple());
  std::vector<Value> needs;
  for (auto& a : args.pos) needs.push_back(Value::boolean(a.tag == Tag::Tensor && a.t.requires_grad()));
  ctxo->set("needs_input_grad", make_tuple(needs));
  NativeFn save = [](Evaluator&, CallArgs& a) {
    auto* self = a.pos[0].as<ObjectObj>();
    std::vector<Value> items(a.pos.begin() + 1, a.pos.end());
    self->set("saved", make_tuple(std::move(items)));
    return Value();
  };
  ctxo->methods["save"] = save;
  ctxo->methods["save_for_backward"] = save;
  Value ctx = Value::object(Tag::Object, ctxo);
  std::vector<Value> inputs = args.pos;
  CallArgs fargs;
  fargs.pos.push_back(ctx);
  for (auto& a : args.pos) fargs.pos.push_back(a);
  Value out;
  {
    NoGradGuard g;
    out = call_custom_method(*cls, "forward", fargs);
  }
  bool record = false;
  if (grad_enabled())
    for (auto& a : inputs) record |= a.tag == Tag::Tensor && a.t.requires_grad();
  bool tuple = out.tag == Tag::Tuple || out.tag == Tag::List;
  std::vector<Value> outs = tuple ? out.as<ListObj>()->items : std::vector<Value>{out};
  for (auto& o : outs)
    if (o.tag != Tag::Tensor) fail(cls->decl->name + ".forward must return tensors, got " + type_name(o));
  if (!record) return out;
  auto node = std::make_shared<DslFunctionNode>();
  node->ev = &ev;
  node->cls = cls;
  node->ctx = ctx;
  if (const Value* saved = ctxo->find("saved"); saved && saved->tag == Tag::Tuple) {
    const auto& items = saved->as<ListObj>()->items;
    for (size_t k = 0; k < items.size(); ++k)
      if (items[k].tag == Tag::Tensor && items[k].t.defined())
        node->saved_versions.push_back({k, items[k].t, items[k].t.version()});
  }
  node->num_inputs = inputs.size();
  node->node_name = cls->decl->name + "Backward";
  node->origin = origin;
  node->next_edges.resize(inputs.size());
  for (size_t k = 0; k < inputs.size(); ++k)
    if (inputs[k].tag == Tag::Tensor && inputs[k].t.requires_grad()) node->next_edges[k] = gradient_edge(inputs[k].t);
  for (size_t k = 0; k < outs.size(); ++k) {
    Tensor t = detach(outs[k].t);  // a fresh impl: forward may return an input
    node->output_metas.push_back({t.sizes(), t.dtype(), t.device()});
    if (is_floating(t.dtype())) {
      AutogradMeta& meta = t.impl()->autograd_meta();
      meta.requires_grad = true;
      meta.grad_fn = node;
      meta.output_nr = static_cast<uint32_t>(k);
    }
    outs[k] = Value::tensor(t);
  }
  return tuple ? make_tuple(std::move(outs)) : outs[0];
}

}  // namespace nabla::interp
