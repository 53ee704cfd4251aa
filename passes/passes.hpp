// The passes, one function per pass file under passes/ (each returns its PassInfo);
// pass_manager.cpp registers them in this order.
#pragma once
#include "passes/pass_manager.hpp"

namespace nabla::graph {

PassInfo fold_pass();      // passes/fold.cpp
PassInfo simplify_pass();  // passes/simplify.cpp
PassInfo cse_pass();       // passes/cse.cpp
PassInfo dce_pass();       // passes/dce.cpp
PassInfo plan_pass();      // passes/plan.cpp

}  // namespace nabla::graph
