// GraphWriter and NodeEmit (graph/onnx/writer.hpp).
#include "graph/onnx/writer.hpp"

#include <cstring>

#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"

namespace nabla::graph::onnx_export {

int onnx_elem_type(DType dt) {
  using P = ::onnx::TensorProto;
  switch (dt) {
    case DType::f32: return P::FLOAT;
    case DType::f64: return P::DOUBLE;
    case DType::f16: return P::FLOAT16;
    case DType::bf16: return P::BFLOAT16;
    case DType::i64: return P::INT64;
    case DType::i32: return P::INT32;
    case DType::b8: return P::BOOL;
    case DType::i8: return P::INT8;
    case DType::u8: return P::UINT8;
    case DType::i16: return P::INT16;
  }
  return P::UNDEFINED;
}

std::string GraphWriter::fresh(const std::string& hint) { return hint + "_" + std::to_string(counters_[hint]++); }

::onnx::NodeProto& GraphWriter::node(const std::string& op_type, const std::vector<std::string>& inputs,
                                     const std::vector<std::string>& outputs) {
  ::onnx::NodeProto* n = out_.add_node();
  n->set_op_type(op_type);
  n->set_name(fresh("n_" + op_type));
  for (const std::string& s : inputs) n->add_input(s);
  for (const std::string& s : outputs) n->add_output(s);
  if (!origin_.empty()) n->set_doc_string(origin_);
  return *n;
}

std::string GraphWriter::op(const std::string& op_type, const std::vector<std::string>& inputs) {
  std::string name = fresh(op_type);
  node(op_type, inputs, {name});
  return name;
}

std::string GraphWriter::tensor(const Tensor& t, const std::string& name) {
  GradModeGuard no_grad(false);
  Tensor c = contiguous(to_device(t, cpu_device()));
  ::onnx::TensorProto* p = out_.add_initializer();
  p->set_name(name.empty() ? fresh("const") : name);
  p->set_data_type(onnx_elem_type(c.dtype()));
  for (int64_t s : c.sizes()) p->add_dims(s);
  p->set_raw_data(c.raw_data(), static_cast<size_t>(c.numel()) * dtype_size(c.dtype()));
  return p->name();
}

std::string GraphWriter::ints(const std::vector<int64_t>& values) {
  Tensor t = empty({static_cast<int64_t>(values.size())}, DType::i64);
  if (!values.empty()) std::memcpy(t.raw_data(), values.data(), values.size() * sizeof(int64_t));
  return tensor(t);
}

std::string GraphWriter::scalar(double value, DType dt) { return tensor(full({}, value, dt)); }

std::string GraphWriter::cast(const std::string& x, DType dt) {
  return op_with("Cast", {x}, [&](auto& n) { set_int(n, "to", onnx_elem_type(dt)); });
}

std::string GraphWriter::filled(const Shape& shape, double value, DType dt) { return tensor(full(shape, value, dt)); }

void set_int(::onnx::NodeProto& n, const std::string& name, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(v);
}

void set_ints(::onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

void set_float(::onnx::NodeProto& n, const std::string& name, float v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

void set_string(::onnx::NodeProto& n, const std::string& name, const std::string& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::STRING);
  a->set_s(v);
}

std::vector<int64_t> both_sides(const std::vector<int64_t>& padding) {
  std::vector<int64_t> pads = padding;
  pads.insert(pads.end(), padding.begin(), padding.end());
  return pads;
}

void set_conv_attrs(::onnx::NodeProto& n, const Attrs& a) {
  set_ints(n, "strides", a.ints("stride"));
  set_ints(n, "pads", both_sides(a.ints("padding")));
  set_ints(n, "dilations", a.ints("dilation"));
  set_int(n, "group", a.i("groups"));
}

bool NodeEmit::output_used(size_t k) const {
  int v = n.outputs.at(k);
  for (const Node& m : g.nodes)
    for (int i : m.inputs)
      if (i == v) return true;
  for (int o : g.outputs)
    if (o == v) return true;
  return false;
}

std::string NodeEmit::in_as(size_t k, DType dt) {
  if (in_meta(k).dtype == dt) return in(k);
  return w.cast(in(k), dt);
}

void NodeEmit::assign(size_t k, const std::string& value) { w.node("Identity", {value}, {out(k)}); }

void NodeEmit::unsupported(const std::string& what) const {
  throw Error("export_onnx: " + n.name() + (n.origin.empty() ? std::string() : " at " + n.origin) + ": " + what);
}

void emit_broadcast_binary(NodeEmit& e, const std::string& op_type) {
  DType dt = e.out_meta().dtype;
  e.w.node(op_type, {e.in_as(0, dt), e.in_as(1, dt)}, {e.out()});
}

int64_t axis_of(int64_t d, int64_t rank) { return d < 0 ? d + rank : d; }

}  // namespace nabla::graph::onnx_export
