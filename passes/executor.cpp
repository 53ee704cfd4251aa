#include "passes/executor.hpp"

#include <map>

#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "passes/fused_kernels.hpp"
#include "tensor/cpu/copy.hpp"

namespace nabla::graph {

namespace {

// "copy_"(dst, src): an in-place write into a parameter or buffer that the capture saw
// (see passes/capture.hpp); no outputs.
void copy_into_param(const Node&, const TensorList& ins, TensorList&) {
  copy_into(ins[0], ins[1]);
  ins[0].bump_version();
}

std::map<std::string, GraphOpFn>& graph_ops() {
  static std::map<std::string, GraphOpFn> ops = [] {
    std::map<std::string, GraphOpFn> table{{"copy_", copy_into_param}};
    add_fused_kernels(table);
    return table;
  }();
  return ops;
}

// For each value, the index of the last node that reads it (-1: none; graph outputs
// and inputs are never freed).
std::vector<int> last_uses(const Graph& g) {
  std::vector<int> last(g.values.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int v : g.nodes[i].inputs)
      if (v >= 0) last[static_cast<size_t>(v)] = static_cast<int>(i);
  for (int v : g.outputs) last[static_cast<size_t>(v)] = static_cast<int>(g.nodes.size());
  for (int v : g.inputs) last[static_cast<size_t>(v)] = static_cast<int>(g.nodes.size());
  return last;
}

TensorList allocate_outputs(const Graph& g, const Node& n) {
  TensorList outs;
  outs.reserve(n.outputs.size());
  for (int v : n.outputs) outs.push_back(empty(g.value(v).meta.sizes, g.value(v).meta.dtype));
  return outs;
}

TensorList run_node(const Graph& g, const Node& n, const TensorList& ins) {
  if (const OpDef* def = Graph::table_op(n)) {
    if (def->view) return call(def->id, ins, n.attrs);
    TensorList outs = allocate_outputs(g, n);
    call_into(def->id, ins, n.attrs, outs);
    return outs;
  }
  auto it = graph_ops().find(n.op);
  if (it != graph_ops().end()) {
    TensorList outs = allocate_outputs(g, n);
    it->second(n, ins, outs);
    return outs;
  }
  if (n.body) return run_graph(*n.body, ins);  // a fused body without its own kernel
  throw Error("graph executor: no implementation of op '" + n.op + "'");
}

}  // namespace

void register_graph_op(const std::string& name, GraphOpFn fn) { graph_ops()[name] = fn; }
bool has_graph_op(const std::string& name) { return graph_ops().count(name) > 0; }


TensorList run_graph(const Graph& g, const TensorList& args) {
  NoGradGuard no_grad;
  std::vector<Tensor> vals(g.values.size());
  size_t next_arg = 0;
  for (int id : g.inputs) {
    const Value& v = g.value(id);
    if (v.kind == ValueKind::constant) {
      vals[static_cast<size_t>(id)] = g.constants.at(v.name);
      continue;
    }
    if (next_arg >= args.size())
      throw Error("graph " + g.name + ": expected more arguments than the " + std::to_string(args.size()) + " given");
    const Tensor& a = args[next_arg++];
    if (!(a.sizes() == v.meta.sizes) || a.dtype() != v.meta.dtype)
      throw Error("graph " + g.name + ": argument %" + v.name + " must be " + meta_str(v.meta) + ", got " +
                  meta_str({a.sizes(), a.dtype()}));
    vals[static_cast<size_t>(id)] = a;
  }
  if (next_arg != args.size())
    throw Error("graph " + g.name + ": " + std::to_string(args.size()) + " arguments given, it takes " +
                std::to_string(next_arg));
  std::vector<int> last = last_uses(g);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    TensorList ins;
    ins.reserve(n.inputs.size());
    for (int v : n.inputs) ins.push_back(v < 0 ? Tensor() : vals[static_cast<size_t>(v)]);
    TensorList outs = run_node(g, n, ins);
    for (size_t k = 0; k < n.outputs.size(); ++k) vals[static_cast<size_t>(n.outputs[k])] = std::move(outs[k]);
    for (int v : n.inputs)
      if (v >= 0 && last[static_cast<size_t>(v)] == static_cast<int>(i)) vals[static_cast<size_t>(v)] = Tensor();
  }
  TensorList out;
  for (int v : g.outputs) out.push_back(vals[static_cast<size_t>(v)]);
  return out;
}

}  // namespace nabla::graph
