// The passes, one function per pass file under passes/ (each returns its PassInfo);
// pass_manager.cpp registers them in this order.
#pragma once
#include "passes/pass_manager.hpp"

namespace nabla::graph {

PassInfo infer_pass();     // passes/infer.cpp
PassInfo fold_pass();      // passes/fold.cpp
PassInfo simplify_pass();  // passes/simplify.cpp
PassInfo cse_pass();       // passes/cse.cpp
PassInfo dce_pass();       // passes/dce.cpp
PassInfo fold_bn_pass();        // passes/fold_bn.cpp
PassInfo fuse_epilogue_pass();  // passes/fuse_epilogue.cpp
PassInfo fuse_pass();           // passes/fuse.cpp
PassInfo plan_pass();           // passes/plan.cpp

}  // namespace nabla::graph
