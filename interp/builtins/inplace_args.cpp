// PyTorch's inplace= on the activations and dropouts (F.relu(x, inplace=True),
// F.dropout(x, 0.2, True, True)), wrapped around each one's function in the table of
// op functions (builtins_ops.cpp).
#include <optional>
#include <string>

#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "interp/builtins/builtins_internal.hpp"

namespace nabla::interp {

namespace {

// Each function that takes inplace=, by keyword or at `position`.
struct InplaceArg {
  const char* name;
  size_t position;
};
const InplaceArg kInplaceArgs[] = {
    {"relu", 1},     {"relu6", 1},       {"elu", 2},      {"selu", 1},        {"celu", 2},
    {"leaky_relu", 2}, {"hardtanh", 3},  {"hardswish", 1}, {"hardsigmoid", 1}, {"silu", 1},
    {"mish", 1},     {"threshold", 3},   {"dropout", 3},  {"dropout1d", 3},   {"dropout2d", 3},
    {"dropout3d", 3},
};

// f with inplace=: the function's value written into its input, which it returns, as
// PyTorch's. f runs on a clone of the input, so a backward that reads its input still
// sees the old values; a leaf that requires grad cannot be written while grad is
// recorded, as in PyTorch.
Fn with_inplace(Fn f, InplaceArg spec) {
  return [f, spec](Evaluator& ev, CallArgs& a) -> Value {
    const std::string name = spec.name;
    std::optional<Value> flag;
    if (a.pos.size() == spec.position + 1) flag = a.pos.back(), a.pos.pop_back();
    for (auto it = a.kw.begin(); it != a.kw.end(); ++it)
      if (it->first == "inplace") {
        if (flag) fail(name + "() got multiple values for argument 'inplace'");
        flag = it->second;
        a.kw.erase(it);
        break;
      }
    if (!flag || !as_bool(*flag, name + "(): argument 'inplace'")) return f(ev, a);
    Value* input = nullptr;
    for (auto& [key, value] : a.kw)
      if (key == "input") input = &value;
    if (!input && !a.pos.empty()) input = &a.pos[0];
    if (!input || input->tag != Tag::Tensor) return f(ev, a);  // f names what is wrong with it
    Tensor x = input->t;
    if (grad_enabled() && x.requires_grad() && x.is_leaf())
      fail(name + "(): inplace=true writes into argument 'input', a leaf tensor that requires grad, which cannot be "
           "modified in place (pass inplace=false, or call it under no_grad)");
    *input = Value::tensor(clone_tensor(x));
    Value y = f(ev, a);
    copy_(x, y.t);
    return Value::tensor(x);
  };
}

}  // namespace

void add_inplace_args(std::unordered_map<std::string, Fn>& table) {
  for (const InplaceArg& spec : kInplaceArgs) table[spec.name] = with_inplace(table.at(spec.name), spec);
}

}  // namespace nabla::interp
