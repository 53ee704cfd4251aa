// Autograd builtins: grad() and backward() over several tensors (torch.autograd's),
// is_grad_enabled(), and gradcheck and gradgradcheck on a DSL function
// (nabla::gradcheck does the work). Hooks are tensor methods (builtins_tensor.cpp).
// The table at the end is this family's (Note [Builtin tables]).
#include <cmath>
#include <optional>
#include <utility>

#include "autograd/engine.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/gradcheck.hpp"
#include "autograd/trace.hpp"
#include "interp/builtins/builtins_internal.hpp"

namespace nabla::interp {

// Declared in builtins_internal.hpp.
TensorList tensor_list_arg(const Value& v, const std::string& what) {
  TensorList out;
  if (v.tag == Tag::Tensor) {
    out.push_back(v.t);
  } else if (v.tag == Tag::List || v.tag == Tag::Tuple) {
    for (auto& x : v.as<ListObj>()->items) out.push_back(x.tag == Tag::None ? Tensor() : as_tensor(x, what));
  } else {
    fail(what + " must be a tensor or a list of tensors, got " + type_name(v));
  }
  return out;
}

namespace {

using Checker = GradcheckResult (*)(const GradcheckFn&, const TensorList&, const std::vector<size_t>&,
                                    const GradcheckOptions&);

// gradcheck(fn, inputs..., eps=, atol=, rtol=) and gradgradcheck(...): `check`
// (nabla::gradcheck or nabla::gradgradcheck) on a DSL function. Tensor arguments
// that require grad are checked; other arguments are passed as they are. Prints the
// first mismatch and returns false, or returns true.
Value check_gradients(Evaluator& ev, CallArgs& a, const std::string& name, Checker check) {
  if (a.pos.empty()) fail(name + "() missing required argument 'fn'");
  GradcheckOptions opt;
  for (auto& [k, v] : a.kw) {
    if (k == "eps") opt.eps = as_num(v, name + "(): eps");
    else if (k == "atol") opt.atol = as_num(v, name + "(): atol");
    else if (k == "rtol") opt.rtol = as_num(v, name + "(): rtol");
    else fail_unexpected_keyword(name, k, {"eps", "atol", "rtol"});
  }
  // eps 0 or NaN made every numeric derivative NaN and a tolerance below 0 or NaN
  // failed every comparison: a plain `false` that blamed the function's gradients.
  if (!std::isfinite(opt.eps) || opt.eps == 0)
    fail(name + "(): eps must be a finite number other than 0, got " + float_repr(opt.eps));
  for (auto [what, v] : {std::pair{"atol", opt.atol}, std::pair{"rtol", opt.rtol}})
    if (!(v >= 0)) fail(name + "(): " + what + " must be 0 or more, got " + float_repr(v));
  Value fn = a.pos[0];
  std::vector<Value> args(a.pos.begin() + 1, a.pos.end());
  if (args.size() == 1 && (args[0].tag == Tag::List || args[0].tag == Tag::Tuple)) args = args[0].as<ListObj>()->items;
  TensorList tensors;  // the tensor arguments, in order
  std::vector<size_t> positions, which;
  for (size_t k = 0; k < args.size(); ++k) {
    if (args[k].tag != Tag::Tensor) continue;
    const Tensor& t = args[k].t;
    if (t.requires_grad()) {
      if (t.dtype() != DType::f64)
        ev.warning_output(name + ": warning: input " + std::to_string(k) + " is " + dtype_name(t.dtype()) +
                  ", not f64; differences will be imprecise\n");
      which.push_back(tensors.size());
    }
    positions.push_back(k);
    tensors.push_back(t);
  }
  if (which.empty()) fail(name + "(): no input requires grad");
  GradcheckFn f = [&](const TensorList& ts) {
    CallArgs call;
    call.pos = args;
    for (size_t j = 0; j < ts.size(); ++j) call.pos[positions[j]] = Value::tensor(ts[j]);
    Value out = ev.call_value(fn, call);
    TensorList outs;
    if (out.tag == Tag::Tensor) outs.push_back(out.t);
    else if (out.tag == Tag::Tuple || out.tag == Tag::List)
      for (auto& x : out.as<ListObj>()->items)
        if (x.tag == Tag::Tensor) outs.push_back(x.t);
    if (outs.empty()) fail(name + "(): the function must return a tensor, got " + type_name(out));
    return outs;
  };
  GradcheckResult r = check(f, tensors, which, opt);
  if (!r.ok) ev.output(r.message + "\n");
  return Value::boolean(r.ok);
}

Value gradcheck_builtin(Evaluator& ev, CallArgs& a) { return check_gradients(ev, a, "gradcheck", nabla::gradcheck); }

Value gradgradcheck_builtin(Evaluator& ev, CallArgs& a) {
  return check_gradients(ev, a, "gradgradcheck", nabla::gradgradcheck);
}

Value grad_builtin(Evaluator& ev, CallArgs& a) {
  if (!a.pos.empty() && is_callable_value(a.pos[0])) return grad_of_function(ev, a);
  Bound b = bind("grad", a, {"outputs", "inputs", "grad_outputs", "create_graph", "retain_graph", "allow_unused"}, 2);
  TensorList outs = tensor_list_arg(b[0], "grad(): outputs");
  TensorList ins = tensor_list_arg(b[1], "grad(): inputs");
  TensorList gos;
  if (b.has(2)) gos = tensor_list_arg(b[2], "grad(): grad_outputs");
  bool create = b.has(3) && as_bool(b[3], "grad(): create_graph");
  std::optional<bool> retain;
  if (b.has(4)) retain = as_bool(b[4], "grad(): retain_graph");
  bool allow_unused = b.has(5) && as_bool(b[5], "grad(): allow_unused");
  TensorList g = grad(outs, ins, gos, retain, create, allow_unused);
  if (b[1].tag == Tag::Tensor) return tensor_value(g[0]);
  std::vector<Value> items;
  for (auto& t : g) items.push_back(tensor_value(t));
  return make_list(std::move(items));
}

// backward(tensors, grad_tensors): torch.autograd.backward, one pass from several
// roots (each with its own output gradient), accumulating into the leaves' .grad.
Value backward_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("backward", a, {"tensors", "grad_tensors", "retain_graph", "create_graph"}, 1);
  TensorList roots = tensor_list_arg(b[0], "backward(): tensors");
  TensorList grads = b.has(1) ? tensor_list_arg(b[1], "backward(): grad_tensors") : TensorList(roots.size());
  if (grads.size() != roots.size())
    fail("backward(): " + std::to_string(roots.size()) + " tensors but " + std::to_string(grads.size()) +
         " grad_tensors");
  bool create = b.has(3) && as_bool(b[3], "backward(): create_graph");
  bool retain = b.has(2) ? as_bool(b[2], "backward(): retain_graph") : create;
  notify_untraced_effect("backward() writes the leaves' .grad");
  nabla::backward(roots, grads, retain, create);
  return Value();
}

Value is_grad_enabled_builtin(Evaluator&, CallArgs& a) {
  bind("is_grad_enabled", a, {}, 0);
  return Value::boolean(grad_enabled());
}

Value is_autocast_enabled_builtin(Evaluator&, CallArgs& a) {
  bind("is_autocast_enabled", a, {}, 0);
  return Value::boolean(autocast_dtype().has_value());
}

// The dtype of the autocast block this code runs in, or none: what nn.checkpoint saves
// to recompute its function under the autocast of its forward, as PyTorch's.
Value autocast_dtype_builtin(Evaluator&, CallArgs& a) {
  bind("autocast_dtype", a, {}, 0);
  std::optional<DType> dt = autocast_dtype();
  return dt ? Value::dtype(*dt) : Value();
}

const BuiltinEntry kAutogradBuiltins[] = {
    {"is_grad_enabled", is_grad_enabled_builtin, "is_grad_enabled()",
     "Whether operations are recorded for autograd here (false inside no_grad { }). Example: is_grad_enabled()"},
    {"is_autocast_enabled", is_autocast_enabled_builtin, "is_autocast_enabled()",
     "Whether this code runs inside an autocast(dtype=...) { } block, as torch.is_autocast_enabled. Example: is_autocast_enabled()"},
    {"autocast_dtype", autocast_dtype_builtin, "autocast_dtype()",
     "The dtype (bf16 or f16) of the autocast block this code runs in, or none outside one (torch.get_autocast_cpu_dtype "
     "where autocast is enabled). Example: autocast(dtype=bf16) { print(autocast_dtype()) }"},
    {"grad", grad_builtin,
     "grad(outputs, inputs, grad_outputs=none, create_graph=false, retain_graph=create_graph, allow_unused=false) "
     "or grad(func, argnums=0, has_aux=false)",
     "The gradients of outputs with respect to inputs, without touching .grad (create_graph: differentiable again); "
     "given a function, the function that returns its gradient, as JAX's grad. "
     "Example: let x = randn(3, requires_grad=true); let (gx,) = grad((x * x).sum(), [x], create_graph=true)"},
    {"backward", backward_builtin,
     "backward(tensors, grad_tensors=none, retain_graph=create_graph, create_graph=false)",
     "One backward pass from several roots, each with its own output gradient, into the leaves' .grad. "
     "Example: let w = randn(3, requires_grad=true); backward([(w * w).sum(), w.sum()])"},
    {"gradcheck", gradcheck_builtin, "gradcheck(fn, *inputs, eps=1e-06, atol=1e-05, rtol=0.001)",
     "Compares fn's gradients with finite differences for the inputs that require grad; prints the first mismatch. "
     "Example: gradcheck(fn(x) = (x * x).sum(), randn(3, dtype=f64, requires_grad=true))"},
    {"gradgradcheck", gradgradcheck_builtin, "gradgradcheck(fn, *inputs, eps=1e-06, atol=1e-05, rtol=0.001)",
     "gradcheck of the gradients themselves (grad of grad). "
     "Example: gradgradcheck(fn(x) = x.tanh().sum(), randn(3, dtype=f64, requires_grad=true))"},
};

}  // namespace

const BuiltinLibrary kAutogradLibrary = {"autograd", nullptr, kAutogradBuiltins, nullptr};

}  // namespace nabla::interp
