"""Reference cases of the scans, ordering and indexing rows (autograd/ops/ordering.cpp).

Gradient cases avoid ties (sort and topk are not differentiable where two values
meet); the ties of `sort_stable_ties` are checked forward only. cumprod's cases with
zeros check the rule of Note [cumprod with zeros]. one_hot and multinomial have no
gradient; multinomial's forward cases are the distributions whose draws are certain
(one category per row), its statistics are checked in tests/stdlib/test_nn_ordering.dsl."""
import torch
import torch.nn.functional as F
from lib import case, randn, randint


def tensor(values, dtype=torch.float64):
    return torch.tensor(values, dtype=dtype)


def with_zeros(shape, positions):
    x = randn(*shape)
    for p in positions:
        x[p] = 0.0
    return x


CASES = [
    case("cumsum", [randn(3, 4)], {"dim": 1}, lambda x: x.cumsum(1)),
    case("cumsum", [randn(4, 2, 3)], {"dim": 0}, lambda x: x.cumsum(0), name="cumsum_dim0_3d"),
    case("cumsum", [randn(2, 5)], {"dim": -1}, lambda x: x.cumsum(-1), name="cumsum_dim_neg"),
    case("cumsum", [randint(-5, 5, 3, 4)], {"dim": 0}, lambda x: x.cumsum(0), name="cumsum_i64"),

    case("cumprod", [randn(3, 4)], {"dim": 1}, lambda x: x.cumprod(1)),
    case("cumprod", [randn(4, 3)], {"dim": 0}, lambda x: x.cumprod(0), name="cumprod_dim0"),
    case("cumprod", [with_zeros((2, 5), [(0, 2), (1, 0)])], {"dim": 1}, lambda x: x.cumprod(1),
         name="cumprod_one_zero_per_row"),
    case("cumprod", [with_zeros((5, 2), [(1, 0), (3, 0), (4, 1)])], {"dim": 0}, lambda x: x.cumprod(0),
         name="cumprod_two_zeros"),
    case("cumprod", [randint(1, 4, 2, 3)], {"dim": 1}, lambda x: x.cumprod(1), name="cumprod_i64"),

    case("sort", [randn(3, 5)], {"dim": -1, "descending": False, "stable": False}, lambda x: x.sort(-1)),
    case("sort", [randn(4, 3)], {"dim": 0, "descending": True, "stable": False},
         lambda x: x.sort(0, descending=True), name="sort_descending_dim0"),
    case("sort", [randn(2, 6, 3)], {"dim": 1, "descending": False, "stable": True},
         lambda x: x.sort(dim=1, stable=True), name="sort_3d_middle_dim"),
    case("sort", [tensor([[2.0, 1.0, 2.0, 1.0, 0.5, 2.0], [3.0, 3.0, 3.0, -1.0, 3.0, -1.0]])],
         {"dim": 1, "descending": False, "stable": True}, lambda x: x.sort(dim=1, stable=True),
         name="sort_stable_ties", grad=[]),
    case("sort", [tensor([[2.0, 1.0, 2.0, 1.0, 0.5, 2.0]])], {"dim": 1, "descending": True, "stable": True},
         lambda x: x.sort(dim=1, descending=True, stable=True), name="sort_stable_ties_descending", grad=[]),
    case("sort", [randint(-50, 50, 3, 7)], {"dim": 1, "descending": False, "stable": True},
         lambda x: x.sort(dim=1, stable=True), name="sort_i64"),

    case("topk", [randn(3, 8)], {"k": 3, "dim": -1, "largest": True, "sorted": True}, lambda x: x.topk(3)),
    case("topk", [randn(6, 4)], {"k": 2, "dim": 0, "largest": False, "sorted": True},
         lambda x: x.topk(2, 0, largest=False), name="topk_smallest_dim0"),
    case("topk", [randn(2, 5, 3)], {"k": 5, "dim": 1, "largest": True, "sorted": True},
         lambda x: x.topk(5, 1), name="topk_whole_dim"),
    case("topk", [randn(2, 200)], {"k": 2, "dim": 1, "largest": True, "sorted": True},
         lambda x: x.topk(2, 1), name="topk_partial_sort_path", gradgrad=False),
    case("topk", [randint(-1000, 1000, 2, 9)], {"k": 4, "dim": 1, "largest": True, "sorted": True},
         lambda x: x.topk(4, 1), name="topk_i64"),

    case("flip", [randn(2, 3, 4)], {"dims": [0, 2]}, lambda x: x.flip(0, 2)),
    case("flip", [randn(3, 5)], {"dims": [-1]}, lambda x: x.flip(-1), name="flip_last"),
    case("flip", [randn(4, 3)], {"dims": [0]}, lambda x: x.flip(0), name="flip_first"),

    case("roll", [randn(3, 4)], {"shifts": [1, -2], "dims": [0, 1]}, lambda x: x.roll((1, -2), (0, 1))),
    case("roll", [randn(2, 3)], {"shifts": [4], "dims": []}, lambda x: x.roll(4), name="roll_flattened"),
    case("roll", [randn(2, 5, 2)], {"shifts": [7], "dims": [1]}, lambda x: x.roll(7, 1), name="roll_past_size"),

    case("tril", [randn(3, 4)], {"diagonal": 0}, lambda x: x.tril()),
    case("tril", [randn(2, 4, 3)], {"diagonal": -1}, lambda x: x.tril(-1), name="tril_batched_below"),
    case("triu", [randn(4, 3)], {"diagonal": 0}, lambda x: x.triu()),
    case("triu", [randn(2, 3, 5)], {"diagonal": 2}, lambda x: x.triu(2), name="triu_batched_above"),
    case("triu", [randn(3, 3)], {"diagonal": -5}, lambda x: x.triu(-5), name="triu_keeps_all"),

    # value is a 0-dim tensor input (a number arrives as one), differentiable.
    case("masked_fill", [randn(3, 4), randn(3, 4) > 0, tensor(-1.5)], {},
         lambda x, m, v: x.masked_fill(m, v), grad=[0, 2]),
    case("masked_fill", [randn(2, 3, 4), randn(3, 1) > 0, tensor(0.25)], {},
         lambda x, m, v: x.masked_fill(m, v), name="masked_fill_broadcast", grad=[0, 2]),
    case("masked_fill", [randint(-9, 9, 2, 3), tensor([True, False, True], torch.bool), tensor(7.0)], {},
         lambda x, m, v: x.masked_fill(m, v), name="masked_fill_i64", grad=[]),
    case("masked_fill", [tensor([[1.0, 2.0], [3.0, 4.0]], torch.float32), tensor([False, True], torch.bool),
                         tensor(-2, torch.int64)], {},
         lambda x, m, v: x.masked_fill(m, v), name="masked_fill_value_cast", grad=[]),

    case("repeat", [randn(2, 3)], {"sizes": [2, 1, 2]}, lambda x: x.repeat(2, 1, 2)),
    case("repeat", [randn(3)], {"sizes": [2, 3]}, lambda x: x.repeat(2, 3), name="repeat_new_dim"),
    case("repeat", [randn(2, 2)], {"sizes": [1, 1]}, lambda x: x.repeat(1, 1), name="repeat_once"),

    case("one_hot", [tensor([[0, 3, 1], [4, 4, 2]], torch.int64)], {"num_classes": 5},
         lambda x: F.one_hot(x, 5)),
    case("one_hot", [tensor([1, 0], torch.int64)], {"num_classes": 2}, lambda x: F.one_hot(x, 2),
         name="one_hot_1d"),

    case("multinomial", [tensor([[0.0, 0.0, 3.0], [1.0, 0.0, 0.0]])], {"num_samples": 4, "replacement": True},
         lambda p: torch.multinomial(p, 4, True), name="multinomial_certain_rows", grad=[]),
    case("multinomial", [tensor([0.0, 2.0, 0.0, 0.0])], {"num_samples": 1, "replacement": False},
         lambda p: torch.multinomial(p, 1), name="multinomial_1d_certain", grad=[]),
    case("multinomial", [tensor([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])], {"num_samples": 3, "replacement": False},
         lambda p: torch.multinomial(p, 3), name="multinomial_random", grad=[], forward=False),
]
