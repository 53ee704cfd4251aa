// Internal to the builtins (builtins*.cpp, operators.cpp, formatting.cpp,
// indexing.cpp, container_methods.cpp): argument binding and conversions, the tables
// of ops and tensor methods, and the builtin functions that install_builtins
// (builtins.cpp) registers. The evaluator and the REPL use evaluator.hpp; this
// header must not be included outside these files.
#pragma once
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "autograd/op_table.hpp"
#include "interp/eval/evaluator.hpp"

namespace nabla::interp {

// ---- argument binding (builtins_args.cpp) ---------------------------------------------

// Binds positional and keyword arguments to `names` (the first `required` must be
// given). Missing optional arguments are none, with given[k] false.
struct Bound {
  std::vector<Value> v;
  std::vector<bool> given;
  const Value& operator[](size_t k) const { return v[k]; }
  bool has(size_t k) const { return given[k] && !v[k].is_none(); }
};

Bound bind(const std::string& fname, CallArgs& a, std::initializer_list<const char*> names, size_t required);
int64_t as_int(const Value& v, const std::string& what);
// A whole double as an int64; an error naming `what` when it is infinite, NaN or
// past the 64-bit range (a plain cast would be undefined behaviour there).
int64_t int_from_double(double d, const std::string& what);
double as_num(const Value& v, const std::string& what);
bool as_bool(const Value& v, const std::string& what);
const Tensor& as_tensor(const Value& v, const std::string& what);
std::vector<int64_t> as_ints(const Value& v, const std::string& what);
DType as_dtype(const Value& v, const std::string& what);
// Shape given as a list/tuple or as varargs starting at pos[start].
std::vector<int64_t> shape_args(const std::vector<Value>& pos, size_t start, const std::string& fname);
Value tuple_of(const TensorList& ts);
Tensor tensor_from_value(const Value& v, std::optional<DType> dtype);
Value tolist(const Tensor& t);

// ---- ops by name (builtins_ops.cpp) and tensor methods (builtins_tensor.cpp) ----------

using Fn = std::function<Value(Evaluator&, CallArgs&)>;
std::unordered_map<std::string, Fn>& op_functions();
void install_op_functions();
void install_tensor_methods();
Tensor input_of(const Value& v, const std::string& fname, const std::string& arg);

// ---- builtin functions (builtins_python.cpp, builtins_autograd.cpp, builtins_test.cpp) --

Value len_builtin(Evaluator&, CallArgs& a);
Value range_builtin(Evaluator&, CallArgs& a);
Value extremum_builtin(Evaluator& ev, CallArgs& a, bool is_max);
Value sorted_builtin(Evaluator& ev, CallArgs& a);
Value int_builtin(Evaluator&, CallArgs& a);
Value float_builtin(Evaluator&, CallArgs& a);
Value round_builtin(Evaluator&, CallArgs& a);
Value divmod_builtin(Evaluator&, CallArgs& a);
Value pow_builtin(Evaluator& ev, CallArgs& a, const Fn& tensor_pow);  // tensor_pow: the op table's
std::shared_ptr<Module> math_module(Evaluator& ev);
std::shared_ptr<Module> time_module(Evaluator& ev);
std::shared_ptr<Module> cuda_module(Evaluator& ev);  // builtins_cuda.cpp
Value ord_builtin(Evaluator& ev, CallArgs& a);
Value chr_builtin(Evaluator& ev, CallArgs& a);
Value read_text_builtin(Evaluator& ev, CallArgs& a);
Value gradcheck_builtin(Evaluator& ev, CallArgs& a);
Value gradgradcheck_builtin(Evaluator& ev, CallArgs& a);
Value expect_builtin(Evaluator& ev, CallArgs& a);
Value expect_close_builtin(Evaluator& ev, CallArgs& a);
Value expect_error_builtin(Evaluator& ev, CallArgs& a);
void install_function(Evaluator& ev, const std::string& name, Fn fn);  // add or replace a builtin
void install_checkpoint_builtins(Evaluator& ev);  // save, load (builtins_checkpoint.cpp)
void install_optim_builtins(Evaluator& ev);       // builtins_optim.cpp: the fused Adam step
void install_dist_builtins(Evaluator& ev);        // builtins_dist.cpp: the _dist module behind `import dist`
void install_memory_builtins(Evaluator& ev);      // builtins_memory.cpp: allocator statistics
void install_model_builtins(Evaluator& ev);       // builtins_models.cpp: deepcopy, delattr
void install_profile_builtins(Evaluator& ev);     // builtins_profile.cpp: last_profile()
void install_data_builtins(Evaluator& ev);
void install_graph_builtins(Evaluator& ev);  // builtins_graph.cpp: compile() and graph modules  // builtins_data.cpp: the _data module behind `import data`

// ---- values (operators.cpp, indexing.cpp) ------------------------------------------------

// Three-way comparison for ordering (sorted, min, max); `what` names the builtin in
// the errors of a list that holds itself or nests too deeply.
int compare_for_sort(const Value& a, const Value& b, const char* what = "sorted()");
inline int64_t int_of(const Value& v) { return v.tag == Tag::Int ? v.i : v.b ? 1 : 0; }
int64_t index_int(const Value& v, const char* what);
int64_t wrap_index(int64_t i, int64_t n, const char* what);

}  // namespace nabla::interp
