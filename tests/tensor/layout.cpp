// The device-neutral host code of the kernels (tensor/layout.hpp, the pooling windows
// of tensor/cpu/conv_geometry.hpp): the dims normaliser and its errors, the views of a
// reduction, a class loss, the norms and the indexing kernels, each on a few shapes
// with the values the CPU and CUDA copies gave before they became one; then sums
// through the op table over several dims, negative dims and keepdim against a loop.
#include <doctest/doctest.h>

#include <functional>
#include <numeric>

#include "autograd/ops.hpp"
#include "tensor/cpu/conv_geometry.hpp"
#include "tensor/layout.hpp"
#include "tensor/random.hpp"

using namespace nabla;

namespace {

using Dims = std::vector<int64_t>;

// [0, 1, ..., n - 1] as f64 of shape `sizes`.
Tensor iota(const Shape& sizes) {
  std::vector<double> v(static_cast<size_t>(shape_numel(sizes)));
  std::iota(v.begin(), v.end(), 0.0);
  return tensor_from(v, sizes, DType::f64);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("reduction_dims wraps, sorts and rejects what the shape rules reject") {
  CHECK(reduction_dims("sum", {}, 3) == Dims{0, 1, 2});
  CHECK(reduction_dims("sum", {-1, 0}, 3) == Dims{0, 2});
  CHECK(reduction_dims("sum", {2, -3, 1}, 3) == Dims{0, 1, 2});
  CHECK(reduction_dims("sum", {0}, 0).empty());  // a 0-dim tensor: dim 0 or -1 reduces nothing
  CHECK(reduction_dims("sum", {-1}, 0).empty());
  CHECK(reduction_dims("sum", {}, 0).empty());
  CHECK(error_of([] { reduction_dims("sum", {1, -2}, 3); }) == "sum: dim 1 appears more than once in dims");
  CHECK(error_of([] { reduction_dims("mean", {3}, 3); }) ==
        "mean: dim 3 is out of range for a tensor of 3 dimensions (expected a dim in [-3, 2])");
  CHECK(error_of([] { reduction_dims("sum", {1}, 0); }) ==
        "sum: dim 1 is out of range for a tensor of 0 dimensions (expected a dim in [-1, 0])");
  // The kernels' form (the rows' shape rules have checked the dims).
  CHECK(reduction_dims(iota({2, 3, 4}), {-1}) == Dims{2});
  Attrs none_dim{{"dim", NoneAttr{}}}, one{{"dim", int64_t{-2}}};
  CHECK(arg_dims(iota({2, 3, 4}), none_dim) == Dims{0, 1, 2});
  CHECK(arg_dims(iota({2, 3, 4}), one) == Dims{1});
}

TEST_CASE("reduce_layout: consecutive dims keep the input, others copy once with the reduced dims last") {
  Tensor x = iota({2, 3, 4});
  ReduceLayout middle = reduce_layout(x, {1});
  CHECK((middle.outer == 2 && middle.reduced == 3 && middle.inner == 4));
  CHECK(middle.data.is_same(x));
  ReduceLayout trailing = reduce_layout(x, reduction_dims("sum", {-2, -1}, 3));
  CHECK((trailing.outer == 2 && trailing.reduced == 12 && trailing.inner == 1));
  ReduceLayout all = reduce_layout(x, reduction_dims("sum", {}, 3));
  CHECK((all.outer == 1 && all.reduced == 24 && all.inner == 1));
  ReduceLayout nothing = reduce_layout(x, {});
  CHECK((nothing.outer == 24 && nothing.reduced == 1 && nothing.inner == 1));
  // dims 0 and 2 are not a run: [3 kept, 2 * 4 reduced], x[i, j, k] at (j, i * 4 + k).
  ReduceLayout split = reduce_layout(x, reduction_dims("sum", {-1, 0}, 3));
  CHECK((split.outer == 3 && split.reduced == 8 && split.inner == 1));
  REQUIRE(split.data.is_contiguous());
  std::vector<double> got = to_double_vector(split.data);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 4; ++k) CHECK(got[j * 8 + i * 4 + k] == i * 12 + j * 4 + k);
  // A strided input (a transpose) is copied even for one dim.
  Tensor t = transpose(x, 0, 2);  // [4, 3, 2]
  ReduceLayout strided = reduce_layout(t, {2});
  CHECK((strided.outer == 12 && strided.reduced == 2 && strided.inner == 1));
  CHECK(strided.data.is_contiguous());
  CHECK(to_double_vector(strided.data) == to_double_vector(contiguous(t)));
}

TEST_CASE("sums over several dims, negative dims and keepdim match a loop") {
  manual_seed(26);
  Tensor x = randn({3, 4, 5}, DType::f64);
  std::vector<double> v = to_double_vector(x);
  auto at = [&](int64_t i, int64_t j, int64_t k) { return v[(i * 4 + j) * 5 + k]; };
  for (bool keepdim : {false, true}) {
    CAPTURE(keepdim);
    Tensor s02 = sum(x, {-1, 0}, keepdim);  // over dims 0 and 2
    CHECK(s02.sizes() == (keepdim ? Shape{1, 4, 1} : Shape{4}));
    std::vector<double> got = to_double_vector(s02);
    for (int64_t j = 0; j < 4; ++j) {
      double expected = 0;
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t k = 0; k < 5; ++k) expected += at(i, j, k);
      CHECK(got[j] == doctest::Approx(expected).epsilon(1e-12));
    }
    Tensor s1 = sum(x, {-2}, keepdim);
    CHECK(s1.sizes() == (keepdim ? Shape{3, 1, 5} : Shape{3, 5}));
    got = to_double_vector(s1);
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t k = 0; k < 5; ++k) {
        double expected = 0;
        for (int64_t j = 0; j < 4; ++j) expected += at(i, j, k);
        CHECK(got[i * 5 + k] == doctest::Approx(expected).epsilon(1e-12));
      }
    Tensor all = sum(x, {}, keepdim);
    CHECK(all.sizes() == (keepdim ? Shape{1, 1, 1} : Shape{}));
    CHECK(to_double_vector(all)[0] == doctest::Approx(std::accumulate(v.begin(), v.end(), 0.0)).epsilon(1e-12));
  }
  CHECK(error_of([&] { sum(x, {0, -3}); }) == "sum: dim 0 appears more than once in dims");
}

TEST_CASE("class_layout: the class dim is 1, or 0 for an unbatched input") {
  ClassLayout batch = class_layout(iota({4, 5}));
  CHECK((batch.outer == 4 && batch.classes == 5 && batch.inner == 1 && batch.positions() == 4));
  CHECK(batch.at(2, 3) == 13);
  ClassLayout unbatched = class_layout(iota({5}));
  CHECK((unbatched.outer == 1 && unbatched.classes == 5 && unbatched.inner == 1 && unbatched.positions() == 1));
  ClassLayout spatial = class_layout(iota({2, 3, 4, 5}));
  CHECK((spatial.outer == 2 && spatial.classes == 3 && spatial.inner == 20 && spatial.positions() == 40));
  CHECK(spatial.at(7, 2) == 47);         // o = 0, s = 7: (0 * 3 + 2) * 20 + 7
  CHECK(spatial.at(27, 1) == 60 + 20 + 7);  // o = 1, s = 7
  CHECK(class_offset(27, 1, 3, 20) == spatial.at(27, 1));
}

TEST_CASE("the norms' layouts: [N, C, S] planes and layer_norm's rows") {
  ChannelLayout planes = channel_layout(iota({2, 3, 4, 5}));
  CHECK((planes.N == 2 && planes.C == 3 && planes.S == 20));
  ChannelLayout flat = channel_layout(iota({2, 3}));
  CHECK((flat.N == 2 && flat.C == 3 && flat.S == 1));
  ChannelLayout empty_batch = channel_layout(iota({0, 3, 4}));
  CHECK((empty_batch.N == 0 && empty_batch.C == 3 && empty_batch.S == 0));
  RowLayout rows = layer_norm_rows(iota({2, 3, 4}), {3, 4});
  CHECK((rows.rows == 2 && rows.D == 12));
  RowLayout none = layer_norm_rows(iota({2, 0}), {0});
  CHECK((none.rows == 0 && none.D == 0));
}

TEST_CASE("the indexing kernels' views") {
  Tensor scalar = scalar_tensor(7.0, DType::f64);
  Tensor one = at_least_1d(scalar);
  CHECK((one.sizes() == Shape{1} && to_double_vector(one) == std::vector<double>{7.0}));
  Tensor x = iota({2, 3});
  CHECK(at_least_1d(x).is_same(x));
  // gather's view of x for an index of shape [2, 2] along dim 1: no step along dim 1.
  Tensor stepless = without_dim_step(x, {2, 2}, 1);
  CHECK((stepless.sizes() == Shape{2, 2} && stepless.strides() == Shape{3, 0}));
  CHECK(to_double_vector(stepless) == std::vector<double>{0, 0, 3, 3});
  // cat's slab: columns [1, 3) of x.
  CHECK(to_double_vector(slab(x, 1, 1, 2)) == std::vector<double>{1, 2, 4, 5});
  // stack's inputs, each with a size-1 dim at 0 and at the end.
  TensorList front = unsqueezed_at({x, x}, 0), back = unsqueezed_at({x}, 2);
  CHECK((front.size() == 2 && front[0].sizes() == Shape{1, 2, 3} && front[0].strides() == Shape{6, 3, 1}));
  CHECK((back[0].sizes() == Shape{2, 3, 1} && back[0].strides() == Shape{3, 1, 1}));
  CHECK(size_product({2, 3, 4}, 1, 3) == 12);
  CHECK(size_product({2, 3, 4}, 1, 1) == 1);
  size_t seen = 0;
  visit_bytes(2, [&](auto tag) { seen = sizeof(typename decltype(tag)::type); });
  CHECK(seen == 2);
  CHECK(error_of([] { visit_bytes(3, [](auto) {}); }) == "index kernels: unsupported element size 3");
}

TEST_CASE("pooling windows: the first tap and avg_pool2d's clipped window and divisor") {
  CHECK(cpu::first_tap(3, 2) == 3);
  CHECK(cpu::first_tap(-1, 1) == 0);
  CHECK(cpu::first_tap(-3, 2) == 1);
  CHECK(cpu::first_tap(-4, 2) == 0);
  Attrs a{{"kernel_size", Dims{3}}, {"stride", Dims{2}}, {"padding", Dims{1}}, {"ceil_mode", true}};
  cpu::PoolGeometry g = cpu::pool_geometry({1, 1, 4, 4}, a, "avg_pool2d");
  CHECK((g.OH == 3 && g.OW == 3));
  cpu::AvgWindow corner = cpu::avg_window(g, 0, 0, true);
  CHECK((corner.h0 == 0 && corner.h1 == 2 && corner.w0 == 0 && corner.w1 == 2 && corner.divisor == 9));
  CHECK(cpu::avg_window(g, 0, 0, false).divisor == 4);
  // The last window overhangs the padded border (ceil_mode): padded cells count up to it.
  cpu::AvgWindow last = cpu::avg_window(g, 2, 2, true);
  CHECK((last.h0 == 3 && last.h1 == 4 && last.w0 == 3 && last.w1 == 4 && last.divisor == 4));
  CHECK(cpu::avg_window(g, 2, 2, false).divisor == 1);
}

TEST_CASE("dropout's draw depends on the seed and the index only") {
  double u = uniform_at(42, 0);
  CHECK((u >= 0.0 && u < 1.0));
  CHECK(uniform_at(42, 0) == u);
  CHECK(uniform_at(42, 1) != u);
  CHECK(uniform_at(43, 0) != u);
}
