// How interpolate and pad see their operands, written once for every device
// (tensor/cpu/resample.cpp, tensor/cuda/resample.cu):
//   - interpolate resizes [planes, H, W] (a 3-D input is [planes, 1, W]); each output
//     coordinate of a dim reads `taps` input coordinates with fixed weights (nearest
//     1, linear 2, bicubic 4; area the widest window of adaptive average pooling, the
//     narrower windows padded with zero weights), so forward and backward are one sum
//     over a tap table and every mode shares the kernels;
//   - pad maps each coordinate of a padded dim to the input coordinate it copies
//     (pad_source), -1 for the constant fill.
// Must not touch: autograd, the language, any device API. .cu files include this.
#pragma once
#include <cstdint>
#include <vector>

#include "tensor/attrs.hpp"
#include "tensor/host_device.hpp"
#include "tensor/tensor.hpp"

namespace nabla {

// ---- interpolate ----------------------------------------------------------------------

// The codes of interpolate's `mode` attribute (autograd/ops.hpp's InterpolateMode).
enum : int64_t {
  kInterpolateNearest = 0,
  kInterpolateLinear = 1,
  kInterpolateBicubic = 2,
  kInterpolateArea = 3,
  kInterpolateNearestExact = 4
};

// The input coordinates and weights that output coordinate o of one dim reads:
// index[o * taps + k], weight[o * taps + k].
struct ResampleTaps {
  int taps = 1;
  std::vector<int64_t> index;
  std::vector<double> weight;
};
// PyTorch's rules (aten/src/ATen/native/UpSample.h): `scale_factor` <= 0 means none
// (the scale is in/out); align_corners maps the corner pixels' centres onto each other.
// Area is adaptive average pooling (AdaptivePooling.h): output o averages inputs
// [floor(o * in / out), ceil((o + 1) * in / out)), whatever the scale factor.
ResampleTaps resample_taps(int64_t in, int64_t out, int64_t mode, bool align_corners, double scale_factor);

// x [N, C, W] or [N, C, H, W] (and its output) as [planes, H, W].
struct ResamplePlanes {
  int64_t planes = 0, in_h = 1, in_w = 1, out_h = 1, out_w = 1;
};
ResamplePlanes resample_planes(const Tensor& input, const Tensor& output);
// The taps of both dims for interpolate's attributes (size, mode, align_corners,
// scale_h, scale_w).
std::pair<ResampleTaps, ResampleTaps> resample_taps_hw(const ResamplePlanes& p, const Attrs& attrs);

// ---- pad ------------------------------------------------------------------------------

// The codes of pad's `mode` attribute (autograd/ops.hpp's PadMode).
enum : int64_t { kPadConstant = 0, kPadReflect = 1, kPadReplicate = 2, kPadCircular = 3 };

// The input coordinate that output coordinate `o` of a dim of input size n with
// `left` elements padded before copies; -1 where the constant fill goes.
NABLA_HOST_DEVICE inline int64_t pad_source(int64_t o, int64_t left, int64_t n, int64_t mode) {
  int64_t i = o - left;
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case kPadReflect:
      return i < 0 ? -i : 2 * (n - 1) - i;
    case kPadReplicate:
      return i < 0 ? 0 : n - 1;
    case kPadCircular:
      return ((i % n) + n) % n;
    default:
      return -1;
  }
}

// A padded tensor as [outer, d_0, ..., d_{k-1}]: the k padded dims (at most kMaxPadDims,
// after merging nothing), with their input and output sizes and left pads.
constexpr int kMaxPadDims = 8;
struct PadGeometry {
  int dims = 0;
  int64_t outer = 1;
  int64_t in[kMaxPadDims] = {}, out[kMaxPadDims] = {}, left[kMaxPadDims] = {};
  int64_t in_numel() const;
  int64_t out_numel() const;
};
// `small` is the unpadded tensor's shape and `pad` the (left, right) pairs, last dim first.
PadGeometry pad_geometry(const Shape& small, const std::vector<int64_t>& pad);

}  // namespace nabla
