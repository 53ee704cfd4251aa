// The verifier's message for a graph's text, or "(no error)": shared by the IR tests
// of tests/passes/.
#pragma once
#include <string>

#include "graph/executor.hpp"
#include "graph/ir.hpp"

namespace nabla::testing {

inline std::string verify_error(const std::string& text) {
  try {
    graph::verify(graph::parse_graph(text));
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace nabla::testing
