// The op table's cost rules (OpDef::cost, autograd/cost.cpp; docs/cost.md) against
// the closed-form formulas, with odd sizes: matmul (batched, broadcast), linear with
// and without a bias, conv2d with stride, padding, dilation and groups, and its two
// adjoints. FLOPs count a multiply-add as 2, as torch.utils.flop_counter and fvcore
// do. Every rule must give the same figures on data-less stand-ins (what the graph
// passes pass) as on real tensors. The table-wide check (every row, finite and
// non-negative figures) is in op_sweep.cpp, on the reference cases' inputs.
#include "autograd/cost.hpp"

#include <doctest/doctest.h>

#include "autograd/ops.hpp"
#include "autograd/roofline.hpp"
#include "tensor/random.hpp"

using namespace nabla;

namespace {

// t's sizes and dtype without its data: one element expanded (graph::meta_tensor).
Tensor stand_in(const Tensor& t) {
  return t.defined() ? expand(empty(Shape(t.dim(), 1), t.dtype()), t.sizes().vec()) : Tensor();
}

// Runs op `id` for real (so its shape rule and kernel agree with the figures) and
// returns its cost, after checking that stand-ins cost the same.
OpCost cost_of(OpId id, const TensorList& inputs, const Attrs& attrs = {}) {
  const OpDef& def = op_def(id);
  TensorList outputs = call(id, inputs, attrs);
  Attrs full = complete_attrs(def, attrs);
  OpCost real = op_cost(def, inputs, full, outputs);
  TensorList in_meta, out_meta;
  for (const Tensor& t : inputs) in_meta.push_back(stand_in(t));
  for (const Tensor& t : outputs) out_meta.push_back(stand_in(t));
  OpCost meta = op_cost(def, in_meta, full, out_meta);
  CHECK(meta.flops == real.flops);
  CHECK(meta.bytes == real.bytes);
  return real;
}

double f32_bytes(double elements) { return 4.0 * elements; }

Attrs conv_attrs(IntList stride, IntList padding, IntList dilation, int64_t groups) {
  return {{"stride", stride}, {"padding", padding}, {"dilation", dilation}, {"groups", groups}};
}

// The output size of a convolution along one dim (PyTorch's formula).
int64_t conv_out(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dil) {
  return (in + 2 * pad - dil * (k - 1) - 1) / stride + 1;
}

}  // namespace

TEST_CASE("cost: matmul is 2*M*N*K FLOPs and reads both operands once") {
  OpCost c = cost_of(OpId::matmul, {randn({7, 13}), randn({13, 5})});
  CHECK(c.flops == 2.0 * 7 * 5 * 13);
  CHECK(c.bytes == f32_bytes(7 * 13 + 13 * 5 + 7 * 5));
  OpCost d = cost_of(OpId::matmul, {randn({7, 13}, DType::f64), randn({13, 5}, DType::f64)});
  CHECK(d.bytes == 8.0 * (7 * 13 + 13 * 5 + 7 * 5));
}

TEST_CASE("cost: batched matmul counts the broadcast batch, bytes the operands as given") {
  // [3, 1, 7, 13] x [4, 13, 5] -> [3, 4, 7, 5]: 12 products of 7x13 by 13x5.
  OpCost c = cost_of(OpId::matmul, {randn({3, 1, 7, 13}), randn({4, 13, 5})});
  CHECK(c.flops == 2.0 * (3 * 4) * 7 * 5 * 13);
  CHECK(c.bytes == f32_bytes(3 * 7 * 13 + 4 * 13 * 5 + 3 * 4 * 7 * 5));
}

TEST_CASE("cost: linear is 2*M*N*K, plus M*N for a bias") {
  Tensor x = randn({2, 3, 11}), w = randn({6, 11}), b = randn({6});
  OpCost plain = cost_of(OpId::linear, {x, w, Tensor()});
  double m = 2 * 3, n = 6, k = 11;
  CHECK(plain.flops == 2 * m * n * k);
  CHECK(plain.bytes == f32_bytes(m * k + n * k + m * n));
  OpCost biased = cost_of(OpId::linear, {x, w, b});
  CHECK(biased.flops == 2 * m * n * k + m * n);
  CHECK(biased.bytes == f32_bytes(m * k + n * k + n + m * n));
}

TEST_CASE("cost: conv2d with stride, padding, dilation and groups, and its two adjoints") {
  const int64_t N = 2, C_in = 6, H = 11, W = 9, C_out = 9, groups = 3, kH = 3, kW = 2;
  Attrs a = conv_attrs({2, 1}, {1, 2}, {1, 2}, groups);
  const int64_t H_out = conv_out(H, kH, 2, 1, 1), W_out = conv_out(W, kW, 1, 2, 2);
  Tensor x = randn({N, C_in, H, W}), w = randn({C_out, C_in / groups, kH, kW}), b = randn({C_out});
  double outputs = N * C_out * H_out * W_out;
  double macs = outputs * (C_in / groups) * kH * kW;
  double x_el = N * C_in * H * W, w_el = C_out * (C_in / groups) * kH * kW;

  OpCost plain = cost_of(OpId::conv2d, {x, w, Tensor()}, a);
  CHECK(plain.flops == 2 * macs);
  CHECK(plain.bytes == f32_bytes(x_el + w_el + outputs));
  OpCost biased = cost_of(OpId::conv2d, {x, w, b}, a);
  CHECK(biased.flops == 2 * macs + outputs);
  CHECK(biased.bytes == f32_bytes(x_el + w_el + C_out + outputs));

  Tensor grad = randn({N, C_out, H_out, W_out});
  Attrs ai = a, aw = a;
  ai.set("input_shape", IntList{N, C_in, H, W});
  aw.set("weight_shape", IntList{C_out, C_in / groups, kH, kW});
  OpCost input_grad = cost_of(OpId::conv2d_backward_input, {grad, w}, ai);
  CHECK(input_grad.flops == 2 * macs);
  CHECK(input_grad.bytes == f32_bytes(outputs + w_el + x_el));
  OpCost weight_grad = cost_of(OpId::conv2d_backward_weight, {x, grad}, aw);
  CHECK(weight_grad.flops == 2 * macs);
  CHECK(weight_grad.bytes == f32_bytes(x_el + outputs + w_el));
}

TEST_CASE("cost: the default rule, views and copies") {
  Tensor x = randn({5, 7}), y = randn({7});
  OpCost add = cost_of(OpId::add, {x, y});  // one FLOP per output element; y read once
  CHECK(add.flops == 35);
  CHECK(add.bytes == f32_bytes(35 + 7 + 35));
  OpCost tanh = cost_of(OpId::tanh, {x});  // a transcendental counts as one
  CHECK(tanh.flops == 35);
  OpCost view = cost_of(OpId::transpose, {x}, {{"dim0", int64_t{0}}, {"dim1", int64_t{1}}});
  CHECK(view.flops == 0);
  CHECK(view.bytes == 0);
  OpCost cast = cost_of(OpId::to_dtype, {x}, {{"dtype", DType::f64}});
  CHECK(cast.flops == 0);
  CHECK(cast.bytes == 35 * 4 + 35 * 8);
}

TEST_CASE("roofline: measured once, positive, and classifies a GEMM and an add") {
  const Roofline& r = machine_roofline();
  CHECK(&r == &machine_roofline());  // cached
  CHECK(r.peak_flops > 0);
  CHECK(r.peak_bandwidth > 0);
  CHECK(r.measure_seconds < 2.0);  // about 0.25 s here; slack for a loaded machine
  OpCost gemm = cost_of(OpId::matmul, {randn({512, 512}), randn({512, 512})});
  OpCost add = cost_of(OpId::add, {randn({512, 512}), randn({512, 512})});
  CHECK_FALSE(roofline_estimate(gemm, r).memory_bound);
  CHECK(roofline_estimate(add, r).memory_bound);
  RooflineEstimate e = roofline_estimate(add, r);
  CHECK(e.seconds == doctest::Approx(add.bytes / r.peak_bandwidth));
}
