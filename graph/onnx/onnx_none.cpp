// ONNX export in a build without libonnx (-DNABLA_ONNX=OFF, as the GPU machines'
// build is): every export is an error that says why, and no op is mapped.
#include "graph/onnx/export.hpp"

namespace nabla::graph {

namespace {
[[noreturn]] void not_built() {
  throw Error("export_onnx: this nabla was built without ONNX export (-DNABLA_ONNX=OFF); "
              "rebuild with libonnx-dev installed");
}
}  // namespace

std::string onnx_model_bytes(const Graph&, const BoundParams&) { not_built(); }
void export_onnx(const Graph&, const BoundParams&, const std::string&) { not_built(); }
std::string onnx_refusal(OpId) { return "this nabla was built without ONNX export"; }
bool onnx_mapped(OpId) { return false; }

}  // namespace nabla::graph
