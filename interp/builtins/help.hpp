// What `help(x)`, the REPL's `:help NAME` and its keyword completion after `name(`
// know about a name: its signature, its doc (a builtin row's, a DSL docstring) and,
// for a model, its methods; for a module, its public names. Builtins are described
// by their rows (Note [Builtin tables] in builtin_table.hpp), DSL functions and
// models by their declarations. A standard-library module is found by name without
// being imported into the session (`:help nn` before `import nn`).
//
// Reads values and tables; never changes the session's names.
#pragma once
#include <string>
#include <vector>

#include "interp/values/value.hpp"

namespace nabla::interp {

class Evaluator;

// The help text of a name as the user types it: "conv2d", "nn.Linear",
// "optim.Adam.step", "Tensor.sum", "str.split", "math.sqrt", "nn", a variable of the
// session. An unknown name fails with the evaluator's own lookup error.
std::string help_for_name(Evaluator& ev, const std::string& name);
// The help text of a value (help(f), help(m), help(nn.Linear)).
std::string help_for_value(Evaluator& ev, const Value& v);
// The names a call of `callee` takes as keyword arguments (completion after `f(`):
// a builtin's from its row's signature, a DSL function's, model's or method's from
// its parameters. Empty for what takes none.
std::vector<std::string> keyword_names(Evaluator& ev, const Value& callee);
// The keywords of the language (help("fn") describes one; the REPL completes them).
const std::vector<const char*>& language_keywords();
// Whether a name is private to its module (a leading '_'): listings and completion
// leave it out.
inline bool is_private_name(const std::string& name) { return !name.empty() && name[0] == '_'; }

}  // namespace nabla::interp
