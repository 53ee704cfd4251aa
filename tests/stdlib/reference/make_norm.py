"""Writes tests/stdlib/reference/norm.safetensors for tests/stdlib/test_nn_norm.dsl:
PyTorch's GroupNorm(3, 6) state_dict (random affine parameters, PyTorch's key names
weight and bias), an input, GroupNorm's output, and the outputs of bilinear and
bicubic Upsample(scale_factor=2) and ReflectionPad2d(2) of the same input.

    /usr/bin/python3 tests/stdlib/reference/make_norm.py

The file is written by scripts/reference/safetensors_file.py (there is no safetensors
package here).
"""
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).parents[3] / "scripts" / "reference"))
from safetensors_file import write_safetensors  # noqa: E402

OUT = pathlib.Path(__file__).with_name("norm.safetensors")


def main():
    torch.manual_seed(27)
    norm = torch.nn.GroupNorm(3, 6)
    with torch.no_grad():
        norm.weight.copy_(torch.randn(6))
        norm.bias.copy_(torch.randn(6))
    x = torch.randn(2, 6, 5, 4) * 2 + 0.5
    with torch.no_grad():
        tensors = {name: value for name, value in norm.state_dict().items()}
        tensors.update({
            "input": x,
            "group_norm_output": norm(x),
            "bilinear_output": torch.nn.Upsample(scale_factor=2, mode="bilinear")(x),
            "bicubic_output": torch.nn.Upsample(size=(7, 9), mode="bicubic", align_corners=True)(x),
            "reflection_pad_output": torch.nn.ReflectionPad2d(2)(x),
        })
    write_safetensors(OUT, tensors)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes): {', '.join(tensors)}")


if __name__ == "__main__":
    main()
