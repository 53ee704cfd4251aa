"""Reference cases of matmul and linear (linalg.cpp)."""
import torch
from lib import case, randn

CASES = [
    case("matmul", [randn(3, 4), randn(4, 5)], {}, torch.matmul),
    case("matmul", [randn(2, 3, 4), randn(4, 2)], {}, torch.matmul, name="matmul_batched_broadcast"),
    case("matmul", [randn(2, 1, 3, 4), randn(3, 4, 2)], {}, torch.matmul, name="matmul_batch_broadcast_both"),
    case("matmul", [randn(3, 0), randn(0, 2)], {}, torch.matmul, name="matmul_empty_k"),
    case("linear", [randn(4, 3), randn(5, 3), randn(5)], {}, torch.nn.functional.linear),
    case("linear", [randn(2, 4, 3), randn(5, 3), None], {}, lambda x, w, b: torch.nn.functional.linear(x, w),
         name="linear_no_bias_3d"),
]
