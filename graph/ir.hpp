// The graph IR (docs/DESIGN.md seams 4 and 5): a typed SSA graph of op-table calls that
// `compile` captures from eager code, passes rewrite, the executor runs and viz/
// draws. It knows ops, shapes and dtypes; it knows nothing of the language.
//
// Text form (print_graph / parse_graph round-trip exactly):
//
//   graph mlp(%x: f32[64, 784], %fc1.weight: param f32[256, 784], %c0: const wrapped f64[] = 0.5) {
//     %3 = linear(%x, %fc1.weight, none) : f32[64, 256]  # mlp.dsl:4:14
//     %4 = relu(%3) : f32[64, 256]
//     %5, %6 = max_pool2d(%4) {kernel_size=[2, 2], stride=[2, 2], ...} : f32[...], i64[...]
//     %7 = fused(%4, %c0) : f32[64, 256] {      # a node with a body: its own graph
//       body(%in0: f32[64, 256], %in1: f32[])
//       %2 = mul(%in0, %in1) : f32[64, 256]
//       yield %2
//     }
//     return %7
//   }
//
// Control-flow nodes carry regions, printed after the types, each "{ label(...) ...
// yield ... }" (graph/control_flow.hpp has their layout):
//
//     %9, %10 = scan(%h0, %xs) {carried=1, scanned=1, length=5} : f32[3], f32[5, 3] {
//       body(%h: f32[3], %x: f32[3])
//       ...
//       yield %4, %4
//     }
//
// A graph with a memory plan (the `plan` pass) prints it after the closing brace:
// "plan(arena=..., ...) { slot ...; %5: slot 1, ... }" (graph/memory_plan.hpp).
//
// Values are numbered in definition order; graph inputs keep their names. A node
// computes an op of the table (its OpId), or a graph-level op that only the capture
// and passes create (copy_, fused, linear_relu, ...: NodeKind), which the executor
// implements itself. The text spells either as one name (Node::name); the parser
// maps names to what they stand for once (Node::named).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "autograd/op_table.hpp"
#include "tensor/attrs.hpp"
#include "tensor/tensor.hpp"

namespace nabla::graph {

// Where a value comes from.
enum class ValueKind : uint8_t {
  input,     // an argument of the graph (gm(x) binds it at each call)
  param,     // a parameter or buffer of the model: bound to the live tensor
  constant,  // a tensor captured by value (wrapped numbers, tensors made in the body)
  op,        // an output of a node
};

struct Value {
  int id = -1;          // index in Graph::values
  std::string name;     // inputs, params and constants: "x", "fc1.weight", "c0"; op outputs: ""
  ValueKind kind = ValueKind::op;
  TensorMeta meta;      // shape and dtype
  // A wrapped number: a plain number of the program (`x * 2.0`), f64 and 0-dim,
  // which does not drive type promotion (f32 times it stays f32), as in PyTorch.
  // Constants made from one, and fused-body inputs bound to one. Printed "wrapped f64[]".
  bool wrapped = false;
  int node = -1;        // producing node (op values), index in Graph::nodes
  int output = 0;       // which output of that node
};

struct Graph;
struct MemoryPlan;  // graph/memory_plan.hpp

// What a node computes beyond the op table's rows. Each kind has one spelling in the
// text form, except custom, which keeps the name it was given.
enum class NodeKind : uint8_t {
  table,     // a row of the op table: Node::op ("linear", "relu")
  copy,      // "copy_(dst, src)": a write into a parameter or buffer that the capture saw
  fused,     // "fused": an elementwise group (the fuse pass); its body runs as one loop
  epilogue,  // "linear_relu", "conv2d_gelu": Node::epilogue (the fuse_epilogue pass)
  custom,    // any other name (Node::custom_name): a node with a body the executor runs
             // op by op, an op registered with register_graph_op, or an unknown name
             // that the verifier refuses
  // Structured control flow: nodes with regions (Node::regions; graph/control_flow.hpp).
  cond,        // "cond(pred, operands...)": regions then, else
  while_loop,  // "while_loop(carried..., invariants...)": regions cond, body
  scan,        // "scan(init..., xs..., invariants...)": region body, run once per row of xs
};

// An epilogue node: a base op (is_epilogue_base: linear, conv2d) whose library call
// applies an activation (is_epilogue_activation: relu, gelu, ...) to its result, and
// for conv2d optionally a max_pool2d of that ("conv2d_relu_max_pool2d": the pool reads
// the convolution's own layout, so its output is never reordered at full size).
struct Epilogue {
  OpId base = OpId::kCount;
  OpId activation = OpId::kCount;
  OpId pool = OpId::kCount;  // max_pool2d, or kCount: none
};

struct Node {
  NodeKind kind = NodeKind::table;
  // The row of a table node; OpId::kCount for every other kind, so that `n.op ==
  // OpId::conv2d` never holds for a conv2d_relu node.
  OpId op = OpId::kCount;
  Epilogue epilogue;        // kind epilogue only
  std::string custom_name;  // kind custom only
  // Custom nodes: what their kernel reads besides attrs (a raise node's error), shared by
  // the node's copies, so that it lives as long as a graph holding the node.
  std::shared_ptr<const void> payload;
  Attrs attrs;
  std::vector<int> inputs;   // value ids; -1 for an absent optional input ("none")
  std::vector<int> outputs;  // value ids
  std::string origin;        // the DSL line that made it ("mlp.dsl:4:14"), may be empty
  int text_line = 0;         // its line in the IR text it was read from (parse_graph); 0: none
  std::shared_ptr<Graph> body;  // fused nodes: the subgraph it computes (inputs %in0...)
  // Control-flow nodes (cond, while_loop, scan): their regions, closed graphs whose
  // inputs are the node's operands as graph/control_flow.hpp lays them out.
  std::vector<std::shared_ptr<Graph>> regions;
  // Fused nodes: the ops and DSL lines it absorbed, for viz and explain.
  std::vector<std::string> absorbed;

  // Its name in the text form, DOT labels and messages: "linear", "copy_", "fused",
  // "conv2d_relu", or the custom name.
  std::string name() const;
  // What it computes (kind, op, epilogue, custom name), without inputs, outputs,
  // attributes or body: the head of a node that computes the same.
  Node operation() const;

  // Heads of nodes, for Graph::add_node and fuse_nodes.
  static Node of(OpId op);  // a table op
  static Node of_kind(NodeKind kind);  // copy or fused
  static Node epilogue_of(OpId base, OpId activation, OpId pool = OpId::kCount);
  // What a name of the text form stands for: a table op, copy_, fused,
  // <base>_<activation>, else a custom node of that name. The inverse of name().
  static Node named(const std::string& name);
};

struct Graph {
  std::string name = "main";
  std::vector<Value> values;
  std::vector<Node> nodes;       // in execution (topological) order
  std::vector<int> inputs;       // value ids of kind input, param or constant, in signature order
  std::vector<int> outputs;      // returned value ids
  std::map<std::string, Tensor> constants;  // constant name -> its tensor
  // Where the executor places intermediate values, set by the `plan` pass (null: each
  // value gets its own allocation). Shared and immutable, so graphs stay cheap to
  // copy; a pass that changes a planned graph fails verification (plan runs last).
  std::shared_ptr<const MemoryPlan> plan;

  // Building.
  int add_input(const std::string& name, ValueKind kind, TensorMeta meta);
  int add_constant(const Tensor& t, const std::string& name = "");  // name "" -> "c<k>"
  // Appends a node computing what `head` says (Node::of, Node::named, ...) and its
  // output values; returns the node's index.
  int add_node(Node head, std::vector<int> inputs, Attrs attrs, const std::vector<TensorMeta>& outs,
               std::string origin = "");
  int add_node(OpId op, std::vector<int> inputs, Attrs attrs, const std::vector<TensorMeta>& outs,
               std::string origin = "") {
    return add_node(Node::of(op), std::move(inputs), std::move(attrs), outs, std::move(origin));
  }
  // By name as the text form spells it (the parser's and the tests' way in).
  int add_node(const std::string& name, std::vector<int> inputs, Attrs attrs, const std::vector<TensorMeta>& outs,
               std::string origin = "") {
    return add_node(Node::named(name), std::move(inputs), std::move(attrs), outs, std::move(origin));
  }

  // Reading.
  const Value& value(int id) const { return values.at(static_cast<size_t>(id)); }
  Value& value(int id) { return values.at(static_cast<size_t>(id)); }
  // The table row of a node (nullptr for graph-level ops such as "fused", and for a
  // table op's name carrying a body, which the verifier refuses).
  static const OpDef* table_op(const Node& n);
  // For each value: how many node inputs and graph outputs use it.
  std::vector<int> use_counts() const;

  // Drops nodes marked dead and values nobody refers to, renumbering the rest in
  // definition order (passes mark, then compact once).
  void compact(const std::vector<bool>& dead_nodes);
};

// The text form; print_graph(parse_graph(s)) == s for any s that print_graph made.
std::string print_graph(const Graph& g);
// Parses the text form. Constants whose values are not inline (large tensors print as
// "= <pool>") are taken from `pool` by name. Errors name the line and column.
Graph parse_graph(const std::string& text, const std::map<std::string, Tensor>& pool = {});

// Type and shape checks (Note [Verified nodes], graph/verify.cpp): every input
// defined before its use, every node a known op with the right arity, attributes and
// output types, bodies well formed. Throws nabla::Error with the node, its IR text
// line and the reason; `after` names the pass that ran last (for the message).
void verify(const Graph& g, const std::string& after = "");

// A stand-in for value v with its type (and wrapped flag) and no real data, for
// shape rules and type promotion at compile time.
Tensor meta_tensor(const Value& v);
// The output types of table-op node n as its row's shape rule computes them from the
// types of its inputs in g (errors are the rule's).
std::vector<TensorMeta> infer_types(const Graph& g, const Node& n, const OpDef& def);

// "f32[64, 784]"
std::string meta_str(const TensorMeta& m);

}  // namespace nabla::graph
