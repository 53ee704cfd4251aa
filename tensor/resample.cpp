// Tap tables and pad geometry for interpolate and pad (tensor/resample.hpp).
#include "tensor/resample.hpp"

#include <algorithm>
#include <cmath>

namespace nabla {

namespace {

// PyTorch's area_pixel_compute_scale: the step in input coordinates per output one.
double source_scale(int64_t in, int64_t out, bool align_corners, double scale_factor) {
  if (align_corners) return out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
  return scale_factor > 0 ? 1.0 / scale_factor : static_cast<double>(in) / static_cast<double>(out);
}

// PyTorch's area_pixel_compute_source_index (linear clamps at 0, bicubic does not).
double source_coordinate(double scale, int64_t o, bool align_corners, bool cubic) {
  if (align_corners) return scale * static_cast<double>(o);
  double s = scale * (static_cast<double>(o) + 0.5) - 0.5;
  return !cubic && s < 0 ? 0.0 : s;
}

// Keys' cubic convolution with A = -0.75, as PyTorch's upsample_bicubic2d.
constexpr double kCubicA = -0.75;
double cubic_near(double x) { return ((kCubicA + 2) * x - (kCubicA + 3)) * x * x + 1; }                   // |x| <= 1
double cubic_far(double x) { return ((kCubicA * x - 5 * kCubicA) * x + 8 * kCubicA) * x - 4 * kCubicA; }  // 1 < |x| < 2

// Adaptive average pooling's window of output o: [first, last).
int64_t area_first(int64_t o, int64_t in, int64_t out) { return o * in / out; }
int64_t area_last(int64_t o, int64_t in, int64_t out) { return ((o + 1) * in + out - 1) / out; }

// Each output the mean of its window; the widest window sets the tap count, and
// narrower ones repeat their first input with weight 0.
ResampleTaps area_taps(int64_t in, int64_t out) {
  ResampleTaps t;
  for (int64_t o = 0; o < out; ++o)
    t.taps = std::max(t.taps, static_cast<int>(area_last(o, in, out) - area_first(o, in, out)));
  t.index.resize(static_cast<size_t>(out * t.taps));
  t.weight.resize(static_cast<size_t>(out * t.taps));
  for (int64_t o = 0; o < out; ++o) {
    int64_t first = area_first(o, in, out), width = area_last(o, in, out) - first;
    for (int64_t k = 0; k < t.taps; ++k) {
      auto at = static_cast<size_t>(o * t.taps + k);
      t.index[at] = k < width ? first + k : first;
      t.weight[at] = k < width ? 1.0 / static_cast<double>(width) : 0.0;
    }
  }
  return t;
}

}  // namespace

ResampleTaps resample_taps(int64_t in, int64_t out, int64_t mode, bool align_corners, double scale_factor) {
  if (mode == kInterpolateArea) return area_taps(in, out);
  ResampleTaps t;
  bool nearest = mode == kInterpolateNearest || mode == kInterpolateNearestExact;
  t.taps = nearest ? 1 : mode == kInterpolateLinear ? 2 : 4;
  t.index.resize(static_cast<size_t>(out * t.taps));
  t.weight.resize(static_cast<size_t>(out * t.taps));
  auto set = [&](int64_t o, int k, int64_t i, double w) {
    t.index[static_cast<size_t>(o * t.taps + k)] = std::clamp<int64_t>(i, 0, in - 1);
    t.weight[static_cast<size_t>(o * t.taps + k)] = w;
  };
  if (nearest) {
    // PyTorch computes the nearest index in f32 (nearest_neighbor_compute_source_index);
    // so does this, to pick the same pixel where the product lands on an integer.
    // nearest-exact samples at the output pixel's centre, (o + 0.5) * scale. Every index
    // is computed, as PyTorch 1.13's CPU forward for C > 1; its backward, and its forward
    // for C == 1 (the channels-last kernel), copy o when out == in and take o / 2 when
    // out == 2 * in, whatever the scale factor, which differs when a scale_factor other
    // than 1 or 2 makes those sizes (there PyTorch's gradient is not its forward's).
    float scale =
        scale_factor > 0 ? static_cast<float>(1.0 / scale_factor) : static_cast<float>(in) / static_cast<float>(out);
    float shift = mode == kInterpolateNearestExact ? 0.5f : 0.0f;
    for (int64_t o = 0; o < out; ++o) {
      int64_t i = static_cast<int64_t>(std::floor((static_cast<float>(o) + shift) * scale));
      set(o, 0, std::min(i, in - 1), 1.0);
    }
    return t;
  }
  if (mode == kInterpolateLinear && in == out) {
    // Note [Linear resampling of an unchanged size]: PyTorch's
    // compute_source_index_and_lambda (linear, bilinear, trilinear; forward and
    // backward, CPU) copies a dim whose size the interpolation keeps, whatever the
    // scale factor: scale_factor=1.2 on 3 pixels makes 3, and they are the input's,
    // not samples at (o + 0.5) / 1.2 - 0.5. Bicubic and nearest sample as usual
    // (PyTorch 1.13's bicubic backward copies the gradient where both sizes are
    // kept, unlike its forward; here the gradient is the forward's).
    for (int64_t o = 0; o < out; ++o) {
      set(o, 0, o, 1.0);
      set(o, 1, o, 0.0);
    }
    return t;
  }
  double scale = source_scale(in, out, align_corners, scale_factor);
  for (int64_t o = 0; o < out; ++o) {
    double s = source_coordinate(scale, o, align_corners, mode == kInterpolateBicubic);
    int64_t i = static_cast<int64_t>(std::floor(s));
    double f = s - static_cast<double>(i);
    if (mode == kInterpolateLinear) {
      int64_t next = i < in - 1 ? i + 1 : i;
      double l = std::clamp(f, 0.0, 1.0);
      set(o, 0, i, 1.0 - l);
      set(o, 1, next, l);
    } else {
      set(o, 0, i - 1, cubic_far(f + 1));
      set(o, 1, i, cubic_near(f));
      set(o, 2, i + 1, cubic_near(1 - f));
      set(o, 3, i + 2, cubic_far(2 - f));
    }
  }
  return t;
}

ResamplePlanes resample_planes(const Tensor& input, const Tensor& output) {
  ResamplePlanes p;
  int64_t d = input.dim();
  p.planes = input.sizes()[0] * input.sizes()[1];
  p.in_w = input.sizes()[d - 1];
  p.out_w = output.sizes()[d - 1];
  if (d == 4) {
    p.in_h = input.sizes()[2];
    p.out_h = output.sizes()[2];
  }
  return p;
}

std::pair<ResampleTaps, ResampleTaps> resample_taps_hw(const ResamplePlanes& p, const Attrs& attrs) {
  int64_t mode = attrs.i("mode");
  bool align = attrs.b("align_corners");
  auto scale = [&](const char* name) { return attrs.is_none(name) ? 0.0 : attrs.f(name); };
  // A dim of size 1 kept at 1 (the H of a 3-D input) reads its one row, whatever the mode.
  int64_t mode_h = p.in_h == 1 && p.out_h == 1 ? int64_t(kInterpolateNearest) : mode;
  return {resample_taps(p.in_h, p.out_h, mode_h, align, scale("scale_h")),
          resample_taps(p.in_w, p.out_w, mode, align, scale("scale_w"))};
}

int64_t PadGeometry::in_numel() const {
  int64_t n = outer;
  for (int d = 0; d < dims; ++d) n *= in[d];
  return n;
}

int64_t PadGeometry::out_numel() const {
  int64_t n = outer;
  for (int d = 0; d < dims; ++d) n *= out[d];
  return n;
}

PadGeometry pad_geometry(const Shape& small, const std::vector<int64_t>& pad) {
  PadGeometry g;
  int64_t nd = static_cast<int64_t>(small.size());
  g.dims = static_cast<int>(pad.size() / 2);
  for (int64_t d = 0; d < nd - g.dims; ++d) g.outer *= small[d];
  for (int k = 0; k < g.dims; ++k) {
    // pad's pair j pads dim nd - 1 - j.
    int j = g.dims - 1 - k;
    g.in[k] = small[nd - g.dims + k];
    g.left[k] = pad[2 * j];
    g.out[k] = g.in[k] + pad[2 * j] + pad[2 * j + 1];
  }
  return g;
}

}  // namespace nabla
