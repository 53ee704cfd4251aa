// The op table as a table for people: `nabla --list-ops` and the REPL's `:ops` print
// this one function's text, so they cannot drift apart.
#include "autograd/op_table.hpp"
#include "interp/interpreter.hpp"
#include "passes/passes.hpp"

namespace nabla {

namespace {

std::string devices_of(const OpDef& row) {
  std::string s = row.cpu || row.view ? "cpu" : "";
  if (row.cuda) s += s.empty() ? "cuda" : ",cuda";
  return s.empty() ? "-" : s;
}

std::string double_grad_of(const OpDef& row) {
  if (!row.backward) return "no (not differentiable)";
  if (row.no_double_backward) return std::string("no (") + row.no_double_backward + ")";
  return "yes";
}

const char* jvp_of(const OpDef& row) {
  switch (row.jvp_kind) {
    case JvpKind::none: return "-";
    case JvpKind::linear: return "linear";
    case JvpKind::multilinear: return "multilinear";
    case JvpKind::elementwise: return "elementwise";
    case JvpKind::rule: return "rule";
    case JvpKind::transpose: return "transpose";
  }
  return "-";
}

}  // namespace

std::string describe_ops() {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-34s %-10s %-5s %-26s %-12s %-5s %s\n", "op", "devices", "grad", "fusable", "jvp",
                "vmap", "grad of grad");
  std::string s = buf;
  for (const OpDef& row : op_table()) {
    std::snprintf(buf, sizeof buf, "%-34s %-10s %-5s %-26s %-12s %-5s %s\n", row.name, devices_of(row).c_str(),
                  !row.backward ? "no" : row.straight_through ? "ste" : "yes", graph::fusion_kinds(row).c_str(),
                  jvp_of(row), row.batch ? "rule" : "loop", double_grad_of(row).c_str());
    s += buf;
  }
  s += "fusable: elementwise = the fuse pass joins it with its neighbours into one loop; epilogue = fuse_epilogue\n"
       "folds it into the linear or conv2d before it (linear_relu, ...); epilogue base = linear, conv2d "
       "(docs/passes.md)\n"
       "grad: ste = a straight-through estimator, not the derivative of the forward (fake quantization; "
       "docs/quantization.md)\n"
       "jvp: how its forward-mode rule is made: linear = the op of the tangents, multilinear = one call per input, "
       "elementwise = its backward rule (a diagonal Jacobian), rule = by hand, transpose = its backward rule "
       "transposed (Note [Forward-mode rules])\n"
       "vmap: rule = a batching rule runs the whole batch at once; loop = once per example (Note [Batching "
       "rules])\n";
  for (const std::string& name : incomplete_rows()) s += "error: op '" + name + "' has no complete row\n";
  return s;
}

}  // namespace nabla
