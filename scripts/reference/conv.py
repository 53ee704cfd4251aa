"""Reference cases of conv2d, its adjoints, and pooling (conv.cpp, pool.cpp).

Inputs stay small (under ~100 elements each) so that the f64 gradient checks, which
take two evaluations per input element, stay fast. Max pooling inputs are distinct
values (a shuffled range, scaled) so that no window has a tie, which would make the
op non-differentiable there.
"""
import torch
import torch.nn.functional as F
from lib import case, distinct, randn


def conv_case(x, w, b, name, stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1):
    attrs = {"stride": list(stride), "padding": list(padding), "dilation": list(dilation), "groups": groups}
    return case("conv2d", [x, w, b], attrs,
                lambda x, w, b: F.conv2d(x, w, b, stride, padding, dilation, groups), name=name)


def conv_input_case(grad, w, input_shape, name, stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1):
    attrs = {"input_shape": list(input_shape), "stride": list(stride), "padding": list(padding),
             "dilation": list(dilation), "groups": groups}
    return case("conv2d_backward_input", [grad, w], attrs,
                lambda g, w: torch.nn.grad.conv2d_input(list(input_shape), w, g, stride, padding, dilation, groups),
                name=name)


def conv_weight_case(x, grad, weight_shape, name, stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1):
    attrs = {"weight_shape": list(weight_shape), "stride": list(stride), "padding": list(padding),
             "dilation": list(dilation), "groups": groups}
    return case("conv2d_backward_weight", [x, grad], attrs,
                lambda x, g: torch.nn.grad.conv2d_weight(x, list(weight_shape), g, stride, padding, dilation, groups),
                name=name)


def max_case(x, name, kernel, stride=(), padding=(0, 0), dilation=(1, 1), ceil_mode=False):
    attrs = {"kernel_size": list(kernel), "stride": list(stride), "padding": list(padding),
             "dilation": list(dilation), "ceil_mode": ceil_mode}
    return case("max_pool2d", [x], attrs,
                lambda x: F.max_pool2d(x, kernel, stride or None, padding, dilation, ceil_mode, return_indices=True),
                name=name)


def distinct_u8(*shape):
    """Distinct integers in [0, 255], shuffled, as u8."""
    n = 1
    for d in shape:
        n *= d
    return torch.argsort(randn(256))[:n].to(torch.uint8).reshape(shape)


def u8_max_case(x, name, kernel, stride=(), padding=(0, 0)):
    attrs = {"kernel_size": list(kernel), "stride": list(stride), "padding": list(padding),
             "dilation": [1, 1], "ceil_mode": False}

    def pooled(x):
        y, idx = F.max_pool2d(x.to(torch.float64), kernel, stride or None, padding, return_indices=True)
        return y.to(torch.uint8), idx

    return case("max_pool2d", [x], attrs, pooled, name=name)


def avg_attrs(kernel, stride, padding, ceil_mode, count_include_pad):
    return {"kernel_size": list(kernel), "stride": list(stride), "padding": list(padding), "ceil_mode": ceil_mode,
            "count_include_pad": count_include_pad}


def avg_case(x, name, kernel, stride=(), padding=(0, 0), ceil_mode=False, count_include_pad=True):
    return case("avg_pool2d", [x], avg_attrs(kernel, stride, padding, ceil_mode, count_include_pad),
                lambda x: F.avg_pool2d(x, kernel, stride or None, padding, ceil_mode, count_include_pad), name=name)


def avg_backward_case(grad, input_shape, name, kernel, stride=(), padding=(0, 0), ceil_mode=False,
                      count_include_pad=True):
    def reference(g):
        x = torch.zeros(input_shape, dtype=g.dtype, requires_grad=True)
        y = F.avg_pool2d(x, kernel, stride or None, padding, ceil_mode, count_include_pad)
        return torch.autograd.grad(y, x, g)[0]
    attrs = {"input_shape": list(input_shape), **avg_attrs(kernel, stride, padding, ceil_mode, count_include_pad)}
    return case("avg_pool2d_backward", [grad], attrs, reference, name=name)


def max_backward_case(x, name, pool, **kw):
    """max_pool2d_backward on the indices `pool` (F.max_pool2d, F.max_pool1d or
    F.adaptive_max_pool2d with return_indices) finds in x; the reference is PyTorch's
    autograd of that pool at x."""
    y, indices = pool(x, return_indices=True, **kw)
    grad = randn(*y.shape)

    def reference(g, idx):
        xr = x.clone().requires_grad_(True)
        return torch.autograd.grad(pool(xr, **kw), xr, g)[0]
    return case("max_pool2d_backward", [grad, indices], {"input_shape": list(x.shape)}, reference, name=name,
                grad=[0])


CASES = [
    # conv2d
    conv_case(randn(1, 2, 4, 4), randn(3, 2, 3, 3), randn(3), "conv2d"),
    conv_case(randn(2, 2, 5, 5), randn(2, 2, 3, 3), randn(2), "conv2d_stride2_pad1", stride=(2, 2), padding=(1, 1)),
    conv_case(randn(1, 1, 7, 6), randn(2, 1, 3, 2), None, "conv2d_dilation2_no_bias", dilation=(2, 2)),
    conv_case(randn(2, 4, 3, 3), randn(4, 2, 2, 2), randn(4), "conv2d_groups2", groups=2),
    conv_case(randn(1, 2, 5, 4), randn(2, 2, 2, 3), None, "conv2d_mixed_stride_pad", stride=(2, 1),
              padding=(1, 2)),
    conv_case(randn(2, 3, 3, 3), randn(2, 3, 1, 1), randn(2), "conv2d_1x1"),
    # the adjoints, against PyTorch's own gradient formulas
    conv_input_case(randn(1, 3, 2, 2), randn(3, 2, 3, 3), (1, 2, 4, 4), "conv2d_backward_input"),
    conv_input_case(randn(2, 2, 3, 3), randn(2, 2, 3, 3), (2, 2, 6, 6), "conv2d_backward_input_stride2_pad1",
                    stride=(2, 2), padding=(1, 1)),
    conv_input_case(randn(1, 4, 3, 3), randn(4, 1, 2, 2), (1, 2, 5, 5), "conv2d_backward_input_groups2_dilation2",
                    dilation=(2, 2), groups=2),
    conv_weight_case(randn(1, 2, 4, 4), randn(1, 3, 2, 2), (3, 2, 3, 3), "conv2d_backward_weight"),
    conv_weight_case(randn(2, 2, 5, 5), randn(2, 2, 3, 3), (2, 2, 3, 3), "conv2d_backward_weight_stride2_pad1",
                     stride=(2, 2), padding=(1, 1)),
    conv_weight_case(randn(1, 4, 4, 4), randn(1, 4, 2, 2), (4, 2, 2, 2), "conv2d_backward_weight_groups2_dilation2",
                     dilation=(2, 2), groups=2),
    # max_pool2d (values and flat indices)
    max_case(distinct(1, 2, 4, 4), "max_pool2d", (2, 2)),
    max_case(distinct(2, 1, 5, 5), "max_pool2d_pad1_stride2", (3, 3), stride=(2, 2), padding=(1, 1)),
    max_case(distinct(1, 2, 5, 5), "max_pool2d_ceil_mode", (2, 2), stride=(2, 2), ceil_mode=True),
    max_case(distinct(1, 1, 7, 7), "max_pool2d_dilation2_ceil", (2, 2), stride=(2, 2), padding=(1, 1),
             dilation=(2, 2), ceil_mode=True),
    max_case(distinct(1, 2, 4, 6), "max_pool2d_rect", (2, 3), stride=(1, 2)),
    # u8 (quantized activations): PyTorch pools quint8 tensors, not uint8 ones, and
    # without indices; the reference is the pool of the same integers in f64.
    u8_max_case(distinct_u8(2, 2, 5, 5), "max_pool2d_u8_pad1_stride2", (3, 3), stride=(2, 2), padding=(1, 1)),
    # avg_pool2d
    avg_case(randn(1, 2, 4, 4), "avg_pool2d", (2, 2)),
    avg_case(randn(2, 1, 5, 5), "avg_pool2d_pad_include", (3, 3), stride=(2, 2), padding=(1, 1)),
    avg_case(randn(2, 1, 5, 5), "avg_pool2d_pad_exclude", (3, 3), stride=(2, 2), padding=(1, 1),
             count_include_pad=False),
    avg_case(randn(1, 2, 5, 5), "avg_pool2d_ceil_include", (2, 2), stride=(2, 2), padding=(1, 1), ceil_mode=True),
    avg_case(randn(1, 2, 5, 5), "avg_pool2d_ceil_exclude", (3, 3), stride=(2, 2), padding=(1, 1), ceil_mode=True,
             count_include_pad=False),
    avg_case(randn(1, 1, 4, 6), "avg_pool2d_rect", (2, 3), stride=(1, 2), padding=(1, 0)),
    # avg_pool2d_backward (reference: PyTorch's autograd of avg_pool2d)
    avg_backward_case(randn(1, 2, 2, 2), (1, 2, 4, 4), "avg_pool2d_backward", (2, 2)),
    avg_backward_case(randn(2, 1, 3, 3), (2, 1, 5, 5), "avg_pool2d_backward_pad_exclude", (3, 3), stride=(2, 2),
                      padding=(1, 1), count_include_pad=False),
    avg_backward_case(randn(1, 2, 3, 3), (1, 2, 5, 5), "avg_pool2d_backward_ceil_include", (2, 2), stride=(2, 2),
                      padding=(1, 1), ceil_mode=True),
    # max_pool2d_backward: the gradient of each max pool at its indices; overlapping
    # windows (stride below the kernel, adaptive windows) add into a shared maximum.
    max_backward_case(distinct(1, 2, 4, 4), "max_pool2d_backward", F.max_pool2d, kernel_size=2),
    max_backward_case(distinct(2, 1, 5, 5), "max_pool2d_backward_overlap", F.max_pool2d, kernel_size=3, stride=1,
                      padding=1),
    max_backward_case(distinct(1, 2, 9), "max_pool2d_backward_1d", F.max_pool1d, kernel_size=3, stride=2),
    max_backward_case(distinct(1, 2, 5, 5), "max_pool2d_backward_adaptive", F.adaptive_max_pool2d,
                      output_size=(2, 3)),
]
