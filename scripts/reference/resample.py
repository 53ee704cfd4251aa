"""Reference cases of interpolate, pad and their backward rows (resample.cpp).

interpolate's mode is a code (0 nearest, 1 linear/bilinear, 2 bicubic); scale_h and
scale_w are the scale factors the caller gave (PyTorch uses them, not size / input
size, for the source coordinates). pad's mode: 0 constant, 1 reflect, 2 replicate,
3 circular. The backward rows' expected values are PyTorch's gradients of the
forward for the given output gradient.
"""
import torch
import torch.nn.functional as F
from lib import case, randn

INTERPOLATE_MODES = {0: "nearest", 1: "linear", 2: "bicubic"}
PAD_MODES = {0: "constant", 1: "reflect", 2: "replicate", 3: "circular"}


def torch_mode(code, ndim):
    name = INTERPOLATE_MODES[code]
    return "bilinear" if name == "linear" and ndim == 4 else name


def interpolate(size, mode, align_corners=False, scale=None):
    def fn(x):
        m = torch_mode(mode, x.dim())
        align = align_corners if mode != 0 else None
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
]
