#include "graph/control_flow_passes.hpp"

#include "graph/control_flow.hpp"

namespace nabla::graph {

void add_results(PassResult& a, PassResult b) {
  a.changes += b.changes;
  for (std::string& note : b.notes) a.notes.push_back(std::move(note));
}

PassResult run_in_regions(Graph& g, const PassInfo& pass, const PassContext& ctx) {
  PassResult total;
  for (Node& n : g.nodes) {
    const std::vector<std::string>& labels = region_labels(n.kind);
    for (size_t k = 0; k < n.regions.size(); ++k) {
      auto copy = std::make_shared<Graph>(*n.regions[k]);
      PassResult r = pass.run(*copy, ctx);
      add_results(r, run_in_regions(*copy, pass, ctx));
      if (r.changes) n.regions[k] = std::move(copy);
      std::string where = "in region '" + (k < labels.size() ? labels[k] : std::string("?")) + "' of " + n.name() +
                          (n.origin.empty() ? std::string() : " at " + n.origin) + ": ";
      for (std::string& note : r.notes) note = where + note;
      add_results(total, std::move(r));
    }
  }
  return total;
}

}  // namespace nabla::graph
