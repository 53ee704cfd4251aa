// Passes inside control-flow regions: the pass manager runs each pass (but those
// marked top_level_only) on the graph and then on every region of its cond,
// while_loop and scan nodes, regions of regions too. Regions are closed graphs (See
// Note [Control-flow regions] in graph/control_flow.hpp), so a pass rewrites one as
// it would any graph; their signatures stay, so the node still fits.
#pragma once
#include "graph/pass_manager.hpp"

namespace nabla::graph {

// Runs `pass` in every region of g's nodes (copy on write: graphs copied from one
// another share their regions until one of them changes). Its notes name the region.
PassResult run_in_regions(Graph& g, const PassInfo& pass, const PassContext& ctx);
// Adds b's changes and notes to a.
void add_results(PassResult& a, PassResult b);

}  // namespace nabla::graph
