// The CUDA kernels of the reduction, softmax, indexing and loss rows against the CPU
// kernels of the same ops (the specification): f32 and f64, non-contiguous and
// expanded inputs, several dims and keepdim, ties, NaN and empty reductions, and
// reductions large enough to split over several blocks. Without a GPU every case says
// so and returns.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>

#include "autograd/ops.hpp"
#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/random.hpp"

using namespace nabla;

namespace {

using Ops = std::function<Tensor(const TensorList&)>;

bool have_gpu() {
  if (cuda::device_count() > 0) return true;
  MESSAGE("no GPU here: skipping the CUDA kernel checks (" << cuda::runtime_info() << ")");
  return false;
}

Device gpu() { return Device{DeviceKind::cuda, 0}; }

// Runs `f` on `inputs` on the CPU and on the GPU and compares the results: same shape
// and dtype, NaN where the CPU has NaN, equal infinities, and elsewhere
// |gpu - cpu| <= tol * (1 + |cpu|).
void check_same(const char* what, const Ops& f, const TensorList& inputs, double tol) {
  CAPTURE(what);
  TensorList on_gpu;
  for (const Tensor& t : inputs) on_gpu.push_back(cuda::to_device(t, gpu()));
  Tensor expected = f(inputs), got = f(on_gpu);
  CHECK(got.device() == gpu());
  REQUIRE(got.sizes() == expected.sizes());
  REQUIRE(got.dtype() == expected.dtype());
  auto e = to_double_vector(expected), g = to_double_vector(got);
  int mismatches = 0;
  for (size_t i = 0; i < e.size() && mismatches < 5; ++i) {
    bool ok = std::isnan(e[i])   ? std::isnan(g[i])
              : std::isinf(e[i]) ? g[i] == e[i]
                                 : std::abs(g[i] - e[i]) <= tol * (1 + std::abs(e[i]));
    if (!ok) {
      ++mismatches;
      FAIL_CHECK(what << ": element " << i << " is " << g[i] << " on the GPU, " << e[i] << " on the CPU");
    }
  }
}

double tolerance(DType dt) { return dt == DType::f64 ? 1e-11 : 2e-5; }

const DType kFloats[] = {DType::f32, DType::f64};

// A [a, b, c] tensor seen through a permutation: non-contiguous for every op.
Tensor permuted(const Tensor& x) { return permute(x, {2, 0, 1}); }

}  // namespace

TEST_CASE("CUDA sum, mean, var, std and logsumexp match the CPU over any dims") {
  if (!have_gpu()) return;
  manual_seed(11);
  const std::vector<IntList> dim_sets = {{}, {0}, {1}, {-1}, {0, 2}, {1, 2}, {0, 1, 2}};
  for (DType dt : kFloats) {
    CAPTURE(dtype_name(dt));
    Tensor x = randn({19, 37, 65}, dt) + 3.0;  // a mean well away from 0 tests the variance's stability
    for (const IntList& dims : dim_sets)
      for (bool keepdim : {false, true}) {
        CAPTURE(dims.size());
        CAPTURE(keepdim);
        double tol = tolerance(dt);
        check_same(
            "sum", [&](const TensorList& in) { return sum(in[0], dims, keepdim); }, {x}, tol);
        check_same(
            "mean", [&](const TensorList& in) { return mean(permuted(in[0]), dims, keepdim); }, {x}, tol);
        check_same(
            "var", [&](const TensorList& in) { return var(in[0], dims, 1, keepdim); }, {x}, tol);
        check_same(
            "std", [&](const TensorList& in) { return nabla::std(permuted(in[0]), dims, 0, keepdim); }, {x}, tol);
        if (!dims.empty())
          check_same(
              "logsumexp", [&](const TensorList& in) { return logsumexp(permuted(in[0]), dims, keepdim); }, {x}, tol);
      }
  }
}

TEST_CASE("CUDA reductions split long extents over several blocks") {
  if (!have_gpu()) return;
  manual_seed(12);
  for (DType dt : kFloats) {
    CAPTURE(dtype_name(dt));
    double tol = dt == DType::f64 ? 1e-10 : 1e-4;
    Tensor flat = rand({1 << 21}, dt);
    check_same(
        "full sum", [](const TensorList& in) { return sum(in[0]); }, {flat}, tol);
    check_same(
        "full var", [](const TensorList& in) { return var(in[0]); }, {flat}, tol);
    check_same(
        "full max", [](const TensorList& in) { return max(in[0]); }, {flat}, 0);
    check_same(
        "full argmin", [](const TensorList& in) { return argmin(in[0]); }, {flat}, 0);
    check_same(
        "full logsumexp", [](const TensorList& in) { return logsumexp(in[0], {0}); }, {flat}, tol);
    Tensor tall = rand({300000, 3}, dt);  // few long columns
    check_same(
        "column mean", [](const TensorList& in) { return mean(in[0], {0}); }, {tall}, tol);
    check_same(
        "column std", [](const TensorList& in) { return nabla::std(in[0], {0}); }, {tall}, tol);
    check_same(
        "column argmax", [](const TensorList& in) { return argmax(in[0], 0); }, {tall}, 0);
    Tensor wide = randn({6, 100000}, dt);  // few long rows
    check_same(
        "row sum", [](const TensorList& in) { return sum(in[0], {1}, true); }, {wide}, tol);
    check_same(
        "row min", [](const TensorList& in) { return min(in[0], 1).first; }, {wide}, 0);
    check_same(
        "row softmax", [](const TensorList& in) { return softmax(in[0], 1); }, {wide}, tol);
  }
}

TEST_CASE("CUDA max, min and their indices: ties keep the first index, NaN wins") {
  if (!have_gpu()) return;
  manual_seed(13);
  for (DType dt : {DType::f32, DType::f64, DType::i64, DType::i32}) {
    CAPTURE(dtype_name(dt));
    Tensor x = to_dtype(randint(0, 4, {23, 31, 7}), dt);  // many ties
    check_same(
        "max", [](const TensorList& in) { return max(permuted(in[0])); }, {x}, 0);
    check_same(
        "min", [](const TensorList& in) { return min(in[0]); }, {x}, 0);
    for (int64_t dim : {0, 1, 2})
      for (bool keepdim : {false, true}) {
        CAPTURE(dim);
        auto values_of = [&](bool is_max) {
          return [=](const TensorList& in) {
            return is_max ? max(permuted(in[0]), dim, keepdim).first : min(in[0], dim, keepdim).first;
          };
        };
        auto indices_of = [&](bool is_max) {
          return [=](const TensorList& in) {
            return is_max ? max(in[0], dim, keepdim).second : min(permuted(in[0]), dim, keepdim).second;
          };
        };
        check_same("max_dim values", values_of(true), {x}, 0);
        check_same("min_dim values", values_of(false), {x}, 0);
        check_same("max_dim indices", indices_of(true), {x}, 0);
        check_same("min_dim indices", indices_of(false), {x}, 0);
        check_same(
            "argmax", [&](const TensorList& in) { return argmax(permuted(in[0]), dim, keepdim); }, {x}, 0);
        check_same(
            "argmin", [&](const TensorList& in) { return argmin(in[0], dim, keepdim); }, {x}, 0);
      }
    check_same(
        "flat argmax", [](const TensorList& in) { return argmax(permuted(in[0])); }, {x}, 0);
  }
  Tensor b = gt(rand({40, 9}), scalar_tensor(0.7));
  check_same(
      "bool max", [](const TensorList& in) { return max(in[0], 0).second; }, {b}, 0);
  check_same(
      "bool sum", [](const TensorList& in) { return sum(in[0], {1}); }, {b}, 0);
  Tensor ints = randint(-1000, 1000, {50, 70}, DType::i32);
  check_same(
      "i32 sum", [](const TensorList& in) { return sum(transpose(in[0], 0, 1), {0}); }, {ints}, 0);
  Tensor nan = tensor_from({1, NAN, 3, NAN, 5, 2, 7, 7}, {2, 4}, DType::f32);
  check_same(
      "NaN max", [](const TensorList& in) { return max(in[0]); }, {nan}, 0);
  check_same(
      "NaN argmax", [](const TensorList& in) { return argmax(in[0], 1); }, {nan}, 0);
  check_same(
      "NaN argmin", [](const TensorList& in) { return argmin(in[0]); }, {nan}, 0);
}

TEST_CASE("CUDA reductions of empty extents and infinities") {
  if (!have_gpu()) return;
  Tensor empty_rows = zeros({0, 3}, DType::f64);
  check_same(
      "sum over 0", [](const TensorList& in) { return sum(in[0], {0}); }, {empty_rows}, 0);
  check_same(
      "mean over 0", [](const TensorList& in) { return mean(in[0], {0}); }, {empty_rows}, 0);
  check_same(
      "var over 0", [](const TensorList& in) { return var(in[0], {0}); }, {empty_rows}, 0);
  check_same(
      "logsumexp over 0", [](const TensorList& in) { return logsumexp(in[0], {0}); }, {empty_rows}, 0);
  check_same(
      "sum of nothing", [](const TensorList& in) { return sum(in[0], {1}); }, {empty_rows}, 0);
  Tensor inf = tensor_from({-INFINITY, -INFINITY, INFINITY, 1, 1000, 1000}, {3, 2}, DType::f64);
  check_same(
      "logsumexp infinities", [](const TensorList& in) { return logsumexp(in[0], {1}); }, {inf}, 1e-12);
  Tensor s = scalar_tensor(2.5, DType::f64);
  check_same(
      "0-dim var", [](const TensorList& in) { return var(in[0]); }, {s}, 0);
  check_same(
      "0-dim argmax", [](const TensorList& in) { return argmax(in[0], 0, true); }, {s}, 0);
}

TEST_CASE("CUDA softmax and log_softmax over every dim") {
  if (!have_gpu()) return;
  manual_seed(14);
  for (DType dt : kFloats) {
    CAPTURE(dtype_name(dt));
    Tensor x = randn({9, 70, 33}, dt) * 5.0;
    for (int64_t dim : {0, 1, 2, -1}) {
      CAPTURE(dim);
      check_same(
          "softmax", [&](const TensorList& in) { return softmax(in[0], dim); }, {x}, tolerance(dt));
      check_same(
          "log_softmax", [&](const TensorList& in) { return log_softmax(permuted(in[0]), dim); }, {x}, tolerance(dt));
    }
    Tensor long_rows = randn({4, 3000}, dt);  // a block per row
    check_same(
        "long log_softmax", [](const TensorList& in) { return log_softmax(in[0], 1); }, {long_rows}, tolerance(dt));
  }
  Tensor big = tensor_from({1000, 1001, 1002, -INFINITY}, {4}, DType::f32);
  check_same(
      "large logits", [](const TensorList& in) { return softmax(in[0], 0); }, {big}, 1e-6);
}

TEST_CASE("CUDA reductions and softmax take f16 and bf16 natively") {
  if (!have_gpu()) return;
  manual_seed(15);
  for (DType dt : {DType::f16, DType::bf16}) {
    CAPTURE(dtype_name(dt));
    Tensor x = randn({20, 300}, dt);
    double tol = 1e-2;
    check_same(
        "sum", [](const TensorList& in) { return sum(in[0], {1}); }, {x}, tol);
    check_same(
        "var", [](const TensorList& in) { return var(transpose(in[0], 0, 1), {1}); }, {x}, tol);
    check_same(
        "max_dim", [](const TensorList& in) { return max(in[0], 1).second; }, {x}, 0);
    check_same(
        "logsumexp", [](const TensorList& in) { return logsumexp(in[0], {0}); }, {x}, tol);
    check_same(
        "softmax", [](const TensorList& in) { return softmax(in[0], 0); }, {x}, tol);
    check_same(
        "gather", [](const TensorList& in) { return gather(in[0], 1, in[1]); }, {x, randint(0, 300, {20, 5})}, 0);
    check_same(
        "cat",
        [](const TensorList& in) {
          return cat({in[0], transpose(in[0], 0, 1)}, 1);
        },
        {slice(x, 1, 0, 20)}, 0);
  }
}

TEST_CASE("CUDA gather, index_select, embedding and scatter_add") {
  if (!have_gpu()) return;
  manual_seed(16);
  for (DType dt : {DType::f32, DType::f64, DType::i64}) {
    CAPTURE(dtype_name(dt));
    Tensor x = to_dtype(randn({12, 40, 9}, DType::f64) * 10.0, dt);
    Tensor index = randint(0, 9, {5, 12, 4});  // gathers dim 0 of permuted x: [9, 12, 40]
    check_same(
        "gather", [](const TensorList& in) { return gather(permuted(in[0]), 0, in[1]); }, {x, index}, 0);
    Tensor idx32 = randint(0, 9, {17}, DType::i32);  // within the smallest dim, 9
    for (int64_t dim : {0, 1, 2})
      check_same(
          "index_select",
          [&](const TensorList& in) { return index_select(permuted(in[0]), dim, slice(in[1], 0, 1, 17, 2)); },
          {x, idx32}, 0);
    Tensor weight = to_dtype(randn({40, 12}, DType::f64), dt);
    Tensor tokens = randint(0, 40, {3, 7, 5});
    check_same(
        "embedding", [](const TensorList& in) { return embedding(transpose(in[0], 0, 1), in[1]); },
        {contiguous(transpose(weight, 0, 1)), tokens}, 0);
    check_same(
        "embedding", [](const TensorList& in) { return embedding(in[0], transpose(in[1], 0, 2)); }, {weight, tokens},
        0);
  }
  for (DType dt : {DType::f32, DType::f64, DType::i64, DType::i32}) {
    CAPTURE(dtype_name(dt));
    Tensor self = to_dtype(randn({30, 8}, DType::f64) * 10.0, dt);
    Tensor src = to_dtype(randn({50, 10}, DType::f64) * 10.0, dt);
    Tensor rows = randint(0, 30, {50, 1});
    // The embedding backward's form: an expanded index, src wider than the index.
    check_same(
        "scatter_add expanded",
        [](const TensorList& in) {
          return scatter_add(in[0], 0, expand(in[1], {50, 8}), in[2]);
        },
        {self, rows, src}, tolerance(DType::f32));
    Tensor cols = randint(0, 8, {30, 20});
    check_same(
        "scatter_add dim 1", [](const TensorList& in) { return scatter_add(in[0], 1, in[1], transpose(in[2], 0, 1)); },
        {self, cols, to_dtype(randn({20, 30}, DType::f64), dt)}, tolerance(DType::f32));
  }
  // u8 and i8 wrap modulo 256, i16 modulo 2^16; neighbouring elements of one word are
  // hit at once.
  for (DType dt : {DType::u8, DType::i8, DType::i16}) {
    CAPTURE(dtype_name(dt));
    Tensor self = to_dtype(randint(0, 100, {6, 5}), dt);
    check_same(
        "scatter_add bytes", [](const TensorList& in) { return scatter_add(in[0], 0, in[1], in[2]); },
        {self, randint(0, 6, {4000, 5}), to_dtype(randint(0, 256, {4000, 5}), dt)}, 0);
  }
  Tensor many = zeros({4, 3}, DType::f64);
  Tensor hits = randint(0, 4, {100000, 3});  // contended atomics
  check_same(
      "scatter_add contended", [](const TensorList& in) { return scatter_add(in[0], 0, in[1], in[2]); },
      {many, hits, ones({100000, 3}, DType::f64)}, 1e-12);
}

TEST_CASE("CUDA cat and stack copy any layout and promote") {
  if (!have_gpu()) return;
  manual_seed(17);
  Tensor a = randn({5, 6, 7}, DType::f32), b = randn({7, 5, 6}, DType::f64), c = randn({5, 0, 7});
  for (int64_t dim : {0, 1, 2})
    check_same(
        "cat",
        [&](const TensorList& in) {
          Tensor p = permute(in[1], {1, 2, 0});
          return cat({in[0], p, in[0]}, dim);
        },
        {a, b}, 1e-7);
  check_same(
      "cat with empty",
      [](const TensorList& in) {
        return cat({in[0], in[1]}, 1);
      },
      {a, c}, 0);
  for (int64_t dim : {0, 1, 2, 3})
    check_same(
        "stack",
        [&](const TensorList& in) {
          return stack({in[0], permute(in[1], {1, 2, 0}), expand(in[2], {5, 6, 7})}, dim);
        },
        {a, b, randn({6, 1})}, 1e-7);
}

TEST_CASE("CUDA losses match the CPU for every reduction") {
  if (!have_gpu()) return;
  manual_seed(18);
  for (DType dt : kFloats) {
    CAPTURE(dtype_name(dt));
    double tol = dt == DType::f64 ? 1e-11 : 1e-4;
    for (const char* reduction : {"none", "mean", "sum"}) {
      CAPTURE(reduction);
      std::string r = reduction;
      Tensor logits = randn({64, 10}, dt) * 3.0;
      Tensor target = randint(0, 10, {64});
      Tensor with_ignored = where(lt(rand({64}), scalar_tensor(0.2)), scalar_tensor(-100, DType::i64), target);
      check_same(
          "cross_entropy", [&](const TensorList& in) { return cross_entropy(in[0], in[1], r); }, {logits, with_ignored},
          tol);
      check_same(
          "cross_entropy smoothed",
          [&](const TensorList& in) { return cross_entropy(transpose(in[0], 0, 1), in[1], r, 3, 0.1); },
          {randn({10, 64}, dt), target}, tol);
      Tensor spatial = randn({4, 5000, 3}, dt);  // [N, C, d]: long strided class runs
      Tensor spatial_target = randint(0, 5000, {4, 3});
      check_same(
          "cross_entropy spatial", [&](const TensorList& in) { return cross_entropy(in[0], in[1], r, -100, 0.3); },
          {spatial, spatial_target}, tol);
      check_same(
          "cross_entropy unbatched", [&](const TensorList& in) { return cross_entropy(in[0], in[1], r); },
          {randn({7}, dt), scalar_tensor(2, DType::i64)}, tol);
      check_same(
          "nll_loss", [&](const TensorList& in) { return nll_loss(log_softmax(in[0], 1), in[1], r, 4); },
          {logits, target}, tol);
      check_same(
          "nll_loss spatial", [&](const TensorList& in) { return nll_loss(in[0], in[1], r); },
          {spatial, spatial_target}, tol);
      Tensor x = randn({33, 17}, dt), y = randn({17, 33}, dt);
      check_same(
          "mse_loss", [&](const TensorList& in) { return mse_loss(in[0], transpose(in[1], 0, 1), r); }, {x, y}, tol);
      Tensor p = rand({33, 17}, dt), t = rand({33, 17}, dt);
      check_same(
          "binary_cross_entropy", [&](const TensorList& in) { return binary_cross_entropy(in[0], in[1], r); }, {p, t},
          tol);
      check_same(
          "binary_cross_entropy at 0 and 1",
          [&](const TensorList& in) { return binary_cross_entropy(in[0], in[1], r); },
          {tensor_from({0, 1, 0.5}, {3}, dt), tensor_from({1, 0, 1}, {3}, dt)}, tol);
      check_same(
          "binary_cross_entropy_with_logits",
          [&](const TensorList& in) {
            return binary_cross_entropy_with_logits(in[0] * 20.0, expand(in[1], {33, 17}), r);
          },
          {x, rand({1, 17}, dt)}, tol);
    }
    // Few positions, many classes: the class reduction splits over blocks, and the
    // partial states of the two passes carry the smoothing sums and ignore counts.
    Tensor wide = randn({3, 100000}, dt) * 2.0;
    Tensor wide_target = tensor_from({5, -100, 99999}, {3}, DType::i64);
    for (const char* reduction : {"none", "mean", "sum"}) {
      std::string r = reduction;
      check_same(
          "cross_entropy with 100000 classes",
          [&](const TensorList& in) { return cross_entropy(in[0], in[1], r, -100, 0.1); }, {wide, wide_target}, tol);
    }
    Tensor all_ignored = full({5}, -100, DType::i64);
    check_same(
        "cross_entropy all ignored", [](const TensorList& in) { return cross_entropy(in[0], in[1]); },
        {randn({5, 3}, dt), all_ignored}, 0);
    check_same(
        "mse_loss empty", [](const TensorList& in) { return mse_loss(in[0], in[1]); },
        {zeros({0, 4}, dt), zeros({0, 4}, dt)}, 0);
  }
}
