// Autograd builtins that wrap library entry points: gradcheck and gradgradcheck on a DSL function
// (nabla::gradcheck does the work). grad() is registered in builtins.cpp and hooks
// are tensor methods (builtins_tensor.cpp).
#include "autograd/gradcheck.hpp"
#include "interp/builtins/builtins_internal.hpp"

namespace nabla::interp {

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
    else fail(name + "() got an unexpected keyword argument '" + k + "'");
  }
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
        ev.output(name + ": warning: input " + std::to_string(k) + " is " + dtype_name(t.dtype()) +
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

}  // namespace

Value gradcheck_builtin(Evaluator& ev, CallArgs& a) { return check_gradients(ev, a, "gradcheck", nabla::gradcheck); }

Value gradgradcheck_builtin(Evaluator& ev, CallArgs& a) {
  return check_gradients(ev, a, "gradgradcheck", nabla::gradgradcheck);
}

}  // namespace nabla::interp
