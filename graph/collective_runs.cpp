// See Note [Collectives in a graph run] in collective_runs.hpp.
#include "graph/collective_runs.hpp"

#include "autograd/op_table.hpp"
#include "graph/rewrite.hpp"
#include "tensor/dist/collective_queue.hpp"

namespace nabla::graph {

CollectiveRuns::CollectiveRuns(const Graph& g, Device device) : g_(g) {
  if (device.kind == DeviceKind::cuda || !dist::default_communicator()) return;
  for (const Node& n : g.nodes)
    if (is_collective(n.op)) active_ = true;
  if (!active_) return;
  roots_ = storage_roots(g);
  last_read_.assign(g.values.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int v : g.nodes[i].inputs)
      if (v >= 0) last_read_[static_cast<size_t>(roots_[static_cast<size_t>(v)])] = static_cast<int>(i);
}

CollectiveRuns::~CollectiveRuns() {
  for (auto& [root, ticket] : pending_) {
    try {
      dist::wait_collective(ticket);
    } catch (...) {  // the error that unwinds the run is the one to report
    }
  }
}

// A gather that reads only the graph's inputs (a unit's flat parameter): an
// intermediate's buffer could be planned for another value while the gather still
// reads it.
bool CollectiveRuns::runs_behind(const Node& n) const {
  if (n.op != OpId::dist_shard_gather) return false;
  for (int v : n.inputs)
    if (v >= 0 && g_.value(v).kind == ValueKind::op) return false;
  return true;
}

bool CollectiveRuns::handles(const Node& n) const { return active_ && is_collective(n.op); }

void CollectiveRuns::wait_for_reads(const Node& n) {
  const OpDef* def = Graph::table_op(n);
  if (def && def->view) return;
  for (int v : n.inputs) {
    if (v < 0) continue;
    auto it = pending_.find(roots_[static_cast<size_t>(v)]);
    if (it == pending_.end()) continue;
    uint64_t ticket = it->second;
    pending_.erase(it);
    dist::wait_collective(ticket);
  }
}

void CollectiveRuns::wait_for_storage_done(size_t node) {
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (last_read_[static_cast<size_t>(it->first)] > static_cast<int>(node)) {
      ++it;
      continue;
    }
    uint64_t ticket = it->second;
    it = pending_.erase(it);
    dist::wait_collective(ticket);
  }
}

TensorList CollectiveRuns::run(const Node& n, const TensorList& ins, TensorList outs) {
  const OpDef& def = *Graph::table_op(n);
  uint64_t ticket = dist::queue_collective(
      [kernel = def.cpu, ins, attrs = complete_attrs(def, n.attrs), outs](dist::Communicator&) mutable {
        kernel(ins, attrs, outs);
      });
  if (runs_behind(n)) pending_[roots_[static_cast<size_t>(n.outputs[0])]] = ticket;
  else dist::wait_collective(ticket);
  return outs;
}

void CollectiveRuns::finish() {
  while (!pending_.empty()) {
    uint64_t ticket = pending_.begin()->second;
    pending_.erase(pending_.begin());
    dist::wait_collective(ticket);
  }
}

}  // namespace nabla::graph
