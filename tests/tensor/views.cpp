// Views share storage and follow PyTorch's size/stride rules; a view that would need
// a copy is an error that suggests reshape.
#include <doctest/doctest.h>

#include "autograd/ops.hpp"
#include "tensor/cpu/copy.hpp"

using namespace nabla;

namespace {
Tensor iota(const Shape& shape, DType dtype = DType::f32) {
  std::vector<double> v(static_cast<size_t>(shape_numel(shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  return tensor_from(v, shape, dtype);
}
std::vector<double> values(const Tensor& t) { return to_double_vector(t); }
}  // namespace

TEST_CASE("transpose and permute swap strides without copying") {
  Tensor x = iota({2, 3, 4});
  Tensor t = transpose(x, 0, 2);
  CHECK(t.sizes() == Shape{4, 3, 2});
  CHECK(t.strides() == Shape{1, 4, 12});
  CHECK(t.storage() == x.storage());
  CHECK_FALSE(t.is_contiguous());
  Tensor p = permute(x, {1, 2, 0});
  CHECK(p.sizes() == Shape{3, 4, 2});
  CHECK(p.strides() == Shape{4, 1, 12});
  CHECK(values(contiguous(p))[1] == 12);  // p[0][0][1] = x[1][0][0]
}

TEST_CASE("slice with a step and select are views at an offset") {
  Tensor x = iota({10});
  Tensor s = slice(x, 0, 1, 8, 3);  // 1, 4, 7
  CHECK(s.sizes() == Shape{3});
  CHECK(s.strides() == Shape{3});
  CHECK(s.offset() == 1);
  CHECK(values(s) == std::vector<double>{1, 4, 7});
  Tensor m = iota({3, 4});
  Tensor row = select(m, 0, -1);
  CHECK(values(row) == std::vector<double>{8, 9, 10, 11});
  Tensor col = select(m, 1, 2);
  CHECK(col.strides() == Shape{4});
  CHECK(values(col) == std::vector<double>{2, 6, 10});
  CHECK_THROWS_WITH(select(m, 0, 3), "select: index 3 is out of bounds for dim 0 of size 3");
}

TEST_CASE("slice clamps its bounds like Python") {
  Tensor x = iota({5});
  CHECK(values(slice(x, 0, -2, 100)) == std::vector<double>{3, 4});
  CHECK(slice(x, 0, 4, 2).numel() == 0);
}

TEST_CASE("a view that needs a copy is an error naming reshape; reshape copies") {
  Tensor x = transpose(iota({2, 3}), 0, 1);  // [3, 2], not contiguous
  CHECK_THROWS_WITH_AS(view(x, {6}),
                       "view: the shape [6] is not compatible with the input's size [3, 2] and stride [1, 3] (at "
                       "least one dimension spans across two contiguous subspaces); a view cannot be made without a "
                       "copy, use reshape(...) instead",
                       Error);
  Tensor r = reshape(x, {6});
  CHECK(values(r) == std::vector<double>{0, 3, 1, 4, 2, 5});
  CHECK(r.storage() != x.storage());
  Tensor ok = view(iota({2, 3}), {3, -1});  // contiguous: a real view
  CHECK(ok.sizes() == Shape{3, 2});
  CHECK_THROWS_WITH(view(iota({2, 3}), {4, -1}), "view: shape [4, -1] is invalid for input of shape [2, 3]");
}

TEST_CASE("view can split and merge dims of a non-contiguous tensor when strides allow") {
  Tensor x = slice(iota({4, 6}), 1, 0, 6, 2);  // [4, 3], strides [6, 2]
  Tensor v = view(x, {2, 2, 3});
  CHECK(v.strides() == Shape{12, 6, 2});
  CHECK(values(v) == values(x));
}

TEST_CASE("expand uses zero strides; squeeze and unsqueeze") {
  Tensor x = iota({3, 1});
  Tensor e = expand(x, {2, 3, 4});
  CHECK(e.strides() == Shape{0, 1, 0});
  CHECK(values(e)[5] == 1);
  CHECK_THROWS_WITH(expand(iota({3}), {4}),
                    "expand: the input of shape [3] cannot be expanded to [4] (dim 0: 3 is not 1)");
  CHECK(squeeze(iota({1, 3, 1})).sizes() == Shape{3});
  CHECK(squeeze(iota({1, 3, 1}), {0}).sizes() == Shape{3, 1});
  CHECK(unsqueeze(iota({3}), -1).sizes() == Shape{3, 1});
  CHECK(unsqueeze(iota({3}), 0).strides() == Shape{3, 1});
}

TEST_CASE("0-dim and 0-size tensors go through views and ops") {
  Tensor s = scalar_tensor(2.5);
  CHECK(s.dim() == 0);
  CHECK(s.numel() == 1);
  CHECK(reshape(s, {1, 1}).sizes() == Shape{1, 1});
  CHECK(unsqueeze(s, 0).sizes() == Shape{1});
  CHECK(sum(s).item() == 2.5);
  Tensor z = zeros({0, 3});
  CHECK(z.numel() == 0);
  CHECK(add(z, ones({3})).sizes() == Shape{0, 3});
  CHECK(sum(z, {0}).sizes() == Shape{3});
  CHECK(values(sum(z, {0})) == std::vector<double>{0, 0, 0});
  CHECK(transpose(z, 0, 1).sizes() == Shape{3, 0});
  CHECK(matmul(zeros({2, 0}), zeros({0, 3})).sizes() == Shape{2, 3});
}

TEST_CASE("views share the version counter of their base") {
  Tensor x = iota({4});
  Tensor v = slice(x, 0, 1, 3);
  uint32_t before = x.version();
  v.bump_version();
  CHECK(x.version() == before + 1);
}

TEST_CASE("contiguous copies of transposed views are exact (tiled path), with dtype conversion") {
  int64_t b = 3, r = 70, c = 45;
  Tensor x = iota({b, r, c}, DType::f64);
  Tensor t = contiguous(permute(x, {0, 2, 1}));  // [b, c, r]
  auto v = values(t);
  bool all_equal = true;
  for (int64_t i = 0; i < b; ++i)
    for (int64_t j = 0; j < c; ++j)
      for (int64_t k = 0; k < r; ++k) all_equal &= v[(i * c + j) * r + k] == static_cast<double>((i * r + k) * c + j);
  CHECK(all_equal);
  Tensor f = to_dtype(transpose(iota({r, c}, DType::i64), 0, 1), DType::f32);
  auto fv = values(f);
  CHECK(fv[1] == static_cast<double>(c));       // f[0][1] = x[1][0]
  CHECK(fv[r] == 1.0);                          // f[1][0] = x[0][1]
  CHECK(fv[c * r - 1] == static_cast<double>(r * c - 1));
}
