"""Reference cases of the reduction rows (reduce.cpp)."""
import torch
from lib import case, randn, rand, randint, away_from

CASES = [
    case("sum", [randn(2, 3, 4)], {"dims": [1], "keepdim": False}, lambda x: x.sum(1)),
    case("sum", [randn(2, 3, 4)], {"dims": [0, 2], "keepdim": True}, lambda x: x.sum((0, 2), keepdim=True),
         name="sum_two_dims_keepdim"),
    case("sum", [randn(2, 3)], {"dims": [], "keepdim": False}, lambda x: x.sum(), name="sum_all"),
    case("sum", [randn(0, 3)], {"dims": [0], "keepdim": False}, lambda x: x.sum(0), name="sum_empty"),
    case("sum", [randn([])], {"dims": [], "keepdim": False}, lambda x: x.sum(), name="sum_scalar"),
    case("sum", [randint(0, 5, 3, 4)], {"dims": [1], "keepdim": False}, lambda x: x.sum(1), name="sum_int"),
    case("mean", [randn(2, 3, 4)], {"dims": [-1], "keepdim": False}, lambda x: x.mean(-1)),
    case("mean", [randn(4, 5)], {"dims": [], "keepdim": False}, lambda x: x.mean(), name="mean_all"),
]
