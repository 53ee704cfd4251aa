// What the function transforms' builtins share (builtins_func.cpp: grad, vjp, jvp,
// hvp and the machinery; builtins_func_jacobians.cpp: jacrev, jacfwd, hessian;
// builtins_func_vmap.cpp: vmap). Internal to those files.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "autograd/transforms/levels.hpp"
#include "interp/builtins/builtins_internal.hpp"

namespace nabla::interp::func {

using transforms::Level;
using transforms::LevelKind;
using transforms::LevelScope;

bool is_function(const Value& v);

// Whether a transform calls its function for reverse mode (grad, vjp, jacrev: a
// transform inside one keeps the graph of its results) or not.
enum class Mode { forward, reverse };
Value call_function(Evaluator& ev, const Value& f, std::vector<Value> pos,
                    std::vector<std::pair<std::string, Value>> kw, Mode mode);

// argnums: an int, or a tuple of ints (then the gradients are a tuple). As functorch's,
// a negative one counts from the last argument: `given` holds them as written, and
// check_argnums resolves them against a call's arguments into `which`.
struct ArgNums {
  std::vector<size_t> which;
  bool tuple = false;
  std::vector<int64_t> given;  // empty: `which` is already resolved
};
// `argnums` resolved for a call with `nargs` positional arguments; an error when one is
// out of range, or when two name the same argument.
ArgNums check_argnums(const ArgNums& argnums, size_t nargs, const std::string& fname);

// A grad-like transform's function and options (grad, value_and_grad, jacrev, ...).
struct GradSpec {
  Value f;
  ArgNums argnums;
  bool has_aux = false;
  std::string name;  // "grad", "jacrev", ...
  // jacfwd's: what random draws do in the vmap over its basis (functorch's jacfwd takes it)
  transforms::Randomness randomness = transforms::Randomness::error;
};
// (func, argnums=0, has_aux=false) of a call of the builtin `fname`.
GradSpec grad_spec(CallArgs& a, const std::string& fname);

// The tensors a reverse-mode transform differentiates: for each argument leaf, the
// physical leaf (requires grad) and the logical tensor the function sees; or, where a
// reverse level differentiates (Note [Reverse levels]), the argument lifted to it,
// which is both. That level is open from differentiate() to function_returned().
struct Differentiated {
  std::vector<Tensor> leaves;   // physical or lifted, requiring grad
  std::vector<Tensor> logical;  // what the function gets
  std::vector<std::pair<uint64_t, int64_t>> levels;
  std::unique_ptr<LevelScope> reverse_scope;
  uint64_t reverse_level = 0;  // 0: the tape differentiates
};
Differentiated differentiate(const std::vector<Tensor>& tensors, const std::string& fname);
// Ends the reverse level (if any) once the function has returned: the backward pass
// runs outside it. What the function returned, as the caller gets it (lifted tensors
// unwrapped; `value` may be any tree).
void function_returned(Differentiated& d);
Value returned_value(const Differentiated& d, const Value& value);
// Whether the gradients must stay differentiable (keep their graph).
bool keep_graph(bool recording, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                const std::vector<Tensor>& leaves);
// Gradients of `outputs` weighted by `cotangents` (undefined: ones) with respect to
// the differentiated leaves, as the function saw them; zeros where unused.
std::vector<Tensor> reverse_pass(const Differentiated& d, const std::vector<Tensor>& outputs,
                                 const std::vector<Tensor>& cotangents, bool keep, const std::string& fname);
// t without its autograd history, keeping its jvp tangents.
Tensor without_history(const Tensor& t);

// The tensor leaves of a function's result; an error naming `fname` when it has none.
std::vector<Tensor> checked_outputs(const Value& out, const std::string& fname);
// The tensor leaves of an input to differentiate (`what`: "argument 0", "primal 1"); an
// error naming it when it holds none, rather than the function's result failing later
// ("the function must return a tensor, got int" for vjp(f, 5)).
std::vector<Tensor> checked_inputs(const Value& v, const std::string& fname, const std::string& what);
// Splits (output, aux) when has_aux.
std::pair<Value, Value> split_aux(const Value& out, bool has_aux, const std::string& fname);
// (outputs, their tangents) of f at primals with tangents, in one forward pass.
std::pair<Value, Value> run_jvp(Evaluator& ev, const Value& f, const std::vector<Value>& primals,
                                const std::vector<Value>& tangents, Value* aux, const std::string& fname);

// The Jacobian builtins (builtins_func_jacobians.cpp).
Value jacrev_builtin(Evaluator& ev, CallArgs& a);
Value jacfwd_builtin(Evaluator& ev, CallArgs& a);
Value hessian_builtin(Evaluator& ev, CallArgs& a);
// vmap (builtins_func_vmap.cpp).
Value vmap_builtin(Evaluator& ev, CallArgs& a);
// randomness= of vmap and jacfwd: "error" (none given), "different" or "same".
transforms::Randomness parse_randomness(const Value& v, const std::string& fname);

}  // namespace nabla::interp::func
