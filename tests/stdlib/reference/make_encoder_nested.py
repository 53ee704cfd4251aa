"""Writes encoder_nested.safetensors for tests/stdlib/test_nn_encoder_nested.dsl:
PyTorch 1.13's nn.TransformerEncoder in eval mode under no_grad with a
src_key_padding_mask, where it takes its nested-tensor path (zeros at padded
positions, the output cut to the longest sequence, then the final norm), and the
cases where one of its conditions fails and it does not (a mask with padding
before a token, an odd head count, norm_first, enable_nested_tensor=False, a float
padding mask, an attention mask as well). Each case: the encoder's state_dict under
PyTorch's keys prefixed by the case name, its input x, mask kpm (and attn_mask), and
PyTorch's output y, in f64.

    /usr/bin/python3 tests/stdlib/reference/make_encoder_nested.py
"""
import pathlib
import sys

import torch
import torch.nn as nn

sys.path.insert(0, str(pathlib.Path(__file__).parents[3] / "scripts" / "reference"))
from safetensors_file import write_safetensors  # noqa: E402

OUT = pathlib.Path(__file__).with_name("encoder_nested.safetensors")

END_PADDED = torch.tensor([[False] * 5, [False] * 3 + [True] * 2, [False] * 4 + [True]])
ALL_PADDED_AT_END = torch.tensor([[False] * 4 + [True], [False] * 2 + [True] * 3, [False] * 4 + [True]])
PADDING_FIRST = torch.tensor([[True] + [False] * 4, [False] * 5, [False] * 3 + [True] * 2])


def encoder(nhead=2, norm=True, norm_first=False, nested=True, activation="relu"):
    layer = nn.TransformerEncoderLayer(8, nhead, 16, dropout=0.0, batch_first=True, norm_first=norm_first,
                                       activation=activation)
    enc = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8) if norm else None, enable_nested_tensor=nested)
    with torch.no_grad():
        for p in enc.parameters():
            p.add_(torch.randn_like(p) * 0.1)
    return enc.double().eval()


def cases():
    torch.manual_seed(0)
    yield "end_padded", encoder(), END_PADDED, None
    yield "cut_to_longest", encoder(), ALL_PADDED_AT_END, None
    yield "no_norm_gelu", encoder(norm=False, activation="gelu"), ALL_PADDED_AT_END, None
    yield "padding_first", encoder(), PADDING_FIRST, None
    yield "odd_heads", encoder(nhead=1), END_PADDED, None
    yield "norm_first", encoder(norm_first=True), END_PADDED, None
    yield "not_nested", encoder(nested=False), END_PADDED, None
    yield "float_mask", encoder(), END_PADDED.double() * -1e9, None
    yield "with_attn_mask", encoder(), END_PADDED, torch.zeros(5, 5, dtype=torch.bool)


def main():
    tensors = {}
    for name, enc, kpm, attn_mask in cases():
        x = torch.randn(3, 5, 8, dtype=torch.float64)
        with torch.no_grad():
            y = enc(x, mask=attn_mask, src_key_padding_mask=kpm)
        for k, v in enc.state_dict().items():
            tensors[f"{name}.{k}"] = v
        tensors[f"{name}.x"] = x
        tensors[f"{name}.kpm"] = kpm
        tensors[f"{name}.y"] = y
    write_safetensors(OUT, tensors)
    print(f"wrote {OUT} ({len(tensors)} tensors)")


if __name__ == "__main__":
    main()
