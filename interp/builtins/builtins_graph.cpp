// compile(f, example_inputs..., train=false): graph mode. The function (or model) runs
// once under a Capture (graph/capture.hpp) and the recorded graph is kept with the
// guards it depends on: the shape and dtype of each tensor argument, the value of
// every other argument, and a model's training flag. Calling the graph module checks
// the guards; a call whose guards fail captures again (at most kMaxGraphs graphs are
// kept) and the reason is logged for gm.explain(). In train mode the capture also
// records the backward (the ops that backward rules run), and a call writes the
// parameters' .grad like loss.backward() would. The operations behind the graph
// module's methods are graph_module.hpp's, which `nabla graph` and `:graph` share;
// what a graph module holds is graph_module_state.hpp's, and what it shows of itself
// (text, drawings, ONNX) graph_module_report.cpp's.
#include <algorithm>

#include "autograd/autocast_lists.hpp"
#include "autograd/engine.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "autograd/transforms/levels.hpp"
#include "graph/capture.hpp"
#include "graph/executor.hpp"
#include "graph/gradient_reach.hpp"
#include "graph/memory_plan.hpp"
#include "graph/pass_manager.hpp"
#include "graph/replay.hpp"
#include "tensor/random.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/display.hpp"
#include "interp/builtins/graph_module_state.hpp"
#include "interp/eval/script/script_mode.hpp"
#include "interp/models/module_walk.hpp"
#include "viz/graphviz.hpp"

namespace nabla::interp {

namespace {

constexpr size_t kMaxGraphs = 8;

std::string guard_text(const Value& v) {
  if (v.tag == Tag::Tensor) return graph::meta_str({v.t.sizes(), v.t.dtype()});
  return repr(v);
}

// The training flags of a model and its submodules, each module once in walk order
// ("1" or "0" each; Note [Module walk]): dropout and batch_norm record different ops
// in each mode.
void training_flags(const Value& v, std::string& out) {
  for (const ModuleVisit& visit : walk_modules(v))
    if (Field* f = visit.module.as<InstanceObj>()->find("training")) out += truthy(f->value) ? "1" : "0";
}

// The autocast region a call runs in: a capture records the casts it makes, so a graph
// captured outside autocast(dtype=bf16) { } would replay in f32 inside one (and the
// other way round), where eager's ops change their dtypes.
std::string autocast_text() {
  std::optional<DType> dtype = autocast_dtype();
  if (!dtype) return "off";
  return std::string(dtype_name(*dtype)) + (autocast_lists() == AutocastLists::cpu ? " (cpu lists)" : "");
}

Guards guards_of(Evaluator& ev, const GraphModule& gm, const std::vector<Value>& args) {
  Guards g;
  for (const Value& a : args) {
    // Note [Arguments that require grad in a training step]
    bool wants_grad = gm.train && a.tag == Tag::Tensor && a.t.requires_grad();
    g.args.push_back(guard_text(a) + (wants_grad ? " requiring grad" : ""));
  }
  training_flags(gm.model, g.training);
  if (gm.step) g.step = gm.step->signature(ev);
  g.autocast = autocast_text();
  return g;
}

// Why `now` does not match `had` ("" when it does).
std::string mismatch(const GraphModule& gm, const Guards& had, const Guards& now) {
  if (had.args.size() != now.args.size())
    return std::to_string(now.args.size()) + " arguments instead of " + std::to_string(had.args.size());
  for (size_t k = 0; k < had.args.size(); ++k)
    if (had.args[k] != now.args[k])
      return "argument '" + gm.arg_names[k] + "' is " + now.args[k] + ", the graph was captured with " + had.args[k];
  if (had.training != now.training)
    return "the modules' training flags are " + now.training + ", the graph was captured with " + had.training;
  if (had.autocast != now.autocast)
    return "autocast is " + now.autocast + " around this call, the graph was captured with autocast " + had.autocast;
  if (std::string changed = had.reads.changed(); !changed.empty()) return changed;
  if (had.step != now.step)
    return "the optimizer's flags, parameters or state tensors changed (maximize, nesterov, centered, amsgrad, "
           "momentum or weight decay turned on or off, add_param_group, load_state_dict)";
  return "";
}

BoundMeta bound_meta(const Tensor& t) { return {t.sizes(), t.dtype(), t.device(), t.requires_grad()}; }

// Which bound tensor changed its shape, dtype, device or requires_grad since the
// capture ("" when none did; Note [What a bound tensor was]).
std::string bound_changed(const CompiledGraph& cg) {
  for (size_t k = 0; k < cg.bound.size(); ++k) {
    const Tensor& t = cg.params[k].second;
    const BoundMeta& had = cg.bound[k];
    if (t.requires_grad() != had.requires_grad)
      return "tensor '" + cg.params[k].first + "' " + (t.requires_grad() ? "requires grad now" : "no longer requires grad") +
             " (Note [What a bound tensor was])";
    if (t.sizes() != had.sizes || t.dtype() != had.dtype || t.device() != had.device)
      return "tensor '" + cg.params[k].first + "' is " + graph::meta_str({t.sizes(), t.dtype()}) + " on " +
             t.device().str() + " now, the graph was captured with " + graph::meta_str({had.sizes, had.dtype}) + " on " +
             had.device.str() + " (Note [What a bound tensor was])";
  }
  return "";
}

std::vector<std::string> param_names(const Value& fn, size_t count) {
  std::vector<std::string> names;
  std::shared_ptr<lang::FnDecl> decl;
  if (fn.tag == Tag::Func) decl = fn.as<FuncObj>()->decl;
  if (fn.tag == Tag::Instance)
    for (auto& m : fn.as<InstanceObj>()->cls->decl->methods)
      if (m->name == "forward") decl = m;
  for (size_t k = 0; k < count; ++k) {
    if (decl && k < decl->params.size() && !decl->params[k].variadic) {
      names.push_back(decl->params[k].name);
      continue;
    }
    std::string name(1, 'x');  // appended piecewise: GCC 12 warns falsely on "x" + string
    names.push_back(name.append(std::to_string(k)));
  }
  return names;
}

// The model's parameters and buffers as (name, tensor).
std::vector<std::pair<std::string, Tensor>> model_tensors(Evaluator& ev, const Value& model) {
  std::vector<std::pair<std::string, Tensor>> out;
  if (model.tag != Tag::Instance) return out;
  for (const char* method : {"named_parameters", "named_buffers"}) {
    CallArgs none;
    Value list = ev.call_method(model, method, none);
    for (auto& item : list.as<ListObj>()->items) {
      auto& pair = item.as<ListObj>()->items;
      if (pair[1].tag == Tag::Tensor) out.emplace_back(str(pair[0]), pair[1].t);
    }
  }
  return out;
}

// The function's result as its tensors, in order, and how they nest (`tree`).
void flatten_output(const Value& out, OutputTree& tree, TensorList& ts, int depth) {
  if (depth > 0 && (out.is_num() || out.tag == Tag::Str || out.tag == Tag::None)) {
    tree.kind = OutputTree::Kind::constant;
    tree.constant = out;
    return;
  }
  if (out.tag == Tag::Dict) {
    if (depth > 32) fail("compile: the function's result nests more than 32 containers deep");
    tree.kind = OutputTree::Kind::dict;
    for (const auto& [key, value] : out.as<DictObj>()->entries) {
      tree.keys.push_back(key);
      tree.items.emplace_back();
      flatten_output(value, tree.items.back(), ts, depth + 1);
    }
    return;
  }
  if (out.tag != Tag::Tuple && out.tag != Tag::List) {
    ts.push_back(as_tensor(out, depth == 0 ? "compile: the function's result" : "compile: each result of the function"));
    return;
  }
  if (depth > 32) fail("compile: the function's result nests more than 32 tuples or lists deep");
  tree.kind = out.tag == Tag::Tuple ? OutputTree::Kind::tuple : OutputTree::Kind::list;
  for (const Value& v : out.as<ListObj>()->items) {
    tree.items.emplace_back();
    flatten_output(v, tree.items.back(), ts, depth + 1);
  }
}

TensorList output_tensors(const Value& out, OutputTree* tree) {
  TensorList ts;
  *tree = OutputTree{};
  flatten_output(out, *tree, ts, 0);
  if (ts.empty()) fail("compile: the function's result holds no tensor");
  return ts;
}

// Whether the first leaf of a training step's result is a tensor (its loss), not a constant.
bool loss_leads(const OutputTree& tree) {
  if (tree.kind == OutputTree::Kind::tuple || tree.kind == OutputTree::Kind::list || tree.kind == OutputTree::Kind::dict)
    return !tree.items.empty() && loss_leads(tree.items[0]);
  return tree.kind == OutputTree::Kind::tensor;
}

// The graph's outputs nested as the function's result was; `next` walks them.
Value nest_outputs(const OutputTree& tree, const TensorList& outs, size_t& next) {
  if (tree.kind == OutputTree::Kind::tensor) return Value::tensor(outs.at(next++));
  if (tree.kind == OutputTree::Kind::constant) return tree.constant;
  if (tree.kind == OutputTree::Kind::dict) {
    auto d = std::make_shared<DictObj>();
    for (size_t k = 0; k < tree.items.size(); ++k) d->set(tree.keys[k], nest_outputs(tree.items[k], outs, next));
    return Value::object(Tag::Dict, std::move(d));
  }
  std::vector<Value> items;
  for (const OutputTree& item : tree.items) items.push_back(nest_outputs(item, outs, next));
  return tree.kind == OutputTree::Kind::tuple ? make_tuple(std::move(items)) : make_list(std::move(items));
}

// Puts the generator back where it was: the capture's run is not a call, so its draws
// must not move the numbers the graph's run then draws (with eager's seed, the call
// after a re-capture drew other numbers than eager).
struct RandomStateScope {
  uint64_t saved = generator_state();
  ~RandomStateScope() { set_generator_state(saved); }
};

CompiledGraph capture(Evaluator& ev, GraphModule& gm, const std::vector<Value>& args) {
  CompiledGraph cg;
  if (gm.step) gm.step->prepare(ev);  // the state it makes is what the guards see
  cg.guards = guards_of(ev, gm, args);
  graph::Capture cap(gm.name);
  cg.params = model_tensors(ev, gm.model);
  for (auto& [name, t] : cg.params) cap.bind_param(t, name);
  for (size_t k = 0; k < args.size(); ++k)
    if (args[k].tag == Tag::Tensor) {
      cap.bind_input(args[k].t, gm.arg_names[k]);
      cg.input_names.push_back(gm.arg_names[k]);
    }
  // Training captures with gradients on; inference with the caller's grad mode, as
  // eager would run (a function that calls grad() inside needs it on).
  GradModeGuard mode(gm.train || grad_enabled());
  ScriptMode script{&cap, {}, gm.train, gm.loop_saving};
  ScriptScope script_scope(ev, gm.script ? &script : nullptr);
  cap.start();
  CallArgs call;
  call.pos = args;
  Value out;
  {
    CaptureReadScope reads(cg.guards.reads);  // Note [What a capture read]
    RandomStateScope draws;                   // the graph's run draws what eager would
    out = ev.call_value(gm.fn, call);
  }
  cg.lowered = script.notes;
  if (!cap.problems().empty() && !gm.script) {  // graph_for reports them, or lowers the branch they met
    cg.problems = cap.problems();
    return cg;
  }
  TensorList outs = output_tensors(out, &cg.output_tree);
  cg.forward_outputs = outs.size();
  // Weights the function closes over are bound as "free<k>", in the order it read them.
  size_t free_bound = 0;
  auto bind_free_params = [&] {
    for (; free_bound < cap.free_params().size(); ++free_bound)
      cg.params.emplace_back("free" + std::to_string(free_bound), cap.free_params()[free_bound]);
  };
  bind_free_params();
  if (gm.train) {
    // Gradients for the model's parameters, for weights the function closes over, and
    // for the arguments that require grad (Note [Arguments that require grad in a
    // training step]).
    TensorList targets;
    for (auto& [name, t] : cg.params)
      if (t.requires_grad()) targets.push_back(t);
    size_t bound_targets = targets.size();
    std::vector<int> target_args;
    for (size_t k = 0; k < args.size(); ++k)
      if (args[k].tag == Tag::Tensor && args[k].t.requires_grad() && is_floating(args[k].t.dtype())) {
        targets.push_back(args[k].t);
        target_args.push_back(static_cast<int>(k));
      }
    if (outs[0].numel() != 1 || !loss_leads(cg.output_tree))
      throw Error("compile(train=true): the function's (first) result must be the scalar loss");
    Tensor loss = gm.step ? gm.step->loss_to_differentiate(ev, outs[0]) : outs[0];
    TensorList reach = graph::gradient_reach(loss, targets);  // Note [Gradients a lowered branch may not reach]
    TensorList grads = grad({loss}, targets, {}, false, false, true);
    if (gm.step) {
      auto first = [&](const TensorList& ts) { return TensorList(ts.begin(), ts.begin() + static_cast<long>(bound_targets)); };
      TensorList stepped = first(targets);
      gm.step->record(ev, stepped, first(grads), first(reach));
      cg.stepped = stepped;  // Note [The optimizer inside the graph]
      bind_free_params();    // the optimizer's state, the learning rates, the scale
    }
    TensorList flags;
    for (size_t k = gm.step ? bound_targets : 0; k < grads.size(); ++k)
      if (grads[k].defined()) {
        outs.push_back(grads[k]);
        cg.grad_targets.push_back(targets[k]);
        cg.grad_args.push_back(k < bound_targets ? -1 : target_args[k - bound_targets]);
        cg.grad_reach.push_back(reach[k].defined() ? static_cast<int>(flags.size()) : -1);
        if (reach[k].defined()) flags.push_back(reach[k]);
      }
    for (int& at : cg.grad_reach)
      if (at >= 0) at += static_cast<int>(outs.size());  // the flags follow the gradients
    outs.insert(outs.end(), flags.begin(), flags.end());
  }
  cg.captured = cap.finish(outs);
  // An output that is a tensor from before the capture, returned as it is (fn(x) = x[0]
  // of a list argument, fn() = w), is bound as a free param only by finish(): bound
  // after it, or the call failed with "no value for graph input %free0".
  bind_free_params();
  for (auto& [name, t] : cg.params) cg.bound.push_back(bound_meta(t));
  for (const graph::Capture::FlagChange& f : cap.flag_changes()) {  // Note [Flags a compiled function sets]
    int arg = -1;
    for (size_t k = 0; k < args.size(); ++k)
      if (args[k].tag == Tag::Tensor && args[k].t.impl() == f.tensor.impl()) arg = static_cast<int>(k);
    bool live = std::any_of(cg.params.begin(), cg.params.end(), [&](const auto& p) { return p.second.impl() == f.tensor.impl(); });
    if (arg >= 0 || live) cg.flag_sets.push_back({arg, arg >= 0 ? Tensor() : f.tensor, f.requires_grad});
  }
  cg.problems = cap.problems();
  if (!cg.problems.empty()) return cg;
  cg.graph = cg.captured;
  if (!gm.pipeline.empty()) cg.records = graph::run_pipeline(cg.graph, gm.pipeline, pipeline_options(gm)).records;
  return cg;
}

// Whether an automatic module's capture problems are all branches on a tensor's value,
// which lowering (script mode) records as cond and while_loop nodes.
bool lowerable(const GraphModule& gm, const std::vector<graph::CaptureProblem>& problems) {
  if (gm.mode != CaptureMode::automatic || gm.script) return false;
  for (const graph::CaptureProblem& p : problems)
    if (p.what.rfind("a condition on its value", 0) != 0 && !number_read(p.what)) return false;
  return true;
}

CompiledGraph& graph_for(Evaluator& ev, GraphModule& gm, const std::vector<Value>& args) {
  Guards now = guards_of(ev, gm, args);
  for (size_t k = 0; k < gm.graphs.size(); ++k)
    if (mismatch(gm, gm.graphs[k].guards, now).empty() && bound_changed(gm.graphs[k]).empty()) {
      gm.last_used = k;
      return gm.graphs[k];
    }
  std::string why = gm.graphs.empty() ? "first call" : mismatch(gm, gm.graphs[gm.last_used].guards, now);
  if (why.empty()) why = bound_changed(gm.graphs[gm.last_used]);
  std::string where = gm.graphs.empty() ? std::string() : current_origin();
  log_capture(gm, where, why);  // Note [Captures at every call]
  if (gm.graphs.size() == kMaxGraphs) {
    gm.graphs.erase(gm.graphs.begin());  // the oldest goes
    gm.log.back() += " (cache full: dropped the oldest graph)";
  }
  // A call with more arguments than the examples (a defaulted parameter given) names
  // them too: the capture binds each tensor argument by name, explain() lists them.
  if (args.size() > gm.arg_names.size()) gm.arg_names = param_names(gm.fn, args.size());
  CompiledGraph cg = capture(ev, gm, args);
  if (!cg.problems.empty() && lowerable(gm, cg.problems)) {
    // Note [Lowering on a traced branch]: the trace met an if or while on a tensor's
    // value; capture again with the language's control flow lowered, as mode="script"
    // does, and keep lowering for this module's later captures.
    gm.script = true;
    gm.log.back() += "; an if or while on a tensor at " + cg.problems[0].origin +
                     ": captured again with control flow lowered (mode=\"script\")";
    cg = capture(ev, gm, args);
  }
  if (!cg.problems.empty()) throw Error(problems_text(cg.problems));
  gm.graphs.push_back(std::move(cg));
  gm.graphs.back().replay.enabled = gm.cuda_graph;
  gm.last_used = gm.graphs.size() - 1;
  return gm.graphs.back();
}

// The executor's arguments: each non-constant graph input, by name.
TensorList graph_args(const CompiledGraph& cg, const std::vector<Value>& args) {
  TensorList tensor_args;
  for (const Value& a : args)
    if (a.tag == Tag::Tensor) tensor_args.push_back(a.t);
  TensorList out;
  for (int id : cg.graph.inputs) {
    const graph::Value& v = cg.graph.value(id);
    if (v.kind == graph::ValueKind::constant) continue;
    bool found = false;
    for (size_t k = 0; k < cg.input_names.size() && !found; ++k)
      if (v.kind == graph::ValueKind::input && cg.input_names[k] == v.name) {
        out.push_back(tensor_args[k]);
        found = true;
      }
    for (size_t k = 0; k < cg.params.size() && !found; ++k)
      if (v.kind == graph::ValueKind::param && cg.params[k].first == v.name) {
        out.push_back(cg.params[k].second);
        found = true;
      }
    if (!found) throw Error("graph module: no value for graph input %" + v.name);
  }
  return out;
}

// Note [Arguments that require grad in a training step]
// compile(step, x, w, train=true) is step(x, w).backward() in one graph: a tensor
// argument that requires grad gets its gradient as eager's backward would give it, not
// only the parameters (that gradient was silently missing). The graph outputs the
// gradient with respect to the argument, and the call hands it to backward() from the
// argument: a leaf's .grad accumulates it, a tensor computed outside the call passes it
// on to what it was computed from. Whether an argument requires grad is part of its
// guard, so a call where that changed captures again. With optimizer=, the optimizer
// steps its own parameters only, as opt.step() would.

// Note [Gradients through an inference graph]
// An inference graph's run records no autograd and knows no function transform, so its
// results are constants to a backward() or a transform around the call. For the
// module's parameters that is the contract of an inference graph (its results carry
// no gradient; a training step compiles with train=true, whose graph holds the
// backward). But a tensor argument that requires a gradient while grad mode is on
// (x.requires_grad_()) asks for the gradient of this call, which would silently be
// missing, and inside grad(), jvp(), vmap() or their kin the call's results would drop
// the tangents or lose the batch. So such a call runs the function itself, eagerly,
// with eager's gradients, tangents and batching, and gm.explain() says so once, with
// the reason. So does a call inside a capture (Note [A graph module called inside a capture]).
std::string eager_reason(const GraphModule& gm, const std::vector<Value>& args) {
  if (op_observer() && gm.train)
    fail("a training step compiled with train=true is called while compile() records another function: the outer "
         "graph cannot record its gradients and optimizer step; call it outside, or call its function inside");
  if (op_observer()) return "it is called while compile() records another function, which records its ops";
  if (gm.train) return "";
  if (transforms::any_level_visible()) return "it is called inside grad(), jvp(), vmap() or another transform";
  if (!grad_enabled()) return "";
  for (size_t k = 0; k < args.size(); ++k)
    if (args[k].tag == Tag::Tensor && args[k].t.requires_grad())
      return "argument '" + (k < gm.arg_names.size() ? gm.arg_names[k] : std::to_string(k)) + "' requires grad";
  return "";
}

Value call_graph(Evaluator& ev, GraphModule& gm, const std::vector<Value>& args) {
  if (std::string why = eager_reason(gm, args); !why.empty()) {
    if (!gm.ran_eagerly)
      gm.log.push_back("call at " + current_origin() + " ran eagerly: " + why + ", and an inference graph's results " +
                       "carry no gradient, tangent or batch (Note [Gradients through an inference graph])");
    gm.ran_eagerly = true;
    CallArgs call;
    call.pos = args;
    return ev.call_value(gm.fn, call);
  }
  CompiledGraph& cg = graph_for(ev, gm, args);
  note_reads(cg.guards.reads);  // a capture around this call depends on them too
  // An argument the function makes require grad asks for this call's gradient: eagerly,
  // as one that required it before (Note [Gradients through an inference graph]).
  if (set_flags_again(cg, args) && !eager_reason(gm, args).empty()) return call_graph(ev, gm, args);
  if (gm.step) gm.step->refresh(ev);  // a scheduler's learning rates
  TensorList outs = graph::run_replayed(cg.graph, graph_args(cg, args), cg.replay);
  for (size_t k = 0; k < cg.grad_targets.size(); ++k) {
    const Tensor& g = outs[cg.forward_outputs + k];
    int reach = cg.grad_reach[k];  // Note [Gradients a lowered branch may not reach]
    if (reach >= 0 && outs[static_cast<size_t>(reach)].item() == 0.0) continue;
    if (cg.grad_args[k] >= 0) {  // Note [Arguments that require grad in a training step]
      backward({args[static_cast<size_t>(cg.grad_args[k])].t}, {g}, false, false);
      continue;
    }
    Tensor p = cg.grad_targets[k];
    Tensor old = p.grad();
    p.set_grad(old.defined() ? add(old, g) : g);  // accumulates, as backward() does
  }
  // Note [The step's zero_grad]
  // A call with optimizer= is opt.zero_grad(), loss.backward(), opt.step(), but its
  // gradients stay inside the graph (Note [The optimizer inside the graph]). A .grad
  // left from an earlier eager step would then silently read as this step's, and a
  // clip_grad_norm_ or an eager opt.step() after the call would use it; the call
  // clears it, as zero_grad() does, so reading it fails loudly instead.
  for (Tensor& p : cg.stepped) p.set_grad(Tensor());
  outs.resize(cg.forward_outputs);
  size_t next = 0;
  return nest_outputs(cg.output_tree, outs, next);
}

}  // namespace

std::string optimize_graph(GraphModule& gm, const std::string& spec, bool explain) {
  graph::PipelineOptions opt = pipeline_options(gm);
  opt.explain = explain;
  gm.pipeline = graph::parse_pipeline(spec);
  std::string report;
  for (CompiledGraph& cg : gm.graphs) {
    cg.graph = cg.captured;
    cg.records = graph::run_pipeline(cg.graph, gm.pipeline, opt).records;
    cg.replay = graph::Replay{};  // a recording of the graph before these passes does not fit
    cg.replay.enabled = gm.cuda_graph;
    report = graph::format_records(cg.records);
  }
  return report;
}

// A drawing to `path`, or without one (none) to the notebook (Note [Display]).
static void draw_to(Evaluator& ev, const std::string& dot, const Value& path, const std::string& what) {
  if (!path.is_none()) return viz::render(dot, as_path(path, what.substr(0, what.find('('))));
  require_notebook(ev, what);
  display_svg(ev, viz::render_data(dot, "svg"), what);
}

namespace {

// The object that compile() returns; graph_module_of finds gm behind it.
struct GraphModuleObj : ObjectObj {
  std::shared_ptr<GraphModule> gm;
  // The compiled function and model are this object's references too: a graph
  // module kept in the module that defines its function is a cycle (Note
  // [Reference cycles] in cycles.hpp). Sound because gm has no other wrapper
  // (graph_module_value makes one per compile), so no one else reports them.
  void visit_references(RefVisitor& v) const override {
    ObjectObj::visit_references(v);
    v.visit(gm->fn);
    v.visit(gm->model);
  }
  void release_references(Graveyard& g) override {
    ObjectObj::release_references(g);
    g.take(gm->fn);
    g.take(gm->model);
  }
};

}  // namespace

std::shared_ptr<GraphModule> graph_module_of(const Value& v) {
  if (v.tag != Tag::Object) return nullptr;
  auto* obj = dynamic_cast<GraphModuleObj*>(v.as<Obj>());
  return obj ? obj->gm : nullptr;
}

Value graph_module_value(std::shared_ptr<GraphModule> gm) {
  auto obj = std::make_shared<GraphModuleObj>();
  obj->gm = gm;
  obj->type_name = "graph module";
  obj->describe = [gm] { return describe_graph_module(*gm); };
  obj->methods["__call__"] = [gm](Evaluator& ev, CallArgs& a) {
    std::vector<Value> args(a.pos.begin() + 1, a.pos.end());
    if (!a.kw.empty())
      fail("graph module: keyword argument '" + a.kw.front().first +
           "' is not taken: a graph module is called with its arguments by position, in the order the function "
           "declares them");
    return call_graph(ev, *gm, args);
  };
  obj->methods["optimize"] = [gm](Evaluator&, CallArgs& a) {
    Bound b = bind("optimize", a, {"self", "passes", "explain"}, 1);
    std::string spec = b.has(1) ? str(b[1]) : "default";
    return make_report(optimize_graph(*gm, spec, b.has(2) && as_bool(b[2], "optimize(): explain")));
  };
  obj->methods["ir"] = [gm](Evaluator&, CallArgs& a) {
    Bound b = bind("ir", a, {"self", "captured"}, 1);
    return make_str(graph_ir(*gm, b.has(1) && as_bool(b[1], "ir(): captured")));
  };
  // gm.memory_plan(): the figures of the memory plan (see memory_plan_of).
  obj->methods["memory_plan"] = [gm](Evaluator&, CallArgs& a) {
    bind("memory_plan", a, {"self"}, 1);
    graph::MemoryPlan p = memory_plan_of(*gm, "memory_plan()");
    auto d = std::make_shared<DictObj>();
    d->set(make_str("naive_bytes"), Value::integer(p.naive_bytes));
    d->set(make_str("planned_bytes"), Value::integer(p.arena_bytes));
    d->set(make_str("inplace"), Value::integer(p.in_place));
    d->set(make_str("slots"), Value::integer(static_cast<int64_t>(p.slots.size())));
    d->set(make_str("buffers"), Value::integer(static_cast<int64_t>(p.buffers.size())));
    d->set(make_str("last_use_peak_bytes"), Value::integer(p.last_use_peak_bytes));
    // How many buffers (the arena, the results) the last call allocated instead of
    // taking the previous call's (Note [Buffers kept between runs]).
    size_t run_allocations = gm->graphs.at(gm->last_used).replay.kept.allocated;
    d->set(make_str("run_allocations"), Value::integer(static_cast<int64_t>(run_allocations)));
    d->set(make_str("regions"), region_plan_list(gm->graphs.at(gm->last_used).graph));
    return Value::object(Tag::Dict, d);
  };
  // gm.render(path): the optimized graph (.svg, .png or .dot); before_after="fuse"
  // draws the graph just before and after that pass of the pipeline, changes marked;
  // memory=true draws the memory plan instead (viz::memory_plan_dot). Without a path,
  // in a notebook: shown there as SVG.
  obj->methods["render"] = [gm](Evaluator& ev, CallArgs& a) {
    Bound b = bind("render", a, {"self", "path", "before_after", "memory"}, 1);
    if (b.has(1)) ev.check_sandbox("render()");  // a notebook's drawing writes no file
    bool memory = b.has(3) && as_bool(b[3], "render(): memory");
    std::string dot = memory ? memory_plan_drawing(*gm) : graph_drawing(*gm, b.has(2) ? str(b[2]) : std::string());
    draw_to(ev, dot, b[1], "gm.render()");
    return Value();
  };
  // gm.cost(): FLOPs, bytes and roofline of each node (interp/builtins/graph_cost.cpp).
  obj->methods["cost"] = [gm](Evaluator&, CallArgs& a) { return graph_cost_method(*gm, a); };
  // gm.export_onnx(path): the graph in use as an ONNX model (graph/onnx/export.hpp).
  obj->methods["export_onnx"] = [gm](Evaluator& ev, CallArgs& a) {
    ev.check_sandbox("export_onnx()");
    Bound b = bind("export_onnx", a, {"self", "path"}, 2);
    export_graph_onnx(*gm, as_path(b[1], "export_onnx"));
    return Value();
  };
  obj->methods["explain"] = [gm](Evaluator&, CallArgs& a) {
    bind("explain", a, {"self"}, 1);
    return make_report(explain_graph(*gm));
  };
  return Value::object(Tag::Object, obj);
}

std::shared_ptr<GraphModule> compile_graph(Evaluator& ev, const Value& fn, const std::vector<Value>& examples,
                                           const CompileOptions& options) {
  auto gm = std::make_shared<GraphModule>();
  gm->fn = fn;
  if (fn.tag == Tag::Instance) gm->model = fn;
  gm->train = options.train;
  gm->mode = options.mode;
  gm->script = options.mode == CaptureMode::script;
  gm->cuda_graph = options.cuda_graph;
  gm->loop_saving = options.loop_saving;
  if (!options.optimizer.is_none()) gm->step = std::make_unique<GraphStep>(ev, options.optimizer, options.scaler);
  gm->arg_names = param_names(fn, examples.size());
  gm->name = fn.tag == Tag::Func       ? fn.as<FuncObj>()->qualname
             : fn.tag == Tag::Instance ? fn.as<InstanceObj>()->cls->decl->name
                                       : std::string("graph");
  if (gm->name.empty()) gm->name = "lambda";
  graph_for(ev, *gm, examples);
  return gm;
}

namespace {

Value compile_builtin(Evaluator& ev, CallArgs& a) {
  if (a.pos.empty()) fail("compile(): expected a function or a model, then example inputs");
  // Anything else failed at its first call ("'int' object is not callable").
  switch (a.pos[0].tag) {
    case Tag::Func: case Tag::Native: case Tag::Bound: case Tag::Instance: case Tag::Object: case Tag::FnClass:
    case Tag::ModelClass: break;
    default: fail(std::string("compile(): expected a function or a model as the first argument, got ") + type_name(a.pos[0]));
  }
  std::vector<Value> examples(a.pos.begin() + 1, a.pos.end());
  check_examples_given(a.pos[0], examples.size());
  return graph_module_value(compile_graph(ev, a.pos[0], examples, compile_options(a.kw)));
}

// render_autograd(t, path): the eager autograd graph behind t (or a list of tensors),
// double-backward graphs included; without a path, in a notebook, shown there.
Value render_autograd_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("render_autograd", a, {"tensors", "path"}, 1);
  if (b.has(1)) ev.check_sandbox("render_autograd()");  // a notebook's drawing writes no file
  TensorList roots;
  if (b[0].tag == Tag::Tensor) {
    roots.push_back(b[0].t);
  } else if (b[0].tag == Tag::List || b[0].tag == Tag::Tuple) {
    const auto& items = b[0].as<ListObj>()->items;
    for (size_t k = 0; k < items.size(); ++k)
      roots.push_back(as_tensor(items[k], "render_autograd(): argument 'tensors'[" + std::to_string(k) + "]"));
  } else {
    fail(std::string("render_autograd(): argument 'tensors' must be a tensor or a list of tensors, got ") +
         type_name(b[0]));
  }
  draw_to(ev, viz::autograd_dot(roots), b[1], "render_autograd()");
  return Value();
}

// export_onnx(model_or_fn, example_inputs, path): compile for inference on the example
// inputs (a tensor or a list of them), run the default passes (BatchNorm folds into
// its conv), write the graph as ONNX.
Value export_onnx_builtin(Evaluator& ev, CallArgs& a) {
  ev.check_sandbox("export_onnx()");
  Bound b = bind("export_onnx", a, {"model_or_fn", "example_inputs", "path"}, 3);
  std::vector<Value> examples;
  if (b[1].tag == Tag::List || b[1].tag == Tag::Tuple) examples = b[1].as<ListObj>()->items;
  else if (b[1].tag == Tag::Tensor) examples = {b[1]};
  else fail(std::string("export_onnx(): example_inputs must be a tensor or a list of inputs, got ") + type_name(b[1]));
  std::string path = as_path(b[2], "export_onnx");
  TrainingFlags restore(b[0]);
  if (b[0].tag == Tag::Instance) {
    CallArgs none;
    ev.call_method(b[0], "eval", none);
  }
  std::shared_ptr<GraphModule> gm = compile_graph(ev, b[0], examples, CompileOptions{});
  optimize_graph(*gm, "default", false);
  export_graph_onnx(*gm, path);
  return Value();
}

// graphviz_available(): whether this nabla lays drawings out (.svg, .png); a build
// without Graphviz (NABLA_GRAPHVIZ=OFF) writes .dot only. Tests that read SVG ask.
Value graphviz_available_builtin(Evaluator&, CallArgs& a) {
  bind("graphviz_available", a, {}, 0);
  return Value::boolean(viz::graphviz_available());
}

// is_compiling(): whether compile() is recording the code that runs now (as
// torch.compiler.is_compiling()): code with effects a graph cannot record (FSDP's
// hooks and freed bytes) takes a path made of ops instead.
Value is_compiling_builtin(Evaluator&, CallArgs& a) {
  bind("is_compiling", a, {}, 0);
  return Value::boolean(op_observer() != nullptr);
}

const BuiltinEntry kGraphBuiltins[] = {
    {"compile", compile_builtin,
     "compile(fn_or_model, *example_inputs, train=false, mode=\"auto\", cuda_graph=true, loop_checkpoint=\"auto\", "
     "optimizer=none, scaler=none)",
     "Records fn on the example inputs into a graph module (optimize(), ir(), render(), cost(); called like fn); "
     "mode=\"script\" lowers if/while on tensors and for over ranges or tensors to cond, while_loop and scan nodes "
     "(train=true differentiates through them), \"auto\" traces and lowers when the trace meets an if or while on a "
     "tensor, \"trace\" only traces. "
     "On a GPU, runs from the third on replay as one CUDA graph launch (cuda_graph=false: launch each kernel). "
     "loop_checkpoint: what a lowered loop of a training step saves per step for its backward: \"auto\" (costly "
     "results; cheap ops are recomputed), \"none\" (everything) or \"full\" (only the carry; the step is "
     "recomputed). optimizer=opt (with train=true; scaler= a GradScaler): each call also runs opt.step() on the "
     "gradients, inside the graph. Example: let gm = compile(nn.Linear(784, 10), randn(8, 784))"},
    {"render_autograd", render_autograd_builtin, "render_autograd(tensors, path=none)",
     "Draws the autograd graph behind a tensor (or a list of them) to a .dot, .svg or .png file; without a path, "
     "in a notebook, shows it there. "
     "Example: render_autograd((randn(3, requires_grad=true) * 2).sum(), \"loss.dot\")"},
    {"export_onnx", export_onnx_builtin, "export_onnx(model_or_fn, example_inputs, path)",
     "Writes the model (in eval mode) or function, compiled on the example inputs with the default passes, as an ONNX "
     "model (opset 17) for ONNX Runtime or Netron; gm.export_onnx(path) writes a graph module. "
     "Example: export_onnx(nn.Linear(784, 10), randn(1, 784), \"linear.onnx\")"},
    {"is_compiling", is_compiling_builtin, "is_compiling()",
     "Whether compile() is recording the code that runs now (torch.compiler.is_compiling()). Example: "
     "is_compiling()"},
    {"graphviz_available", graphviz_available_builtin, "graphviz_available()",
     "Whether this nabla lays drawings out as .svg and .png (without Graphviz, .dot only). Example: "
     "graphviz_available()"},
};

}  // namespace

const BuiltinLibrary kGraphLibrary = {"graph", nullptr, kGraphBuiltins, nullptr};

}  // namespace nabla::interp
