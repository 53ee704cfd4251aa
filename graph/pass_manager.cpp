// The pass manager: pipelines by name, verification after each pass, records.
// Which passes exist is passes/passes.cpp's to say (all_passes, default_pipeline).
#include "graph/pass_manager.hpp"

#include <chrono>
#include <cstdio>
#include <set>

#include "graph/control_flow_passes.hpp"

namespace nabla::graph {

const PassInfo* find_pass(const std::string& name) {
  for (const PassInfo& p : all_passes())
    if (p.name == name) return &p;
  return nullptr;
}

std::vector<std::string> parse_pipeline(const std::string& spec) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= spec.size()) {
    size_t comma = spec.find(',', start);
    std::string name = spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    name.erase(0, name.find_first_not_of(" \t"));
    name.erase(name.find_last_not_of(" \t") + 1);
    if (name == "default") {
      for (auto& n : default_pipeline()) names.push_back(n);
    } else if (!name.empty()) {
      if (!find_pass(name)) {
        std::string known;
        for (const PassInfo& p : all_passes()) known += (known.empty() ? "" : ", ") + p.name;
        throw Error("unknown pass '" + name + "' (passes: " + known + ", or default)");
      }
      names.push_back(name);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return names;
}

PipelineResult run_pipeline(Graph& g, const std::vector<std::string>& passes, const PipelineOptions& opt) {
  PipelineResult result;
  std::set<std::string> done;
  PassContext ctx{opt.explain, opt.training_step};
  // A pipeline starts from a sound graph, unless its first pass re-types it.
  const PassInfo* first = passes.empty() ? nullptr : find_pass(passes[0]);
  if (!first || !first->retypes) verify(g, "");
  for (const std::string& name : passes) {
    const PassInfo* p = find_pass(name);
    if (!p) throw Error("unknown pass '" + name + "'");
    for (const std::string& req : p->requires_)
      if (!done.count(req)) throw Error("pass '" + name + "' needs pass '" + req + "' to run before it");
    bool snapshot = name == opt.snapshot_after;
    if (snapshot) result.before_snapshot = g;
    PassRecord rec;
    rec.name = name;
    rec.nodes_before = static_cast<int>(g.nodes.size());
    auto t0 = std::chrono::steady_clock::now();
    PassResult r = p->run(g, ctx);
    if (!p->top_level_only) add_results(r, run_in_regions(g, *p, ctx));
    rec.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    verify(g, name);
    rec.changes = r.changes;
    rec.notes = std::move(r.notes);
    rec.nodes_after = static_cast<int>(g.nodes.size());
    if (snapshot) {
      result.after_snapshot = g;
      result.has_snapshot = true;
    }
    result.records.push_back(std::move(rec));
    done.insert(name);
  }
  return result;
}

std::string format_records(const std::vector<PassRecord>& records) {
  std::string out;
  char buf[160];
  for (const PassRecord& r : records) {
    std::snprintf(buf, sizeof buf, "%-14s %3d change%s  %3d -> %3d nodes  %.3f ms\n", r.name.c_str(), r.changes,
                  r.changes == 1 ? " " : "s", r.nodes_before, r.nodes_after, r.ms);
    out += buf;
    for (const std::string& note : r.notes) out += "    " + note + "\n";
  }
  return out;
}

}  // namespace nabla::graph
