"""Reference cases of the quantization rows (quant.cpp), computed by PyTorch's own
quantized ops: quantize_per_tensor/_per_channel (.int_repr()), dequantize of a
quantized tensor made from the same integers, fake_quantize_*_affine (forward, and
its straight-through gradients for a random output gradient), quantized::linear
(as the exact integer sums times the f32 scales, which is what it computes before
requantizing) and quantized::linear_dynamic itself."""
import torch
from lib import away_from, case, rand, randint, randn

# Debian's PyTorch has no FBGEMM: its x86 engine is oneDNN (the library nabla uses).
torch.backends.quantized.engine = "onednn"
QDTYPE = {torch.uint8: torch.quint8, torch.int8: torch.qint8, torch.int32: torch.qint32}


def quantize_per_tensor(x, scale, zero_point, dtype):
    return torch.quantize_per_tensor(x, scale, zero_point, QDTYPE[dtype]).int_repr()


def quantize_per_channel(x, scales, zero_points, axis, dtype):
    return torch.quantize_per_channel(x, scales, zero_points, axis, QDTYPE[dtype]).int_repr()


def dequantize_per_tensor(q, scale, zero_point):
    return torch._make_per_tensor_quantized_tensor(q, scale, zero_point).dequantize()


def dequantize_per_channel(q, scales, zero_points, axis):
    return torch._make_per_channel_quantized_tensor(q, scales, zero_points, axis).dequantize()


def fake_per_tensor(scale, zero_point, qmin, qmax):
    """PyTorch's fake quantization with its mask of unclamped values (the row's two outputs)."""
    return lambda x: torch.ops.aten.fake_quantize_per_tensor_affine_cachemask(x, scale, zero_point, qmin, qmax)


def fake_per_channel(axis, qmin, qmax):
    return lambda x, s, z: torch.ops.aten.fake_quantize_per_channel_affine_cachemask(
        x, s.to(torch.float32), z.to(torch.int32), axis, qmin, qmax)


def int8_linear(x_scale, x_zero_point):
    """What quantized::linear computes before requantizing its output: the exact
    integer sums of (x - zero_point) w^T, times x_scale * w_scale[n] in f32, plus the bias."""
    def fn(xq, wq, w_scales, bias):
        sums = (xq.to(torch.int64) - x_zero_point) @ wq.to(torch.int64).T
        out = sums.to(torch.float32) * (torch.tensor(x_scale, dtype=torch.float32) * w_scales.to(torch.float32))
        return out if bias is None else out + bias.to(torch.float32)
    return fn


def per_channel_weight(w):
    """w quantized per output channel, symmetric qint8 (PyTorch's per-channel weight
    observer): the integers and the scales."""
    scales = (w.abs().amax(dim=1) / 127.5).clamp(min=torch.finfo(torch.float32).eps).to(torch.float64)
    q = torch.quantize_per_channel(w, scales, torch.zeros(w.shape[0], dtype=torch.int64), 0, torch.qint8)
    return q.int_repr(), scales.to(torch.float32), q


def dynamic_linear(reduce_range):
    def fn(x, wq, w_scales, bias):
        q = torch._make_per_channel_quantized_tensor(wq, w_scales.to(torch.float64),
                                                     torch.zeros(wq.shape[0], dtype=torch.int64), 0)
        packed = torch.ops.quantized.linear_prepack(q, bias)
        return torch.ops.quantized.linear_dynamic(x, packed, reduce_range)
    return fn


F32 = torch.float32
x_wide = randn(3, 4, dtype=F32) * 3
w1 = randn(4, 6, dtype=F32)
w1q, w1_scales, _ = per_channel_weight(w1)
w2 = randn(5, 3, dtype=F32)
w2q, w2_scales, _ = per_channel_weight(w2)
# Values of fake quantization kept 0.05 away from the edges of the clamping range
# ((quant_min - zero_point - 0.5) * scale and (quant_max - zero_point + 0.5) * scale),
# where the gradient switches, and the rounding jumps ((k + 0.5) * scale) where the
# forward does: finite differences must not straddle either.
fq_scale, fq_zero_point = 0.25, 3
fq_x = away_from(randn(3, 5) * 2, [(k + 0.5) * fq_scale for k in range(-24, 24)], gap=0.01)
fq_x_clamped = torch.cat([rand(2, 3, low=3.0, high=6.0), rand(2, 3, low=-8.0, high=-5.0)])
fc_scales = torch.tensor([0.1, 0.3, 0.2, 0.5], dtype=torch.float64)
fc_zero_points = torch.tensor([0, 5, -3, 2], dtype=torch.int64)
fc_x = randn(3, 4) * 2
for c in range(4):
    fc_x[:, c] = away_from(fc_x[:, c], [(k + 0.5) * float(fc_scales[c]) for k in range(-60, 60)], gap=0.01)

CASES = [
    case("quantize_per_tensor", [x_wide], {"scale": 0.05, "zero_point": 10, "dtype": torch.uint8},
         lambda x: quantize_per_tensor(x, 0.05, 10, torch.uint8), name="quantize_per_tensor_u8_clamps"),
    case("quantize_per_tensor", [randn(2, 3, 2, dtype=F32)], {"scale": 0.02, "zero_point": -5, "dtype": torch.int8},
         lambda x: quantize_per_tensor(x, 0.02, -5, torch.int8), name="quantize_per_tensor_i8"),
    case("quantize_per_tensor", [randn(5, dtype=F32) * 100], {"scale": 0.001, "zero_point": 7, "dtype": torch.int32},
         lambda x: quantize_per_tensor(x, 0.001, 7, torch.int32), name="quantize_per_tensor_i32"),
    case("quantize_per_channel",
         [randn(4, 5, dtype=F32), torch.tensor([0.01, 0.02, 0.05, 0.1], dtype=torch.float64),
          torch.tensor([0, 3, -2, 10])],
         {"axis": 0, "dtype": torch.int8},
         lambda x, s, z: quantize_per_channel(x, s, z, 0, torch.int8), name="quantize_per_channel_i8_axis0"),
    case("quantize_per_channel",
         [randn(2, 3, 4, dtype=F32), torch.tensor([0.01, 0.03, 0.02], dtype=torch.float64),
          torch.tensor([128, 100, 0])],
         {"axis": 1, "dtype": torch.uint8},
         lambda x, s, z: quantize_per_channel(x, s, z, 1, torch.uint8), name="quantize_per_channel_u8_axis1"),
    case("dequantize_per_tensor", [randint(0, 256, 3, 4, dtype=torch.uint8)],
         {"scale": 0.07, "zero_point": 128, "dtype": torch.float32},
         lambda q: dequantize_per_tensor(q, 0.07, 128), atol=1e-6, rtol=1e-6),
    case("dequantize_per_tensor", [randint(-128, 128, 6, dtype=torch.int8)],
         {"scale": 0.3, "zero_point": -1, "dtype": torch.float64},
         lambda q: (q.to(torch.float64) + 1) * 0.3, name="dequantize_per_tensor_i8_f64"),
    case("dequantize_per_channel",
         [randint(-128, 128, 3, 4, dtype=torch.int8), torch.tensor([0.5, 0.25, 0.1], dtype=torch.float64),
          torch.tensor([0, 1, -1])],
         {"axis": 0, "dtype": torch.float32},
         lambda q, s, z: dequantize_per_channel(q, s, z, 0), atol=1e-6, rtol=1e-6),
    case("dequantize_per_channel",
         [randint(0, 256, 2, 3, 2, dtype=torch.uint8), torch.tensor([0.5, 0.02], dtype=torch.float64),
          torch.tensor([128, 3])],
         {"axis": -1, "dtype": torch.float32},
         lambda q, s, z: dequantize_per_channel(q, s, z, 2), name="dequantize_per_channel_u8_last_axis",
         atol=1e-6, rtol=1e-6),
    case("fake_quantize_per_tensor", [fq_x],
         {"scale": fq_scale, "zero_point": fq_zero_point, "quant_min": -8, "quant_max": 7},
         fake_per_tensor(fq_scale, fq_zero_point, -8, 7), grad_reference=True),
    case("fake_quantize_per_tensor", [fq_x_clamped], {"scale": 0.5, "zero_point": 0, "quant_min": -4, "quant_max": 4},
         fake_per_tensor(0.5, 0, -4, 4), name="fake_quantize_per_tensor_all_clamped"),
    case("fake_quantize_per_tensor", [randn(4, 3, dtype=F32)],
         {"scale": 0.1, "zero_point": 128, "quant_min": 0, "quant_max": 255},
         fake_per_tensor(0.1, 128, 0, 255), name="fake_quantize_per_tensor_f32_u8", grad=[]),
    case("fake_quantize_per_channel", [fc_x, fc_scales, fc_zero_points], {"axis": 1, "quant_min": -8, "quant_max": 7},
         fake_per_channel(1, -8, 7), grad=[0], grad_reference=True),
    case("fake_quantize_per_channel",
         [torch.cat([rand(2, 2, low=20.0, high=30.0), rand(2, 2, low=-30.0, high=-20.0)]),
          torch.tensor([0.5, 1.0], dtype=torch.float64), torch.tensor([0, 1])],
         {"axis": 1, "quant_min": -8, "quant_max": 7},
         fake_per_channel(1, -8, 7), grad=[0], name="fake_quantize_per_channel_all_clamped"),
    case("quantized_linear",
         [randint(0, 256, 3, 6, dtype=torch.uint8), w1q, w1_scales, randn(4, dtype=F32)],
         {"input_scale": 0.02, "input_zero_point": 120}, int8_linear(0.02, 120), atol=1e-5, rtol=1e-6),
    case("quantized_linear",
         [randint(-128, 128, 2, 2, 3, dtype=torch.int8), w2q, w2_scales, None],
         {"input_scale": 0.05, "input_zero_point": -3}, int8_linear(0.05, -3), name="quantized_linear_i8_3d_no_bias",
         atol=1e-5, rtol=1e-6),
    case("dynamic_quantized_linear", [randn(5, 6, dtype=F32), w1q, w1_scales, randn(4, dtype=F32)],
         {"reduce_range": False}, dynamic_linear(False), atol=1e-5, rtol=1e-5),
    case("dynamic_quantized_linear", [randn(2, 3, 3, dtype=F32) * 4, w2q, w2_scales, randn(5, dtype=F32)],
         {"reduce_range": True}, dynamic_linear(True), name="dynamic_quantized_linear_3d_reduce_range",
         atol=1e-5, rtol=1e-5),
]
