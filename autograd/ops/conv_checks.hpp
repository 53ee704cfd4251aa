// What the windowed rows share: the convolutions (conv.cpp; quantized_conv2d in
// quant.cpp) and the pools (pool.cpp). Their attributes, the validation of their
// shapes, and the 1-D rows' view of themselves as 2-D rows on a unit height
// ([N, C, L] seen as [N, C, 1, L]; cpu::unit_height in tensor/cpu/conv_geometry.hpp).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "autograd/op_table.hpp"
#include "autograd/ops.hpp"
#include "tensor/cpu/conv_geometry.hpp"

namespace nabla {

// stride, padding, dilation (int lists, one value for every spatial dim) and groups,
// after `shape_attr` (a required int list) when one is given.
std::vector<AttrSpec> conv_attrs(const char* shape_attr = nullptr, int spatial = 2);

// Validates a convolution of input shape x with weight shape w (named as the calling
// row names them: x_arg, w_arg) in `spatial` dims and returns its geometry; the errors
// name the op, the arguments and their shapes. spatial = 1: a 1-D row ([N, C, L], one
// value per list), whose geometry is the 2-D one on a unit height.
cpu::ConvNdGeometry check_conv(const char* op, const Shape& x, const char* x_arg, const Shape& w, const char* w_arg,
                               const Attrs& a, int spatial = 2);

// The output shape [N, C_out, out...] of a geometry that check_conv returned for
// `spatial` dims (a 1-D row's without its unit height).
Shape conv_out_shape(const cpu::ConvNdGeometry& g, int spatial = 2);

namespace windowed {

// "3x2x2": the last `spatial` values (a 1-D row's geometry is 2-D on a unit height,
// and prints its length only).
inline std::string dims_str(const std::vector<std::string>& dims, int spatial) {
  std::string s;
  for (size_t i = dims.size() - size_t(spatial); i < dims.size(); ++i) s += (s.empty() ? "" : "x") + dims[i];
  return s;
}
inline std::string dims_str(const std::vector<int64_t>& dims, int spatial) {
  std::vector<std::string> strs;
  for (int64_t d : dims) strs.push_back(std::to_string(d));
  return dims_str(strs, spatial);
}
inline std::string pair_str(cpu::Pair p, int spatial = 2) { return dims_str(std::vector<int64_t>{p.h, p.w}, spatial); }

// "[N, C, H, W]": `lead` and then the names of the last `spatial` dims, each after
// `prefix` ("[C_out, C_in / groups, kD, kH, kW]").
inline std::string layout(const char* lead, int spatial, const char* prefix = "") {
  static const char* const names[] = {"D", "H", "W"};
  std::string s = std::string("[") + lead;
  if (spatial == 1) return s + ", " + prefix + "L]";
  for (int d = 3 - spatial; d < 3; ++d) s += std::string(", ") + prefix + names[d];
  return s + "]";
}

inline void check_rank(const char* op, const char* arg, const Shape& s, int spatial, const std::string& layout) {
  if (s.size() != size_t(2 + spatial))
    throw Error(std::string(op) + ": argument '" + arg + "' must be " + std::to_string(2 + spatial) + "-D " + layout +
                ", got shape " + shape_str(s));
}

// Every value of a window attribute at least `least` ("positive": 1, "non-negative": 0).
inline void check_at_least(const char* op, const char* name, const std::vector<int64_t>& values, int64_t least,
                           int spatial) {
  for (int64_t v : values)
    if (v < least)
      throw Error(std::string(op) + ": argument '" + name + "' must be " + (least > 0 ? "positive" : "non-negative") +
                  ", got " + dims_str(values, spatial));
}
inline void check_positive(const char* op, const char* name, cpu::Pair p, int spatial = 2) {
  check_at_least(op, name, {p.h, p.w}, 1, spatial);
}
inline void check_non_negative(const char* op, const char* name, cpu::Pair p, int spatial = 2) {
  check_at_least(op, name, {p.h, p.w}, 0, spatial);
}

// A window attribute's default: `value` once per spatial dim.
inline std::vector<int64_t> per_dim(int64_t value, int spatial) { return std::vector<int64_t>(size_t(spatial), value); }

// The 2-D attributes of a row with `spatial` dims (1: on a unit height; others as they are).
inline Attrs as_2d(const Attrs& a, int spatial, const char* op) {
  return spatial == 1 ? cpu::unit_height_attrs(a, op) : a;
}

// A tensor of a 1-D row as the 2-D row's, and back (autograd ops: the backward rules).
inline Tensor lift(const Tensor& t, int spatial) { return spatial == 1 && t.defined() ? unsqueeze(t, 2) : t; }
inline Tensor drop(const Tensor& t, int spatial) { return spatial == 1 && t.defined() ? squeeze(t, {2}) : t; }

// Every dim of an [N, C, spatial...] tensor but the channels: what a per-channel
// gradient (a bias's) sums over.
inline IntList all_but_channels(int spatial) {
  IntList dims{0};
  for (int d = 0; d < spatial; ++d) dims.push_back(2 + d);
  return dims;
}

// PyTorch takes an unbatched [C, spatial...] input as a batch of one.
template <class F>
TensorList unbatched_as_batch(const Tensor& x, F&& f, int64_t spatial = 2) {
  if (!x.defined() || x.dim() != spatial + 1) return f(x);
  TensorList outs = f(unsqueeze(x, 0));
  for (Tensor& o : outs) o = squeeze(o, {0});
  return outs;
}

// The same for the 1-D ops' unbatched [C, L].
template <class F>
TensorList unbatched_1d_as_batch(const Tensor& x, F&& f) {
  return unbatched_as_batch(x, std::forward<F>(f), 1);
}

inline std::vector<int64_t> once(int64_t v) { return {v}; }

}  // namespace windowed

}  // namespace nabla
