// A graph module's runs of one graph on a GPU replayed as one CUDA graph launch
// (Note [CUDA graph replay] in graph/replay.cpp). On the CPU, with replay turned off
// (compile(..., cuda_graph=false)), under the profiler, or for a graph that cannot be
// recorded, a run is the executor's (run_graph) with the same results.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "graph/executor.hpp"

namespace nabla::graph {

struct Replay {
  bool enabled = true;  // compile(..., cuda_graph=false) turns it off
  KeptBuffers kept;     // the buffers of the runs that are not replays

  int eager_runs = 0;   // runs by the executor (the first one warms up kernels and caches)
  int recordings = 0;   // CUDA graphs recorded (the first, then one per re-recording)
  int replays = 0;      // runs that were one graph launch
  std::string not_replayed;      // why the graph runs by the executor ("" while it may replay)
  std::vector<std::string> log;  // each recording and each fall-back, with its reason

  struct Recording;  // graph/replay.cpp
  std::shared_ptr<Recording> recording;

  // One line for gm.explain(): how the runs go, e.g. "CUDA graph: replayed 120 runs as
  // one launch of 37 nodes (recorded once)", or why they are not replayed.
  std::string summary() const;
};

// run_graph(g, args) as a replay of the recorded CUDA graph where it can be (the
// first run on a GPU warms up, the second records); the results are the executor's.
// Inputs are copied into the recording's own buffers, parameters are read in place:
// a parameter that moved to new memory (reassigned, not updated in place) makes the
// next run record again, as does a different graph. An output of the last run that the
// caller still holds is moved to a buffer of its own before the next replay writes.
TensorList run_replayed(const Graph& g, const TensorList& args, Replay& replay);

}  // namespace nabla::graph
