// Rows of the random draws: random_uniform, random_normal and random_integers, which
// rand, randn, randint and their *_like forms, uniform_, normal_ and bernoulli call
// (interp/builtins/builtins_factories.cpp). They take no tensor, only the size and
// dtype, and run on the CPU from the global generator (tensor/random.hpp).
//
// Note [Random draws are ops]
// A compiled graph replays its ops; a tensor made by anything else is a constant of
// the capture. rand() was a factory outside the table, so `x + randn_like(x)` in a
// compiled function added the same noise at every call, and a cond or loop body drew
// once for all steps (a VAE's reparameterisation, noise injection, RReLU's slopes).
// As rows, each draw is a node: every call and every step of a lowered loop draws
// anew from the generator, as eager does, in the same order, so a seeded compiled run
// gives eager's numbers. The graph passes leave the nodes alone (a side effect, see
// graph/rewrite.cpp), vmap draws as its randomness says (Note [vmap randomness]), and
// a CUDA graph is not replayed over one (graph/replay.cpp). They are CPU rows: a
// factory's device= moves the result, as before.
#include "autograd/cost.hpp"
#include "autograd/ops/common.hpp"
#include "tensor/random.hpp"

namespace nabla {

namespace {

Shape size_of(const char* op, const Attrs& a) {
  Shape s(a.ints("size"));
  for (int64_t d : s) NABLA_CHECK(d >= 0, std::string(op) + ": negative size in " + shape_str(s));
  return s;
}

std::vector<TensorMeta> infer_floating_draw(const char* op, const Attrs& a) {
  DType dt = a.dtype("dtype");
  NABLA_CHECK(is_floating(dt), std::string(op) + ": expected a floating dtype, got " + dtype_name(dt));
  return one(size_of(op, a), dt);
}

std::vector<TensorMeta> infer_uniform(const TensorList&, const Attrs& a) {
  NABLA_CHECK(a.f("low") <= a.f("high"), "random_uniform: expected low <= high, got low=" + number_str(a.f("low")) +
                                             " high=" + number_str(a.f("high")));
  return infer_floating_draw("random_uniform", a);
}

std::vector<TensorMeta> infer_normal(const TensorList&, const Attrs& a) {
  NABLA_CHECK(a.f("std") >= 0, "random_normal: expected std >= 0, got " + number_str(a.f("std")));
  return infer_floating_draw("random_normal", a);
}

std::vector<TensorMeta> infer_integers(const TensorList&, const Attrs& a) {
  NABLA_CHECK(a.i("high") > a.i("low"), "random_integers: expected low < high, got low=" + std::to_string(a.i("low")) +
                                            " high=" + std::to_string(a.i("high")));
  DType dt = a.dtype("dtype");
  NABLA_CHECK(dt != DType::b8, "random_integers: expected a numeric dtype, got bool");
  return one(size_of("random_integers", a), dt);
}

void uniform_kernel(const TensorList&, const Attrs& a, TensorList& out) { fill_uniform(out[0], a.f("low"), a.f("high")); }
void normal_kernel(const TensorList&, const Attrs& a, TensorList& out) { fill_normal(out[0], a.f("mean"), a.f("std")); }
void integers_kernel(const TensorList&, const Attrs& a, TensorList& out) {
  fill_integers(out[0], a.i("low"), a.i("high"));
}

// A draw per output element: one FLOP, and the output's bytes written.
OpCost cost_draw(const TensorList& in, const Attrs&, const TensorList& out) {
  return {static_cast<double>(out[0].numel()), io_bytes(in, out)};
}

constexpr const char* kHostDraws =
    "draws on the host from the global generator, so a seed gives the same numbers on every device; a factory's "
    "device= moves the result";

OpDef draw_row(std::vector<AttrSpec> attrs, InferFn infer, KernelFn kernel) {
  attrs.insert(attrs.begin(), attr_required("size", AttrKind::ints));
  return {.num_inputs = 0,
          .attrs = std::move(attrs),
          .infer = infer,
          .cpu = kernel,
          .cost = cost_draw,
          .cpu_only = kHostDraws};
}

}  // namespace

void register_random_ops(std::vector<OpDef>& t) {
  row(t, OpId::random_uniform) = draw_row({attr_optional("low", AttrKind::number, 0.0), attr_optional("high", AttrKind::number, 1.0),
                                           attr_optional("dtype", AttrKind::dtype, DType::f32)},
                                          infer_uniform, uniform_kernel);
  row(t, OpId::random_normal) = draw_row({attr_optional("mean", AttrKind::number, 0.0), attr_optional("std", AttrKind::number, 1.0),
                                          attr_optional("dtype", AttrKind::dtype, DType::f32)},
                                         infer_normal, normal_kernel);
  row(t, OpId::random_integers) = draw_row({attr_required("low", AttrKind::integer), attr_required("high", AttrKind::integer),
                                            attr_optional("dtype", AttrKind::dtype, DType::i64)},
                                           infer_integers, integers_kernel);
  // What :help prints for each op of this family; tests/interp/op_docs.cpp runs every example.
  document_ops(t, {{OpId::random_uniform,
                    "Draws a tensor of the given size uniformly from [low, high) with the global generator: what rand "
                    "and uniform_ record in a graph. Example: random_uniform(size=[2, 3], low=-1.0, high=1.0)"},
                   {OpId::random_normal,
                    "Draws a tensor of the given size from a normal distribution with mean and std, with the global "
                    "generator: what randn and normal_ record in a graph. Example: random_normal(size=[4], std=0.1)"},
                   {OpId::random_integers,
                    "Draws integers in [low, high) of the given size with the global generator: what randint records "
                    "in a graph. Example: random_integers(size=[5], low=0, high=10)"}});
}

Tensor random_uniform(const Shape& size, DType dtype, double low, double high) {
  return call1(OpId::random_uniform, {}, {{"size", size.vec()}, {"low", low}, {"high", high}, {"dtype", dtype}});
}

Tensor random_normal(const Shape& size, DType dtype, double mean, double std) {
  return call1(OpId::random_normal, {}, {{"size", size.vec()}, {"mean", mean}, {"std", std}, {"dtype", dtype}});
}

Tensor random_integers(const Shape& size, DType dtype, int64_t low, int64_t high) {
  return call1(OpId::random_integers, {}, {{"size", size.vec()}, {"low", low}, {"high", high}, {"dtype", dtype}});
}

}  // namespace nabla
