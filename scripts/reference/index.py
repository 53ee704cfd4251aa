"""Reference cases of the indexing and joining rows (autograd/ops/index.cpp).

Index inputs are i64 (one case per op family uses i32, which nabla accepts and
PyTorch is given as int64); gradients are checked on the floating inputs only."""
import torch
from lib import case, randn


def idx(values, dtype=torch.int64):
    return torch.tensor(values, dtype=dtype)


CASES = [
    # gather: out[i][j] = x[index[i][j]][j] (dim 0); repeats read one element twice.
    case("gather", [randn(3, 4), idx([[0, 2, 2, 1], [2, 0, 0, 0]])], {"dim": 0},
         lambda x, i: x.gather(0, i), grad=[0]),
    case("gather", [randn(3, 4), idx([[3, 3], [0, 1], [2, 2]])], {"dim": 1},
         lambda x, i: x.gather(1, i), name="gather_dim1", grad=[0]),
    case("gather", [randn(2, 3, 4), idx([[[1, 0, 3, 3]], [[2, 2, 0, 1]]])], {"dim": -1},
         lambda x, i: x.gather(-1, i), name="gather_dim_neg_3d", grad=[0]),
    case("gather", [randn(4, 3), idx([[3, 0, 1], [1, 1, 1]], torch.int32)], {"dim": 0},
         lambda x, i: x.gather(0, i.long()), name="gather_i32", grad=[0]),

    # scatter_add: out = self, out[index[i][j]][j] += src[i][j] (dim 0); repeats accumulate.
    case("scatter_add", [randn(3, 4), idx([[0, 2, 2, 1], [0, 2, 2, 1], [1, 0, 2, 0]]), randn(3, 4)], {"dim": 0},
         lambda s, i, x: s.scatter_add(0, i, x), grad=[0, 2]),
    case("scatter_add", [randn(2, 5), idx([[4, 4, 0], [1, 3, 1]]), randn(2, 3)], {"dim": 1},
         lambda s, i, x: s.scatter_add(1, i, x), name="scatter_add_dim1", grad=[0, 2]),
    case("scatter_add", [randn(2, 3, 4), idx([[[0, 0], [3, 1]], [[2, 2], [2, 2]]]), randn(2, 2, 2)], {"dim": -1},
         lambda s, i, x: s.scatter_add(-1, i, x), name="scatter_add_dim_neg_small_index", grad=[0, 2]),
    # src larger than index: only the part index covers is added (and gets gradient).
    case("scatter_add", [randn(4, 3), idx([[1, 1], [3, 0]]), randn(3, 3)], {"dim": 0},
         lambda s, i, x: s.scatter_add(0, i, x), name="scatter_add_src_larger", grad=[0, 2], layouts=True),

    # index_select: whole slices along dim, in index order, with repeats.
    case("index_select", [randn(4, 3), idx([3, 0, 3, 1, 3])], {"dim": 0},
         lambda x, i: x.index_select(0, i), grad=[0]),
    case("index_select", [randn(2, 5), idx([4, 4, 0])], {"dim": 1},
         lambda x, i: x.index_select(1, i), name="index_select_dim1", grad=[0]),
    case("index_select", [randn(2, 3, 4), idx([1, 1], torch.int32)], {"dim": -2},
         lambda x, i: x.index_select(-2, i.long()), name="index_select_dim_neg_i32", grad=[0]),

    # embedding: rows of weight; repeated indices sum their gradients.
    case("embedding", [randn(5, 3), idx([4, 0, 4, 4, 2])], {},
         lambda w, i: torch.nn.functional.embedding(i, w), grad=[0]),
    case("embedding", [randn(6, 4), idx([[0, 5, 5], [1, 0, 5]])], {},
         lambda w, i: torch.nn.functional.embedding(i, w), name="embedding_2d_indices", grad=[0]),
    case("embedding", [randn(3, 2), idx([2, 2, 1], torch.int32)], {},
         lambda w, i: torch.nn.functional.embedding(i, w), name="embedding_i32", grad=[0]),

    # cat: three tensors of different sizes along the dim.
    case("cat", [randn(2, 1), randn(2, 3), randn(2, 2)], {"dim": 1}, lambda *ts: torch.cat(ts, 1)),
    case("cat", [randn(1, 3), randn(3, 3), randn(2, 3)], {"dim": 0}, lambda *ts: torch.cat(ts, 0), name="cat_dim0"),
    case("cat", [randn(2, 3, 1), randn(2, 3, 2)], {"dim": -1}, lambda *ts: torch.cat(ts, -1), name="cat_dim_neg"),
    case("cat", [randn(2, 0), randn(2, 2)], {"dim": 1}, lambda *ts: torch.cat(ts, 1), name="cat_with_empty"),

    # stack: a new dim, first or last.
    case("stack", [randn(2, 3), randn(2, 3), randn(2, 3)], {"dim": 0}, lambda *ts: torch.stack(ts, 0)),
    case("stack", [randn(2, 3), randn(2, 3)], {"dim": -1}, lambda *ts: torch.stack(ts, -1), name="stack_last"),
    case("stack", [randn(3), randn(3)], {"dim": 1}, lambda *ts: torch.stack(ts, 1), name="stack_1d_dim1"),

    # split: uneven pieces (views of the input), one of them empty.
    case("split", [randn(6, 2)], {"sizes": [1, 3, 2], "dim": 0}, lambda x: torch.split(x, [1, 3, 2], 0)),
    case("split", [randn(2, 5)], {"sizes": [2, 0, 3], "dim": -1}, lambda x: torch.split(x, [2, 0, 3], -1),
         name="split_dim_neg_empty_piece"),
    case("split", [randn(2, 3, 4)], {"sizes": [3, 1], "dim": 2}, lambda x: torch.split(x, [3, 1], 2),
         name="split_3d"),
    # unbind: the slices along a dim, that dim removed (views of the input).
    case("unbind", [randn(3, 2)], {"dim": 0}, lambda x: torch.unbind(x, 0)),
    case("unbind", [randn(2, 4, 3)], {"dim": -2}, lambda x: torch.unbind(x, -2), name="unbind_dim_neg"),
]
