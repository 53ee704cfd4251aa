// The CUDA elementwise kernels (tensor/cuda/elementwise.cu, copy_ops.cu, fused.cu)
// against the CPU ones, which are the specification: every unary and binary op in
// f32, f64 and f16, broadcast and non-contiguous inputs, mixed dtypes, comparisons,
// where, clamp, the copying rows, dropout (equal to the CPU's for the same seed) and
// a fused elementwise program (equal to the unfused ops). Without a GPU each case
// says so and returns.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "autograd/ops.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/cpu/fused.hpp"
#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/cuda/fused.hpp"
#include "tensor/cuda/rtc.hpp"
#include "tensor/cuda/settings.hpp"
#include "tensor/random.hpp"
#include "tensor/scalar_ops.hpp"

namespace nabla {
namespace {

bool have_gpu() {
  if (cuda::device_count() > 0) return true;
  MESSAGE("no GPU here: skipping the CUDA elementwise checks (" << cuda::runtime_info() << ")");
  return false;
}

Tensor gpu(const Tensor& t) { return cuda::to_device(t, Device{DeviceKind::cuda, 0}); }

// Relative to 1 + |expected|: a few ulp of the compute type, or half an ulp of a
// 16-bit result (the CPU and the GPU may round a float a hair apart to 16 bits).
double tolerance(DType dt) {
  switch (dt) {
    case DType::f64:
      return 1e-12;
    case DType::f32:
      return 1e-5;
    case DType::f16:
      return 2e-3;
    case DType::bf16:
      return 1.6e-2;
    default:
      return 0;  // integers and bool are exact
  }
}

// `got` (on the GPU) against `want` (from the CPU), elementwise; NaN equals NaN and
// infinities must match exactly.
void check_close(const Tensor& got, const Tensor& want, const std::string& what, double tol) {
  INFO(what);
  CHECK(got.device().kind == DeviceKind::cuda);
  REQUIRE(got.dtype() == want.dtype());
  REQUIRE(got.sizes() == want.sizes());
  std::vector<double> g = to_double_vector(got), w = to_double_vector(want);
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    bool same =
        g[i] == w[i] || (std::isnan(g[i]) && std::isnan(w[i])) || std::abs(g[i] - w[i]) <= tol * (1 + std::abs(w[i]));
    if (!same && bad++ == 0) first = i;
  }
  if (bad) INFO("element " << first << ": cuda " << g[first] << ", cpu " << w[first]);
  CHECK(bad == 0);
}
void check_close(const Tensor& got, const Tensor& want, const std::string& what) {
  check_close(got, want, what, tolerance(want.dtype()));
}

// Standard normal values scaled by `scale`, or uniform in [0.1, 3) when `positive`.
Tensor sample(const Shape& shape, DType dt, bool positive = false, double scale = 2.0) {
  Tensor x = positive ? rand(shape, DType::f64) * 2.9 + 0.1 : randn(shape, DType::f64) * scale;
  return to_dtype(x, dt);
}

using Unary = std::function<Tensor(const Tensor&)>;
using Binary = std::function<Tensor(const Tensor&, const Tensor&)>;

struct UnaryCase {
  const char* name;
  Unary op;
  bool positive;  // defined on (0, inf) only
};

// Every op of NABLA_UNARY_OPS: a new op is checked here without a line of its own.
// The ops that want positive inputs (logarithms, roots; the gamma family, whose poles
// at the negative integers magnify the devices' last-bit differences) get them.
const std::vector<UnaryCase>& unary_cases() {
  static const std::vector<UnaryCase> cases = {
#define NABLA_UNARY_CASE(name)                     \
  {#name, [](const Tensor& x) { return name(x); }, \
   OpId::name == OpId::log || OpId::name == OpId::sqrt || OpId::name == OpId::rsqrt || OpId::name == OpId::log1p || \
       OpId::name == OpId::lgamma || OpId::name == OpId::digamma},
      NABLA_UNARY_OPS(NABLA_UNARY_CASE)
#undef NABLA_UNARY_CASE
  };
  return cases;
}

struct BinaryCase {
  const char* name;
  Binary op;
};

const std::vector<BinaryCase>& arithmetic_cases() {
  static const std::vector<BinaryCase> cases = {
      {"add", [](const Tensor& a, const Tensor& b) { return add(a, b); }},
      {"sub", [](const Tensor& a, const Tensor& b) { return sub(a, b); }},
      {"mul", [](const Tensor& a, const Tensor& b) { return mul(a, b); }},
      {"div", [](const Tensor& a, const Tensor& b) { return div(a, b); }},
      {"maximum", [](const Tensor& a, const Tensor& b) { return maximum(a, b); }},
      {"minimum", [](const Tensor& a, const Tensor& b) { return minimum(a, b); }},
      {"remainder", [](const Tensor& a, const Tensor& b) { return remainder(a, b); }},
      {"atan2", [](const Tensor& a, const Tensor& b) { return atan2(a, b); }},
      {"logaddexp", [](const Tensor& a, const Tensor& b) { return logaddexp(a, b); }},
  };
  return cases;
}

const std::vector<BinaryCase>& comparison_cases() {
  static const std::vector<BinaryCase> cases = {
      {"eq", [](const Tensor& a, const Tensor& b) { return eq(a, b); }},
      {"ne", [](const Tensor& a, const Tensor& b) { return ne(a, b); }},
      {"lt", [](const Tensor& a, const Tensor& b) { return lt(a, b); }},
      {"le", [](const Tensor& a, const Tensor& b) { return le(a, b); }},
      {"gt", [](const Tensor& a, const Tensor& b) { return gt(a, b); }},
      {"ge", [](const Tensor& a, const Tensor& b) { return ge(a, b); }},
  };
  return cases;
}

void check_binary(const BinaryCase& c, const Tensor& a, const Tensor& b, const std::string& what) {
  check_close(c.op(gpu(a), gpu(b)), c.op(a, b), std::string(c.name) + " " + what);
}

const DType kFloatTypes[] = {DType::f32, DType::f64, DType::f16};

TEST_CASE("cuda unary ops equal the cpu ones, dense and non-contiguous") {
  if (!have_gpu()) return;
  manual_seed(1);
  for (DType dt : kFloatTypes) {
    for (const UnaryCase& c : unary_cases()) {
      Tensor x = sample({37, 65}, dt, c.positive);
      std::string what = std::string(c.name) + " " + dtype_name(dt);
      check_close(c.op(gpu(x)), c.op(x), what);
      check_close(c.op(transpose(gpu(x), 0, 1)), c.op(transpose(x, 0, 1)), what + " transposed");
    }
  }
  // Integer inputs: neg, abs, sign, relu and the rounding ops stay integers; float ops
  // compute in f32.
  Tensor i = to_dtype(randint(-50, 50, {9, 11}), DType::i64);
  for (const char* name : {"neg", "abs", "sign", "relu", "floor", "round", "exp", "sin"})
    for (const UnaryCase& c : unary_cases())
      if (std::string(c.name) == name) check_close(c.op(gpu(i)), c.op(i), std::string(name) + " i64");
}

// Every op of NABLA_PARAMETRIC_UNARY_OPS, with the row's defaults and with attributes
// of its own (numbers in every op's range: logit reads 0.2 as its eps; polygamma, whose
// n is a whole number, takes 2, on positive inputs).
TEST_CASE("cuda parametric unary ops equal the cpu ones, with default and given attributes") {
  if (!have_gpu()) return;
  manual_seed(3);
  const OpId ops[] = {
#define NABLA_LISTED(op) OpId::op,
      NABLA_PARAMETRIC_UNARY_OPS(NABLA_LISTED)
#undef NABLA_LISTED
  };
  for (DType dt : kFloatTypes) {
    for (OpId op : ops) {
      Attrs given;
      const double value[2] = {0.2, 1.5};
      scalar::ScalarAttrList list = scalar::scalar_attrs(op);
      for (size_t k = 0; k < list.size(); ++k)
        if (list[k].name) given.set(list[k].name, value[k]);
      Tensor x = sample({37, 65}, dt);
      if (op == OpId::logit) x = sigmoid(x);
      if (op == OpId::polygamma) {
        given.set("n", 2.0);
        x = sample({37, 65}, dt, true);
      }
      std::string what = std::string(op_name(op)) + " " + dtype_name(dt);
      check_close(call1(op, {gpu(x)}), call1(op, {x}), what);
      check_close(call1(op, {transpose(gpu(x), 0, 1)}, given), call1(op, {transpose(x, 0, 1)}, given),
                  what + " attributes");
    }
  }
}

TEST_CASE("cuda binary ops broadcast, convert mixed dtypes and read strided inputs as the cpu does") {
  if (!have_gpu()) return;
  manual_seed(2);
  for (DType dt : kFloatTypes) {
    std::string suffix = std::string(" ") + dtype_name(dt);
    Tensor a = sample({3, 1, 5}, dt), b = sample({4, 5}, dt);
    Tensor dense_a = sample({4, 5}, dt), c = sample({5, 4}, dt), single = sample({1}, dt);
    for (const BinaryCase& bc : arithmetic_cases()) {
      check_binary(bc, a, b, "broadcast" + suffix);
      check_binary(bc, dense_a, b, "dense" + suffix);
      check_binary(bc, transpose(c, 0, 1), b, "transposed" + suffix);
      check_close(bc.op(gpu(b), wrapped_scalar(1.5)), bc.op(b, wrapped_scalar(1.5)),
                  std::string(bc.name) + " with a number" + suffix);
      check_close(bc.op(gpu(b), expand(gpu(single), {4, 5})), bc.op(b, expand(single, {4, 5})),
                  std::string(bc.name) + " expanded" + suffix);
    }
    Tensor base = sample({4, 5}, dt, true), exponent = sample({5}, dt, false, 1.0);
    check_close(pow(gpu(base), gpu(exponent)), pow(base, exponent), "pow" + suffix);
    check_close(pow(gpu(base), 2.5), pow(base, 2.5), "pow with a number" + suffix);
  }
  Tensor f = sample({6, 7}, DType::f32), i = to_dtype(randint(-9, 9, {7}), DType::i64);
  Tensor h = sample({6, 7}, DType::f16);
  for (const BinaryCase& bc : arithmetic_cases()) {
    check_binary(bc, f, i, "f32 with i64");
    check_binary(bc, h, f, "f16 with f32");
    check_binary(bc, h, i, "f16 with i64");
  }
}

TEST_CASE("cuda integer and bool arithmetic is exact") {
  if (!have_gpu()) return;
  manual_seed(3);
  Tensor a = to_dtype(randint(-1000, 1000, {5, 8}), DType::i64), b = to_dtype(randint(-1000, 1000, {8}), DType::i64);
  Tensor a32 = to_dtype(a, DType::i32);
  for (const BinaryCase& bc : arithmetic_cases()) {
    check_binary(bc, a, b, "i64");
    check_binary(bc, a32, b, "i32 with i64");
    check_binary(bc, a32, to_dtype(b, DType::i32), "i32");
  }
  Tensor p = gt(a, wrapped_scalar(0.0)), q = lt(b, wrapped_scalar(100.0));
  check_close(add(gpu(p), gpu(q)), add(p, q), "bool add (or)");
  check_close(mul(gpu(p), gpu(q)), mul(p, q), "bool mul (and)");
  check_close(maximum(gpu(p), gpu(q)), maximum(p, q), "bool maximum");
  check_close(minimum(gpu(p), gpu(q)), minimum(p, q), "bool minimum");
}

TEST_CASE("cuda comparisons compute in the inputs' result_type and write bool") {
  if (!have_gpu()) return;
  manual_seed(4);
  // Small integers as floats, so that equal values occur.
  Tensor a = to_dtype(randint(-3, 3, {3, 1, 5}), DType::f32), b = to_dtype(randint(-3, 3, {4, 5}), DType::f32);
  Tensor i = to_dtype(randint(-3, 3, {4, 5}), DType::i64);
  Tensor h = sample({4, 5}, DType::f16, false, 0.2);
  Tensor t = to_dtype(randint(-3, 3, {5, 4}), DType::f64);
  for (const BinaryCase& bc : comparison_cases()) {
    check_binary(bc, a, b, "f32 broadcast");
    check_binary(bc, a, i, "f32 with i64");
    check_binary(bc, i, i, "i64 with itself");
    check_binary(bc, transpose(t, 0, 1), to_dtype(b, DType::f64), "f64 transposed");
    // A number does not widen: f32 (and f16) compare with 0.1 rounded to f32.
    check_close(bc.op(gpu(b), wrapped_scalar(0.1)), bc.op(b, wrapped_scalar(0.1)), std::string(bc.name) + " f32 0.1");
    check_close(bc.op(gpu(h), wrapped_scalar(0.1)), bc.op(h, wrapped_scalar(0.1)), std::string(bc.name) + " f16 0.1");
    check_binary(bc, h, to_dtype(h, DType::f32), "f16 with f32");
  }
  // An integer tensor and a number compare in f32, not f64: 16777217 equals 16777216.0
  // once both are f32. This needs the number to stay a wrapped number when dispatch
  // moves it to the GPU (Note [Devices] in autograd/dispatch.cpp).
  Tensor big = tensor_from({16777217.0, 3.0}, {2}, DType::i64);
  check_close(eq(gpu(big), wrapped_scalar(16777216.0)), eq(big, wrapped_scalar(16777216.0)), "i64 == a number");
}

TEST_CASE("cuda where and clamp equal the cpu ones") {
  if (!have_gpu()) return;
  manual_seed(5);
  for (DType dt : kFloatTypes) {
    std::string suffix = std::string(" ") + dtype_name(dt);
    Tensor x = sample({4, 6}, dt), y = sample({6}, dt);
    Tensor cond = gt(x, y);
    check_close(where(gpu(cond), gpu(x), gpu(y)), where(cond, x, y), "where" + suffix);
    check_close(where(gpu(cond), gpu(x), wrapped_scalar(0.0)), where(cond, x, wrapped_scalar(0.0)),
                "where with a number" + suffix);
    check_close(clamp(gpu(x), -0.5, 1.0), clamp(x, -0.5, 1.0), "clamp" + suffix);
    check_close(clamp(gpu(x), -0.5, std::nullopt), clamp(x, -0.5, std::nullopt), "clamp min" + suffix);
    check_close(clamp(transpose(gpu(x), 0, 1), std::nullopt, 0.25), clamp(transpose(x, 0, 1), std::nullopt, 0.25),
                "clamp max transposed" + suffix);
  }
  // A condition that is not bool: nonzero is true (0.5 included).
  Tensor soft = to_dtype(randint(0, 3, {4, 6}), DType::f32) * 0.5;
  Tensor x = sample({4, 6}, DType::f32), y = sample({4, 6}, DType::f32);
  check_close(where(gpu(soft), gpu(x), gpu(y)), where(soft, x, y), "where with an f32 condition");
  Tensor i = to_dtype(randint(-9, 9, {4, 6}), DType::i64);
  check_close(clamp(gpu(i), -3.0, 4.0), clamp(i, -3.0, 4.0), "clamp i64");
  check_close(where(gpu(gt(i, wrapped_scalar(0.0))), gpu(i), gpu(x)), where(gt(i, wrapped_scalar(0.0)), i, x),
              "where i64 with f32");
}

TEST_CASE("cuda copying rows: contiguous, to_dtype, slice_backward") {
  if (!have_gpu()) return;
  manual_seed(6);
  Tensor x = sample({5, 7}, DType::f32);
  check_close(contiguous(transpose(gpu(x), 0, 1)), contiguous(transpose(x, 0, 1)), "contiguous", 0);
  for (DType dt : {DType::f64, DType::f16, DType::bf16, DType::i32})
    check_close(to_dtype(gpu(x), dt), to_dtype(x, dt), std::string("to_dtype ") + dtype_name(dt), 0);
  Tensor g = sample({5, 3}, DType::f32);
  check_close(slice_backward(gpu(g), {5, 7}, 1, 1, 7, 2), slice_backward(g, {5, 7}, 1, 1, 7, 2), "slice_backward", 0);
  // Floats going to u8, i8 and i16 wrap modulo 2^8 or 2^16 as on the CPU (the GPU's
  // own conversion saturates), in to_dtype, in a strided copy and in fill.
  Tensor wild = tensor_from({-1, 255.5, 256, 300, -129, 70000.5, -300.5}, {7}, DType::f32);
  for (DType dt : {DType::u8, DType::i8, DType::i16}) {
    std::string name = dtype_name(dt);
    check_close(to_dtype(gpu(wild), dt), to_dtype(wild, dt), "to_dtype wraps, " + name, 0);
    check_close(to_dtype(slice(gpu(wild), 0, 0, 7, 2), dt), to_dtype(slice(wild, 0, 0, 7, 2), dt),
                "strided to_dtype wraps, " + name, 0);
    check_close(full({3}, 300, dt, Device{DeviceKind::cuda, 0}), full({3}, 300, dt), "fill wraps, " + name, 0);
  }
  // fill: zeros through memset, other values and strided views through kernels.
  check_close(zeros({4, 5}, DType::f16, Device{DeviceKind::cuda, 0}), zeros({4, 5}, DType::f16), "zeros f16", 0);
  check_close(full({4, 5}, -0.0, DType::f32, Device{DeviceKind::cuda, 0}), full({4, 5}, -0.0), "fill -0.0", 0);
  Tensor part = zeros({4, 5}, DType::f32, Device{DeviceKind::cuda, 0});
  cuda::fill(slice(part, 1, 1, 5, 2), 2.5);
  Tensor want = zeros({4, 5});
  nabla::fill_raw(slice(want, 1, 1, 5, 2), 2.5);
  check_close(part, want, "fill of a strided view", 0);
}

TEST_CASE("cuda dropout draws the cpu's mask for the same seed") {
  if (!have_gpu()) return;
  Tensor x = sample({37, 129}, DType::f32);
  for (DType dt : {DType::f32, DType::f64, DType::f16}) {
    for (double p : {0.0, 0.3, 1.0}) {
      for (bool training : {true, false}) {
        Attrs attrs{{"p", p}, {"training", training}};
        Tensor in = to_dtype(x, dt);
        // Two calls each, so that the generator is also left in the same state.
        manual_seed(42);
        TensorList cpu1 = call(OpId::dropout, {in}, attrs), cpu2 = call(OpId::dropout, {in}, attrs);
        manual_seed(42);
        TensorList gpu1 = call(OpId::dropout, {gpu(in)}, attrs), gpu2 = call(OpId::dropout, {gpu(in)}, attrs);
        std::string what =
            std::string("dropout ") + dtype_name(dt) + " p=" + std::to_string(p) + (training ? " training" : " eval");
        check_close(gpu1[0], cpu1[0], what + " y", 0);
        check_close(gpu1[1], cpu1[1], what + " mask", 0);
        check_close(gpu2[0], cpu2[0], what + " second call y", 0);
        check_close(gpu2[1], cpu2[1], what + " second call mask", 0);
      }
    }
  }
}

// y = tanh(clamp(where(x > b, gelu(x * b + c), x), -0.5, 2)) + 1.5, with b broadcast,
// c an i32 column and 1.5 a CPU number: registers 0..3 are x, b, c, 1.5.
cpu::ElementwiseProgram sample_program() {
  cpu::ElementwiseProgram prog;
  prog.num_inputs = 4;
  auto step = [&](OpId op, int a, int b = -1, int c = -1) {
    cpu::ElementwiseStep s;
    s.op = op;
    s.args[0] = a;
    s.args[1] = b;
    s.args[2] = c;
    prog.steps.push_back(s);
    return prog.num_inputs + static_cast<int>(prog.steps.size()) - 1;
  };
  int xb = step(OpId::mul, 0, 1);
  int xbc = step(OpId::add, xb, 2);
  int g = step(OpId::gelu, xbc);
  int cond = step(OpId::gt, 0, 1);
  int w = step(OpId::where, cond, g, 0);
  int clamped = step(OpId::clamp, w);
  prog.steps.back().has_lo = prog.steps.back().has_hi = true;
  prog.steps.back().attr[0] = -0.5;
  prog.steps.back().attr[1] = 2.0;
  int t = step(OpId::tanh, clamped);
  prog.result = step(OpId::add, t, 3);
  return prog;
}

Tensor unfused_program(const Tensor& x, const Tensor& b, const Tensor& c, const Tensor& number) {
  Tensor w = where(gt(x, b), gelu(x * b + c), x);
  return tanh(clamp(w, -0.5, 2.0)) + number;
}

TEST_CASE("a fused elementwise program on cuda equals the unfused ops") {
  if (!have_gpu()) return;
  manual_seed(7);
  cpu::ElementwiseProgram prog = sample_program();
  CHECK(cuda::program_fits_on_cuda(prog));
  for (DType dt : {DType::f32, DType::f64}) {
    Tensor x = sample({33, 17}, dt), b = sample({17}, dt);
    Tensor c = to_dtype(randint(-2, 2, {33, 1}), DType::i32), number = wrapped_scalar(1.5);
    Tensor xg = gpu(x), bg = gpu(b), cg = gpu(c);
    Tensor want = unfused_program(xg, bg, cg, number);
    Tensor got = empty(x.sizes(), dt, xg.device());
    cuda::run_elementwise_program(prog, {xg, bg, cg, number}, got);
    // The same scalar functions, one rounding per step either way: bit for bit.
    check_close(got, want, std::string("fused program ") + dtype_name(dt), 0);
    Tensor on_cpu = empty(x.sizes(), dt);
    cpu::run_elementwise_program(prog, {x, b, c, number}, on_cpu);
    check_close(got, on_cpu, std::string("fused program against the cpu ") + dtype_name(dt));
    // Strided inputs take the offset calculator's path.
    Tensor xt = sample({17, 33}, dt);
    Tensor strided = empty(x.sizes(), dt, xg.device());
    cuda::run_elementwise_program(prog, {transpose(gpu(xt), 0, 1), bg, cg, number}, strided);
    check_close(strided, unfused_program(transpose(gpu(xt), 0, 1), bg, cg, number),
                std::string("fused program, strided ") + dtype_name(dt), 0);
  }
}

// Every op of NABLA_ELEMENTWISE_OPS.
std::vector<OpId> elementwise_ops() {
  return {
#define NABLA_LISTED(name) OpId::name,
      NABLA_ELEMENTWISE_OPS(NABLA_LISTED)
#undef NABLA_LISTED
  };
}

// A program of one step of `op`, its inputs registers 0..arity-1.
cpu::ElementwiseProgram one_step_program(OpId op) {
  int arity = cpu::elementwise_arity(op);
  cpu::ElementwiseProgram prog;
  prog.num_inputs = arity;
  cpu::ElementwiseStep step;
  step.op = op;
  for (int k = 0; k < arity; ++k) step.args[k] = k;
  step.has_lo = step.has_hi = op == OpId::clamp;
  step.attr[0] = 0.7;
  step.attr[1] = 1.2;
  prog.steps = {step};
  prog.result = arity;
  return prog;
}

TEST_CASE("every elementwise op of the list runs as a one-step fused program on cuda as on the cpu") {
  if (!have_gpu()) return;
  manual_seed(26);
  for (OpId op : elementwise_ops()) {
    cpu::ElementwiseProgram prog = one_step_program(op);
    int arity = prog.num_inputs;
    for (DType dt : {DType::f32, DType::f64}) {
      TensorList in, in_gpu;
      for (int k = 0; k < arity; ++k) {
        in.push_back(sample({19, 23}, dt, true));
        in_gpu.push_back(gpu(in.back()));
      }
      Tensor on_cpu = empty({19, 23}, dt), on_gpu = empty({19, 23}, dt, in_gpu[0].device());
      cpu::run_elementwise_program(prog, in, on_cpu);
      cuda::run_elementwise_program(prog, in_gpu, on_gpu);
      check_close(on_gpu, on_cpu, std::string("one-step program ") + op_name(op) + " " + dtype_name(dt));
    }
  }
}

// out = program(inputs) on the GPU, by the generated kernel or the interpreted one.
Tensor run_program_as(bool generated, const cpu::ElementwiseProgram& prog, const TensorList& inputs, DType dt) {
  cuda::set_generated_kernels(generated);
  Tensor out = empty({19, 23}, dt, inputs[0].device());
  cuda::run_elementwise_program(prog, inputs, out);
  cuda::set_generated_kernels(true);
  return out;
}

TEST_CASE("CUDA generated fused kernels equal the interpreted kernel bit for bit, every op, dense and strided") {
  if (!have_gpu()) return;
  manual_seed(27);
  cuda::GeneratedKernelStats before = cuda::generated_kernel_stats();
  std::vector<OpId> ops = elementwise_ops();
  for (OpId op : ops) {
    cpu::ElementwiseProgram prog = one_step_program(op);
    for (DType dt : {DType::f32, DType::f64}) {
      TensorList dense, strided;
      for (int k = 0; k < prog.num_inputs; ++k) {
        dense.push_back(gpu(sample({19, 23}, dt, true)));
        strided.push_back(transpose(gpu(sample({23, 19}, dt, true)), 0, 1));
      }
      for (const TensorList* in : {&dense, &strided})
        check_close(run_program_as(true, prog, *in, dt), run_program_as(false, prog, *in, dt),
                    std::string("generated ") + op_name(op) + " " + dtype_name(dt), 0);
    }
  }
  // The multi-step sample program: no contraction across steps either.
  cpu::ElementwiseProgram prog = sample_program();
  for (DType dt : {DType::f32, DType::f64}) {
    TensorList in{gpu(sample({19, 23}, dt)), gpu(sample({23}, dt)), gpu(to_dtype(randint(-2, 2, {19, 1}), DType::i32)),
                  wrapped_scalar(1.5)};
    check_close(run_program_as(true, prog, in, dt), run_program_as(false, prog, in, dt),
                std::string("generated sample program ") + dtype_name(dt), 0);
  }
  // 16-bit inputs, read through their bits by the generated kernel.
  TensorList halves{gpu(sample({19, 23}, DType::f16)), gpu(sample({23}, DType::bf16)),
                    gpu(to_dtype(randint(-2, 2, {19, 1}), DType::i32)), wrapped_scalar(1.5)};
  check_close(run_program_as(true, prog, halves, DType::f32), run_program_as(false, prog, halves, DType::f32),
              "generated sample program, f16 and bf16 inputs", 0);
  cuda::GeneratedKernelStats after = cuda::generated_kernel_stats();
  CHECK_MESSAGE(after.last_problem.empty(), after.last_problem);
  CHECK(after.fallbacks == before.fallbacks);
  CHECK(after.launches >= before.launches + 2 * 2 * ops.size());
}

TEST_CASE("a fused program beyond the cuda limits is refused with a clear error") {
  cpu::ElementwiseProgram prog;
  prog.num_inputs = 1;
  for (int k = 0; k <= cuda::kMaxProgramSteps; ++k) {
    cpu::ElementwiseStep s;
    s.op = OpId::neg;
    s.args[0] = k;
    prog.steps.push_back(s);
  }
  prog.result = cuda::kMaxProgramSteps + 1;
  CHECK_FALSE(cuda::program_fits_on_cuda(prog));
  if (!have_gpu()) return;
  Tensor x = gpu(sample({4}, DType::f32));
  Tensor out = empty({4}, DType::f32, x.device());
  CHECK_THROWS_WITH_AS(cuda::run_elementwise_program(prog, {x}, out), doctest::Contains("do not fit one CUDA kernel"),
                       Error);
}

}  // namespace
}  // namespace nabla
