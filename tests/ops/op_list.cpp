// The op list (tensor/op_list.hpp) against the tables it drives: every elementwise op
// of the list has a row marked elementwise and runs in the fused loops, computing
// there what its own kernel computes; every row that claims CUDA has a CUDA kernel
// (Note [Every device has every kernel]), and the check that says so at start-up
// finds a kernel left out; every row has a doc whose example calls it (which
// tests/interp/op_docs.cpp runs). The GPU half of the fused-loop check is in
// tests/tensor/cuda_elementwise.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include "autograd/ops.hpp"
#include "ops/compare.hpp"
#include "tensor/cpu/fused.hpp"
#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/random.hpp"
#include "tensor/scalar_ops.hpp"

using namespace nabla;

namespace {

std::vector<OpId> elementwise_list() {
  return {
#define NABLA_LISTED(name) OpId::name,
      NABLA_ELEMENTWISE_OPS(NABLA_LISTED)
#undef NABLA_LISTED
  };
}

// Inputs in every op's domain (log, sqrt, rsqrt, pow want positive numbers; logit
// numbers in (0, 1)).
Tensor positive(const Shape& shape) { return add(rand(shape, DType::f64), wrapped_scalar(0.5)); }
Tensor in_domain(OpId op, const Shape& shape) {
  return op == OpId::logit ? add(mul(rand(shape, DType::f64), wrapped_scalar(0.8)), wrapped_scalar(0.1))
                           : positive(shape);
}

// One step of `op` over the program's inputs 0..arity-1.
cpu::ElementwiseProgram one_step(OpId op) {
  cpu::ElementwiseProgram prog;
  int arity = cpu::elementwise_arity(op);
  prog.num_inputs = arity;
  cpu::ElementwiseStep step;
  step.op = op;
  for (int k = 0; k < arity; ++k) step.args[k] = k;
  if (op == OpId::clamp) {
    step.has_lo = step.has_hi = true;
    step.attr[0] = 0.7;
    step.attr[1] = 1.2;
  }
  if (op == OpId::threshold_backward) step.attr[0] = 1.0;  // inputs lie in [0.5, 1.5): both sides
  if (is_parametric_unary_op(op)) {  // the row's defaults, as unfused gets them
    std::array<double, 2> values = scalar::scalar_attr_values(op, {});
    step.attr[0] = values[0];
    step.attr[1] = values[1];
  }
  prog.steps = {step};
  prog.result = arity;
  return prog;
}

// What the op's row computes, with the attributes the one-step program uses.
Tensor unfused(OpId op, const TensorList& in) {
  if (op == OpId::clamp) return clamp(in[0], 0.7, 1.2);
  if (op == OpId::threshold_backward) return threshold_backward(in[0], in[1], 1.0);
  Tensor out = call1(op, in);
  return out.dtype() == DType::b8 ? to_dtype(out, DType::f64) : out;  // a program writes 1 or 0
}

}  // namespace

TEST_CASE("every row has a doc: a sentence, then an example that calls the op") {
  for (const OpDef& row : op_table()) {
    CAPTURE(row.name);
    REQUIRE(row.doc != nullptr);
    std::string doc = row.doc;
    size_t example = doc.find("Example: ");
    REQUIRE(example != std::string::npos);
    CHECK(example > 0);  // a sentence comes first
    // The call: the name, not inside a longer one (max in argmax), then "(".
    std::regex call("(^|[^A-Za-z0-9_])" + std::string(row.name) + "\\(");
    CHECK(std::regex_search(doc.substr(example), call));
  }
}

TEST_CASE("every op of the elementwise list has an elementwise row with a CPU kernel") {
  for (OpId op : elementwise_list()) {
    CAPTURE(op_name(op));
    const OpDef& row = op_def(op);
    CHECK(row.elementwise);
    CHECK(bool(row.cpu));
    CHECK(is_fusable_elementwise(op));
  }
}

TEST_CASE("every row marked elementwise is in the list the fused loops run") {
  std::vector<OpId> listed = elementwise_list();
  for (const OpDef& row : op_table()) {
    if (!row.elementwise) continue;
    CAPTURE(row.name);
    CHECK(std::find(listed.begin(), listed.end(), row.id) != listed.end());
  }
}

TEST_CASE("the families of the list partition it and match the rows' arity") {
  for (OpId op : elementwise_list()) {
    CAPTURE(op_name(op));
    int families = is_unary_op(op) + is_parametric_unary_op(op) + is_binary_op(op) + is_comparison_op(op) +
                   (op == OpId::where || op == OpId::clamp || op == OpId::threshold_backward);
    CHECK(families == 1);
    CHECK(op_def(op).num_inputs == cpu::elementwise_arity(op));
    if (keeps_integers(op)) CHECK(is_unary_op(op));
    if (is_epilogue_activation(op)) CHECK(is_unary_op(op));
  }
}

TEST_CASE("a one-step fused loop computes what each elementwise op's kernel computes") {
  manual_seed(26);
  for (OpId op : elementwise_list()) {
    CAPTURE(op_name(op));
    int arity = cpu::elementwise_arity(op);
    TensorList in;
    for (int k = 0; k < arity; ++k) in.push_back(in_domain(op, {5, 7}));
    TensorList row_in = in;
    if (op == OpId::where) {  // the program reads the condition as 1 or 0, the row as bool
      row_in[0] = gt(in[0], wrapped_scalar(1.0));
      in[0] = to_dtype(row_in[0], DType::f64);
    }
    Tensor fused = empty({5, 7}, DType::f64);
    cpu::run_elementwise_program(one_step(op), in, fused);
    CHECK(testing::max_abs_diff(fused, unfused(op, row_in)) == 0);
  }
}

TEST_CASE("a fused loop refuses a step of an op it cannot run") {
  cpu::ElementwiseProgram prog = one_step(OpId::exp);
  prog.steps[0].op = OpId::matmul;
  Tensor out = empty({2}, DType::f64);
  CHECK_THROWS_WITH(cpu::run_elementwise_program(prog, {positive({2})}, out),
                    "elementwise program: matmul cannot run in a fused loop");
}

TEST_CASE("every row that claims CUDA has a CUDA kernel") {
  if (!cuda::built_with_cuda()) {
    MESSAGE("skipped: this nabla was built without CUDA, so no row has a CUDA kernel");
    return;
  }
  CHECK(rows_missing_cuda_kernel(op_table()).empty());
  for (const OpDef& row : op_table()) {
    CAPTURE(row.name);
    if (row.cpu && !row.cpu_only) CHECK(bool(row.cuda));
    if (row.cpu_only) CHECK(!row.cuda);
  }
}

TEST_CASE("the start-up check names a row whose CUDA kernel is left out") {
  std::vector<OpDef> table = op_table();
  table[static_cast<size_t>(OpId::gelu)].cuda = nullptr;
  table[static_cast<size_t>(OpId::softmax)].cuda = nullptr;
  std::vector<std::string> missing = rows_missing_cuda_kernel(table);
  if (cuda::built_with_cuda()) CHECK(missing == std::vector<std::string>{"gelu", "softmax"});
  // A row that says why it has none is not missing one; a view row has no kernel at all.
  for (const std::string& name : missing) {
    CHECK(name != "quantized_linear");
    CHECK(name != "reshape");
  }
}
