// The exporter's inside (docs/onnx.md): a GraphWriter appends ONNX nodes and
// initializers to one GraphProto through libonnx's protobuf classes, and a NodeEmit
// is what the mapping of one IR node sees (its inputs' ONNX names and types, its
// attributes, where its outputs go). op_mapping.cpp, op_mapping_nn.cpp and
// quantized.cpp turn one IR node each into ONNX nodes with these; export.cpp walks
// the graph. Internal to graph/onnx/.
#pragma once
#include <onnx/onnx_pb.h>

#include <map>
#include <string>
#include <vector>

#include "graph/ir.hpp"

namespace nabla::graph::onnx_export {

// The ONNX element type of a dtype (TensorProto::DataType).
int onnx_elem_type(DType dt);

class GraphWriter {
 public:
  explicit GraphWriter(::onnx::GraphProto& out) : out_(out) {}

  // A name no other value of the model has: "<hint>_<k>".
  std::string fresh(const std::string& hint);
  // Appends a node; `origin` (a DSL line) goes into its doc string for Netron.
  ::onnx::NodeProto& node(const std::string& op_type, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs);
  // A node with one output of a fresh name, returned.
  std::string op(const std::string& op_type, const std::vector<std::string>& inputs);
  // An op with attributes: op_with("Softmax", {x}, [](auto& n) { set_int(n, "axis", 1); }).
  template <class Fill>
  std::string op_with(const std::string& op_type, const std::vector<std::string>& inputs, Fill fill) {
    std::string name = fresh(op_type);
    fill(node(op_type, inputs, {name}));
    return name;
  }

  // Initializers (raw_data, little-endian, row-major). `name` empty: a fresh one.
  std::string tensor(const Tensor& t, const std::string& name = "");
  std::string ints(const std::vector<int64_t>& values);      // i64 [n]
  std::string scalar(double value, DType dt);                 // dt [] (a 0-dim tensor)
  std::string filled(const Shape& shape, double value, DType dt);
  // x converted to dt (a Cast node).
  std::string cast(const std::string& x, DType dt);

  // Where the current IR node came from, stamped on the nodes appended after it.
  void set_origin(const std::string& origin) { origin_ = origin; }

 private:
  ::onnx::GraphProto& out_;
  std::map<std::string, int> counters_;
  std::string origin_;
};

// Node attributes.
void set_int(::onnx::NodeProto& n, const std::string& name, int64_t v);
void set_ints(::onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v);
void set_float(::onnx::NodeProto& n, const std::string& name, float v);
void set_string(::onnx::NodeProto& n, const std::string& name, const std::string& v);

// One IR node under export. names[v] is the ONNX name of IR value v of `g`.
struct NodeEmit {
  GraphWriter& w;
  const Graph& g;
  const Node& n;
  std::vector<std::string>& names;

  bool has_input(size_t k) const { return k < n.inputs.size() && n.inputs[k] >= 0; }
  const std::string& in(size_t k) const { return names[static_cast<size_t>(n.inputs.at(k))]; }
  const TensorMeta& in_meta(size_t k) const { return g.value(n.inputs.at(k)).meta; }
  const TensorMeta& out_meta(size_t k = 0) const { return g.value(n.outputs.at(k)).meta; }
  const std::string& out(size_t k = 0) const { return names[static_cast<size_t>(n.outputs.at(k))]; }
  bool output_used(size_t k) const;
  int64_t rank() const { return static_cast<int64_t>(in_meta(0).sizes.size()); }
  // A 0-dim initializer of the output's dtype.
  std::string constant(double v) { return w.scalar(v, out_meta().dtype); }
  // Input k as dtype dt (a Cast when it is not).
  std::string in_as(size_t k, DType dt);
  // Writes `value` into output k (an Identity node: outputs keep the names given them).
  void assign(size_t k, const std::string& value);
  // A nabla::Error naming the node, its DSL line and `what`.
  [[noreturn]] void unsupported(const std::string& what) const;
};

// How the exporter writes an op of the table: a function, or the reason ONNX cannot
// express it (Note [Every op mapped or refused] in op_mapping.cpp).
using EmitFn = void (*)(NodeEmit&);
struct OpMapping {
  EmitFn emit = nullptr;
  const char* refused = nullptr;
};
const OpMapping& op_mapping(OpId op);

// The rows each file contributes (op_mapping.cpp gathers them).
struct MappingRow {
  OpId op;
  EmitFn emit;
  const char* refused;
};
std::vector<MappingRow> tensor_op_rows();   // op_mapping.cpp: views, elementwise, reductions, indexing
std::vector<MappingRow> nn_op_rows();       // op_mapping_nn.cpp: conv, pools, norms, attention, losses
std::vector<MappingRow> quant_op_rows();    // quantized.cpp: int8 and fake quantization

// Shared pieces of mappings.
// "Mul", "Add"... of the op's inputs converted to its output dtype.
void emit_broadcast_binary(NodeEmit& e, const std::string& op_type);
// ONNX pads: every spatial dim's begin, then every end (the IR pads both sides alike).
std::vector<int64_t> both_sides(const std::vector<int64_t>& padding);
// A convolution's strides, pads (each spatial dim's begin, then every end: the IR pads
// both sides alike), dilations and group, from the IR's attributes.
void set_conv_attrs(::onnx::NodeProto& n, const Attrs& a);
// Reshape of `value` to the node's output shape (static: the IR's types).
void reshape_to_output_from(NodeEmit& e, const std::string& value);
// The ONNX axis of IR dim d of a rank-r tensor (d may be negative).
int64_t axis_of(int64_t d, int64_t rank);

}  // namespace nabla::graph::onnx_export
