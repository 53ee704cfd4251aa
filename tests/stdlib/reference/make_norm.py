"""Writes tests/stdlib/reference/norm.safetensors for tests/stdlib/nn_norm.dsl:
PyTorch's GroupNorm(3, 6) state_dict (random affine parameters, PyTorch's key names
weight and bias), an input, GroupNorm's output, and the outputs of bilinear and
bicubic Upsample(scale_factor=2) and ReflectionPad2d(2) of the same input.

    /usr/bin/python3 tests/stdlib/reference/make_norm.py

There is no python safetensors package here, so the format is written by hand: an
8-byte little-endian header length, a JSON header {name: {dtype, shape,
data_offsets}}, then the raw little-endian bytes.
"""
import json
import pathlib
import struct

import torch

OUT = pathlib.Path(__file__).with_name("norm.safetensors")


def save_safetensors(tensors, path):
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        data = t.detach().contiguous().to(torch.float32).numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))


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
    save_safetensors(tensors, OUT)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes): {', '.join(tensors)}")


if __name__ == "__main__":
    main()
