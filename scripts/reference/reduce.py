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

# max / min. Gradchecked inputs are random f64, so they have no ties (a tie would
# make the max non-differentiable and central differences meaningless).
CASES += [
    case("max", [randn(3, 4)], {}, torch.max),
    case("max", [randn(2, 3, 4)], {}, torch.max, name="max_3d"),
    case("max", [randn([])], {}, torch.max, name="max_scalar"),
    case("max", [randint(-9, 9, 3, 4)], {}, torch.max, name="max_int"),
    case("min", [randn(3, 4)], {}, torch.min),
    case("min", [randint(-9, 9, 5)], {}, torch.min, name="min_int"),
    case("max_dim", [randn(3, 4)], {"dim": 1, "keepdim": False}, lambda x: x.max(1)),
    case("max_dim", [randn(2, 3, 4)], {"dim": 1, "keepdim": True}, lambda x: x.max(1, keepdim=True),
         name="max_dim_middle_keepdim"),
    case("max_dim", [randn(2, 3, 4)], {"dim": -3, "keepdim": False}, lambda x: x.max(-3), name="max_dim_negative"),
    case("max_dim", [randn([])], {"dim": 0, "keepdim": False}, lambda x: x.max(0), name="max_dim_scalar"),
    case("max_dim", [randint(0, 3, 4, 5)], {"dim": 1, "keepdim": False}, lambda x: x.max(1),
         name="max_dim_int_ties_first_index"),
    case("max_dim", [randn(0, 3)], {"dim": 1, "keepdim": False}, lambda x: x.max(1), name="max_dim_empty"),
    case("min_dim", [randn(3, 4)], {"dim": 0, "keepdim": False}, lambda x: x.min(0)),
    case("min_dim", [randn(2, 3, 4)], {"dim": -1, "keepdim": True}, lambda x: x.min(-1, keepdim=True),
         name="min_dim_last_keepdim"),
    case("min_dim", [randint(0, 3, 4, 5)], {"dim": 0, "keepdim": False}, lambda x: x.min(0),
         name="min_dim_int_ties_first_index"),
]

# argmax / argmin (no gradient); dim None means the flattened tensor.
CASES += [
    case("argmax", [randn(3, 4)], {"dim": None, "keepdim": False}, lambda x: x.argmax()),
    case("argmax", [randn(3, 4)], {"dim": None, "keepdim": True}, lambda x: x.argmax(keepdim=True),
         name="argmax_flat_keepdim"),
    case("argmax", [randn(2, 3, 4)], {"dim": 1, "keepdim": False}, lambda x: x.argmax(1), name="argmax_3d"),
    case("argmax", [randn(2, 3, 4)], {"dim": -1, "keepdim": True}, lambda x: x.argmax(-1, keepdim=True),
         name="argmax_negative_keepdim"),
    case("argmax", [randint(0, 3, 4, 5)], {"dim": 0, "keepdim": False}, lambda x: x.argmax(0),
         name="argmax_int_ties_first_index"),
    case("argmax", [randn([])], {"dim": 0, "keepdim": False}, lambda x: x.argmax(0), name="argmax_scalar"),
    case("argmin", [randn(3, 4)], {"dim": 1, "keepdim": False}, lambda x: x.argmin(1)),
    case("argmin", [randint(-5, 5, 2, 3, 2)], {"dim": None, "keepdim": False}, lambda x: x.argmin(),
         name="argmin_int_flat"),
]

# var / std: correction 1 (default), 0 and 2; an empty dims list reduces every dim.
CASES += [
    case("var", [randn(3, 4)], {"dims": [1], "correction": 1, "keepdim": False}, lambda x: x.var(1)),
    case("var", [randn(3, 4)], {"dims": [], "correction": 1, "keepdim": False}, lambda x: x.var(), name="var_all"),
    case("var", [randn(2, 3, 4)], {"dims": [0, 2], "correction": 0, "keepdim": True},
         lambda x: torch.var(x, (0, 2), correction=0, keepdim=True), name="var_two_dims_keepdim_biased"),
    case("var", [randn(2, 3, 4)], {"dims": [-2], "correction": 2, "keepdim": False},
         lambda x: torch.var(x, -2, correction=2), name="var_negative_correction2"),
    case("var", [randn(4) + 1000.0], {"dims": [0], "correction": 1, "keepdim": False}, lambda x: x.var(0),
         name="var_large_mean"),
    case("std", [randn(3, 4)], {"dims": [0], "correction": 1, "keepdim": False}, lambda x: x.std(0)),
    case("std", [randn(2, 3, 4)], {"dims": [1, 2], "correction": 0, "keepdim": True},
         lambda x: torch.std(x, (1, 2), correction=0, keepdim=True), name="std_two_dims_keepdim_biased"),
    case("std", [randn(3, 4)], {"dims": [], "correction": 1, "keepdim": False}, lambda x: x.std(), name="std_all"),
    case("std", [randn(2, 5)], {"dims": [-1], "correction": 1, "keepdim": True},
         lambda x: x.std(-1, keepdim=True), name="std_negative_keepdim"),
]

# logsumexp: big values check the max shift; integer inputs compute in f32.
CASES += [
    case("logsumexp", [randn(3, 4)], {"dims": [1], "keepdim": False}, lambda x: x.logsumexp(1)),
    case("logsumexp", [randn(2, 3, 4)], {"dims": [0, 2], "keepdim": True}, lambda x: x.logsumexp((0, 2), keepdim=True),
         name="logsumexp_two_dims_keepdim"),
    case("logsumexp", [randn(2, 3, 4)], {"dims": [-2], "keepdim": False}, lambda x: x.logsumexp(-2),
         name="logsumexp_negative"),
    case("logsumexp", [randn(3, 4) * 400.0], {"dims": [1], "keepdim": False}, lambda x: x.logsumexp(1),
         name="logsumexp_large_values", grad=[]),
    case("logsumexp", [randn([])], {"dims": [0], "keepdim": False}, lambda x: x.logsumexp(0), name="logsumexp_scalar"),
    case("logsumexp", [randint(0, 5, 3, 4)], {"dims": [1], "keepdim": False}, lambda x: x.logsumexp(1),
         name="logsumexp_int", atol=1e-6, rtol=1e-6),
    # (An empty reduction gives -inf, which the JSON files cannot hold: tests/ops/reduce_ops.cpp checks it.)
    case("logsumexp", [randn(3, 0)], {"dims": [0], "keepdim": True}, lambda x: x.logsumexp(0, keepdim=True),
         name="logsumexp_empty_output"),
]

# softmax / log_softmax over the first, a middle and the last dim (the kernel's
# strided and contiguous paths), a 0-dim input, and logits large enough to overflow
# exp without the max shift.
CASES += [
    case("softmax", [randn(3, 4)], {"dim": 1}, lambda x: x.softmax(1)),
    case("softmax", [randn(2, 3, 4)], {"dim": 0}, lambda x: x.softmax(0), name="softmax_first_dim"),
    case("softmax", [randn(2, 3, 4)], {"dim": -2}, lambda x: x.softmax(-2), name="softmax_middle_negative"),
    case("softmax", [randn([])], {"dim": 0}, lambda x: x.softmax(0), name="softmax_scalar"),
    case("softmax", [randn(3, 5) * 500.0], {"dim": -1}, lambda x: x.softmax(-1), name="softmax_large_logits",
         grad=[]),
    case("softmax", [randn(2, 3, 4, dtype=torch.float32)], {"dim": 1}, lambda x: x.softmax(1),
         name="softmax_f32", atol=1e-6, rtol=1e-5, grad=[]),
    case("softmax", [randn(0, 3)], {"dim": 1}, lambda x: x.softmax(1), name="softmax_empty"),
    case("log_softmax", [randn(3, 4)], {"dim": 1}, lambda x: x.log_softmax(1)),
    case("log_softmax", [randn(2, 3, 4)], {"dim": 1}, lambda x: x.log_softmax(1), name="log_softmax_middle"),
    case("log_softmax", [randn(2, 3, 4)], {"dim": -3}, lambda x: x.log_softmax(-3), name="log_softmax_first_negative"),
    case("log_softmax", [randn([])], {"dim": -1}, lambda x: x.log_softmax(-1), name="log_softmax_scalar"),
    case("log_softmax", [randn(3, 5) * 500.0], {"dim": 0}, lambda x: x.log_softmax(0),
         name="log_softmax_large_logits", grad=[]),
    case("log_softmax", [randn(2, 3, 4, dtype=torch.float32)], {"dim": -1}, lambda x: x.log_softmax(-1),
         name="log_softmax_f32", atol=1e-5, rtol=1e-5, grad=[]),
]

# The bias gradients' sums, read in place by the CPU kernel: over N, H, W of
# [N, C, H, W] (rows longer than one 1024-float block), and down the rows of [N, F].
CASES += [
    case("sum", [randn(2, 3, 20, 55)], {"dims": [0, 2, 3], "keepdim": False}, lambda x: x.sum((0, 2, 3)),
         name="sum_bias_gradient_nchw", gradgrad=False),
    case("mean", [randn(2, 3, 5, 7)], {"dims": [0, 2, 3], "keepdim": True}, lambda x: x.mean((0, 2, 3), keepdim=True),
         name="mean_kept_middle"),
    case("sum", [randn(9, 70)], {"dims": [0], "keepdim": False}, lambda x: x.sum(0), name="sum_rows_of_nf"),
]
