// Passes over the graph IR, registered by name, and the manager that runs pipelines
// of them ("fold,cse,dce" or "default"), verifying the graph after each one and
// recording per-pass time and change counts.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "graph/ir.hpp"

namespace nabla::graph {

// What a pass did to a graph: how many rewrites, and, when asked, why candidates
// were left alone ("batch_norm at mlp.dsl:5:3: training mode").
struct PassResult {
  int changes = 0;
  std::vector<std::string> notes;  // explanations of rewrites not made
};

struct PassContext {
  bool explain = false;  // passes fill PassResult::notes
  // The graph is a training step (compile(..., train=true)): its parameters change
  // between calls (the optimizer steps them), so nothing is kept per parameter value.
  bool training_step = false;
};

struct PassInfo {
  std::string name;      // "cse"
  std::string summary;   // one line for `:passes` and --help
  std::vector<std::string> requires_;  // passes that must have run before (e.g. plan after fuse)
  std::function<PassResult(Graph&, const PassContext&)> run;
  // It re-types the graph (infer), so a pipeline that starts with it may be given one
  // whose types are stale: the manager does not verify the graph before it.
  bool retypes = false;
  // It runs on the graph itself only, not also inside the regions of its control-flow
  // nodes (graph/control_flow_passes.cpp) as the others do.
  bool top_level_only = false;
};

// Every registered pass, in registration order, and the pipeline "default" stands
// for: the registry in passes/passes.cpp defines these two (graph/ sits below the
// passes and includes none of them).
const std::vector<PassInfo>& all_passes();
std::vector<std::string> default_pipeline();
const PassInfo* find_pass(const std::string& name);

// One pass's run inside a pipeline.
struct PassRecord {
  std::string name;
  int changes = 0;
  double ms = 0;
  std::vector<std::string> notes;
  int nodes_before = 0, nodes_after = 0;
};

struct PipelineOptions {
  bool explain = false;
  bool training_step = false;  // PassContext::training_step
  std::string snapshot_after;  // a pass name: keep the graph as it was right after it
};

struct PipelineResult {
  std::vector<PassRecord> records;
  bool has_snapshot = false;
  Graph before_snapshot, after_snapshot;  // around the pass named in snapshot_after
};

// Splits "fold, cse,dce" (or "default") into pass names; unknown names are errors
// that list the known ones.
std::vector<std::string> parse_pipeline(const std::string& spec);
// Runs the passes in order on g, verifying after each (a pass that breaks the graph
// is an error naming it). A pass whose requirement has not run is an error.
PipelineResult run_pipeline(Graph& g, const std::vector<std::string>& passes, const PipelineOptions& opt = {});
// "fold: 3 changes, 0.12 ms" per pass, one per line.
std::string format_records(const std::vector<PassRecord>& records);

}  // namespace nabla::graph
