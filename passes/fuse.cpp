// Elementwise fusion: chains and trees of elementwise ops become one `fused` node,
// whose body is the ops it absorbed and whose kernel (graph/fused_kernels.cpp, on
// cpu::run_elementwise_program) runs them in one loop that reads each input once.
//
// Groups grow from a root backwards: walking the nodes from the last, an elementwise
// node that no group holds starts one, and a producer joins when it is elementwise,
// makes the group's shape and dtype, and every use of its result is inside the
// group (a result something else also reads must be written out anyway; the
// producer stays, and the group reads its result). A group of one node stays as it
// was. Inputs may broadcast and have any dtype the kernel reads (it converts them as
// the op table's kernels do: wrapped numbers are f64, where's condition bool).
//
// Left alone, with a note when explaining: a producer whose result has several
// consumers or is returned, one of another shape (it would be recomputed for every
// element it broadcasts to) or dtype, comparisons made in another dtype, and
// nodes reading storage the graph writes into (the fused node runs
// where its root was, after the write; Note [Writes in the graph]).
#include <algorithm>
#include <set>

#include "graph/rewrite.hpp"
#include "passes/passes.hpp"
#include "tensor/cpu/fused.hpp"

namespace nabla::graph {

namespace {

// Why node n cannot be in any group, or "". A comparison makes bool, which a group
// holds as 1 or 0 in its own dtype: it may feed a where inside a group, never end
// one, and it must compare values of the group's dtype (join_blocker checks).
std::string not_fusable(const Graph& g, const Node& n, const std::vector<bool>& written) {
  const OpDef* def = Graph::table_op(n);
  if (!def || !def->elementwise) return "not elementwise";
  if (!is_fusable_elementwise(def->id)) return std::string("no fused kernel for ") + def->name;
  if (n.outputs.size() != 1) return "several outputs";
  DType dt = g.value(n.outputs[0]).meta.dtype;
  bool comparison = is_comparison_op(n.op);
  if (!comparison && dt != DType::f32 && dt != DType::f64) return std::string("dtype ") + dtype_name(dt);
  for (int v : n.inputs) {
    if (v < 0) continue;
    DType in = g.value(v).meta.dtype;
    if (!cpu::elementwise_program_reads(in)) return std::string("an input of dtype ") + dtype_name(in);
    if (written[static_cast<size_t>(v)]) return "reads %" + value_name(g, v) + ", which the graph writes into";
  }
  return "";
}

class Fuser {
 public:
  Fuser(const Graph& g, const PassContext& ctx) : g_(g), ctx_(ctx), uses_(g.use_counts()) {
    written_ = written_storage(g, storage_roots(g));
    reason_.resize(g.nodes.size());
    for (size_t i = 0; i < g.nodes.size(); ++i) reason_[i] = not_fusable(g, g.nodes[i], written_);
    group_.assign(g.nodes.size(), -1);
  }

  // Groups of at least two nodes, each in execution order (root last).
  std::vector<std::vector<int>> groups() {
    std::vector<std::vector<int>> out;
    for (size_t i = g_.nodes.size(); i-- > 0;) {
      if (group_[i] >= 0 || !reason_[i].empty() || is_comparison_op(g_.nodes[i].op)) continue;
      std::vector<int> members = grow(static_cast<int>(i));
      if (members.size() < 2) continue;
      std::sort(members.begin(), members.end());
      for (int m : members) group_[static_cast<size_t>(m)] = static_cast<int>(out.size());
      out.push_back(std::move(members));
    }
    return out;
  }

  std::vector<std::string> notes;

 private:
  // The members of the group rooted at `root`: producers join until none can.
  std::vector<int> grow(int root) {
    std::vector<int> members{root};
    std::set<int> in_group{root};
    const TensorMeta& shape = g_.value(g_.nodes[static_cast<size_t>(root)].outputs[0]).meta;
    bool grew = true;
    std::set<int> noted;
    while (grew) {
      grew = false;
      for (size_t k = 0; k < members.size(); ++k) {
        for (int v : g_.nodes[static_cast<size_t>(members[k])].inputs) {
          if (v < 0 || g_.value(v).kind != ValueKind::op) continue;
          int p = g_.value(v).node;
          if (in_group.count(p) || group_[static_cast<size_t>(p)] >= 0) continue;
          std::string why = join_blocker(p, v, shape, in_group);
          if (!why.empty()) {
            if (ctx_.explain && reason_[static_cast<size_t>(p)].empty() && noted.insert(p).second)
              pending_.push_back({p, why});
            continue;
          }
          members.push_back(p);
          in_group.insert(p);
          grew = true;
        }
      }
    }
    // Notes for producers that never joined (one that joined on a later round is fine).
    for (auto& [p, why] : pending_)
      if (!in_group.count(p))
        notes.push_back(describe_node(g_, g_.nodes[static_cast<size_t>(p)]) + ": not fused into %" +
                        value_name(g_, g_.nodes[static_cast<size_t>(root)].outputs[0]) + ": " + why);
    pending_.clear();
    return members;
  }

  // Why producer p (of value v) cannot join the group, or "".
  std::string join_blocker(int p, int v, const TensorMeta& shape, const std::set<int>& in_group) const {
    const std::string& reason = reason_[static_cast<size_t>(p)];
    if (!reason.empty()) return reason;
    const TensorMeta& m = g_.value(v).meta;
    const Node& producer = g_.nodes[static_cast<size_t>(p)];
    if (is_comparison_op(producer.op)) {
      // It compares in its inputs' result_type (f32 > 0.1 in f32), which must be the
      // group's dtype, the one the program computes in.
      DType compares_in =
          result_type({meta_tensor(g_.value(producer.inputs[0])), meta_tensor(g_.value(producer.inputs[1]))});
      if (compares_in != shape.dtype)
        return std::string("it compares in ") + dtype_name(compares_in) + ", the group computes in " +
               dtype_name(shape.dtype);
    } else if (m.dtype != shape.dtype) {
      return std::string("dtype ") + dtype_name(m.dtype);
    }
    if (!(m.sizes == shape.sizes)) return "its shape " + meta_str(m) + " broadcasts to " + meta_str(shape);
    int inside = 0;
    for (int member : in_group)
      for (int in : g_.nodes[static_cast<size_t>(member)].inputs) inside += in == v;
    if (inside < uses_[static_cast<size_t>(v)]) return "its result has other consumers";
    return "";
  }

  const Graph& g_;
  const PassContext& ctx_;
  std::vector<int> uses_;
  std::vector<bool> written_;
  std::vector<std::string> reason_;
  std::vector<int> group_;
  std::vector<std::pair<int, std::string>> pending_;
};

PassResult run_fuse(Graph& g, const PassContext& ctx) {
  Fuser fuser(g, ctx);
  std::vector<std::vector<int>> groups = fuser.groups();
  PassResult r;
  r.notes = std::move(fuser.notes);
  if (groups.empty()) return r;
  std::vector<bool> dead(g.nodes.size(), false);
  for (const std::vector<int>& members : groups) fuse_nodes(g, members, Node::of_kind(NodeKind::fused), dead);
  r.changes = static_cast<int>(groups.size());
  g.compact(dead);
  return r;
}

}  // namespace

bool elementwise_fusable(const OpDef& row) { return row.elementwise && is_fusable_elementwise(row.id); }

PassInfo fuse_pass() {
  return {"fuse", "elementwise fusion: chains and trees of elementwise ops become one kernel", {}, run_fuse};
}

}  // namespace nabla::graph
