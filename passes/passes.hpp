// The passes, one function per pass file under passes/ (each returns its PassInfo);
// pass_manager.cpp registers them in this order.
#pragma once
#include "graph/pass_manager.hpp"

namespace nabla::graph {

PassInfo infer_pass();     // passes/infer.cpp
PassInfo unroll_pass();    // passes/unroll.cpp
PassInfo fold_pass();      // passes/fold.cpp
PassInfo simplify_pass();  // passes/simplify.cpp
PassInfo cse_pass();       // passes/cse.cpp
PassInfo licm_pass();      // passes/licm.cpp
PassInfo dce_pass();       // passes/dce.cpp
PassInfo reshard_pass();   // passes/reshard.cpp
PassInfo fold_bn_pass();        // passes/fold_bn.cpp
PassInfo lower_quant_pass();    // passes/lower_quant.cpp
PassInfo fuse_epilogue_pass();  // passes/fuse_epilogue.cpp
PassInfo fuse_pass();           // passes/fuse.cpp
PassInfo fuse_optimizer_pass(); // passes/fuse_optimizer.cpp
PassInfo block_layout_pass();   // passes/block_layout.cpp
PassInfo plan_pass();           // passes/plan.cpp

// Which fusion passes can take a table op, for `nabla --list-ops` and `:ops`:
// "elementwise" (fuse joins it into one loop), "epilogue" (fuse_epilogue folds the
// activation into a linear/conv2d before it), "epilogue base" (linear, conv2d
// themselves), comma-separated; "-" for none. The passes' own tests decide.
std::string fusion_kinds(const OpDef& row);
bool elementwise_fusable(const OpDef& row);  // passes/fuse.cpp

}  // namespace nabla::graph
