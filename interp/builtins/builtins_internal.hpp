// Internal to the builtins (builtins*.cpp, operators.cpp, formatting.cpp,
// indexing.cpp, container_methods.cpp): argument binding and conversions, the ops by
// name, and the libraries (Note [Builtin tables] in builtin_table.hpp) that
// install_builtins (builtins.cpp) installs. The evaluator and the REPL use
// evaluator.hpp; this header must not be included outside these files.
#pragma once
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "autograd/op_table.hpp"
#include "interp/builtins/builtin_table.hpp"
#include "interp/eval/evaluator.hpp"
#include "tensor/small_vec.hpp"

namespace nabla::interp {

// ---- argument binding (builtins_args.cpp) ---------------------------------------------

// Binds positional and keyword arguments to `names` (the first `required` must be
// given). Missing optional arguments are none, with given[k] false.
struct Bound {
  std::vector<Value> v;
  SmallVec<bool, 16> given;  // inline: bind runs at every builtin call, and a vector<bool> was a malloc
  const Value& operator[](size_t k) const { return v[k]; }
  bool has(size_t k) const { return given[k] && !v[k].is_none(); }
};

Bound bind_named(std::string_view fname, CallArgs& a, std::initializer_list<const char*> names, size_t required);
// Two overloads, not one of std::string_view: a caller passing a std::string and a
// named initializer_list would find std::bind (by ADL) as the better match.
inline Bound bind(const char* fname, CallArgs& a, std::initializer_list<const char*> names, size_t required) {
  return bind_named(fname, a, names, required);
}
inline Bound bind(const std::string& fname, CallArgs& a, std::initializer_list<const char*> names, size_t required) {
  return bind_named(fname, a, names, required);
}
// PyTorch's name for a NumPy keyword (axis -> dim, keepdims -> keepdim), or null (Note [NumPy's keyword names]).
const char* pytorch_keyword(const std::string& key);
// key, or PyTorch's name for it when valid (a builtin's keywords) lacks key.
std::string pytorch_keyword(const std::string& key, const std::vector<std::string>& valid);
int64_t as_int(const Value& v, const std::string& what);  // a bool refused, as PyTorch's int arguments
int64_t as_python_int(const Value& v, const std::string& what);  // a bool is 0 or 1, as Python's range() reads it
// A whole double as an int64; an error naming `what` when it is infinite, NaN or
// past the 64-bit range (a plain cast would be undefined behaviour there).
int64_t int_from_double(double d, const std::string& what);
double as_num(const Value& v, const std::string& what);
bool as_bool(const Value& v, const std::string& what);
// The builtin sorted(iterable, key=none, reverse=false) (builtins_python.cpp), which
// list.sort() runs too.
Value sorted_builtin(Evaluator& ev, CallArgs& a);
const Tensor& as_tensor(const Value& v, const std::string& what);
std::string as_path(const Value& v, const std::string& fname);  // fname "save": "save(): path: expected a str, got int"
std::vector<int64_t> as_ints(const Value& v, const std::string& what);
// The numbers of a tensor (any shape, flattened; any dtype or device) or of a list or
// tuple of numbers (as as_num takes each); else "<what>: expected a tensor or a list of
// numbers, got ..." (plot's series, TensorBoard's histograms).
std::vector<double> as_numbers(const Value& v, const std::string& what);
DType as_dtype(const Value& v, const std::string& what);
// The dtype names a program may write: nabla's short ones and PyTorch's (float32, int16,
// long, double, half, ...), and as a str also "torch.int16" and "bool" (builtins_args.cpp).
const std::vector<std::pair<const char*, DType>>& dtype_aliases();
bool dtype_from_user_name(const std::string& name, DType* out);
// Shape given as a list/tuple or as varargs starting at pos[start].
std::vector<int64_t> shape_args(const std::vector<Value>& pos, size_t start, const std::string& fname);
Value tuple_of(const TensorList& ts);
// A tensor, or a list or tuple of tensors (none entries stay undefined), as a TensorList.
TensorList tensor_list_arg(const Value& v, const std::string& what);
Tensor tensor_from_value(const Value& v, std::optional<DType> dtype);
// PyTorch's alpha_check for add, sub and rsub: no float alpha with integer operands, no
// bool alpha but with bool ones (builtins_args.cpp).
void check_alpha_kind(const Tensor& x, const Value& other, const Value& alpha, const char* fname);
// cat's op call under its legacy rule (PyTorch's): 1-D empty tensors beside others are
// left out, the result keeps the dtype all of them promote to, and errors name the
// user's positions (Note [Empty tensors in cat], builtins_args.cpp).
TensorList call_cat(const TensorList& inputs, const Attrs& attrs);
Tensor clone_tensor(const Tensor& x);  // x.clone(): an op wherever a capture or autograd sees it
// A number (an int, float or bool, or a one-element tensor) that a fill stores into
// dtype (full, fill_, masked_fill, x[i] = v, ...): an error naming `what` when dtype
// cannot hold it (Note [A number into a dtype]); floats false checks integer dtypes only.
void check_fits_dtype(const Value& v, DType dtype, const std::string& what, bool floats = true);
// That number as a checked 0-dim tensor of dtype, an int exactly.
Tensor fill_scalar(const Value& v, DType dtype, const std::string& what);
// A new tensor of shape, dtype and device filled with that number, checked and exact.
Tensor filled_tensor(const Shape& shape, const Value& v, DType dtype, Device device, const std::string& what);
Value tolist(const Tensor& t);

// ---- images (builtins_data.cpp) -------------------------------------------------------

// Whether t is an image for data.save_image and display(x): [H, W] or [C, H, W], C 1 or 3.
bool is_image_tensor(const Tensor& t);
// The PNG file's bytes of an image tensor (8-bit; floats clamped to [0, 1] and
// scaled, integers clamped to 0..255; NaN black).
std::string image_tensor_png(const Tensor& t);

// ---- ops by name (builtins_ops.cpp) ---------------------------------------------------

using Fn = std::function<Value(Evaluator&, CallArgs&)>;
// Every op by name: the generic call of its row, or its function in op_conventions()
// (builtin_table.hpp). Built on first use.
const std::unordered_map<std::string, Fn>& op_functions();
// The functions of `table` that take PyTorch's inplace= get it (inplace_args.cpp).
void add_inplace_args(std::unordered_map<std::string, Fn>& table);
std::string op_signature(const OpDef& row);  // "conv2d(input, weight, bias=none, stride=[1, 1], ...)"
std::string op_doc(const OpDef& row);        // the row's doc: a sentence, then "Example: ..."
// The doc of an op_conventions() entry: its own, or (for an op of the table) its row's.
std::string convention_doc(const BuiltinEntry& entry);
void install_op_builtins(Evaluator& ev);     // every op as a global builtin
// A tensor argument (a number or a list becomes one). none gives an undefined tensor,
// which a row reads as a missing optional input (a bias); required_input_of refuses
// it instead, for every caller that reads the tensor itself (a matmul of none was
// SIGSEGV).
Tensor input_of(const Value& v, const std::string& fname, const std::string& arg);
Tensor required_input_of(const Value& v, const std::string& fname, const std::string& arg);
// The generic call of the row `name` (tensor inputs, then its attributes), under any
// convention of op_functions().
Value row_call(const char* name, CallArgs& a);
// fill_conventions.cpp: clamp and masked_fill, whose numbers are checked against the
// input's dtype and keep an integer input's dtype (Note [A number into a dtype]).
Value clamp_builtin(Evaluator&, CallArgs& a);
Value clip_builtin(Evaluator&, CallArgs& a);  // clamp's alias, its errors named clip
Value masked_fill_builtin(Evaluator&, CallArgs& a);
// conv_conventions.cpp: the convolutions' PyTorch conventions (padding "same" and
// "valid", an input without its batch dim).
Value conv1d_builtin(Evaluator&, CallArgs& a);
Value conv2d_builtin(Evaluator&, CallArgs& a);
Value conv3d_builtin(Evaluator&, CallArgs& a);
Value conv_transpose1d_builtin(Evaluator&, CallArgs& a);
Value conv_transpose2d_builtin(Evaluator&, CallArgs& a);
// The pools' row called on an input with or without its batch dim (`spatial` + 1 dims).
Value pool_unbatched_or_row(const char* fname, size_t spatial, CallArgs& a);
Value avg_pool1d_builtin(Evaluator&, CallArgs& a);
Value avg_pool2d_builtin(Evaluator&, CallArgs& a);
Value adaptive_avg_pool1d_builtin(Evaluator&, CallArgs& a);
Value adaptive_avg_pool2d_builtin(Evaluator&, CallArgs& a);
// loss_conventions.cpp: the classification losses' PyTorch arguments (class weights,
// probability targets, pos_weight).
Value cross_entropy_builtin(Evaluator&, CallArgs& a);
Value nll_loss_builtin(Evaluator&, CallArgs& a);
Value binary_cross_entropy_builtin(Evaluator&, CallArgs& a);
Value binary_cross_entropy_with_logits_builtin(Evaluator&, CallArgs& a);
Value ctc_loss_entry(Evaluator&, CallArgs& a);  // a composite of rows, not a row's convention

// ---- the libraries (one per builtins_*.cpp; the list is builtins.cpp's) -----------------------

void install_function(Evaluator& ev, const std::string& name, Fn fn);  // add or replace a builtin
extern const BuiltinLibrary kPythonLibrary;      // builtins_python.cpp: print, len, str, range, sorted, ...
extern const BuiltinLibrary kNumberLibrary;      // builtins_numbers.cpp: int, float, abs, max, round, pow, ...
extern const BuiltinLibrary kSystemLibrary;      // builtins_system.cpp: env, read_text
extern const BuiltinLibrary kFactoryLibrary;     // builtins_factories.cpp: tensor, zeros, randn, arange, dtypes
extern const BuiltinLibrary kFuncLibrary;        // builtins_func.cpp: grad(f), vjp, jvp, jacrev, vmap, ...
extern const BuiltinLibrary kFuncModule;         // the same rows as the native module `func`
// grad(f, argnums=0, has_aux=false): the function form of grad (builtins_func.cpp),
// for the grad builtin when its first argument is a function.
Value grad_of_function(Evaluator& ev, CallArgs& a);
bool is_callable_value(const Value& v);
extern const BuiltinLibrary kAutogradLibrary;    // builtins_autograd.cpp: grad, backward, gradcheck
extern const BuiltinLibrary kTestLibrary;        // builtins_test.cpp: expect, expect_close, expect_error
extern const BuiltinLibrary kCheckpointLibrary;  // builtins_checkpoint.cpp: save, load, load_metadata
extern const BuiltinLibrary kOptimLibrary;       // builtins_optim.cpp: the fused Adam step
extern const BuiltinLibrary kMemoryLibrary;      // builtins_memory.cpp: allocator statistics
extern const BuiltinLibrary kModelLibrary;       // builtins_models.cpp: deepcopy, delattr
extern const BuiltinLibrary kProfileLibrary;     // builtins_profile.cpp: last_profile()
extern const BuiltinLibrary kGraphLibrary;       // builtins_graph.cpp: compile() and graph modules
extern const BuiltinLibrary kHelpLibrary;        // builtins_help.cpp: help(x)
extern const BuiltinLibrary kMathLibrary;        // builtins_math.cpp: the `math` module
extern const BuiltinLibrary kTimeLibrary;        // builtins_time.cpp: the `time` module
extern const BuiltinLibrary kCudaLibrary;        // builtins_cuda.cpp: the `cuda` module
extern const BuiltinLibrary kDistLibrary;        // builtins_dist.cpp: the `_dist` module behind `import dist`
extern const BuiltinLibrary kDataLibrary;        // builtins_data.cpp: the `_data` module behind `import data`
extern const BuiltinLibrary kLogLibrary;         // interp/log/builtins_log.cpp: the `_log` module behind `import log`
extern const BuiltinLibrary kGeneratorLibrary;   // builtins_generator.cpp: Generator
extern const BuiltinLibrary kIterLibrary;        // builtins_iter.cpp: iter, next
// An iterator from iter(): its items not yet taken into out, the iterator used up; false for any other value.
bool drain_iterator(const Value& v, std::vector<Value>& out);

// The `generator=` keyword of a random builtin (Note [A Generator is a saved state]):
// taken out of the call's keywords; while the scope lives the global generator holds
// the Generator's state, and at its end the Generator keeps where its draws got to.
class GeneratorScope {
 public:
  GeneratorScope(CallArgs& a, const char* who);
  ~GeneratorScope();
  GeneratorScope(const GeneratorScope&) = delete;
  GeneratorScope& operator=(const GeneratorScope&) = delete;

 private:
  Value held_;
  ObjectObj* generator_ = nullptr;
  uint64_t saved_ = 0;
};
extern const BuiltinLibrary kPlotLibrary;        // builtins_plot.cpp: the `plot` module (figures, SVG, PNG)
extern const BuiltinLibrary kNnFunctionalLibrary;  // builtins_nn_functional.cpp: stdlib/_nn_functional.dsl's functions as globals
extern const BuiltinLibrary kDisplayLibrary;     // builtins_display.cpp: display(x) for notebooks

// ---- values (operators.cpp, indexing.cpp) ------------------------------------------------

// Three-way comparison for ordering (sorted, min, max); `what` names the builtin in
// the errors of a list that holds itself or nests too deeply.
int compare_for_sort(const Value& a, const Value& b, const char* what = "sorted()");
inline int64_t int_of(const Value& v) { return v.tag == Tag::Int ? v.i : v.b ? 1 : 0; }
int64_t index_int(const Value& v, const char* what);
int64_t wrap_index(int64_t i, int64_t n, const char* what);

}  // namespace nabla::interp
