"""Writes conv.safetensors: PyTorch's Conv1d, Conv3d, ConvTranspose1d/2d and adaptive pooling
layers (state_dicts under their PyTorch keys, prefixed by the case name), an input and
PyTorch's output for each, for tests/stdlib/test_nn_conv.dsl.

    /usr/bin/python3 tests/stdlib/reference/make_conv.py

The file is written by scripts/reference/safetensors_file.py (there is no safetensors
package here).
"""
import pathlib
import sys

import torch
import torch.nn as nn

sys.path.insert(0, str(pathlib.Path(__file__).parents[3] / "scripts" / "reference"))
from safetensors_file import write_safetensors  # noqa: E402

OUT = pathlib.Path(__file__).with_name("conv.safetensors")


def cases():
    torch.manual_seed(0)
    layers = {
        "conv1d": (nn.Conv1d(4, 6, 3, stride=2, padding=1, groups=2), (2, 4, 9)),
        "conv1d_dilated": (nn.Conv1d(3, 2, 2, dilation=2, bias=False), (1, 3, 7)),
        "conv3d": (nn.Conv3d(4, 6, (3, 2, 3), stride=(2, 1, 1), padding=(1, 0, 1), dilation=(1, 2, 1), groups=2),
                   (2, 4, 5, 5, 4)),
        "conv_transpose1d": (nn.ConvTranspose1d(4, 3, 3, stride=2, padding=1, output_padding=1), (2, 4, 5)),
        "conv_transpose2d": (nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1), (2, 3, 4, 5)),
        "conv_transpose2d_groups": (nn.ConvTranspose2d(4, 6, 2, stride=1, groups=2, dilation=2), (1, 4, 3, 3)),
        "adaptive_avg_pool2d": (nn.AdaptiveAvgPool2d((2, 3)), (2, 3, 5, 7)),
        "adaptive_max_pool2d": (nn.AdaptiveMaxPool2d(2), (2, 3, 5, 5)),
        "adaptive_avg_pool1d": (nn.AdaptiveAvgPool1d(3), (2, 3, 8)),
        "max_pool1d": (nn.MaxPool1d(3, stride=2, padding=1), (2, 3, 8)),
        "avg_pool1d": (nn.AvgPool1d(2), (2, 3, 8)),
    }
    tensors = {}
    for name, (layer, shape) in layers.items():
        x = torch.randn(shape)
        with torch.no_grad():
            y = layer(x)
        for key, t in layer.state_dict().items():
            tensors[f"{name}.{key}"] = t
        tensors[f"{name}.input"] = x
        tensors[f"{name}.output"] = y
    return tensors


if __name__ == "__main__":
    write_safetensors(OUT, cases())
    print(f"{OUT}: {OUT.stat().st_size} bytes")
