"""Reference cases of the view rows (views.cpp)."""
import torch
from lib import case, randn

CASES = [
    case("view", [randn(2, 6)], {"shape": [3, -1]}, lambda x: x.view(3, -1), layouts=False),
    case("view", [randn(1)], {"shape": []}, lambda x: x.view([]), name="view_to_scalar"),
    case("reshape", [randn(2, 3, 4)], {"shape": [4, 6]}, lambda x: x.reshape(4, 6)),
    case("reshape", [randn(0, 3)], {"shape": [3, 0]}, lambda x: x.reshape(3, 0), name="reshape_empty"),
    case("transpose", [randn(2, 3, 4)], {"dim0": 0, "dim1": 2}, lambda x: x.transpose(0, 2)),
    case("permute", [randn(2, 3, 4)], {"dims": [2, 0, 1]}, lambda x: x.permute(2, 0, 1)),
    case("slice", [randn(7, 3)], {"dim": 0, "start": 1, "end": 6, "step": 2}, lambda x: x[1:6:2]),
    case("slice", [randn(3, 5)], {"dim": -1, "start": -3, "end": 100, "step": 1}, lambda x: x[:, -3:],
         name="slice_negative"),
    case("select", [randn(3, 4)], {"dim": 1, "index": -1}, lambda x: x[:, -1]),
    case("expand", [randn(3, 1)], {"shape": [2, 3, 4]}, lambda x: x.expand(2, 3, 4)),
    case("expand", [randn([])], {"shape": [2, 2]}, lambda x: x.expand(2, 2), name="expand_scalar"),
    case("squeeze", [randn(1, 3, 1)], {"dims": None}, lambda x: x.squeeze()),
    case("squeeze", [randn(1, 3, 1)], {"dims": [2]}, lambda x: x.squeeze(2), name="squeeze_dim"),
    case("unsqueeze", [randn(3, 4)], {"dim": 1}, lambda x: x.unsqueeze(1)),
    case("unsqueeze", [randn(3, 4)], {"dim": -1}, lambda x: x.unsqueeze(-1), name="unsqueeze_last"),
    case("contiguous", [randn(3, 4)], {}, lambda x: x.contiguous()),
    case("alias", [randn(3, 4)], {}, lambda x: x.view_as(x)),
    case("detach", [randn(3, 4)], {}, lambda x: x.detach()),
    case("slice_backward", [randn(2, 3)], {"input_shape": [5, 3], "dim": 0, "start": 1, "end": 5, "step": 2},
         lambda g: torch.zeros(5, 3, dtype=g.dtype).index_put((torch.tensor([1, 3]),), g)),
    case("to_dtype", [randn(2, 3)], {"dtype": torch.float32}, lambda x: x.to(torch.float32), atol=1e-6, rtol=1e-6,
         eps=1e-2),
    # to_device on the CPU (an alias); the CUDA sweep moves every case's inputs to the GPU.
    case("to_device", [randn(2, 3)], {"device": -1, "non_blocking": False}, lambda x: x.to("cpu")),
    # The strided views (strided_views.cpp): a diagonal's stride is two dims' summed, unfold's
    # windows overlap when step < size.
    case("diagonal", [randn(3, 4)], {"offset": 0, "dim1": 0, "dim2": 1}, lambda x: x.diagonal()),
    case("diagonal", [randn(2, 3, 4)], {"offset": -1, "dim1": -1, "dim2": 0},
         lambda x: torch.diagonal(x, -1, -1, 0), name="diagonal_offset_dims"),
    case("diagonal", [randn(2, 3)], {"offset": 5, "dim1": 0, "dim2": 1}, lambda x: x.diagonal(5),
         name="diagonal_out_of_range"),
    case("unfold_windows", [randn(3, 7)], {"dim": 1, "size": 3, "step": 1}, lambda x: x.unfold(1, 3, 1)),
    case("unfold_windows", [randn(7, 2)], {"dim": -2, "size": 2, "step": 3}, lambda x: x.unfold(-2, 2, 3),
         name="unfold_gaps"),
    case("unfold_windows", [randn(2, 5)], {"dim": 1, "size": 5, "step": 2}, lambda x: x.unfold(1, 5, 2),
         name="unfold_whole_dim"),
]
