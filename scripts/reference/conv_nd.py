"""Reference cases of the 1-D convolution and pooling rows, transposed convolution and
the adaptive pools (conv.cpp, pool.cpp).

Inputs stay small (under ~100 elements each) so that the f64 gradient checks stay
fast. Max pooling inputs are distinct values (lib.distinct), so that no window has a
tie.
"""
import torch
import torch.nn.functional as F
from lib import case, distinct, randn


def conv1d_case(x, w, b, name, stride=1, padding=0, dilation=1, groups=1):
    attrs = {"stride": [stride], "padding": [padding], "dilation": [dilation], "groups": groups}
    return case("conv1d", [x, w, b], attrs, lambda x, w, b: F.conv1d(x, w, b, stride, padding, dilation, groups),
                name=name)


def transpose_case(op, x, w, b, name, stride, padding, output_padding, groups, dilation):
    fn = F.conv_transpose1d if op == "conv_transpose1d" else F.conv_transpose2d
    attrs = {"stride": list(stride), "padding": list(padding), "output_padding": list(output_padding),
             "groups": groups, "dilation": list(dilation)}
    return case(op, [x, w, b], attrs,
                lambda x, w, b: fn(x, w, b, stride, padding, output_padding, groups, dilation), name=name)


def t1(x, w, b, name, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return transpose_case("conv_transpose1d", x, w, b, name, (stride,), (padding,), (output_padding,), groups,
                          (dilation,))


def t2(x, w, b, name, stride=(1, 1), padding=(0, 0), output_padding=(0, 0), groups=1, dilation=(1, 1)):
    return transpose_case("conv_transpose2d", x, w, b, name, stride, padding, output_padding, groups, dilation)


def max1d_case(x, name, kernel, stride=None, padding=0, dilation=1, ceil_mode=False):
    attrs = {"kernel_size": [kernel], "stride": [] if stride is None else [stride], "padding": [padding],
             "dilation": [dilation], "ceil_mode": ceil_mode}
    return case("max_pool1d", [x], attrs,
                lambda x: F.max_pool1d(x, kernel, stride, padding, dilation, ceil_mode, return_indices=True),
                name=name)


def avg1d_case(x, name, kernel, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    attrs = {"kernel_size": [kernel], "stride": [] if stride is None else [stride], "padding": [padding],
             "ceil_mode": ceil_mode, "count_include_pad": count_include_pad}
    return case("avg_pool1d", [x], attrs,
                lambda x: F.avg_pool1d(x, kernel, stride, padding, ceil_mode, count_include_pad), name=name)


CASES = [
    # conv1d
    conv1d_case(randn(2, 2, 6), randn(3, 2, 3), randn(3), "conv1d"),
    conv1d_case(randn(1, 2, 9), randn(2, 2, 3), None, "conv1d_stride2_pad1_no_bias", stride=2, padding=1),
    conv1d_case(randn(2, 1, 9), randn(2, 1, 2), randn(2), "conv1d_dilation3", dilation=3),
    conv1d_case(randn(1, 4, 5), randn(6, 2, 2), randn(6), "conv1d_groups2", groups=2),
    # conv_transpose1d / 2d
    t1(randn(2, 2, 4), randn(2, 3, 3), randn(3), "conv_transpose1d"),
    t1(randn(1, 2, 4), randn(2, 2, 3), None, "conv_transpose1d_stride2_pad1_outpad1", stride=2, padding=1,
       output_padding=1),
    t1(randn(1, 4, 3), randn(4, 1, 2), randn(2), "conv_transpose1d_groups2_dilation2", groups=2, dilation=2),
    t2(randn(1, 2, 3, 3), randn(2, 3, 2, 2), randn(3), "conv_transpose2d"),
    t2(randn(2, 2, 3, 2), randn(2, 2, 3, 3), randn(2), "conv_transpose2d_stride2_pad1_outpad1", stride=(2, 2),
       padding=(1, 1), output_padding=(1, 1)),
    t2(randn(1, 4, 2, 3), randn(4, 1, 2, 2), None, "conv_transpose2d_groups2_dilation2_stride21", stride=(2, 1),
       groups=2, dilation=(2, 2)),
    # output_padding not smaller than the stride, but than the dilation (x extended by zeros)
    t1(randn(1, 2, 4), randn(2, 2, 2), randn(2), "conv_transpose1d_outpad_dilation", stride=1, output_padding=1,
       dilation=2),
    t2(randn(1, 2, 3, 2), randn(2, 2, 2, 2), None, "conv_transpose2d_outpad_dilation", stride=(1, 2),
       output_padding=(2, 1), dilation=(3, 1)),
    # max_pool1d / avg_pool1d
    max1d_case(distinct(2, 2, 6), "max_pool1d", 2),
    max1d_case(distinct(1, 2, 7), "max_pool1d_pad1_stride2_ceil", 3, stride=2, padding=1, ceil_mode=True),
    max1d_case(distinct(1, 1, 9), "max_pool1d_dilation2", 2, stride=1, dilation=2),
    avg1d_case(randn(2, 2, 6), "avg_pool1d", 2),
    avg1d_case(randn(1, 2, 7), "avg_pool1d_pad_exclude_ceil", 3, stride=2, padding=1, ceil_mode=True,
               count_include_pad=False),
    # adaptive pools (windows of unequal sizes where the sizes do not divide)
    case("adaptive_avg_pool1d", [randn(2, 2, 7)], {"output_size": [3]}, lambda x: F.adaptive_avg_pool1d(x, 3),
         name="adaptive_avg_pool1d"),
    case("adaptive_avg_pool1d", [randn(1, 3, 5)], {"output_size": [1]}, lambda x: F.adaptive_avg_pool1d(x, 1),
         name="adaptive_avg_pool1d_global"),
    case("adaptive_avg_pool2d", [randn(1, 2, 5, 7)], {"output_size": [2, 3]},
         lambda x: F.adaptive_avg_pool2d(x, (2, 3)), name="adaptive_avg_pool2d"),
    case("adaptive_avg_pool2d", [randn(2, 2, 3, 3)], {"output_size": [1]}, lambda x: F.adaptive_avg_pool2d(x, 1),
         name="adaptive_avg_pool2d_global"),
    case("adaptive_avg_pool2d", [randn(1, 1, 3, 2)], {"output_size": [4]}, lambda x: F.adaptive_avg_pool2d(x, 4),
         name="adaptive_avg_pool2d_upsample"),
    case("adaptive_max_pool2d", [distinct(1, 2, 5, 7)], {"output_size": [2, 3]},
         lambda x: F.adaptive_max_pool2d(x, (2, 3), return_indices=True), name="adaptive_max_pool2d"),
    case("adaptive_max_pool2d", [distinct(2, 1, 4, 4)], {"output_size": [1]},
         lambda x: F.adaptive_max_pool2d(x, 1, return_indices=True), name="adaptive_max_pool2d_global"),
]
