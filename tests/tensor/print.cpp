// Tensor::str() against what PyTorch 1.13 prints for the same values (repr(t)),
// with nabla's spellings: dtype=f64, true/false, MulBackward.
#include <doctest/doctest.h>

#include <cmath>

#include "autograd/ops.hpp"

using namespace nabla;

namespace {
Tensor f32(const std::vector<double>& v, const Shape& s) { return tensor_from(v, s, DType::f32); }
Tensor arange_f32(int64_t n) { return to_dtype(arange(n), DType::f32); }
}  // namespace

TEST_CASE("print: small float matrix aligns signs and uses 4 decimals") {
  CHECK(f32({0.1, -2.0, 3.0, 4.5}, {2, 2}).str() ==
        "tensor([[ 0.1000, -2.0000],\n"
        "        [ 3.0000,  4.5000]])");
}

TEST_CASE("print: integer-valued floats print with a trailing dot") {
  CHECK(f32({1, 2, -3, 10}, {4}).str() == "tensor([ 1.,  2., -3., 10.])");
  CHECK(f32({1, 2, 300, 4}, {2, 2}).str() ==
        "tensor([[  1.,   2.],\n"
        "        [300.,   4.]])");
  CHECK(zeros({3}).str() == "tensor([0., 0., 0.])");
}

TEST_CASE("print: scientific notation when the range is wide or values tiny") {
  CHECK(f32({1e5, 1.0, 0.5}, {3}).str() == "tensor([1.0000e+05, 1.0000e+00, 5.0000e-01])");
  CHECK(f32({1e-5, 0.5}, {2}).str() == "tensor([1.0000e-05, 5.0000e-01])");
  CHECK(f32({1e9, 1.0}, {2}).str() == "tensor([1.0000e+09, 1.0000e+00])");
}

TEST_CASE("print: nan and inf") {
  CHECK(f32({1.5, NAN, INFINITY, -INFINITY}, {4}).str() == "tensor([1.5000,    nan,    inf,   -inf])");
  CHECK(f32({1, NAN, 0}, {3}).str() == "tensor([1., nan, 0.])");
}

TEST_CASE("print: integers and bools") {
  CHECK(tensor_from({1, -20, 3, 400, 5, 6}, {2, 3}, DType::i64).str() ==
        "tensor([[  1, -20,   3],\n"
        "        [400,   5,   6]])");
  CHECK(tensor_from({1, 2}, {2}, DType::i32).str() == "tensor([1, 2], dtype=i32)");
  CHECK(tensor_from({-32768, 7}, {2}, DType::i16).str() == "tensor([-32768,      7], dtype=i16)");
  CHECK(tensor_from({1, 0, 1}, {3}, DType::b8).str() == "tensor([ true, false,  true])");
}

TEST_CASE("print: 0-dim tensors") {
  CHECK(scalar_tensor(3.5).str() == "tensor(3.5000)");
  CHECK(scalar_tensor(3.0).str() == "tensor(3.)");
}

TEST_CASE("print: empty tensors spell out their size and dtype") {
  CHECK(zeros({0, 3}).str() == "tensor([], size=(0, 3))");
  CHECK(zeros({0}).str() == "tensor([])");
  CHECK(zeros({0}, DType::i64).str() == "tensor([], dtype=i64)");
}

TEST_CASE("print: dtype suffix for non-default dtypes") {
  CHECK(tensor_from({1.5, 2.25}, {2}, DType::f64).str() == "tensor([1.5000, 2.2500], dtype=f64)");
}

TEST_CASE("print: long rows wrap at 80 columns") {
  CHECK((arange_f32(30) / 7.0).str() ==
        "tensor([0.0000, 0.1429, 0.2857, 0.4286, 0.5714, 0.7143, 0.8571, 1.0000, 1.1429,\n"
        "        1.2857, 1.4286, 1.5714, 1.7143, 1.8571, 2.0000, 2.1429, 2.2857, 2.4286,\n"
        "        2.5714, 2.7143, 2.8571, 3.0000, 3.1429, 3.2857, 3.4286, 3.5714, 3.7143,\n"
        "        3.8571, 4.0000, 4.1429])");
}

TEST_CASE("print: 3-D tensors separate matrices with a blank line") {
  CHECK(reshape(arange_f32(12), {2, 2, 3}).str() ==
        "tensor([[[ 0.,  1.,  2.],\n"
        "         [ 3.,  4.,  5.]],\n"
        "\n"
        "        [[ 6.,  7.,  8.],\n"
        "         [ 9., 10., 11.]]])");
}

TEST_CASE("print: more than 1000 elements are summarized with '...'") {
  CHECK(arange(2000).str() == "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])");
  // Only the edge items decide the format: 0..49 and 1950..1999 span > 1000x.
  CHECK(reshape(arange_f32(2000), {40, 50}).str() ==
        "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 4.7000e+01, 4.8000e+01,\n"
        "         4.9000e+01],\n"
        "        [5.0000e+01, 5.1000e+01, 5.2000e+01,  ..., 9.7000e+01, 9.8000e+01,\n"
        "         9.9000e+01],\n"
        "        [1.0000e+02, 1.0100e+02, 1.0200e+02,  ..., 1.4700e+02, 1.4800e+02,\n"
        "         1.4900e+02],\n"
        "        ...,\n"
        "        [1.8500e+03, 1.8510e+03, 1.8520e+03,  ..., 1.8970e+03, 1.8980e+03,\n"
        "         1.8990e+03],\n"
        "        [1.9000e+03, 1.9010e+03, 1.9020e+03,  ..., 1.9470e+03, 1.9480e+03,\n"
        "         1.9490e+03],\n"
        "        [1.9500e+03, 1.9510e+03, 1.9520e+03,  ..., 1.9970e+03, 1.9980e+03,\n"
        "         1.9990e+03]])");
}

TEST_CASE("print: non-contiguous tensors print their logical order") {
  CHECK(transpose(f32({1, 2, 3, 4, 5, 6}, {2, 3}), 0, 1).str() ==
        "tensor([[1., 4.],\n"
        "        [2., 5.],\n"
        "        [3., 6.]])");
}

TEST_CASE("print: requires_grad and grad_fn suffixes") {
  Tensor x = f32({1, 2}, {2}).set_requires_grad(true);
  CHECK(x.str() == "tensor([1., 2.], requires_grad=true)");
  CHECK((x * 2.0).str() == "tensor([2., 4.], grad_fn=<MulBackward>)");
  CHECK(sum(x * 2.0).str() == "tensor(6., grad_fn=<SumBackward>)");
  // Suffixes that would pass 80 columns go on a line of their own.
  Tensor y = reshape(to_dtype(arange(30), DType::f64), {3, 10}) / 7.0 * sum(to_dtype(x, DType::f64));
  CHECK(y.str() ==
        "tensor([[ 0.0000,  0.4286,  0.8571,  1.2857,  1.7143,  2.1429,  2.5714,  3.0000,\n"
        "          3.4286,  3.8571],\n"
        "        [ 4.2857,  4.7143,  5.1429,  5.5714,  6.0000,  6.4286,  6.8571,  7.2857,\n"
        "          7.7143,  8.1429],\n"
        "        [ 8.5714,  9.0000,  9.4286,  9.8571, 10.2857, 10.7143, 11.1429, 11.5714,\n"
        "         12.0000, 12.4286]], dtype=f64, grad_fn=<MulBackward>)");
}
