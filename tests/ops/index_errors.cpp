// Index ops refuse indices their output has no room for (these once wrote past it).
#include <doctest/doctest.h>

#include "autograd/ops.hpp"

using namespace nabla;

TEST_CASE("index_select of a 0-dim input takes one index, and more is an error") {
  Tensor x = scalar_tensor(5.0);
  Tensor one = index_select(x, 0, tensor_from({0}, {1}, DType::i64));
  CHECK(one.dim() == 0);
  CHECK(one.item() == 5.0);
  CHECK_THROWS_WITH(index_select(x, 0, tensor_from({0, 0, 0}, {3}, DType::i64)),
                    "index_select: a 0-dim input can be indexed by one index only, got 3");
}
