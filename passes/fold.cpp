// Constant folding: a node of the op table whose inputs are all constants is run
// once, at optimization time, with the real kernels, and its outputs become new
// constants of the graph; its users read them and the node goes. Constants that only
// folded nodes used go too (they are captured values, not part of the caller's
// signature).
//
// Left alone, with a note when explaining: nodes with an effect outside the graph
// (dropout, batch_norm in training mode; see side_effect in rewrite.hpp), nodes that
// read a constant the graph writes into, results larger than kFoldLimitElements, and
// nodes whose kernel fails on the constants.
#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "graph/rewrite.hpp"
#include "passes/passes.hpp"

namespace nabla::graph {

namespace {

// Folding stores each result in the graph's constants, so a cheap op with a big
// result (expand of a scalar to [4096, 4096]) would trade a few microseconds per call
// for 64 MiB held for good, and slow every later pass that copies the graph. A
// million elements (4 MiB in f32) keeps the useful cases: folded weight transforms of
// small layers, scalars, masks.
constexpr int64_t kFoldLimitElements = int64_t{1} << 20;

bool all_inputs_constant(const Graph& g, const Node& n) {
  bool any = false;
  for (int v : n.inputs) {
    if (v < 0) continue;  // an absent optional input
    if (g.value(v).kind != ValueKind::constant) return false;
    any = true;
  }
  return any;
}

// A constant input that the graph writes into (a training batch_norm's running
// statistics change while the graph runs; See Note [Writes in the graph]), or -1.
int written_input(const Node& n, const std::vector<bool>& written) {
  for (int v : n.inputs)
    if (v >= 0 && v < static_cast<int>(written.size()) && written[static_cast<size_t>(v)]) return v;
  return -1;
}

// Why a candidate must not be folded, or "" when it may.
std::string fold_blocker(const Graph& g, const Node& n, const std::vector<bool>& written) {
  std::string effect = side_effect(n);
  if (!effect.empty()) return effect;
  if (int v = written_input(n, written); v >= 0) return "reads %" + value_name(g, v) + ", which the graph writes into";
  int64_t elements = 0;
  for (int v : n.outputs) elements += shape_numel(g.value(v).meta.sizes);
  if (elements > kFoldLimitElements)
    return "its result has " + std::to_string(elements) + " elements, more than the folding limit of " +
           std::to_string(kFoldLimitElements) + " (it would be stored in the graph)";
  return "";
}

// Autocast off while folding: the graph already holds the dtype conversions that
// the capture saw, so the kernels must run on the dtypes as written.
class NoAutocastGuard {
 public:
  NoAutocastGuard() : previous_(autocast_dtype()) { set_autocast_dtype(std::nullopt); }
  ~NoAutocastGuard() { set_autocast_dtype(previous_); }
  NoAutocastGuard(const NoAutocastGuard&) = delete;
  NoAutocastGuard& operator=(const NoAutocastGuard&) = delete;

 private:
  std::optional<DType> previous_;
};

// Runs the node's kernel on its constant inputs. Results are made contiguous (a
// transpose's would otherwise keep its strides); a reshape's may still share an input
// constant's storage, which is safe because constants are never written.
TensorList evaluate(const Graph& g, const Node& n, const OpDef& def) {
  NoGradGuard no_grad;
  NoAutocastGuard no_autocast;
  TensorList inputs;
  for (int v : n.inputs) inputs.push_back(v < 0 ? Tensor() : g.constants.at(g.value(v).name));
  TensorList outputs = call(def.id, inputs, n.attrs);
  for (Tensor& t : outputs) t = contiguous(t);
  return outputs;
}

// "" when the kernel's results have the node's output types (they do unless the
// captured constants were wrapped numbers, which promote differently).
std::string type_mismatch(const Graph& g, const Node& n, const TensorList& outputs) {
  if (outputs.size() != n.outputs.size()) return "the kernel made another number of outputs";
  for (size_t k = 0; k < outputs.size(); ++k) {
    const TensorMeta& want = g.value(n.outputs[k]).meta;
    TensorMeta have{outputs[k].sizes(), outputs[k].dtype()};
    if (have.dtype != want.dtype || have.sizes != want.sizes)
      return "the kernel made " + meta_str(have) + " where the node says " + meta_str(want);
  }
  return "";
}

// Evaluates the node into `outputs`; returns why it cannot be folded, or "". A kernel
// that fails on these constants (an index out of range) leaves the node to fail
// when the graph runs, where the error reaches the user with the node's DSL line.
std::string try_evaluate(const Graph& g, const Node& n, const OpDef& def, TensorList& outputs) {
  try {
    outputs = evaluate(g, n, def);
  } catch (const Error& e) {
    return std::string("its kernel fails: ") + e.what();
  }
  return type_mismatch(g, n, outputs);
}

// Removes the constants that folding made unused: those used before and not any
// more, and intermediate results folded further (compact then drops their values).
// Constants that were unused from the start are dce's to drop.
void drop_constants_made_unused(Graph& g, const std::vector<int>& uses_before, const std::vector<bool>& dead) {
  std::vector<int> uses_after = live_use_counts(g, dead);
  remove_constants(g, [&](int id) {
    bool new_constant = id >= static_cast<int>(uses_before.size());
    bool was_used = new_constant || uses_before[static_cast<size_t>(id)] > 0;
    return was_used && uses_after[static_cast<size_t>(id)] == 0;
  });
}

PassResult run_fold(Graph& g, const PassContext& ctx) {
  PassResult r;
  std::vector<int> uses_before = g.use_counts();
  std::vector<bool> dead(g.nodes.size(), false);
  std::vector<bool> written = written_storage(g, storage_roots(g));
  ValueForwarding forward;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    forward.forward_inputs(n);
    const OpDef* def = Graph::table_op(n);
    if (!def || !all_inputs_constant(g, n)) continue;
    std::string why = fold_blocker(g, n, written);
    TensorList outputs;
    if (why.empty()) why = try_evaluate(g, n, *def, outputs);
    if (!why.empty()) {
      if (ctx.explain) r.notes.push_back(describe_node(g, n) + ": not folded: " + why);
      continue;
    }
    for (size_t k = 0; k < outputs.size(); ++k) forward.replace(n.outputs[k], g.add_constant(outputs[k]));
    dead[i] = true;
    ++r.changes;
  }
  if (!r.changes) return r;
  forward.finish(g);
  drop_constants_made_unused(g, uses_before, dead);
  g.compact(dead);
  return r;
}

}  // namespace

PassInfo fold_pass() {
  return {"fold", "constant folding: run ops whose inputs are all constants once, keep their results", {}, run_fold};
}

}  // namespace nabla::graph
