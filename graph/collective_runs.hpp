// How a graph run makes its collectives (the executor's helper; graph/executor.cpp).
//
// Note [Collectives in a graph run]
// A graph's collective nodes (autograd/ops/dist.cpp) run on the collective queue's
// thread (Note [One queue for a unit's collectives] in tensor/dist/collective_queue.hpp),
// in node order, so a graph run and eager FSDP never call the communicator from two
// threads at once, and every rank makes the same calls in the same order. A
// dist_shard_gather of the graph's inputs (a unit's flat parameter) is not waited for
// where it runs: the run waits at the first node
// that reads its result or a view of it (a view node makes a view without reading),
// so the gather overlaps the nodes in between; the reshard pass issues each gather
// one unit early for that (passes/reshard.cpp). A gather is also waited for after the
// last node that reads its storage at all (views included), since the plan may then
// hand its bytes on. Every other collective is waited for at once, and the run waits
// for every gather before it returns. Without a process
// group, and for tensors on a GPU (NCCL orders its work on the stream), the nodes run
// where they are, as any other.
#pragma once
#include <cstdint>
#include <map>
#include <vector>

#include "graph/ir.hpp"

namespace nabla::graph {

class CollectiveRuns {
 public:
  CollectiveRuns(const Graph& g, Device device);
  ~CollectiveRuns();  // waits for gathers still running (after an error elsewhere)
  CollectiveRuns(const CollectiveRuns&) = delete;
  CollectiveRuns& operator=(const CollectiveRuns&) = delete;

  // Whether node n runs here rather than as any other node.
  bool handles(const Node& n) const;
  // Waits for the gathers whose results (or views of them) node n reads. (Every node
  // of every run calls these two: with nothing pending they return at once.)
  void before(const Node& n) {
    if (!pending_.empty()) wait_for_reads(n);
  }
  // Waits for the gathers whose storage no node after node `node` reads: the plan may
  // give their bytes to the next value (a gathered vector only view nodes read, or
  // none), so they must have landed.
  void after(size_t node) {
    if (!pending_.empty()) wait_for_storage_done(node);
  }
  // Queues node n's kernel into `outs` (allocated by the executor); a gather is
  // waited for later, any other collective now.
  TensorList run(const Node& n, const TensorList& ins, TensorList outs);
  // Waits for every gather still running; rethrows its error.
  void finish();

 private:
  bool runs_behind(const Node& n) const;
  void wait_for_reads(const Node& n);
  void wait_for_storage_done(size_t node);

  const Graph& g_;
  bool active_ = false;
  std::vector<int> roots_;                  // storage_roots(g), when active
  std::vector<int> last_read_;              // per root: the last node reading it or a view of it, -1: none
  std::map<int, uint64_t> pending_;         // a running gather's result (a root) -> its ticket
};

}  // namespace nabla::graph
