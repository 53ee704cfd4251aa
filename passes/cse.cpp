// Common subexpression elimination: two nodes with the same op, the same inputs and
// equal attributes compute the same values, so the later one goes and its users read
// the earlier one's outputs. Attributes compare after the row's defaults are filled
// in ({dim=1} equals {dim=1, keepdim=false}); a reshape or view compares by its result
// shape ({shape=[-1, 784]} equals {shape=[4, 784]}). Equal small constants merge first
// (a capture makes one 0.0 per `x > 0`), so that the nodes reading them can merge too.
// Nodes with a fused body or regions, and nodes with an effect outside the graph (dropout,
// batch_norm in training mode, copy_) are never merged, and two reads of a value are
// not merged across a write into it (See Note [Writes in the graph] in rewrite.hpp).
// Nor is a node whose outputs a later node writes into (a training batch_norm's running
// statistics in a lowered region, each a fresh copy: Note [Tensors a lowered region's
// calls write], graph/capture_writes.cpp): merged, two writers would share one buffer.
#include <algorithm>
#include <unordered_map>

#include "graph/ir_text.hpp"
#include "graph/rewrite.hpp"
#include "passes/passes.hpp"

namespace nabla::graph {

namespace {

// Constants up to this many elements are compared by value (larger ones are weights
// or buffers made during capture, rarely equal, and costly to compare).
constexpr int64_t kMergeConstantLimit = 1024;

// The attributes as "name=value" texts sorted by name, defaults filled in for table
// ops; number_text prints every double distinctly, so equal texts mean equal values.
// The shape of a reshape or view is left out: its output type in the key says it.
std::string attrs_key(const Node& n) {
  const OpDef* def = Graph::table_op(n);
  Attrs attrs = def ? complete_attrs(*def, n.attrs) : n.attrs;
  bool reshaping = def && is_reshape_op(n.op);
  std::vector<std::string> items;
  for (const Attr& a : attrs.items())
    if (!(reshaping && a.name == "shape")) items.push_back(a.name + "=" + attr_text(a.value));
  std::sort(items.begin(), items.end());
  std::string key;
  for (const std::string& item : items) key += item + ",";
  return key;
}

class Cse {
 public:
  Cse(Graph& g, const PassContext& ctx) : g_(g), ctx_(ctx), roots_(storage_roots(g)), writes_(g.values.size(), 0) {}

  PassResult run() {
    merge_constants();
    written_ = written_storage(g_, roots_);
    std::vector<bool> dead(g_.nodes.size(), false);
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      Node& n = g_.nodes[i];
      forward_.forward_inputs(n);
      dead[i] = merge_with_earlier(n, i);
      for (size_t k : written_inputs(n))
        if (k < n.inputs.size() && n.inputs[k] >= 0) ++writes_[root(n.inputs[k])];
    }
    if (r_.changes) {
      forward_.finish(g_);
      g_.compact(dead);  // (merged constants left the signature, so compact drops them)
    }
    return std::move(r_);
  }

 private:
  size_t root(int v) const { return static_cast<size_t>(roots_[static_cast<size_t>(v)]); }

  // Everything that decides what a node computes: op, inputs (with the number of
  // writes into their storage so far), attributes, and the output types (graph-level
  // ops have no shape rule that would make them follow).
  std::string key(const Node& n) const {
    std::string key = n.name() + "(";
    for (int v : n.inputs) key += v < 0 ? "none," : std::to_string(v) + "@" + std::to_string(writes_[root(v)]) + ",";
    key += "){" + attrs_key(n) + "}:";
    for (int v : n.outputs) key += meta_str(g_.value(v).meta) + ",";
    return key;
  }

  // "f32[2]=[0.0, 1.0]" for a constant compared by value, "" for one that is not
  // (too large, or written into while the graph runs).
  std::string constant_key(int id, const std::vector<bool>& written) const {
    const Value& v = g_.value(id);
    if (v.kind != ValueKind::constant || written[static_cast<size_t>(id)]) return "";
    const Tensor& t = g_.constants.at(v.name);
    if (t.numel() > kMergeConstantLimit) return "";
    // A wrapped number promotes differently from a 0-dim tensor of the same value.
    std::string key = (v.wrapped ? "wrapped " : "") + meta_str(v.meta) + "=";
    for (double x : to_double_vector(t)) key += number_text(x) + ",";
    return key;
  }

  // Later constants equal to an earlier one are read as that one and leave the signature.
  void merge_constants() {
    std::vector<bool> written = written_storage(g_, roots_);
    std::unordered_map<std::string, int> first;
    std::vector<bool> merged(g_.values.size(), false);
    for (int id : g_.inputs) {
      std::string key = constant_key(id, written);
      if (key.empty()) continue;
      auto [it, inserted] = first.emplace(key, id);
      if (inserted) continue;
      forward_.replace(id, it->second);
      merged[static_cast<size_t>(id)] = true;
    }
    r_.changes += remove_constants(g_, [&](int id) { return merged[static_cast<size_t>(id)]; });
  }

  // Points n's users at an earlier node that computes the same; true when it did.
  bool merge_with_earlier(const Node& n, size_t index) {
    if (n.body || !n.regions.empty() || n.outputs.empty()) return false;  // a node without outputs exists for its effect
    for (int out : n.outputs)
      if (written_[static_cast<size_t>(out)]) return false;  // its buffer is written: not to be shared
    auto [it, inserted] = first_.emplace(key(n), index);
    if (inserted) return false;
    const Node& earlier = g_.nodes[it->second];
    std::string effect = side_effect(n);
    if (!effect.empty()) {
      if (ctx_.explain)
        r_.notes.push_back(describe_node(g_, n) + ": not merged with " + describe_node(g_, earlier) + ": " + effect);
      return false;
    }
    for (size_t k = 0; k < n.outputs.size(); ++k) forward_.replace(n.outputs[k], earlier.outputs[k]);
    ++r_.changes;
    return true;
  }

  Graph& g_;
  const PassContext& ctx_;
  std::vector<int> roots_;                         // See storage_roots
  std::vector<int> writes_;                        // per root value: the writes into it seen so far
  std::vector<bool> written_;                      // per value: some node writes into its storage
  std::unordered_map<std::string, size_t> first_;  // node key -> the earliest node with it
  ValueForwarding forward_;
  PassResult r_;
};

PassResult run_cse(Graph& g, const PassContext& ctx) { return Cse(g, ctx).run(); }

}  // namespace

PassInfo cse_pass() {
  return {"cse", "common subexpression elimination: merge nodes that compute the same thing", {}, run_cse};
}

}  // namespace nabla::graph
