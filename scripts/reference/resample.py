"""Reference cases of interpolate, pad and their backward rows (resample.cpp).

interpolate's mode is a code (0 nearest, 1 linear/bilinear, 2 bicubic, 3 area); scale_h and
scale_w are the scale factors the caller gave (PyTorch uses them, not size / input
size, for the source coordinates). pad's mode: 0 constant, 1 reflect, 2 replicate,
3 circular. The backward rows' expected values are PyTorch's gradients of the
forward for the given output gradient. pad takes integer and bool tensors in every
mode; PyTorch 1.13 has only constant and circular for them, so the other modes'
expected values are PyTorch's on the values as f64, converted back.
"""
import torch
import torch.nn.functional as F
from lib import case, randint, randn

INTERPOLATE_MODES = {0: "nearest", 1: "linear", 2: "bicubic", 3: "area"}
PAD_MODES = {0: "constant", 1: "reflect", 2: "replicate", 3: "circular"}


def torch_mode(code, ndim):
    name = INTERPOLATE_MODES[code]
    return "bilinear" if name == "linear" and ndim == 4 else name


def interpolate(size, mode, align_corners=False, scale=None):
    def fn(x):
        m = torch_mode(mode, x.dim())
        align = align_corners if mode in (1, 2) else None
        if scale is not None:
            return F.interpolate(x, scale_factor=scale, mode=m, align_corners=align)
        return F.interpolate(x, size=size, mode=m, align_corners=align)
    return fn


def interpolate_case(name, shape, size, mode, align_corners=False, scale=None):
    attrs = {"size": size, "mode": mode, "align_corners": align_corners}
    if scale is not None:
        attrs.update({"scale_h": scale, "scale_w": scale} if len(shape) == 4 else {"scale_w": scale})
    return case("interpolate", [randn(*shape)], attrs, interpolate(size, mode, align_corners, scale), name=name)


def interpolate_backward_case(name, input_shape, size, mode, align_corners=False):
    def fn(g):
        x = torch.zeros(input_shape, dtype=g.dtype, requires_grad=True)
        y = interpolate(size, mode, align_corners)(x)
        return torch.autograd.grad(y, x, g)[0]
    grad = randn(*input_shape[:2], *size)
    attrs = {"input_size": list(input_shape), "mode": mode, "align_corners": align_corners}
    return case("interpolate_backward", [grad], attrs, fn, name=name)


def pad(p, mode, value=0.0):
    return lambda x: F.pad(x, p, PAD_MODES[mode], value) if mode == 0 else F.pad(x, p, PAD_MODES[mode])


def pad_case(name, shape, p, mode, value=0.0):
    return case("pad", [randn(*shape)], {"pad": p, "mode": mode, "value": value}, pad(p, mode, value), name=name)


def pad_exact_case(name, x, p, mode, value=0.0):
    """pad of an integer or bool tensor x (no gradient)."""
    def fn(t):
        if mode == 0 or mode == 3:
            return pad(p, mode, value)(t)
        return pad(p, mode)(t.to(torch.float64)).to(t.dtype)
    return case("pad", [x], {"pad": p, "mode": mode, "value": value}, fn, name=name)


def pad_backward_case(name, shape, p, mode):
    def fn(g):
        x = torch.zeros(shape, dtype=g.dtype, requires_grad=True)
        return torch.autograd.grad(pad(p, mode)(x), x, g)[0]
    out = pad(p, mode)(torch.zeros(shape, dtype=torch.float64))
    return case("pad_backward", [randn(*out.shape)], {"pad": p, "mode": mode}, fn, name=name)


CASES = [
    interpolate_case("interpolate", (2, 3, 3, 4), [5, 7], 1),
    interpolate_case("interpolate_nearest_up", (2, 2, 3, 4), [6, 8], 0),
    interpolate_case("interpolate_nearest_odd", (1, 2, 5, 4), [3, 7], 0),
    interpolate_case("interpolate_bilinear_down", (1, 2, 6, 7), [4, 3], 1),
    interpolate_case("interpolate_bilinear_align", (2, 2, 3, 4), [5, 7], 1, align_corners=True),
    interpolate_case("interpolate_bicubic", (1, 2, 4, 5), [7, 8], 2),
    interpolate_case("interpolate_bicubic_align", (1, 2, 4, 5), [6, 3], 2, align_corners=True),
    interpolate_case("interpolate_bilinear_scale", (1, 2, 4, 5), [6, 7], 1, scale=1.5),
    interpolate_case("interpolate_nearest_scale", (1, 2, 4, 5), [6, 7], 0, scale=1.5),
    interpolate_case("interpolate_linear_3d", (2, 3, 5), [8], 1),
    interpolate_case("interpolate_linear_3d_align", (2, 3, 5), [3], 1, align_corners=True),
    interpolate_case("interpolate_nearest_3d", (2, 3, 4), [9], 0),
    interpolate_backward_case("interpolate_backward", (2, 2, 3, 4), [5, 7], 1),
    interpolate_backward_case("interpolate_backward_nearest", (1, 2, 3, 4), [7, 6], 0),
    interpolate_backward_case("interpolate_backward_bicubic", (1, 2, 4, 4), [6, 7], 2, align_corners=True),
    interpolate_backward_case("interpolate_backward_linear_3d", (2, 2, 5), [8], 1),

    pad_case("pad", (2, 3, 4), [1, 2], 0, value=0.5),
    pad_case("pad_constant_4d", (2, 2, 3, 4), [1, 0, 2, 1], 0),
    pad_case("pad_constant_crop", (2, 3, 4, 5), [-1, 1, 0, -1], 0),
    pad_case("pad_constant_three_dims", (2, 3, 2, 3), [1, 1, 0, 2, 1, 0], 0, value=-1.0),
    pad_case("pad_reflect_3d", (2, 3, 5), [2, 1], 1),
    pad_case("pad_reflect_4d", (1, 2, 4, 5), [1, 2, 3, 1], 1),
    pad_case("pad_replicate_4d", (1, 2, 3, 4), [2, 1, 1, 2], 2),
    pad_case("pad_replicate_3d", (2, 2, 3), [0, 3], 2),
    pad_case("pad_circular_4d", (1, 2, 3, 4), [1, 2, 2, 1], 3),
    pad_case("pad_circular_3d", (2, 2, 4), [3, 1], 3),
    pad_backward_case("pad_backward", (1, 2, 4, 5), [1, 2, 3, 1], 1),
    pad_backward_case("pad_backward_replicate", (2, 2, 3), [2, 3], 2),
    pad_backward_case("pad_backward_circular", (1, 2, 3, 4), [1, 2, 2, 1], 3),

    # area is adaptive average pooling: windows of varying width, up and down.
    interpolate_case("interpolate_area_down", (1, 2, 7, 9), [3, 4], 3),
    interpolate_case("interpolate_area_up", (2, 2, 3, 4), [5, 7], 3),
    interpolate_case("interpolate_area_3d", (2, 3, 10), [4], 3),
    interpolate_case("interpolate_area_scale", (1, 2, 5, 6), [2, 3], 3, scale=0.5),
    interpolate_case("interpolate_nearest_3d_scale", (2, 2, 5), [7], 0, scale=1.5),
    interpolate_case("interpolate_linear_3d_scale", (2, 2, 5), [7], 1, scale=1.5),
    interpolate_backward_case("interpolate_backward_area", (1, 2, 7, 5), [3, 4], 3),
    interpolate_backward_case("interpolate_backward_area_3d", (2, 2, 9), [4], 3),
    interpolate_backward_case("interpolate_backward_nearest_3d", (2, 2, 4), [9], 0),

    pad_exact_case("pad_i64_constant", randint(-9, 9, 2, 3, 4), [1, 2, 0, 1], 0, value=5.0),
    pad_exact_case("pad_i64_reflect", randint(-9, 9, 2, 5), [2, 1], 1),
    pad_exact_case("pad_i32_replicate", randint(-9, 9, 1, 2, 3, 4, dtype=torch.int32), [2, 1, 1, 2], 2),
    pad_exact_case("pad_u8_circular", randint(0, 9, 2, 2, 4, dtype=torch.uint8), [3, 1], 3),
    pad_exact_case("pad_bool_constant", randn(2, 3, 4) > 0, [1, 1, 2, 0], 0, value=1.0),
    pad_exact_case("pad_bool_reflect", randn(1, 2, 4, 5) > 0, [1, 2, 3, 1], 1),
    pad_exact_case("pad_bool_replicate", randn(2, 3) > 0, [0, 3], 2),
    pad_exact_case("pad_bool_circular", randn(1, 2, 3, 4) > 0, [1, 2, 2, 1], 3),
]
