"""The safetensors format written by hand for the make_*.py generators (there is no
safetensors package here): an 8-byte little-endian header length, a JSON header
{name: {dtype, shape, data_offsets}} padded to 8 bytes, then the raw bytes. Floating
tensors are stored as F32, bool masks as BOOL, integers as I64."""
import json
import struct

import torch

_DTYPES = {torch.bool: "BOOL", torch.int64: "I64"}


def write_safetensors(tensors, path):
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        t = t.detach().contiguous()
        kind = _DTYPES.get(t.dtype, "F32")
        if kind == "F32":
            t = t.to(torch.float32)
        data = t.numpy().tobytes()
        header[name] = {"dtype": kind, "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))
