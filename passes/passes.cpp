// The registry of passes: every pass once, in the order `:passes` lists them, and the
// default pipeline. The pass manager (graph/pass_manager.hpp) declares these two and
// knows the passes only through them, so graph/ never includes passes/ (the way Lua's
// linit.c lists the libraries that the core opens).
#include "passes/passes.hpp"

namespace nabla::graph {

const std::vector<PassInfo>& all_passes() {
  static const std::vector<PassInfo> passes = {infer_pass(),         unroll_pass(),    fold_pass(),     simplify_pass(),
                                                 cse_pass(),           licm_pass(),      dce_pass(),      reshard_pass(),  fold_bn_pass(),
                                                 lower_quant_pass(),   fuse_epilogue_pass(), fuse_pass(), fuse_optimizer_pass(),
                                                 block_layout_pass(), plan_pass()};
  return passes;
}

std::vector<std::string> default_pipeline() {
  std::vector<std::string> names;
  for (const char* n : {"unroll", "fold", "simplify", "cse", "licm", "dce", "reshard", "fold_bn", "lower_quant", "fuse_epilogue", "fuse", "fuse_optimizer", "block_layout", "plan"})
    if (find_pass(n)) names.push_back(n);
  return names;
}

}  // namespace nabla::graph
