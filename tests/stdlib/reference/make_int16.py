"""Writes int16.safetensors: PyTorch 1.13's results for the int16 dtype
(tests/stdlib/test_int16.dsl): arithmetic that wraps at 16 bits, integer division and
remainder, bitwise ops and shifts, reductions (with their result dtypes), casts from
floats, ordering and the promotion table.

    /usr/bin/python3 tests/stdlib/reference/make_int16.py

Each case is stored under its name; a promotion case "promote.<a>.<b>" is an empty
tensor of torch.promote_types(a, b), and "result.<name>" an empty tensor of the
result's dtype where the result itself is not stored.
"""
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).parents[3] / "scripts" / "reference"))
from safetensors_file import write_safetensors  # noqa: E402

OUT = pathlib.Path(__file__).with_name("int16.safetensors")
NAMES = {torch.float32: "f32", torch.float64: "f64", torch.float16: "f16", torch.int64: "i64",
         torch.int32: "i32", torch.bool: "bool", torch.int8: "i8", torch.uint8: "u8", torch.int16: "i16"}

out = {}
a = torch.tensor([30000, -30000, 7, -7, 32767, -32768], dtype=torch.int16)
b = torch.tensor([3, -3, 2, 5, 1, 7], dtype=torch.int16)
out["a"], out["b"] = a, b

# elementwise, wrapping at 16 bits
out["add"] = a + a
out["sub"] = a - b
out["mul"] = a * a
out["neg"] = -a
out["abs"] = a.abs()
out["floor_divide"] = torch.div(a, b, rounding_mode="floor")
out["trunc_divide"] = torch.div(a, b, rounding_mode="trunc")
out["remainder"] = torch.remainder(a, b)
out["fmod"] = torch.fmod(a, b)
out["true_divide"] = a / b  # f32
out["add_scalar"] = a + 1  # an int scalar keeps i16
out["add_float_scalar"] = a + 1.5  # a float scalar gives f32
out["bitwise_and"] = a & b
out["bitwise_or"] = a | b
out["bitwise_xor"] = a ^ b
out["bitwise_not"] = ~a
out["shift_left"] = a << 2
out["shift_right"] = a >> 2
out["clamp"] = a.clamp(-100, 100)
out["maximum"] = torch.maximum(a, b)
out["where"] = torch.where(a > 0, a, b)
out["eq"] = a == b
out["lt"] = a < b

# reductions: sum, prod and cumsum of an integer give i64
out["sum"] = a.sum()
out["sum_dim"] = a.view(2, 3).sum(1)
out["prod"] = b.prod()
out["cumsum"] = a.cumsum(0)
out["max"] = a.max()
out["min"] = a.min()
out["argmax"] = a.argmax()
out["amax_dim"] = a.view(2, 3).amax(1)
s = a.sort()
out["sort.values"], out["sort.indices"] = s.values, s.indices
t = a.topk(3)
out["topk.values"], out["topk.indices"] = t.values, t.indices
out["unique"] = torch.unique(torch.tensor([5, -3, 5, 2, -3], dtype=torch.int16))
out["bincount"] = torch.bincount(torch.tensor([0, 3, 3, 1], dtype=torch.int16))

# casts: floats truncate toward zero (in range), and i16 to the others
out["from_f32"] = torch.tensor([1.7, -2.7, 32767.9, -32768.5, 0.4]).short()
out["to_f16"] = a.to(torch.float16)
out["to_i8"] = a.to(torch.int8)  # the low byte, as a C cast
out["to_u8"] = a.to(torch.uint8)
out["from_i32"] = torch.tensor([70000, -70000, 65535], dtype=torch.int32).short()
out["cat"] = torch.cat([a, torch.tensor([1, 2], dtype=torch.int8).short()])

# the promotion table (i16 with each dtype, and u8 with i8)
for d in NAMES:
    out[f"promote.i16.{NAMES[d]}"] = torch.empty(0, dtype=torch.promote_types(torch.int16, d))
out["promote.u8.i8"] = torch.empty(0, dtype=torch.promote_types(torch.uint8, torch.int8))

write_safetensors(OUT, out)
print(f"wrote {len(out)} tensors to {OUT}")
