// The passes, one function per pass file under passes/ (each returns its PassInfo);
// pass_manager.cpp registers them in this order.
#pragma once
#include "passes/pass_manager.hpp"

namespace nabla::graph {

PassInfo dce_pass();  // passes/dce.cpp

}  // namespace nabla::graph
