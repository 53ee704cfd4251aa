// The layout attributes of Note [Blocked activations between convolutions]
// (passes/block_layout.cpp): the verifier checks that every value's producer and
// readers agree on it, and a graph whose pool gradient reads the blocked layout gives
// the plain graph's result. (The compiled training step against eager is
// tests/graph/test_block_layout.dsl.)
#include <doctest/doctest.h>

#include "autograd/ops.hpp"
#include "graph/executor.hpp"
#include "graph/ir.hpp"
#include "graph/pass_manager.hpp"
#include "tensor/cpu/fused.hpp"
#include "tensor/random.hpp"
#include "tensor/tensor.hpp"
#include "tests/passes/verify_error.hpp"

using namespace nabla;
using namespace nabla::graph;

namespace {

// A pooled convolution of 16 channels, ReLU's gradient of its result (of `grad`: that
// result, or the graph's input %g), and the pool's gradient of that; `pooled`, `relu`
// and `pool` are the three nodes' layout attributes, and the graph returns `result`.
std::string layout_graph(const std::string& pooled, const std::string& relu, const std::string& pool,
                         const std::string& result = "%7", const std::string& grad = "%3") {
  auto braces = [](const std::string& a, const std::string& rest) {
    std::string all = a.empty() ? rest : (rest.empty() ? a : rest + ", " + a);
    return all.empty() ? std::string() : " {" + all + "}";
  };
  return "graph g(%x: f32[2, 1, 4, 6], %w: param f32[16, 1, 3, 3], %b: param f32[16]" +
         std::string(grad == "%g" ? ", %g: f32[2, 16, 2, 3]" : "") +
         ") {\n"
         "  %3, %4 = conv2d_relu_max_pool2d(%x, %w, %b)" +
         braces(pooled, "") +
         " : f32[2, 16, 2, 3], i64[2, 16, 2, 3] {\n"
         "    body(%in0: f32[2, 1, 4, 6], %in1: f32[16, 1, 3, 3], %in2: f32[16])\n"
         "    %3 = conv2d(%in0, %in1, %in2) {stride=[1, 1], padding=[1, 1], dilation=[1, 1], groups=1} : "
         "f32[2, 16, 4, 6]\n"
         "    %4 = relu(%3) : f32[2, 16, 4, 6]\n"
         "    %5, %6 = max_pool2d(%4) {kernel_size=[2, 2], stride=[], padding=[0, 0], dilation=[1, 1], "
         "ceil_mode=false} : f32[2, 16, 2, 3], i64[2, 16, 2, 3]\n"
         "    yield %5, %6\n"
         "  }\n"
         "  %5 = threshold_backward(" +
         grad + ", %3)" + braces(relu, "threshold=0.0") +
         " : f32[2, 16, 2, 3]\n"
         "  %7 = max_pool2d_backward(%5, %4)" +
         braces(pool, "input_shape=[2, 16, 4, 6]") +
         " : f32[2, 16, 4, 6]\n"
         "  return " +
         result + "\n}\n";
}

const char* const kBlockedOut = "blocked_out=true";
const char* const kBoth = "blocked_inputs=[0, 1], blocked_out=true";
const char* const kBothIn = "blocked_inputs=[0, 1]";
// The pool's gradient reading the plain 2x2 pool's nChw16c indices: window codes.
const char* const kPoolIn = "blocked_inputs=[0, 1], window_codes=true";

using nabla::testing::verify_error;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("producers and readers agree on a value's layout, or the verifier names the slot") {
  CHECK(verify_error(layout_graph(kBlockedOut, kBoth, kPoolIn)) == "(no error)");
  CHECK(verify_error(layout_graph("", "", "")) == "(no error)");
  // A reader that does not name a blocked value, and one that names a plain one.
  CHECK(has(verify_error(layout_graph(kBlockedOut, kBoth, "")),
            "node 2 (max_pool2d_backward) at line 10: input 0 (%5) holds nChw16c (its producer's blocked_out), but "
            "blocked_inputs does not name it"));
  CHECK(has(verify_error(layout_graph("", kBoth, kPoolIn)),
            "input 0 (%3) is named in blocked_inputs, but its producer writes NCHW (no blocked_out)"));
  // ReLU's gradient reads and writes one layout; the pool's gradient reads one.
  CHECK(has(verify_error(layout_graph(kBlockedOut, "blocked_inputs=[0, 1]", "")),
            "threshold_backward reads and writes its operands in one layout: blocked_inputs=[0, 1] with "
            "blocked_out=true, or neither"));
  // A blocked value is never returned, and only nodes that know the layout carry it.
  CHECK(has(verify_error(layout_graph(kBlockedOut, kBoth, kPoolIn, "%5")),
            "returns %5, which holds nChw16c (its producer's blocked_out)"));
  CHECK(has(verify_error(layout_graph(kBlockedOut, kBoth, "blocked_inputs=[0, 1, 2]")),
            "unknown attribute 'blocked_inputs'"));
  // The layout needs whole blocks of 16 channels: 12 would write past the tensor.
  std::string twelve = layout_graph(kBlockedOut, kBoth, kPoolIn);
  for (std::string from : {"16, ", "[16]"})
    for (size_t at = twelve.find(from); at != std::string::npos; at = twelve.find(from, at + 1))
      twelve.replace(at, from.size(), from == "16, " ? "12, " : "[12]");
  CHECK(has(verify_error(twelve),
            "blocked_out=true on %3 of type f32[2, 12, 2, 3]: nChw16c holds non-empty f32 [N, C, "
            "H, W] with C a multiple of 16"));
  // The plain 2x2 pool's nChw16c indices are window codes, and the pool's gradient
  // says it reads them; a 3x3 pool's (the same output shape here) are flat indices.
  CHECK(has(verify_error(layout_graph(kBlockedOut, kBoth, kBothIn)),
            "max_pool2d_backward reads flat indices, but its indices %4 are the plain 2x2 pool's in nChw16c, which are "
            "window codes: window_codes=true is needed"));
  auto wide = [&](const char* pool) {
    std::string text = layout_graph(kBlockedOut, kBoth, pool);
    const std::string plain_pool = "kernel_size=[2, 2], stride=[], padding=[0, 0]";
    return text.replace(text.find(plain_pool), plain_pool.size(), "kernel_size=[3, 3], stride=[2, 2], padding=[1, 1]");
  };
  CHECK(verify_error(wide(kBothIn)) == "(no error)");
  CHECK(has(verify_error(wide(kPoolIn)), "max_pool2d_backward reads window codes (window_codes=true), but its indices "
                                          "%4 are not the plain 2x2 pool's in nChw16c: window_codes must be absent"));
}

TEST_CASE("the pool's gradient read in nChw16c equals the plain graph's, values and indices through ReLU") {
  Tensor x = randn({2, 1, 4, 6}), w = randn({16, 1, 3, 3}), b = randn({16});
  Tensor plain = run_graph(parse_graph(layout_graph("", "", "")), {x, w, b})[0];
  Tensor blocked = run_graph(parse_graph(layout_graph(kBlockedOut, kBoth, kPoolIn)), {x, w, b})[0];
  // Plain on a CPU without AVX-512 too, where every kernel ignores the flags.
  INFO("blocked layout in use: " << cpu::blocked_activations());
  const float* p = plain.data<float>();
  const float* q = blocked.data<float>();
  for (int64_t k = 0; k < plain.numel(); ++k) REQUIRE(p[k] == q[k]);
  // The flags reach a kernel only from a graph: an eager call refuses them.
  Tensor grad = randn({2, 16, 2, 3});
  CHECK_THROWS_WITH(call(OpId::threshold_backward, {grad, grad}, Attrs{{"threshold", 0.0}, {"blocked_out", true}}),
                    doctest::Contains("'blocked_out' is a compiled graph's memory layout"));
}

TEST_CASE("the pass blocks a group whole, and a graph input tied into the group keeps it NCHW") {
  Graph g = parse_graph(layout_graph("", "", ""));
  run_pipeline(g, {"block_layout"});
  CHECK(print_graph(g) == layout_graph(kBlockedOut, kBoth, kPoolIn));  // %7 is returned: NCHW
  // ReLU's gradient of an input ties the input to the pooled values: nothing to block.
  Graph tied = parse_graph(layout_graph("", "", "", "%7", "%g"));
  PipelineOptions explain;
  explain.explain = true;
  PipelineResult r = run_pipeline(tied, {"block_layout"}, explain);
  CHECK(print_graph(tied) == layout_graph("", "", "", "%7", "%g"));
  REQUIRE(r.records.size() == 1);
  bool noted = false;
  for (const std::string& note : r.records[0].notes) noted = noted || has(note, "stay NCHW: %g not made by a node");
  CHECK(noted);
}

namespace {

// Two pooled convolutions of batches 2 and 1, ReLU's gradient of the first
// broadcasting against the second, and the first pool's gradient of that (every node
// could take the layout but for the broadcast): `relu` is ReLU's gradient's layout
// attributes.
std::string broadcast_graph(const std::string& pooled, const std::string& relu) {
  auto conv = [&](const std::string& outs, const std::string& x, int64_t n) {
    std::string b = std::to_string(n);
    return "  " + outs + " = conv2d_relu_max_pool2d(" + x + ", %w, %b)" + (pooled.empty() ? "" : " {" + pooled + "}") +
           " : f32[" + b + ", 16, 2, 3], i64[" + b + ", 16, 2, 3] {\n    body(%in0: f32[" + b +
           ", 1, 4, 6], %in1: f32[16, 1, 3, 3], %in2: f32[16])\n    %3 = conv2d(%in0, %in1, %in2) {stride=[1, 1], "
           "padding=[1, 1], dilation=[1, 1], groups=1} : f32[" + b + ", 16, 4, 6]\n    %4 = relu(%3) : f32[" + b +
           ", 16, 4, 6]\n    %5, %6 = max_pool2d(%4) {kernel_size=[2, 2], stride=[], padding=[0, 0], dilation=[1, 1], "
           "ceil_mode=false} : f32[" + b + ", 16, 2, 3], i64[" + b + ", 16, 2, 3]\n    yield %5, %6\n  }\n";
  };
  return "graph g(%x: f32[2, 1, 4, 6], %y: f32[1, 1, 4, 6], %w: param f32[16, 1, 3, 3], %b: param f32[16]) {\n" +
         conv("%4, %5", "%x", 2) + conv("%6, %7", "%y", 1) + "  %8 = threshold_backward(%4, %6) {threshold=0.0" +
         (relu.empty() ? "" : ", " + relu) + "} : f32[2, 16, 2, 3]\n" +
         "  %9 = max_pool2d_backward(%8, %5) {input_shape=[2, 16, 4, 6]} : f32[2, 16, 4, 6]\n  return %9\n}\n";
}

}  // namespace

TEST_CASE("ReLU's gradient that broadcasts keeps its operands NCHW") {
  Graph g = parse_graph(broadcast_graph("", ""));
  verify(g);
  run_pipeline(g, {"block_layout"});
  CHECK(print_graph(g) == broadcast_graph("", ""));
  CHECK(has(verify_error(broadcast_graph(kBlockedOut, "blocked_inputs=[0, 1], blocked_out=true")),
            "threshold_backward broadcasts its operands, which nChw16c cannot hold"));
}

namespace {

// A first layer's weight and bias gradients of its pool's gradient (of ReLU's
// gradient of the pooled values by themselves, so that every value is a node's).
const char* const kFirstLayerGradients =
    "graph g(%x: f32[2, 1, 5, 7], %w: param f32[16, 1, 3, 3], %b: param f32[16]) {\n"
    "  %3, %4 = conv2d_relu_max_pool2d(%x, %w, %b) : f32[2, 16, 2, 3], i64[2, 16, 2, 3] {\n"
    "    body(%in0: f32[2, 1, 5, 7], %in1: f32[16, 1, 3, 3], %in2: f32[16])\n"
    "    %3 = conv2d(%in0, %in1, %in2) {stride=[1, 1], padding=[1, 1], dilation=[1, 1], groups=1} : "
    "f32[2, 16, 5, 7]\n"
    "    %4 = relu(%3) : f32[2, 16, 5, 7]\n"
    "    %5, %6 = max_pool2d(%4) {kernel_size=[2, 2], stride=[], padding=[0, 0], dilation=[1, 1], "
    "ceil_mode=false} : f32[2, 16, 2, 3], i64[2, 16, 2, 3]\n"
    "    yield %5, %6\n"
    "  }\n"
    "  %5 = threshold_backward(%3, %3) {threshold=0.0} : f32[2, 16, 2, 3]\n"
    "  %6 = max_pool2d_backward(%5, %4) {input_shape=[2, 16, 5, 7]} : f32[2, 16, 5, 7]\n"
    "  %7 = conv2d_backward_weight(%x, %6) {stride=[1, 1], padding=[1, 1], dilation=[1, 1], groups=1, "
    "weight_shape=[16, 1, 3, 3]} : f32[16, 1, 3, 3]\n"
    "  %8 = sum(%6) {dims=[0, 2, 3], keepdim=false} : f32[16]\n"
    "  return %7, %8\n"
    "}\n";

}  // namespace

TEST_CASE("the pool's gradient inside the first layer's weight gradient: one node, its text, eager's values") {
  Graph plain = parse_graph(kFirstLayerGradients);
  Graph g = parse_graph(kFirstLayerGradients);
  run_pipeline(g, {"fuse_epilogue", "block_layout"});
  std::string text = print_graph(g);
  INFO(text);
  // One node of the pooled gradient, the indices and x: the pool's gradient is in its
  // body, and its two operands hold nChw16c.
  CHECK(has(text, "conv2d_backward_weight_bias(%5, %4, %x) {blocked_inputs=[0, 1]}"));
  CHECK(!has(text, "\n  %6 = max_pool2d_backward"));
  CHECK(has(text, "    %2 = max_pool2d_backward(%in0, %in1)"));
  CHECK(print_graph(parse_graph(text)) == text);
  CHECK(verify_error(text) == "(no error)");
  Tensor x = randn({2, 1, 5, 7}), w = randn({16, 1, 3, 3}), b = randn({16});
  TensorList want = run_graph(plain, {x, w, b}), got = run_graph(g, {x, w, b});
  REQUIRE(got.size() == 2);
  for (size_t k = 0; k < 2; ++k) {
    const float* p = want[k].data<float>();
    const float* q = got[k].data<float>();
    for (int64_t i = 0; i < want[k].numel(); ++i) CHECK(std::abs(p[i] - q[i]) <= 1e-5f * (1.0f + std::abs(p[i])));
  }
}
