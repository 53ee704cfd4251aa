// The tables that name the language's builtins, as Lua's libraries are named
// (luaL_Reg arrays, and linit.c's one list of libraries). See Note [Builtin tables].
//
// Note [Builtin tables]
// Every builtin function, every function of a native module (math, time, cuda, _dist,
// _data) and every method of a builtin type (str, list, tuple, dict, tensor, model)
// is one row: its name, its C++ function, its signature and a one-line doc with an
// example. Dispatch, the REPL's Tab completion and :help all read the same rows, so a
// name cannot be callable yet missing from completion, or listed yet not callable.
// A family of builtins is one BuiltinLibrary (one builtins_*.cpp file); builtins.cpp
// holds the one list of them. The ops of the op table are builtins too, made from
// their rows (builtins_ops.cpp), with a signature built from the row.
//
// This header is the tables' shape and their readers; it must not grow behaviour.
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "interp/values/value.hpp"

namespace nabla::interp {

class Evaluator;

// A builtin function: the call's arguments as they were given.
using BuiltinFunction = Value (*)(Evaluator&, CallArgs&);

struct BuiltinEntry {
  const char* name;
  BuiltinFunction function;
  const char* signature;  // how to call it: "range(start, stop=none, step=1)"
  const char* doc;        // one sentence, then "Example: ..." (in op_conventions(), null: the op row's)
};

// A method of a builtin type (str, list, tuple, dict, model): the receiver apart from
// the arguments. (Tensor methods are BuiltinEntry rows that take the tensor as their
// first positional argument, as the ops do: x.sum() is sum(x).)
using MethodFunction = Value (*)(Evaluator&, const Value& self, CallArgs&);

struct MethodEntry {
  const char* name;
  MethodFunction function;
  const char* signature;  // without the receiver: "split(sep=none)"
  const char* doc;
};

// Names bound to values rather than functions: the dtypes (f32, i64, ...), math.pi.
using NamedValues = std::vector<std::pair<std::string, Value>>;

// One family of builtins (Lua's luaopen_*): its table, and where its rows go.
struct BuiltinLibrary {
  const char* name;    // the family: "python", "factories", ...
  const char* module;  // null: global builtins; else the native module `import <module>` gives
  std::span<const BuiltinEntry> functions;
  void (*add_values)(NamedValues& out);  // values beside the functions, or null
};

// Every library, in the order install_builtins installs them (builtins.cpp).
std::span<const BuiltinLibrary* const> builtin_libraries();

// The methods of a builtin type, one table per receiver kind (empty for the others).
std::span<const MethodEntry> container_methods(Tag tag);  // str, list, tuple, dict: container_methods.cpp
std::span<const MethodEntry> model_methods();             // every model: interp/models/model_methods.cpp
std::span<const BuiltinEntry> tensor_methods();           // builtins_tensor.cpp
std::span<const BuiltinEntry> figure_methods();           // plot's figures (self first): builtins_plot.cpp
// The ops whose builtin adds Python/PyTorch conventions to their row (view(x, 2, 3),
// max(x, dim=1)); every other op's builtin is its row's generic call (builtins_ops.cpp).
std::span<const BuiltinEntry> op_conventions();

// The row named `name` in a table, or null. The first characters are compared before
// the names: a method call scans its table at every call, and comparing each row's
// whole name measured its length first.
template <class Entry>
const Entry* find_entry(std::span<const Entry> table, std::string_view name) {
  char first = name.empty() ? '\0' : name[0];
  for (const Entry& e : table)
    if (e.name[0] == first && name == e.name) return &e;
  return nullptr;
}

// What :help prints for a builtin.
struct BuiltinDoc {
  std::string name;       // as asked: "print", "math.sqrt", "str.split"
  std::string signature;  // "split(sep=none)"
  std::string doc;
};

// The row that documents `name`: a global builtin ("print", "relu"), a function of a
// native module ("math.sqrt", "cuda.synchronize") or a method of a builtin type
// ("str.split", "list.append", "dict.get", "tensor.size", "model.parameters");
// nullopt for any other name.
std::optional<BuiltinDoc> find_builtin_doc(const std::string& name);

}  // namespace nabla::interp
