"""Reference cases of conv3d and its two adjoints (conv.cpp).

Inputs stay small (under ~150 elements each) so that the f64 gradient checks, second
derivatives included, stay fast.
"""
import torch
import torch.nn.functional as F
from lib import case, randn


def attrs_of(stride, padding, dilation, groups):
    return {"stride": list(stride), "padding": list(padding), "dilation": list(dilation), "groups": groups}


def conv3d_case(x, w, b, name, stride=(1, 1, 1), padding=(0, 0, 0), dilation=(1, 1, 1), groups=1):
    return case("conv3d", [x, w, b], attrs_of(stride, padding, dilation, groups),
                lambda x, w, b: F.conv3d(x, w, b, stride, padding, dilation, groups), name=name)


def input_case(grad, w, input_shape, name, stride=(1, 1, 1), padding=(0, 0, 0), dilation=(1, 1, 1), groups=1):
    attrs = {"input_shape": list(input_shape), **attrs_of(stride, padding, dilation, groups)}
    return case("conv3d_backward_input", [grad, w], attrs,
                lambda g, w: torch.nn.grad.conv3d_input(list(input_shape), w, g, stride, padding, dilation, groups),
                name=name)


def weight_case(x, grad, weight_shape, name, stride=(1, 1, 1), padding=(0, 0, 0), dilation=(1, 1, 1), groups=1):
    attrs = {"weight_shape": list(weight_shape), **attrs_of(stride, padding, dilation, groups)}
    return case("conv3d_backward_weight", [x, grad], attrs,
                lambda x, g: torch.nn.grad.conv3d_weight(x, list(weight_shape), g, stride, padding, dilation, groups),
                name=name)


CASES = [
    conv3d_case(randn(2, 2, 3, 3, 3), randn(3, 2, 2, 2, 2), randn(3), "conv3d"),
    conv3d_case(randn(1, 2, 5, 4, 5), randn(2, 2, 3, 2, 3), None, "conv3d_stride_pad_no_bias", stride=(2, 1, 2),
                padding=(1, 0, 1)),
    conv3d_case(randn(1, 1, 5, 4, 5), randn(2, 1, 2, 2, 2), randn(2), "conv3d_dilation", dilation=(2, 1, 3)),
    conv3d_case(randn(1, 4, 3, 3, 3), randn(4, 2, 2, 1, 2), randn(4), "conv3d_groups2", groups=2),
    # the adjoints, against PyTorch's own gradient formulas
    input_case(randn(1, 3, 2, 2, 2), randn(3, 2, 2, 2, 2), (1, 2, 3, 3, 3), "conv3d_backward_input"),
    input_case(randn(1, 2, 3, 3, 3), randn(2, 2, 2, 2, 2), (1, 2, 4, 4, 4), "conv3d_backward_input_stride2_pad1",
               stride=(2, 1, 2), padding=(1, 0, 1)),
    input_case(randn(1, 4, 2, 2, 2), randn(4, 1, 2, 2, 2), (1, 2, 4, 3, 4), "conv3d_backward_input_groups2_dilation2",
               dilation=(2, 1, 2), groups=2),
    weight_case(randn(1, 2, 3, 3, 3), randn(1, 3, 2, 2, 2), (3, 2, 2, 2, 2), "conv3d_backward_weight"),
    weight_case(randn(1, 2, 4, 4, 4), randn(1, 2, 3, 3, 3), (2, 2, 2, 2, 2), "conv3d_backward_weight_stride2_pad1",
                stride=(2, 1, 2), padding=(1, 0, 1)),
    weight_case(randn(1, 4, 4, 3, 4), randn(1, 4, 2, 2, 2), (4, 2, 2, 2, 2), "conv3d_backward_weight_groups2_dilation2",
                dilation=(2, 1, 2), groups=2),
]
