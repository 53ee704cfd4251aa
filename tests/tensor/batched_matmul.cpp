// The CPU matmul's special paths (tensor/cpu/linalg.cpp) against the product written
// as a broadcast multiply and a sum, which runs no GEMM: outer products (K = 1, Note
// [Outer products]) with strided operands and with streaming stores, and a matrix
// broadcast over the batch folded into one taller GEMM.
#include <doctest/doctest.h>

#include "autograd/ops.hpp"
#include "tensor/random.hpp"

using namespace nabla;

namespace {

// a @ b for [..., M, K] and [..., K, N] without GEMM.
Tensor product_by_sum(const Tensor& a, const Tensor& b) { return sum(mul(unsqueeze(a, -1), unsqueeze(b, -3)), {-2}); }

double max_difference(const Tensor& x, const Tensor& y) {
  return max(abs(sub(to_dtype(x, DType::f64), to_dtype(y, DType::f64)))).item();
}

}  // namespace

TEST_CASE("outer products (K = 1) match the product, for every layout of the operands") {
  for (DType dtype : {DType::f32, DType::f64}) {
    // a: [B, M, 1] as a transposed view; b: [B, 1, N] contiguous, then strided
    Tensor a = transpose(randn({6, 1, 37}, dtype), 1, 2);
    Tensor b = randn({6, 1, 53}, dtype);
    Tensor strided_b = transpose(randn({6, 53, 1}, dtype), 1, 2);
    CHECK(max_difference(matmul(a, b), product_by_sum(a, b)) == 0.0);
    CHECK(max_difference(matmul(a, strided_b), product_by_sum(a, strided_b)) == 0.0);
    // a broadcast over the batch, and no batch at all
    Tensor one_a = randn({37, 1}, dtype);
    CHECK(max_difference(matmul(one_a, b), product_by_sum(one_a, b)) == 0.0);
    Tensor row = randn({1, 53}, dtype);
    CHECK(max_difference(matmul(one_a, row), product_by_sum(one_a, row)) == 0.0);
  }
}

TEST_CASE("a large outer product is written with streaming stores, with the same values") {
  // 8 x 512 x 600 floats is 9.8 MB, past the streaming threshold; N = 601 leaves rows
  // that start off a 32-byte boundary.
  for (int64_t n : {600, 601}) {
    Tensor a = transpose(randn({8, 1, 512}), 1, 2);
    Tensor b = randn({8, 1, n});
    Tensor out = matmul(a, b);
    CHECK(out.sizes() == Shape{8, 512, n});
    CHECK(max_difference(out, product_by_sum(a, b)) == 0.0);
  }
}

TEST_CASE("outer products of halves round the f32 product once") {
  Tensor a = randn({3, 9, 1});
  Tensor b = randn({3, 1, 11});
  for (DType half : {DType::bf16, DType::f16}) {
    Tensor want = to_dtype(matmul(to_dtype(to_dtype(a, half), DType::f32), to_dtype(to_dtype(b, half), DType::f32)), half);
    CHECK(max_difference(matmul(to_dtype(a, half), to_dtype(b, half)), want) == 0.0);
  }
}

TEST_CASE("a matrix broadcast over the batch runs as one GEMM with the same values") {
  for (DType dtype : {DType::f32, DType::f64}) {
    Tensor a = randn({6, 3, 40}, dtype);
    Tensor w = randn({40, 7}, dtype);
    Tensor expanded = expand(unsqueeze(w, 0), {6, 40, 7});
    double tol = dtype == DType::f64 ? 1e-12 : 1e-4;
    CHECK(max_difference(matmul(a, expanded), product_by_sum(a, expanded)) < tol);
    CHECK(max_difference(matmul(a, w), product_by_sum(a, expanded)) < tol);
    // a transposed weight, and rows that do not stack (a batch of transposed a)
    Tensor wt = transpose(randn({7, 40}, dtype), 0, 1);
    CHECK(max_difference(matmul(a, wt), product_by_sum(a, expand(unsqueeze(wt, 0), {6, 40, 7}))) < tol);
    Tensor at = transpose(randn({6, 40, 3}, dtype), 1, 2);
    CHECK(max_difference(matmul(at, expanded), product_by_sum(at, expanded)) < tol);
    // two batch dims, the weight broadcast over both
    Tensor a4 = randn({2, 3, 5, 40}, dtype);
    CHECK(max_difference(matmul(a4, w), product_by_sum(a4, expand(w, {2, 3, 40, 7}))) < tol);
  }
}

TEST_CASE("f32 products with B transposed run on oneDNN's matmul primitive with the f64 product's values") {
  // Note [A transposed B on the matmul primitive] (tensor/cpu/blas.cpp): B stored
  // transposed, at least 16 rows and 2^22 multiply-adds; A plain, transposed, or a
  // strided block (leading dims other than the widths), batched and not. Each is
  // checked against the f64 product of the same values.
  auto check = [](const Tensor& a, const Tensor& b) {
    Tensor want = matmul(to_dtype(a, DType::f64), to_dtype(b, DType::f64));
    Tensor got = matmul(a, b);
    REQUIRE(got.sizes() == want.sizes());
    double scale = max(abs(want)).item();
    CHECK(max_difference(got, want) <= 1e-5 * scale);
  };
  Tensor w = randn({256, 1024});                       // a recurrent layer's W: dh = dG W^T
  check(randn({32, 1024}), transpose(w, 0, 1));
  check(randn({2, 32, 1024}), transpose(randn({2, 256, 1024}), 1, 2));
  check(transpose(randn({1024, 48}), 0, 1), transpose(w, 0, 1));  // A transposed too
  Tensor wide = randn({300, 1100});                    // blocks of larger matrices: ld > width
  check(slice(randn({40, 1100}), 1, 0, 1024, 1), transpose(slice(slice(wide, 0, 0, 256, 1), 1, 0, 1024, 1), 0, 1));
  check(randn({16, 512}), transpose(randn({512, 512}), 0, 1));   // the smallest M the primitive takes
  check(randn({8, 4096}), transpose(randn({1024, 4096}), 0, 1)); // fewer rows: sgemm
}
