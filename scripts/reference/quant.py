"""Reference cases of the quantization rows (quant.cpp), computed by PyTorch's own
quantized ops: quantize_per_tensor/_per_channel (.int_repr()), dequantize of a
quantized tensor made from the same integers, fake_quantize_*_affine (forward, and
its straight-through gradients for a random output gradient), quantized::linear and
quantized::conv2d with an f32 output (as the exact integer sums times the f32 scales
plus the bias, which is what they compute before requantizing; PyTorch has no f32
output), the same with a u8 output as PyTorch's quantized::linear, linear_relu,
conv2d and conv2d_relu compute it, and quantized::linear_dynamic itself."""
import torch
import torch.nn.functional as F
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


def int8_linear(x_scale, x_zero_point, relu=False):
    """What quantized::linear computes before requantizing its output: the exact
    integer sums of (x - zero_point) w^T, times x_scale * w_scale[n] in f32, plus the
    bias, then relu."""
    def fn(xq, wq, w_scales, bias):
        sums = (xq.to(torch.int64) - x_zero_point) @ wq.to(torch.int64).T
        out = sums.to(torch.float32) * (torch.tensor(x_scale, dtype=torch.float32) * w_scales.to(torch.float32))
        out = out if bias is None else out + bias.to(torch.float32)
        return out.clamp(min=0) if relu else out
    return fn


def int8_conv2d(x_scale, x_zero_point, stride, padding, dilation, groups, relu=False):
    """The f32 output of quantized::conv2d before requantization: the exact integer
    sums of (x - zero_point) * w (the padding holds the zero point, so it adds 0),
    times x_scale * w_scale[oc] in f32, plus the bias, then relu."""
    def fn(xq, wq, w_scales, bias):
        x = xq.to(torch.float64) - x_zero_point  # small integers: the f64 sums are exact
        sums = F.conv2d(x, wq.to(torch.float64), None, stride, padding, dilation, groups).round().to(torch.int64)
        scale = torch.tensor(x_scale, dtype=torch.float32) * w_scales.to(torch.float32)
        out = sums.to(torch.float32) * scale.view(1, -1, 1, 1)
        out = out if bias is None else out + bias.to(torch.float32).view(1, -1, 1, 1)
        return out.clamp(min=0) if relu else out
    return fn


def requantized(f32_output, out_scale, out_zero_point, pytorch_op):
    """A u8 output: clamp(round(v / out_scale) + out_zero_point, 0, 255) of the f32
    output v, in f32 with ties to even (Note [Int8 epilogue]), which the sweep
    compares exactly. PyTorch's own op (pytorch_op, the same inputs) must agree within
    one step, and differ only where v / out_scale lies within 1e-5 of a tie: its
    oneDNN engine folds the scales into one multiplier, 1/out_scale / (1/x_scale *
    1/w_scale) in f32 (ideep), whose rounding can move such a value across the tie."""
    def fn(xq, wq, w_scales, bias):
        v = f32_output(xq, wq, w_scales, bias)
        t = v / torch.tensor(out_scale, dtype=torch.float32)
        out = (torch.round(t) + out_zero_point).clamp(0, 255).to(torch.uint8)
        theirs = pytorch_op(xq, wq, w_scales, bias)
        differ = out.to(torch.int32) != theirs.to(torch.int32)
        assert (out.to(torch.int32) - theirs.to(torch.int32)).abs().max() <= 1
        assert ((t[differ] - t[differ].floor() - 0.5).abs() < 1e-5).all(), "PyTorch differs away from a tie"
        return out
    return fn


def pytorch_quantized(op, prepack, x_scale, x_zero_point, out_scale, out_zero_point, *geometry):
    """PyTorch's quantized op with a u8 output (the integers): the activation as a
    quint8 tensor, the weight as a per-channel symmetric qint8 tensor, prepacked."""
    def fn(xq, wq, w_scales, bias):
        x = torch._make_per_tensor_quantized_tensor(xq, x_scale, x_zero_point)
        w = torch._make_per_channel_quantized_tensor(wq, w_scales.to(torch.float64),
                                                     torch.zeros(wq.shape[0], dtype=torch.int64), 0)
        packed = prepack(w, None if bias is None else bias.to(torch.float32), *geometry)
        return op(x, packed, out_scale, out_zero_point).int_repr()
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

# The requantized and relu linear, and the int8 convolution (drawn after the cases
# above, so that their values stay as they were).
w3 = randn(8, 3, 3, 3, dtype=F32) * 0.3
w3q, w3_scales, _ = per_channel_weight(w3.reshape(8, -1))
w3q = w3q.reshape(8, 3, 3, 3)
w4 = randn(6, 2, 3, 3, dtype=F32) * 0.3
w4q, w4_scales, _ = per_channel_weight(w4.reshape(6, -1))
w4q = w4q.reshape(6, 2, 3, 3)
w5 = randn(12, 4, 1, 1, dtype=F32) * 0.3
w5q, w5_scales, _ = per_channel_weight(w5.reshape(12, -1))
w5q = w5q.reshape(12, 4, 1, 1)
linear_x = randint(0, 256, 5, 6, dtype=torch.uint8)
conv_x = randint(0, 256, 2, 3, 7, 7, dtype=torch.uint8)
conv_x4 = randint(0, 256, 2, 4, 9, 8, dtype=torch.uint8)

CASES += [
    case("quantized_linear", [linear_x, w1q, w1_scales, randn(4, dtype=F32)],
         {"input_scale": 0.02, "input_zero_point": 120, "relu": True}, int8_linear(0.02, 120, relu=True),
         name="quantized_linear_relu_f32", atol=1e-5, rtol=1e-6),
    case("quantized_linear", [linear_x, w1q, w1_scales, randn(4, dtype=F32)],
         {"input_scale": 0.02, "input_zero_point": 120, "output_scale": 0.03, "output_zero_point": 100},
         requantized(int8_linear(0.02, 120), 0.03, 100,
                     pytorch_quantized(torch.ops.quantized.linear, torch.ops.quantized.linear_prepack,
                                       0.02, 120, 0.03, 100)),
         name="quantized_linear_u8", atol=0, rtol=0),
    case("quantized_linear", [linear_x, w1q, w1_scales, None],
         {"input_scale": 0.02, "input_zero_point": 120, "output_scale": 0.01, "output_zero_point": 30,
          "relu": True},
         requantized(int8_linear(0.02, 120, relu=True), 0.01, 30,
                     pytorch_quantized(torch.ops.quantized.linear_relu, torch.ops.quantized.linear_prepack,
                                       0.02, 120, 0.01, 30)),
         name="quantized_linear_relu_u8_no_bias", atol=0, rtol=0),
    case("quantized_conv2d", [conv_x, w3q, w3_scales, randn(8, dtype=F32)],
         {"input_scale": 0.03, "input_zero_point": 77, "padding": [1, 1]},
         int8_conv2d(0.03, 77, 1, 1, 1, 1), name="quantized_conv2d_f32_padding", atol=1e-5, rtol=1e-6),
    case("quantized_conv2d", [randint(-128, 128, 1, 4, 9, 8, dtype=torch.int8), w4q, w4_scales, None],
         {"input_scale": 0.05, "input_zero_point": -5, "stride": [2, 1], "dilation": [2, 2], "groups": 2,
          "relu": True},
         int8_conv2d(0.05, -5, (2, 1), 0, 2, 2, relu=True), name="quantized_conv2d_i8_groups_relu_f32",
         atol=1e-5, rtol=1e-6),
    case("quantized_conv2d", [conv_x, w3q, w3_scales, randn(8, dtype=F32)],
         {"input_scale": 0.03, "input_zero_point": 77, "stride": [2, 2], "padding": [1, 1],
          "output_scale": 0.05, "output_zero_point": 128},
         requantized(int8_conv2d(0.03, 77, 2, 1, 1, 1), 0.05, 128,
                     pytorch_quantized(torch.ops.quantized.conv2d, torch.ops.quantized.conv2d_prepack,
                                       0.03, 77, 0.05, 128, [2, 2], [1, 1], [1, 1], 1)),
         name="quantized_conv2d_u8_stride_padding", atol=0, rtol=0),
    case("quantized_conv2d", [conv_x4, w4q, w4_scales, randn(6, dtype=F32)],
         {"input_scale": 0.02, "input_zero_point": 128, "padding": [2, 1], "dilation": [2, 1], "groups": 2,
          "output_scale": 0.04, "output_zero_point": 10, "relu": True},
         requantized(int8_conv2d(0.02, 128, 1, (2, 1), (2, 1), 2, relu=True), 0.04, 10,
                     pytorch_quantized(torch.ops.quantized.conv2d_relu, torch.ops.quantized.conv2d_prepack,
                                       0.02, 128, 0.04, 10, [1, 1], [2, 1], [2, 1], 2)),
         name="quantized_conv2d_relu_u8_groups_dilation", atol=0, rtol=0),
    # input_scale == output_scale puts many values near ties, where PyTorch's folded
    # multiplier rounds some across (see requantized()).
    case("quantized_conv2d", [conv_x4, w5q, w5_scales, None],
         {"input_scale": 0.02, "input_zero_point": 3, "output_scale": 0.02, "output_zero_point": 64},
         requantized(int8_conv2d(0.02, 3, 1, 0, 1, 1), 0.02, 64,
                     pytorch_quantized(torch.ops.quantized.conv2d, torch.ops.quantized.conv2d_prepack,
                                       0.02, 3, 0.02, 64, [1, 1], [0, 0], [1, 1], 1)),
         name="quantized_conv2d_1x1_u8_no_bias", atol=0, rtol=0),
]
