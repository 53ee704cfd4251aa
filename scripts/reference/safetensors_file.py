"""Writes a .safetensors file by hand (Debian has no python safetensors package): 8
bytes of little-endian header length, the JSON header {name: {dtype, shape,
data_offsets}} padded with spaces to a multiple of 8, then the raw bytes."""
import json
import struct

import torch

DTYPE_CODES = {torch.float32: "F32", torch.float64: "F64", torch.int64: "I64", torch.bool: "BOOL",
               torch.int32: "I32", torch.int8: "I8", torch.uint8: "U8", torch.float16: "F16",
               torch.int16: "I16"}


def write_safetensors(path, tensors):
    """tensors: {name: torch tensor}, written in the dict's order."""
    header, chunks, offset = {}, [], 0
    for name, t in tensors.items():
        t = t.detach().contiguous().cpu()
        raw = t.numpy().tobytes()
        header[name] = {"dtype": DTYPE_CODES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(chunks))
