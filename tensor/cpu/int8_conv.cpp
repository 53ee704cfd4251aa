// The int8 convolution of quantized.hpp: oneDNN's convolution computes the exact s32
// sums of u8 or s8 activations times s8 weights (AVX-512 VNNI; without it, see Note
// [Int8 without VNNI]), with the activations' zero point given at run time, and nabla's epilogue (Note [Int8 epilogue]) applies
// the per-channel scales, the bias, relu and the requantization to u8.
//
// The padding: PyTorch pads a quantized input with its zero point, a real 0. oneDNN's
// zero-point convolution computes sum (x - zero_point) * w over the input only, its
// padding compensation taking the padded elements as zero points too, so they add
// nothing (the tests check this against a direct loop with a nonzero zero point).
//
// Layouts: oneDNN's int8 kernels want NHWC activations and write NHWC sums; nabla's
// tensors are NCHW. The input is reordered on each call (a u8 copy, a quarter of the
// f32 convolution's), except with one channel, where the two layouts are the same
// bytes; the epilogue reads the NHWC sums and writes NCHW in the same pass
// (int8_epilogue.cpp). The weight is reordered once per version, and the primitive
// is cached (int8_primitive.hpp) per geometry (with the images of one chunk, see
// Note [Image-parallel int8 convolution]), activation dtype, thread count and weight.
//
// Why not oneDNN's own requantization (output scales, bias, relu and a dst zero point
// writing u8): on the Fashion-MNIST CNN's 32 -> 64 layer at batch 64 oneDNN 2.6's
// int8 kernel took 339 us writing s32 sums and 467 us writing requantized u8 (2
// threads), while nabla's epilogue over the sums costs less than the difference and
// computes Note [Int8 epilogue]'s formula exactly, also with scales that change.
#include <algorithm>
#include <array>

#include "tensor/cpu/int8_primitive.hpp"

namespace nabla::cpu {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;
using DT = memory::data_type;

// The geometry, the activation dtype, the threads the primitive plans for, the weight.
using ConvKey = std::array<int64_t, 17>;

ConvKey conv_key(const ConvGeometry& g, DType x_type, const Tensor& w) {
  return {g.N, g.C, g.H, g.W, g.OC, g.KH, g.KW, g.stride.h, g.stride.w, g.pad.h, g.pad.w, g.dilation.h,
          g.dilation.w, g.groups, static_cast<int64_t>(x_type), omp_get_max_threads(),
          static_cast<int64_t>(w.impl()->serial)};
}

std::shared_ptr<int8::Int8Primitive> make_int8_conv(const ConvGeometry& g, DType x_type) {
  memory::dims src{g.N, g.C, g.H, g.W}, dst{g.N, g.OC, g.OH, g.OW};
  memory::dims wei = g.groups == 1 ? memory::dims{g.OC, g.C, g.KH, g.KW}
                                   : memory::dims{g.groups, g.OC / g.groups, g.C / g.groups, g.KH, g.KW};
  DT x_dt = int8::activation_type(x_type, "quantized_conv2d");
  memory::desc src_nhwc(src, x_dt, Tag::nhwc);
  // With one channel NCHW and NHWC are the same bytes: no reorder.
  memory::desc src_plain = g.C == 1 ? src_nhwc : memory::desc(src, x_dt, Tag::nchw);
  memory::desc weights_plain(wei, DT::s8, g.groups == 1 ? Tag::oihw : Tag::goihw);
  memory::desc weights_any(wei, DT::s8, Tag::any);
  memory::desc dst_nhwc(dst, DT::s32, Tag::nhwc);
  memory::dims strides{g.stride.h, g.stride.w}, dilates{g.dilation.h - 1, g.dilation.w - 1};  // oneDNN counts gaps
  memory::dims pad{g.pad.h, g.pad.w};
  dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                       src_nhwc, weights_any, memory::desc(), dst_nhwc, strides, dilates, pad, pad);
  dnnl::convolution_forward::primitive_desc pd(desc, int8::int8_attributes(), onednn::engine());
  return std::make_shared<int8::Int8Primitive>(dnnl::convolution_forward(pd), pd, x_type, src_plain,
                                               weights_plain);
}

void check_operands(const char* what, const Tensor& x, const Tensor& w, const ConvGeometry& g, const Tensor& out) {
  NABLA_CHECK(x.is_contiguous() && w.is_contiguous() && out.is_contiguous() && x.dim() == 4 && w.dim() == 4 &&
                  out.dim() == 4,
              std::string(what) + ": expected contiguous 4-D operands");
  NABLA_CHECK(w.dtype() == DType::i8, std::string(what) + ": the weight must be i8, got " + dtype_name(w.dtype()));
  NABLA_CHECK(out.sizes() == Shape({g.N, g.OC, g.OH, g.OW}),
              std::string(what) + ": the output " + out.shape_str() + " does not match the geometry");
}

// The sums of images [n0, n0 + g.N) of x in NHWC, i32 [g.N, OH, OW, OC] at `sums`
// (g: the geometry of those images); zeros where the convolution is empty.
void conv_sums(const Tensor& x, int64_t n0, int32_t x_zero_point, const Tensor& w, const ConvGeometry& g,
               int32_t* sums) {
  if (degenerate(g)) {
    std::fill(sums, sums + g.N * g.OH * g.OW * g.OC, 0);
    return;
  }
  static int8::Int8Cache<ConvKey> cache;
  auto prim = cache.get(conv_key(g, x.dtype(), w), [&] { return make_int8_conv(g, x.dtype()); }, "quantized_conv2d");
  prim->run(static_cast<const uint8_t*>(x.raw_data()) + n0 * g.C * g.H * g.W, w, x_zero_point, sums);
}

// Below this many multiply-adds a convolution runs on one thread (as the int8 linear).
constexpr int64_t kSerialMacs = 1 << 22;
// The sums of a chunk of images stay in a core's L2 cache (1 MB here) for the epilogue.
constexpr int64_t kChunkSumBytes = 256 << 10;

// Note [Image-parallel int8 convolution]
// Each thread owns a block of images and runs them chunk by chunk: the convolution of
// a chunk on a single-threaded primitive, then the epilogue of that chunk while its
// sums are still in its core's L2 cache; only the weight is shared (as Note
// [Row-parallel int8 linear] does for rows). One image runs on this thread with
// oneDNN threading its convolution; a small problem runs on one thread. On the CNN's
// first layer at batch 64 (2 threads, u8 output) chunks of 2 images took about 355
// us per call, one chunk of 32 images per thread 410, and oneDNN threading the whole
// batch followed by a parallel epilogue 385 (before the epilogue's byte transpose).
int8::RowPlan plan_conv(const ConvGeometry& g) {
  int64_t macs = g.N * g.OC * g.OH * g.OW * (g.C / std::max<int64_t>(g.groups, 1)) * g.KH * g.KW;
  if (macs < kSerialMacs || omp_in_parallel()) return {1, false};
  int threads = static_cast<int>(std::min<int64_t>(omp_get_max_threads(), g.N));
  return {threads, threads == 1};
}

// Runs chunk(n, k, sums) over the images in chunks of k images (with the chunk's
// sums in a per-thread i32 buffer), on the plan's threads.
template <class Chunk>
void for_image_chunks(const ConvGeometry& g, Chunk&& chunk) {
  int64_t image_sums = g.OH * g.OW * g.OC * 4;
  int64_t per_chunk = std::max<int64_t>(1, kChunkSumBytes / std::max<int64_t>(image_sums, 1));
  int8::RowPlan plan = plan_conv(g);
  int8::run_row_blocks(g.N, plan, [&](int, int64_t n0, int64_t n1) {
    int64_t k = std::min(per_chunk, n1 - n0);
    Tensor sums = empty({k * g.OH * g.OW * g.OC}, DType::i32);
    for (int64_t n = n0; n < n1; n += k) {
      int64_t count = std::min(k, n1 - n);
      chunk(n, count, static_cast<int32_t*>(sums.raw_data()));
    }
  });
}

ConvGeometry images(ConvGeometry g, int64_t count) {
  g.N = count;
  return g;
}

}  // namespace

void int8_conv2d(const Tensor& x, int32_t x_zero_point, const Tensor& w, const ConvGeometry& g, const Int8Epilogue& e,
                 const Tensor& out) {
  check_operands("int8_conv2d", x, w, g, out);
  NABLA_CHECK(out.dtype() == e.output_dtype() && e.weight_scale.numel() == g.OC,
              std::string("int8_conv2d: expected a ") + dtype_name(e.output_dtype()) +
                  " output and one weight scale per output channel");
  if (out.numel() == 0) return;
  int8::EpiloguePointers ep = int8::pointers(e);
  int64_t positions = g.OH * g.OW, image = positions * g.OC;
  auto* po = static_cast<uint8_t*>(out.raw_data());
  int64_t out_size = dtype_size(out.dtype());
  for_image_chunks(g, [&](int64_t n0, int64_t count, int32_t* sums) {
    conv_sums(x, n0, x_zero_point, w, images(g, count), sums);
    for (int64_t i = 0; i < count; ++i)
      int8::epilogue_nhwc_to_nchw(sums + i * image, positions, g.OC, ep, po + (n0 + i) * image * out_size);
  });
}

void int8_conv2d_s32(const Tensor& x, int32_t x_zero_point, const Tensor& w, const ConvGeometry& g,
                     const Tensor& out) {
  check_operands("int8_conv2d_s32", x, w, g, out);
  NABLA_CHECK(out.dtype() == DType::i32, "int8_conv2d_s32: expected an i32 output");
  if (out.numel() == 0) return;
  int64_t positions = g.OH * g.OW, image = positions * g.OC;
  auto* po = static_cast<int32_t*>(out.raw_data());
  for_image_chunks(g, [&](int64_t n0, int64_t count, int32_t* sums) {
    conv_sums(x, n0, x_zero_point, w, images(g, count), sums);
    for (int64_t i = 0; i < count; ++i)
      for (int64_t p = 0; p < positions; ++p)
        for (int64_t c = 0; c < g.OC; ++c) po[(n0 + i) * image + c * positions + p] = sums[i * image + p * g.OC + c];
  });
}

}  // namespace nabla::cpu
