// ONNX export (docs/onnx.md): writes an inference graph of the IR as an ONNX model
// (opset 17, IR version 8: what libonnx 1.12 checks and ONNX Runtime 1.x loads)
// through libonnx's protobuf classes. Graph inputs become ONNX inputs with their
// names, element types and static shapes; parameters and constants become
// initializers; each node becomes the ONNX nodes of its op's mapping (graph/onnx/
// writer.hpp: one row per OpId), fused and epilogue nodes as the ops of their bodies.
// It reads graphs, never changes them, and knows nothing of the language.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "graph/ir.hpp"

namespace nabla::graph {

constexpr int64_t kOnnxOpset = 17;
constexpr int64_t kOnnxIrVersion = 8;

// The tensors bound to the graph's param inputs, by name (a graph module's
// parameters and buffers).
using BoundParams = std::vector<std::pair<std::string, Tensor>>;

// The model's bytes (a serialized ModelProto). Errors (nabla::Error) name the node,
// its DSL line and why: an op with no ONNX form, a training-mode node, a parameter
// with no bound tensor.
std::string onnx_model_bytes(const Graph& g, const BoundParams& params);
// Writes onnx_model_bytes to `path` (through a temporary file, renamed, so a failed
// export leaves no half-written model); an unwritable path is an error naming it.
void export_onnx(const Graph& g, const BoundParams& params, const std::string& path);

// How the exporter treats op `op`: "" when it is mapped, else why ONNX cannot
// express it. Every OpId has one or the other (tests/onnx/coverage.cpp).
std::string onnx_refusal(OpId op);
bool onnx_mapped(OpId op);

}  // namespace nabla::graph
