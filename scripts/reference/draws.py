"""Reference cases of the random draws (random_uniform, random_normal,
random_integers; autograd/ops/random.cpp). Their numbers come from nabla's own
generator, so the forward cases are the draws whose value is certain: an empty
interval [low, low], std 0, integers in [low, low + 1). The random cases run forward
only (their shapes and dtypes); tests/graph/test_random_graph.dsl checks their
statistics and that a compiled graph draws as eager does."""
import torch
from lib import case

F64, F32, I64, I32 = torch.float64, torch.float32, torch.int64, torch.int32

CASES = [
    case("random_uniform", [], {"size": [2, 3], "low": 2.5, "high": 2.5, "dtype": F64},
         lambda: torch.full([2, 3], 2.5, dtype=F64), name="random_uniform_certain", grad=[], layouts=False),
    case("random_uniform", [], {"size": [4], "low": -1.0, "high": 1.0, "dtype": F32},
         lambda: torch.zeros([4], dtype=F32), name="random_uniform_random", grad=[], forward=False, layouts=False),
    case("random_normal", [], {"size": [3, 2], "mean": -1.5, "std": 0.0, "dtype": F64},
         lambda: torch.full([3, 2], -1.5, dtype=F64), name="random_normal_certain", grad=[], layouts=False),
    case("random_normal", [], {"size": [5], "mean": 0.0, "std": 1.0, "dtype": F32},
         lambda: torch.zeros([5], dtype=F32), name="random_normal_random", grad=[], forward=False, layouts=False),
    case("random_integers", [], {"size": [2, 2], "low": 3, "high": 4, "dtype": I64},
         lambda: torch.full([2, 2], 3, dtype=I64), name="random_integers_certain", grad=[], layouts=False),
    case("random_integers", [], {"size": [6], "low": -5, "high": 5, "dtype": I32},
         lambda: torch.zeros([6], dtype=I32), name="random_integers_random", grad=[], forward=False, layouts=False),
]
