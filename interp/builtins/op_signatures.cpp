// Each op's signature and doc as :help, completion and the builtin tables show them,
// made from its row: tensor inputs by name (none where optional), then attributes
// with their defaults as the language writes them.
#include <string>
#include <variant>
#include <vector>

#include "autograd/ops.hpp"
#include "interp/builtins/builtins_internal.hpp"

namespace nabla::interp {

namespace {

// How a row's default shows in a signature: as the language writes it.
std::string default_text(const AttrSpec& spec) {
  if (spec.name == "reduction" && std::holds_alternative<int64_t>(spec.default_value)) {
    for (const char* r : {"mean", "sum", "none"})
      if (reduction_code(r) == std::get<int64_t>(spec.default_value)) return std::string("\"") + r + "\"";
  }
  if (const double* d = std::get_if<double>(&spec.default_value)) return float_repr(*d);
  return attr_value_str(spec.default_value);
}

// A row's tensor arguments as a signature names them: a list op's one list, or each
// input with whether it may be left out (none).
struct InputArg {
  std::string name;
  bool optional;
};
std::vector<InputArg> input_args(const OpDef& row) {
  if (row.num_inputs < 0) return {{row.input_names.empty() ? "tensors" : row.input_names[0], false}};
  std::vector<InputArg> out;
  for (size_t k = 0; k < static_cast<size_t>(row.num_inputs); ++k)
    out.push_back({k < row.input_names.size() ? row.input_names[k] : "input", (row.optional_inputs >> k & 1u) != 0});
  return out;
}

std::string joined(const std::vector<std::string>& parts) {
  std::string s;
  for (const std::string& p : parts) s += (s.empty() ? "" : ", ") + p;
  return s;
}

}  // namespace

std::string op_signature(const OpDef& row) {
  std::vector<std::string> args;
  for (const InputArg& in : input_args(row)) args.push_back(in.optional ? in.name + "=none" : in.name);
  for (const AttrSpec& spec : row.attrs) args.push_back(spec.required ? spec.name : spec.name + '=' + default_text(spec));
  return std::string(row.name) + "(" + joined(args) + ")";
}

std::string op_doc(const OpDef& row) { return row.doc ? row.doc : ""; }

std::string convention_doc(const BuiltinEntry& entry) {
  if (entry.doc) return entry.doc;
  const OpDef* row = find_op(entry.name);
  return row ? op_doc(*row) : "";
}

}  // namespace nabla::interp
