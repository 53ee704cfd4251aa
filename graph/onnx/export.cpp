// The walk behind export_onnx (graph/onnx/export.hpp): signature, initializers, one
// mapping per node, outputs.
#include "graph/onnx/export.hpp"

#include "graph/control_flow.hpp"
#include "graph/onnx/writer.hpp"
#include "tensor/atomic_file.hpp"

namespace nabla::graph {

namespace onnx_export {
namespace {

void set_type(::onnx::ValueInfoProto& info, const std::string& name, const TensorMeta& meta) {
  info.set_name(name);
  auto* t = info.mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx_elem_type(meta.dtype));
  auto* shape = t->mutable_shape();
  for (int64_t s : meta.sizes) shape->add_dim()->set_dim_value(s);
}

const Tensor* bound_tensor(const BoundParams& params, const std::string& name) {
  for (const auto& [n, t] : params)
    if (n == name) return &t;
  return nullptr;
}

// The graph's inputs: ONNX inputs for the values given at each call, initializers for
// the parameters (their live tensors) and constants that some node reads (the passes
// leave the ones they folded away, such as BatchNorm's num_batches_tracked).
void declare_inputs(::onnx::GraphProto& gp, GraphWriter& w, const Graph& g, const BoundParams& params,
                    std::vector<std::string>& names) {
  std::vector<int> uses = g.use_counts();
  for (int id : g.inputs) {
    const Value& v = g.value(id);
    names[static_cast<size_t>(id)] = v.name;
    if (v.kind == ValueKind::input) {
      set_type(*gp.add_input(), v.name, v.meta);
    } else if (uses[static_cast<size_t>(id)] == 0) {
      continue;
    } else if (v.kind == ValueKind::param) {
      const Tensor* t = bound_tensor(params, v.name);
      if (!t || !t->defined()) throw Error("export_onnx: no tensor is bound to parameter %" + v.name);
      w.tensor(*t, v.name);
    } else {
      auto it = g.constants.find(v.name);
      if (it == g.constants.end()) throw Error("export_onnx: constant %" + v.name + " has no value");
      w.tensor(it->second, v.name);
    }
  }
}

void emit_nodes(GraphWriter& w, const Graph& g, std::vector<std::string>& names);

// A fused or epilogue node: the ops of its body, its inputs bound to the node's. A
// node output that nothing reads is no output of the body as written, so that its op
// need not compute it (MaxPool's indices in conv2d_relu_max_pool2d).
void emit_body(GraphWriter& w, const Graph& g, const Node& n, std::vector<std::string>& names) {
  Graph body = *n.body;
  std::vector<int> uses = g.use_counts();
  body.outputs.clear();
  for (size_t k = 0; k < n.outputs.size(); ++k)
    if (uses[static_cast<size_t>(n.outputs[k])] > 0) body.outputs.push_back(n.body->outputs.at(k));
  std::vector<std::string> inner(body.values.size());
  for (size_t k = 0; k < body.inputs.size(); ++k) {
    const Value& v = body.value(body.inputs[k]);
    auto constant = body.constants.find(v.name);
    if (v.kind == ValueKind::constant && constant != body.constants.end())
      inner[static_cast<size_t>(v.id)] = w.tensor(constant->second);
    else
      inner[static_cast<size_t>(v.id)] = names[static_cast<size_t>(n.inputs.at(k))];
  }
  emit_nodes(w, body, inner);
  for (size_t k = 0; k < n.outputs.size(); ++k)
    names[static_cast<size_t>(n.outputs[k])] = inner[static_cast<size_t>(n.body->outputs.at(k))];
}

void emit_node(GraphWriter& w, const Graph& g, const Node& n, std::vector<std::string>& names) {
  NodeEmit e{w, g, n, names};
  if (n.kind == NodeKind::table) {
    const OpMapping& m = op_mapping(n.op);
    if (!m.emit) e.unsupported(std::string("cannot be written as ONNX: ") + m.refused);
    return m.emit(e);
  }
  if (n.kind == NodeKind::copy)
    e.unsupported("a write into a parameter or buffer (a training-mode update); export the model in eval mode");
  // A lowered if, while or for (compile's script mode): ONNX's If, Loop and Scan are not
  // written yet. It was reported as "a custom op with no body", which it is not.
  if (is_control_flow(n))
    e.unsupported("control flow (an if, while or for on a tensor, which compile lowered to " + n.name() +
                  "), which this exporter does not write as ONNX (If, Loop, Scan) yet");
  if (!n.body) e.unsupported("a custom op with no body, which ONNX does not know");
  emit_body(w, g, n, names);
}

void emit_nodes(GraphWriter& w, const Graph& g, std::vector<std::string>& names) {
  for (const Node& n : g.nodes) {
    for (int v : n.outputs) names[static_cast<size_t>(v)] = w.fresh("t");
    w.set_origin(n.origin);
    emit_node(w, g, n, names);
  }
  w.set_origin("");
}

}  // namespace
}  // namespace onnx_export

std::string onnx_model_bytes(const Graph& g, const BoundParams& params) {
  using namespace onnx_export;
  ::onnx::ModelProto model;
  model.set_ir_version(kOnnxIrVersion);
  model.set_producer_name("nabla");
  model.set_producer_version(NABLA_VERSION);
  ::onnx::OperatorSetIdProto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(kOnnxOpset);
  ::onnx::GraphProto& gp = *model.mutable_graph();
  gp.set_name(g.name);
  GraphWriter w(gp);
  std::vector<std::string> names(g.values.size());
  declare_inputs(gp, w, g, params, names);
  emit_nodes(w, g, names);
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    std::string name = g.outputs.size() == 1 ? "output" : "output" + std::to_string(k);
    w.node("Identity", {names[static_cast<size_t>(g.outputs[k])]}, {name});
    set_type(*gp.add_output(), name, g.value(g.outputs[k]).meta);
  }
  std::string bytes;
  if (!model.SerializeToString(&bytes)) throw Error("export_onnx: the model does not serialize (over 2 GiB?)");
  return bytes;
}

void export_onnx(const Graph& g, const BoundParams& params, const std::string& path) {
  std::string bytes = onnx_model_bytes(g, params);
  write_file_atomically(path, bytes, "export_onnx");
}

std::string onnx_refusal(OpId op) {
  const onnx_export::OpMapping& m = onnx_export::op_mapping(op);
  return m.emit ? "" : m.refused;
}

bool onnx_mapped(OpId op) { return onnx_export::op_mapping(op).emit != nullptr; }

}  // namespace nabla::graph
