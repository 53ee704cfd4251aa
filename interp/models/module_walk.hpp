// Walking a model's modules: the one way the builtins visit submodules (parameters,
// buffers, state_dict, load_state_dict, zero_grad, train/eval, to, modules, apply,
// compile's guards, print). Reads models only; what a walk's user does with what it
// finds (copying, moving, printing) is the user's. See Note [Module walk].
//
// Note [Module walk]
// A model's fields may point anywhere: a submodule held twice (`a.b = l; a.c = l`),
// a module that holds itself (`r.me = r`) or an ancestor at any distance, models in
// lists, tuples and dicts (nested too, and containers that hold themselves), and a
// tensor held by two modules (tied weights). The walk visits each module once, as
// PyTorch's named_modules does: depth first, fields in order (the items of a
// container field in item order), each module under the first path that reaches it
// ("" for the model itself, "fc", "layers.0.attn"). Tensors are then taken once each,
// under the first name that reaches them. So cycles end, shared modules and tied
// weights count once in parameters(), count_parameters, the totals of print(model)
// and state_dict, and an optimizer never steps a tensor twice. The walk keeps its own
// stack (no recursion), so a chain of a million nested modules is walked too.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "interp/values/value.hpp"

namespace nabla::interp {

// A module the walk reached: the module (an instance), the index of the visit it was
// first reached from (kNoParent for the root) and its name there ("fc", "layers.0").
// The whole path is path_of's: a chain of n nested modules has paths of n^2 bytes in
// all, which only the walks that name things should pay for.
struct ModuleVisit {
  static constexpr size_t kNoParent = static_cast<size_t>(-1);
  Value module;
  size_t parent = kNoParent;
  std::string name;
};

// A set of addresses (modules, containers, tensor bodies) with open addressing: a
// walk inserts one per module and tensor, and a node-based std::unordered_set spent
// most of a big walk's time in malloc.
class AddressSet {
 public:
  // True when p was not in the set yet.
  bool insert(const void* p);
  bool contains(const void* p) const;

 private:
  static size_t slot_of(const void* p, size_t mask);
  void grow();
  std::vector<const void*> slots_;
  size_t size_ = 0;
};

// "a" + "b" -> "a.b"; "" + "b" -> "b".
std::string join_path(const std::string& prefix, const std::string& name);

// The models a model holds directly, in field order, each with its name relative to
// the model: a field holding a model ("fc"), and every model inside a list, tuple or
// dict field, nested containers included ("layers.0", "heads.q", "blocks.1.0").
// `seen_containers` keeps a container from being opened twice (it may hold itself).
void direct_submodules(const InstanceObj& model, std::vector<std::pair<std::string, Value>>& out,
                       AddressSet& seen_containers);
// The same for one field.
void field_submodules(const Field& f, std::vector<std::pair<std::string, Value>>& out, AddressSet& seen_containers);

// The name `child` has among `model`'s direct submodules ("fc1", "layers.0"; the
// first if it has several), or "" when it is not one of them. Stops at the field
// that holds it.
std::string submodule_name(const InstanceObj& model, const InstanceObj& child);

bool is_container(const Value& v);  // a list, tuple or dict
// Whether a container holds a model, at any depth.
bool holds_models(const Value& container);

// Every module under `root` (root first), each once; empty when root is not a model.
std::vector<ModuleVisit> walk_modules(const Value& root);
// The first path of visits[k]: "" for the root, "blocks.0.attn".
std::string path_of(const std::vector<ModuleVisit>& visits, size_t k);

// `state`: the parameters and the persistent buffers, what state_dict() holds.
enum class TensorKinds { parameters, buffers, both, state };
// Whether field f holds a tensor of the kinds asked for.
bool field_wanted(const Field& f, TensorKinds kinds);
// The parameters, buffers or both of every module of walk_modules(root), each tensor
// once, under its first name ("fc.weight"); per module in field order. Without
// `names` the names are left empty (they cost the square of the nesting depth).
std::vector<std::pair<std::string, Tensor>> named_tensors(const Value& root, TensorKinds kinds, bool names = true);
// Tied tensors: for each tensor that more than one module field holds (a weight
// shared by an embedding and an output layer), its first name, as named_tensors
// gives it, and its other names.
std::vector<std::pair<std::string, std::vector<std::string>>> tensor_aliases(const Value& root, TensorKinds kinds);

// The parameter or buffer a dotted key names by following fields from the model
// ("b.weight", "layers.0.bias"), or null: state_dict's names, and every other path
// to a shared module or tied weight (load_state_dict, functional_call).
const Tensor* resolve_key(const Value& model, const std::string& key);

// The elements of the parameters of every module under root, each tensor once.
int64_t parameter_elements(const Value& root);

// print(model) and str(model): the tree of fields, a repeated module shown once in
// full and then as `Name(...)  # same module as PATH` (interp/models/module_print.cpp).
std::string model_repr(const Value& model);

// The `training` flag of every module under a model, as it was (absent: never set),
// put back on destruction: export_onnx runs a model in eval mode, as torch.onnx.export
// does, and leaves each module as it found it.
class TrainingFlags {
 public:
  explicit TrainingFlags(const Value& model);
  ~TrainingFlags();
  TrainingFlags(const TrainingFlags&) = delete;
  TrainingFlags& operator=(const TrainingFlags&) = delete;

 private:
  struct Saved {
    Value module;
    bool present, value;
  };
  std::vector<Saved> saved_;
};

}  // namespace nabla::interp
