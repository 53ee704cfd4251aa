// CPU kernels of conv2d and conv3d and their adjoints (conv{2,3}d_backward_input,
// _weight), and of the rows built on conv2d: conv1d (conv2d on a unit height),
// conv_transpose2d (conv2d_backward_input plus the bias) and conv_transpose1d.
//
// f32 runs on oneDNN's convolution primitives (forward, backward data, backward
// weights). oneDNN picks its own blocked layouts (format_tag::any); operands are
// reordered from and to plain NCHW only when the chosen layout differs. Creating a
// primitive costs tens of microseconds, so primitives and their reorders are
// cached, keyed by every shape and attribute that defines them, with the memory
// objects of their arguments (made once, pointed at each call's data). The graph's
// conv2d_<act> (WeightLayout::packed) also keeps its weight in the primitive's layout,
// reordered once per weight tensor and version, as linear_<act> does: at batch 1 the
// weight reorders cost as much as the convolutions.
//
// f64 (gradcheck's dtype; oneDNN has no f64 convolution) runs as im2col + GEMM on
// OpenBLAS, one group of one image at a time (conv2d), or as direct loops (conv3d):
// tensor/cpu/conv_loops.hpp.
// Both ranks share one kernel per pass (conv_forward, conv_backward_input,
// conv_backward_weight) on the N-d geometry; only the f64 loops differ.
#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <type_traits>
#include <unordered_map>

#include "tensor/cpu/blas.hpp"
#include "tensor/cpu/conv_geometry.hpp"
#include "tensor/cpu/conv_loops.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/cpu/onednn.hpp"
#include "tensor/cpu/parallel.hpp"

namespace nabla::cpu {

using namespace conv_loops;

namespace {

using dnnl::memory;
using Tag = memory::format_tag;

// ---------------------------------------------------------------------------
// oneDNN (f32)

using onednn::engine;
using onednn::stream;

// Which of a pass's two activations hold nChw16c (Note [Blocked activations between
// convolutions] in passes/block_layout.cpp): the input side (src, or the input's
// gradient diff_src) and the output side (the output's gradient diff_dst; a forward
// pass's result is `pooled`'s business). Every other side is NCHW.
struct BlockedSides {
  bool in = false, out = false;
};

// One argument of a cached primitive: the plain NCHW layout nabla holds, the layout
// the primitive chose, and the reorder between them when they differ (plain to
// chosen for inputs, chosen to plain for outputs).
struct Operand {
  int arg;
  bool output;
  memory::desc plain, chosen;
  std::optional<dnnl::reorder> convert;
};

struct CachedConv {
  dnnl::primitive prim;
  std::vector<Operand> operands;
  memory::desc scratchpad;  // user-managed, so concurrent calls never share one
  // The state of a call, one caller at a time (`run_mutex`): the primitive's argument
  // memory objects (in the chosen layouts), those of the plain side of each reordered
  // operand, and the weight in the chosen layout (a packed primitive's only).
  std::mutex run_mutex;
  std::unordered_map<int, memory> args, plain_args;
  onednn::PackedWeights packed;
};

Operand operand(int arg, bool output, const memory::desc& plain, const memory::desc& chosen) {
  Operand o{arg, output, plain, chosen, std::nullopt};
  if (plain != chosen) {
    auto pd = output ? dnnl::reorder::primitive_desc(engine(), chosen, engine(), plain)
                     : dnnl::reorder::primitive_desc(engine(), plain, engine(), chosen);
    o.convert = dnnl::reorder(pd);
  }
  return o;
}

// The plain (NC[D]HW / OI[D]HW / GOI[D]HW) descriptors and the problem's vectors.
struct ConvDescs {
  memory::desc src, weights, dst, bias;  // plain layouts
  memory::desc src_any, weights_any, dst_any;
  memory::dims strides, dilates, pad_l, pad_r;
};

// `lead` followed by one value per spatial dim.
memory::dims with_spatial(memory::dims lead, const std::vector<int64_t>& spatial) {
  lead.insert(lead.end(), spatial.begin(), spatial.end());
  return lead;
}

ConvDescs conv_descs(const ConvNdGeometry& g, bool bias, BlockedSides blocked = {}) {
  auto f32 = memory::data_type::f32;
  bool three = g.spatial() == 3;
  memory::dims src = with_spatial({g.N, g.C}, g.in), dst = with_spatial({g.N, g.OC}, g.out);
  memory::dims wei = g.groups == 1 ? with_spatial({g.OC, g.C}, g.kernel)
                                   : with_spatial({g.groups, g.OC / g.groups, g.C / g.groups}, g.kernel);
  Tag activations = three ? Tag::ncdhw : Tag::nchw;
  Tag weights = g.groups == 1 ? (three ? Tag::oidhw : Tag::oihw) : (three ? Tag::goidhw : Tag::goihw);
  ConvDescs d;
  d.src = memory::desc(src, f32, blocked.in ? Tag::aBcd16b : activations);
  d.dst = memory::desc(dst, f32, blocked.out ? Tag::aBcd16b : activations);
  d.weights = memory::desc(wei, f32, weights);
  if (bias) d.bias = memory::desc({g.OC}, f32, Tag::x);
  d.src_any = memory::desc(src, f32, Tag::any);
  d.dst_any = memory::desc(dst, f32, Tag::any);
  d.weights_any = memory::desc(wei, f32, Tag::any);
  d.strides = g.stride;
  for (int64_t dil : g.dilation) d.dilates.push_back(dil - 1);  // oneDNN counts the gaps
  // PyTorch floors the output size; oneDNN accepts the same symmetric padding
  // because it floors (src - ker + pad_l + pad_r) / stride too.
  d.pad_l = g.pad;
  d.pad_r = g.pad;
  return d;
}

dnnl::primitive_attr user_scratchpad() { return onednn::attributes(Activation::none); }

dnnl::convolution_forward::primitive_desc forward_pd(const ConvDescs& d, dnnl::prop_kind prop,
                                                     Activation act = Activation::none) {
  dnnl::convolution_forward::desc desc(prop, dnnl::algorithm::convolution_direct, d.src_any, d.weights_any, d.bias,
                                       d.dst_any, d.strides, d.dilates, d.pad_l, d.pad_r);
  return {desc, onednn::attributes(act), engine()};
}

std::shared_ptr<CachedConv> new_cached(dnnl::primitive prim, const memory::desc& scratchpad) {
  auto c = std::make_shared<CachedConv>();
  c->prim = std::move(prim);
  c->scratchpad = scratchpad;
  return c;
}

// The channel block oneDNN's direct convolutions compute in on this machine: 16 with
// AVX-512, else 0 (leave the layout to oneDNN).
int64_t channel_block_of_isa() {
  static const int64_t block = [] {
    auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
    return (isa & dnnl_cpu_isa_avx512_core) == dnnl_cpu_isa_avx512_core ? 16 : 0;
  }();
  return block;
}

// Whether a 2-D forward convolution's result is asked for in the ISA's channel blocks
// (nChw16c). Left to itself, oneDNN's forward_inference picks channels-last brgconv on
// AVX-512: on the Fashion-MNIST CNN it takes 3x as long on the first layer (one input
// channel, 0.46 ms against 0.15 ms at batch 64) and 1.15x on the second, and its
// result costs 3x as long to reorder back to NCHW. A `pooled` result (read by
// conv2d_act_max_pool2d's pool, never reordered) always is; another only when its
// channels fill the blocks (a 4-channel result would be padded to 16).
bool blocked_result(const ConvNdGeometry& g, bool pooled) {
  int64_t block = channel_block_of_isa();
  return g.spatial() == 2 && block != 0 && (pooled || g.OC % block == 0);
}

// The forward convolution, with `act` applied to its result as a post-op (the graph
// passes' conv2d_act; eager conv2d passes none); `pooled` as blocked_result;
// `blocked.in`: its input comes in nChw16c (Note [Blocked activations between
// convolutions] in passes/block_layout.cpp).
std::shared_ptr<CachedConv> make_forward(const ConvNdGeometry& g, bool bias, Activation act, bool pooled,
                                         BlockedSides blocked) {
  ConvDescs d = conv_descs(g, bias, blocked);
  if (blocked_result(g, pooled))
    d.dst_any = memory::desc(d.dst.dims(), memory::data_type::f32, Tag::aBcd16b);
  auto pd = forward_pd(d, dnnl::prop_kind::forward_inference, act);
  auto c = new_cached(dnnl::convolution_forward(pd), pd.scratchpad_desc());
  c->operands.push_back(operand(DNNL_ARG_SRC, false, d.src, pd.src_desc()));
  c->operands.push_back(operand(DNNL_ARG_WEIGHTS, false, d.weights, pd.weights_desc()));
  if (bias) c->operands.push_back(operand(DNNL_ARG_BIAS, false, d.bias, pd.bias_desc()));
  c->operands.push_back(operand(DNNL_ARG_DST, true, d.dst, pd.dst_desc()));
  return c;
}

// Note [The input gradient by Winograd]
// The input gradient's algorithm is oneDNN's to choose (convolution_auto): for 3x3,
// stride 1, channels in 16s it takes Winograd F(4x4, 3x3) (jit_wino_4x3), which
// multiplies 2.25x fewer times. The CNN's second layer's input gradient ran 1.45x as
// fast (bench.py cnn_conv_ops: 350 -> 515 GFLOP/s counted as direct) and the compiled
// CNN step 5-10% faster. Its rounding is coarser than direct summation's, as cuDNN's
// Winograd is: at batch 64, 32 -> 64 and 64 -> 128 channels, the largest error
// against f64 was 1.7e-6 and 2.6e-6 of the largest |dx| (direct: 3.5e-7). f64 has
// no Winograd kernel (nor oneDNN path), so gradcheck sees direct sums. Forward and
// weight gradient stay direct: Winograd measured no faster there (413 against 422,
// 447 against 466 GFLOP/s).
std::shared_ptr<CachedConv> make_backward_data(const ConvNdGeometry& g, BlockedSides blocked) {
  ConvDescs d = conv_descs(g, false, blocked);
  auto hint = forward_pd(d, dnnl::prop_kind::forward_training);
  dnnl::convolution_backward_data::desc desc(dnnl::algorithm::convolution_auto, d.src_any, d.weights_any, d.dst_any,
                                             d.strides, d.dilates, d.pad_l, d.pad_r);
  dnnl::convolution_backward_data::primitive_desc pd(desc, user_scratchpad(), engine(), hint);
  auto c = new_cached(dnnl::convolution_backward_data(pd), pd.scratchpad_desc());
  c->operands.push_back(operand(DNNL_ARG_DIFF_DST, false, d.dst, pd.diff_dst_desc()));
  c->operands.push_back(operand(DNNL_ARG_WEIGHTS, false, d.weights, pd.weights_desc()));
  c->operands.push_back(operand(DNNL_ARG_DIFF_SRC, true, d.src, pd.diff_src_desc()));
  return c;
}

// With `bias`, the primitive also writes the bias's gradient (the sum of the output's
// gradient over all but the channels) while it reads that gradient anyway.
std::shared_ptr<CachedConv> make_backward_weights(const ConvNdGeometry& g, bool bias, BlockedSides blocked) {
  ConvDescs d = conv_descs(g, bias, blocked);
  auto hint = forward_pd(d, dnnl::prop_kind::forward_training);
  dnnl::convolution_backward_weights::desc desc(dnnl::algorithm::convolution_direct, d.src_any, d.weights_any,
                                                bias ? d.bias : memory::desc(), d.dst_any, d.strides, d.dilates,
                                                d.pad_l, d.pad_r);
  dnnl::convolution_backward_weights::primitive_desc pd(desc, user_scratchpad(), engine(), hint);
  auto c = new_cached(dnnl::convolution_backward_weights(pd), pd.scratchpad_desc());
  c->operands.push_back(operand(DNNL_ARG_SRC, false, d.src, pd.src_desc()));
  c->operands.push_back(operand(DNNL_ARG_DIFF_DST, false, d.dst, pd.diff_dst_desc()));
  c->operands.push_back(operand(DNNL_ARG_DIFF_WEIGHTS, true, d.weights, pd.diff_weights_desc()));
  if (bias) c->operands.push_back(operand(DNNL_ARG_DIFF_BIAS, true, d.bias, pd.diff_bias_desc()));
  return c;
}

// The cache: every number that defines a primitive is in the key, and for a packed
// weight the weight tensor's serial (that primitive holds a copy of its data). It
// holds at most kMaxCachedConvs primitives and starts over when full (a run with
// ever-changing shapes must not grow it without bound); callers keep theirs alive by
// shared_ptr.
using ConvKey = std::vector<int64_t>;
constexpr size_t kMaxCachedConvs = 256;

ConvKey conv_key(Pass pass, const ConvNdGeometry& g, bool bias, Activation act, uint64_t weight_owner, bool pooled,
                 BlockedSides blocked) {
  ConvKey key{static_cast<int64_t>(pass), bias, static_cast<int64_t>(act), static_cast<int64_t>(weight_owner),
              pooled, blocked.in, blocked.out, g.N, g.C, g.OC, g.groups};
  for (const std::vector<int64_t>* dims : {&g.in, &g.kernel, &g.out, &g.stride, &g.pad, &g.dilation})
    key.insert(key.end(), dims->begin(), dims->end());
  return key;
}

// `op` names the row in oneDNN's errors; `packed_weight` (defined for a forward pass
// only) is the weight the primitive keeps in its own layout, one primitive per
// weight tensor; `pooled` as for make_forward.
std::shared_ptr<CachedConv> cached_conv(const char* op, Pass pass, const ConvNdGeometry& given, bool bias,
                                        Activation act = Activation::none, const Tensor& packed_weight = Tensor(),
                                        bool pooled = false, BlockedSides blocked = {}) {
  const ConvNdGeometry g = with_one_window_strides(given);  // oneDNN refuses a stride past 2^31 - 1
  static std::mutex mutex;
  static std::map<ConvKey, std::shared_ptr<CachedConv>> cache;
  ConvKey key =
      conv_key(pass, g, bias, act, packed_weight.defined() ? packed_weight.impl()->serial : 0, pooled, blocked);
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  try {
    std::shared_ptr<CachedConv> c = pass == Pass::forward         ? make_forward(g, bias, act, pooled, blocked)
                                    : pass == Pass::backward_data ? make_backward_data(g, blocked)
                                                                  : make_backward_weights(g, bias, blocked);
    onednn::drop_gone_weights(cache);
    if (cache.size() >= kMaxCachedConvs) cache.clear();
    if (packed_weight.defined()) c->packed.own(packed_weight);
    return cache.emplace(key, std::move(c)).first->second;
  } catch (const dnnl::error& e) {
    throw Error(std::string(op) + ": oneDNN could not create the convolution: " + e.what());
  }
}

using onednn::buffer;

// Takes an output in the layout the primitive chose, in place of the reorder to plain
// (conv2d_act_max_pool2d pools from it); returns false to leave it to the reorder.
using ChosenOutput = std::function<bool(const memory::desc& chosen, const void* data)>;

// Runs a cached primitive on plain buffers given in operand order; `packed_weight`
// (its data is also the weight's entry in `plain`) is reordered into the primitive's
// packed copy only when it changed.
void execute(CachedConv& c, const std::vector<void*>& plain, const Tensor& packed_weight = Tensor(),
             const ChosenOutput& take_output = nullptr) {
  dnnl::stream& s = stream();
  std::lock_guard<std::mutex> lock(c.run_mutex);
  std::vector<Tensor> keep;  // reorder buffers (from the caching allocator), alive until the stream is done
  std::vector<const Operand*> outputs_to_convert;
  for (size_t i = 0; i < c.operands.size(); ++i) {
    const Operand& o = c.operands[i];
    if (!o.convert) {
      onednn::bind_argument(c.args, o.arg, o.plain, plain[i]);
    } else if (o.arg == DNNL_ARG_WEIGHTS && packed_weight.defined()) {
      onednn::bind_argument(c.args, o.arg, o.chosen, c.packed.data_for(o.plain, o.chosen, packed_weight));
    } else {
      keep.push_back(buffer(o.chosen));
      onednn::bind_argument(c.args, o.arg, o.chosen, keep.back().raw_data());
      onednn::bind_argument(c.plain_args, o.arg, o.plain, plain[i]);
      if (o.output)
        outputs_to_convert.push_back(&o);
      else
        o.convert->execute(s, {{DNNL_ARG_FROM, c.plain_args.at(o.arg)}, {DNNL_ARG_TO, c.args.at(o.arg)}});
    }
  }
  if (c.scratchpad.get_size() > 0) {
    keep.push_back(buffer(c.scratchpad));
    onednn::bind_argument(c.args, DNNL_ARG_SCRATCHPAD, c.scratchpad, keep.back().raw_data());
  }
  c.prim.execute(s, c.args);
  for (const Operand* o : outputs_to_convert) {
    const memory& chosen = c.args.at(o->arg);
    if (take_output) {
      s.wait();
      if (take_output(o->chosen, chosen.get_data_handle())) continue;
    }
    o->convert->execute(s, {{DNNL_ARG_FROM, chosen}, {DNNL_ARG_TO, c.plain_args.at(o->arg)}});
  }
  s.wait();
}

// The kernels of a convolution row in 2 or 3 spatial dims (`op` names it in errors):
// oneDNN in f32; otherwise (f64) im2col + GEMM in 2-D, the direct loops in 3-D.

// The multiply-adds of a forward convolution (SerialIfSmall runs a small one, the
// first layer at batch 1, on one thread).
int64_t forward_macs(const ConvNdGeometry& g) {
  int64_t macs = g.N * g.OC * (g.C / g.groups);
  for (int64_t d : g.out) macs *= d;
  for (int64_t d : g.kernel) macs *= d;
  return macs;
}

// A 2-D convolution of stride and dilation 1 and one group (the kernels of
// conv_few_channels*.cpp take nothing else).
bool dense_2d(const ConvNdGeometry& g) {
  auto ones = [](const std::vector<int64_t>& v) { return std::all_of(v.begin(), v.end(), [](int64_t d) { return d == 1; }); };
  return g.spatial() == 2 && g.groups == 1 && ones(g.stride) && ones(g.dilation);
}

// The kernels apply relu or nothing (named, not listed: adding an activation does not
// touch this file); nullopt for any other activation.
std::optional<bool> relu_or_none(Activation act) {
  if (act == Activation::none) return false;
  if (std::string(activation_name(act)) == "relu") return true;
  return std::nullopt;
}

// The first-layer kernels' description of y = act(conv2d(x, w) + b) (kernels.hpp) from
// contiguous f32 tensors.
FewChannelConv few_channel_conv(const ConvNdGeometry& g, const Tensor& x, const Tensor& w, const Tensor& b,
                                bool relu, const Tensor& y) {
  return {static_cast<const float*>(x.raw_data()), static_cast<const float*>(w.raw_data()),
          b.defined() ? static_cast<const float*>(b.raw_data()) : nullptr,
          g.N, g.C, g.in[0], g.in[1], g.OC, g.kernel[0], g.kernel[1], g.pad[0], g.pad[1], relu,
          static_cast<float*>(y.raw_data())};
}

// And of its weight gradient (into db when defined; with `indices`, from the pool's
// gradient).
FewChannelWeightGrad few_channel_weight_grad(const ConvNdGeometry& g, const Tensor& x, const Tensor& grad,
                                             const Tensor& dw, const Tensor& db, const Tensor& indices = Tensor()) {
  return {static_cast<const float*>(x.raw_data()), static_cast<const float*>(grad.raw_data()),
          g.N, g.C, g.in[0], g.in[1], g.OC, g.kernel[0], g.kernel[1], g.pad[0], g.pad[1],
          static_cast<float*>(dw.raw_data()), db.defined() ? static_cast<float*>(db.raw_data()) : nullptr,
          indices.defined() ? window_codes(indices) : nullptr};
}

// An f32 planar first layer's y = act(conv2d(x, w) + b) by conv_few_channels_planar
// (Note [The first layer in registers, planar]) when it applies: contiguous x, w, b.
bool planar_in_registers(const ConvNdGeometry& g, const Tensor& x, const Tensor& w, const Tensor& b, Activation act,
                         const Tensor& y) {
  std::optional<bool> relu = relu_or_none(act);
  return relu && dense_2d(g) && conv_few_channels_planar(few_channel_conv(g, x, w, b, *relu, y));
}

// Its weight gradient (and the bias's, into db when defined) from contiguous f32 x and
// planar grad, by conv_weight_grad_few_channels_planar when it applies.
bool weight_grad_planar_in_registers(const ConvNdGeometry& g, const Tensor& x, const Tensor& grad, const Tensor& dw,
                                     const Tensor& db) {
  return dense_2d(g) && conv_weight_grad_few_channels_planar(few_channel_weight_grad(g, x, grad, dw, db));
}

// y = act(conv(x, w) + bias); y [N, OC, out...].
void conv_forward(const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias, const Attrs& attrs,
                  Activation act, WeightLayout layout, const Tensor& y, const ChosenOutput& take_output = nullptr,
                  bool blocked_in = false) {
  ConvNdGeometry g = conv_nd_geometry(input.sizes(), weight.sizes(), attrs, op);
  if (y.numel() == 0) return;
  if (degenerate(g)) {
    fill_bias_or_zero(y, bias);
    return apply_activation(y, act);
  }
  Tensor x = contiguous_raw(input), w = contiguous_raw(weight);
  Tensor b = bias.defined() ? contiguous_raw(bias) : Tensor();
  visit_float(y.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float>) {
      if (!blocked_in && !take_output && planar_in_registers(g, x, w, b, act, y)) return;
      std::vector<void*> ptrs{x.raw_data(), w.raw_data()};
      if (b.defined()) ptrs.push_back(b.raw_data());
      ptrs.push_back(y.raw_data());
      bool packed = layout == WeightLayout::packed;
      onednn::SerialIfSmall serial(forward_macs(g));
      execute(*cached_conv(op, Pass::forward, g, b.defined(), act, packed ? weight : Tensor(), take_output != nullptr,
                           {.in = blocked_in}),
              ptrs, packed ? w : Tensor(), take_output);
    } else if (g.spatial() == 2) {
      forward_gemm<T>(ptr<T>(x), ptr<T>(w), b.defined() ? ptr<T>(b) : nullptr, mut<T>(y), planar(g));
      apply_activation(y, act);
    } else {
      fill_bias_or_zero(y, b);
      direct_3d<T>(Pass::forward, x, w, y, g);
      apply_activation(y, act);
    }
  });
}

// in: grad [N, OC, out...], weight; out: the input's gradient [N, C, in...]. In a graph,
// f32 grad and result may hold nChw16c (attrs blocked_inputs=[0], blocked_out).
void conv_backward_input(const char* op, const TensorList& in, const Attrs& attrs, TensorList& out) {
  const Tensor& dx = out[0];
  ConvNdGeometry g = conv_nd_geometry(dx.sizes(), in[1].sizes(), attrs, op);
  if (dx.numel() == 0) return;
  if (degenerate(g)) return fill_raw(dx, 0.0);
  Tensor gy = contiguous_raw(in[0]), w = contiguous_raw(in[1]);
  visit_float(dx.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float>)
      execute(*cached_conv(op, Pass::backward_data, g, false, Activation::none, Tensor(), false,
                           {.in = blocked_output(attrs), .out = blocked_input(attrs, 0)}),
              {gy.raw_data(), w.raw_data(), dx.raw_data()});
    else if (g.spatial() == 2)
      backward_input_gemm<T>(ptr<T>(gy), ptr<T>(w), mut<T>(dx), planar(g));
    else {
      fill_raw(dx, 0.0);
      direct_3d<T>(Pass::backward_data, gy, w, dx, g);
    }
  });
}

// in: input [N, C, in...], grad [N, OC, out...]; out: the weight's gradient.
void conv_backward_weight(const char* op, const TensorList& in, const Attrs& attrs, TensorList& out) {
  const Tensor& dw = out[0];
  ConvNdGeometry g = conv_nd_geometry(in[0].sizes(), dw.sizes(), attrs, op);
  if (dw.numel() == 0) return;
  if (degenerate(g)) return fill_raw(dw, 0.0);
  Tensor x = contiguous_raw(in[0]), gy = contiguous_raw(in[1]);
  visit_float(dw.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float>) {
      if (!weight_grad_planar_in_registers(g, x, gy, dw, Tensor()))
        execute(*cached_conv(op, Pass::backward_weights, g, false), {x.raw_data(), gy.raw_data(), dw.raw_data()});
    }
    else if (g.spatial() == 2)
      backward_weight_gemm<T>(ptr<T>(x), ptr<T>(gy), mut<T>(dw), planar(g));
    else {
      fill_raw(dw, 0.0);
      direct_3d<T>(Pass::backward_weights, x, gy, dw, g);
    }
  });
}

}  // namespace

bool blocked_activations() { return channel_block_of_isa() == 16; }

bool blocked_input(const Attrs& a, int64_t slot) {
  if (!blocked_activations() || !a.has("blocked_inputs")) return false;
  const std::vector<int64_t>& slots = a.ints("blocked_inputs");
  return std::find(slots.begin(), slots.end(), slot) != slots.end();
}

bool blocked_output(const Attrs& a) { return blocked_activations() && a.has("blocked_out") && a.b("blocked_out"); }
bool reads_window_codes(const Attrs& a) { return a.has("window_codes") && a.b("window_codes"); }

void conv2d_act(const Tensor& input, const Tensor& weight, const Tensor& bias, const Attrs& attrs, Activation act,
                WeightLayout layout, const Tensor& y, bool blocked_in) {
  conv_forward("conv2d", input, weight, bias, attrs, act, layout, y, nullptr, blocked_in && blocked_activations());
}

// The channel block of a layout [N, C, H, W] that max_pool_2x2_channel_blocked reads:
// C for channels-last, 16 or 8 for nChw16c / nChw8c; 0 for any other.
int64_t channel_block(const memory::desc& md) {
  memory::dims dims = md.dims();
  if (dims.size() != 4) return 0;
  auto f32 = memory::data_type::f32;
  if (md == memory::desc(dims, f32, Tag::nhwc)) return dims[1];
  for (auto [tag, block] : {std::pair{Tag::aBcd16b, 16}, std::pair{Tag::aBcd8b, 8}})
    if (md == memory::desc(dims, f32, tag)) return block;
  return 0;
}

namespace {

// Images [first, first + count) of a contiguous batch tensor [N, ...]: a view, so the
// convolution reads them in place.
Tensor batch_slice(const Tensor& t, int64_t first, int64_t count) {
  Shape sizes = t.sizes();
  int64_t per_image = sizes[0] ? t.numel() / sizes[0] : 0;
  sizes[0] = count;
  return make_view(t, sizes, t.strides(), t.offset() + first * per_image);
}

// How many images the convolution of conv2d_act_max_pool2d computes at a time, so that
// its full-size result (written by the convolution, read once by the pool) stays in
// the cores' caches: about kPooledChunkBytes of it per chunk, and at least one image.
// The whole batch at once wrote the result to memory and read it back: the CNN's
// inference at batch 64 took 5% longer (1.83 ms against 1.74 ms, best of 6 runs).
constexpr int64_t kPooledChunkBytes = 1 << 20;
int64_t pooled_chunk_images(const ConvNdGeometry& g) {
  int64_t image_bytes = g.OC * g.out[0] * g.out[1] * int64_t(sizeof(float));
  return std::clamp<int64_t>(kPooledChunkBytes / std::max<int64_t>(image_bytes, 1), 1, g.N);
}

// max_pool2d of a planar chunk into `out` and `indices` (when defined), planar; or,
// when `blocked`, both in nChw16c, the indices as window codes at `codes` when that is
// given (Note [Window codes]: the plain 2x2 pool's).
void pool_into(const Tensor& activated, const Attrs& pool_attrs, const Tensor& out, const Tensor& indices,
               uint8_t* codes, bool blocked) {
  if (!blocked) {
    TensorList pool_out{out, indices};
    return max_pool2d({activated}, pool_attrs, pool_out);
  }
  Tensor planar = empty(out.sizes(), out.dtype());
  Tensor planar_indices = codes || indices.defined() ? empty(out.sizes(), DType::i64) : Tensor();
  TensorList pool_out{planar, planar_indices};
  max_pool2d({activated}, pool_attrs, pool_out);
  write_blocked16(planar, out.raw_data());
  if (codes)
    write_window_codes16(planar_indices, activated.sizes()[3], codes);
  else if (indices.defined())
    write_blocked16(planar_indices, indices.raw_data());
}

// A first layer's pooled convolution by pooled_conv_few_channels (Note [The first layer
// in registers]) when it applies: f32 (out's dtype is checked by the caller), stride
// and dilation 1, one group, relu or no activation.
bool pooled_in_registers(const ConvNdGeometry& g, const Tensor& input, const Tensor& w, const Tensor& bias,
                         Activation act, const Tensor& out, const Tensor& indices, bool blocked_out) {
  if (input.dtype() != DType::f32 || w.dtype() != DType::f32 || (bias.defined() && bias.dtype() != DType::f32) ||
      !dense_2d(g))
    return false;
  std::optional<bool> relu = relu_or_none(act);
  if (!relu) return false;
  Tensor weight = contiguous_raw(w), b = bias.defined() ? contiguous_raw(bias) : Tensor();
  FewChannelPooledConv p{few_channel_conv(g, input, weight, b, *relu, out),
                         indices.defined() ? window_codes(indices) : nullptr, blocked_out};
  return pooled_conv_few_channels(p);
}

// The first layer's weight gradient (Note [The first layer's weight gradient in
// registers]) of contiguous x and grad (with `indices`: the pool's, both nChw16c).
bool weight_grad_in_registers(const ConvNdGeometry& g, const Tensor& x, const Tensor& grad, const Tensor& dw,
                              const Tensor& db, const Tensor& indices = Tensor()) {
  return dense_2d(g) && conv_weight_grad_few_channels(few_channel_weight_grad(g, x, grad, dw, db, indices));
}

}  // namespace

// The convolution's result is pooled where oneDNN left it when that is channel-blocked
// (nChw16c, nChw8c or channels-last) and the pool is the plain 2x2 one: no reorder of
// the full-size result, and the pool reads it once, from cache (the batch runs in
// chunks, pooled_chunk_images); a training step's indices come out of the same pass
// when the result is handed on blocked. Anything else (planar indices, another layout
// or pool, f64) runs the convolution into a buffer, then the pool.
void conv2d_act_max_pool2d(const Tensor& x, const Tensor& w, const Tensor& bias, const Attrs& conv_attrs,
                           Activation act, const Attrs& pool_attrs, WeightLayout layout, const Tensor& out,
                           const Tensor& indices, bool blocked_in, bool blocked_out) {
  ConvNdGeometry g = conv_nd_geometry(x.sizes(), w.sizes(), conv_attrs, "conv2d");
  Shape activated_sizes{g.N, g.OC, g.out[0], g.out[1]};
  PoolGeometry pool = pool_geometry(activated_sizes, pool_attrs, "max_pool2d");
  blocked_in = blocked_in && blocked_activations();
  blocked_out = blocked_out && blocked_activations();
  // (nChw16c indices are window codes for the plain 2x2 pool, flat indices for others)
  uint8_t* codes = blocked_out && indices.defined() && is_plain_2x2(pool) ? window_codes(indices) : nullptr;
  bool in_place =
      (!indices.defined() || blocked_out) && out.dtype() == DType::f32 && is_plain_2x2(pool) && !degenerate(g);
  if (!in_place || g.N == 0) {
    Tensor activated = empty(activated_sizes, out.dtype());
    conv_forward("conv2d", x, w, bias, conv_attrs, act, layout, activated, nullptr, blocked_in);
    return pool_into(activated, pool_attrs, out, indices, codes, blocked_out && out.numel() > 0);
  }
  Tensor input = contiguous_raw(x);
  if (!blocked_in && pooled_in_registers(g, input, w, bias, act, out, indices, blocked_out)) return;
  int64_t chunk = pooled_chunk_images(g), pooled_image = out.numel() / g.N;
  for (int64_t first = 0; first < g.N; first += chunk) {
    int64_t count = std::min(chunk, g.N - first);
    float* pooled_out = static_cast<float*>(out.raw_data()) + first * pooled_image;
    uint8_t* pooled_codes = codes ? codes + first * pooled_image : nullptr;  // (indices are only codes here)
    bool pooled = false;
    ChosenOutput pool_in_place = [&](const memory::desc& chosen, const void* data) {
      int64_t block = channel_block(chosen);
      if (block == 0 || (blocked_out && block != 16)) return false;
      max_pool_2x2_channel_blocked(static_cast<const float*>(data), pooled_out, count, g.OC, g.out[0], g.out[1],
                                   block, blocked_out, pooled_codes);
      return pooled = true;
    };
    Tensor activated = empty({count, g.OC, g.out[0], g.out[1]}, out.dtype());
    conv_forward("conv2d", batch_slice(input, first, count), w, bias, conv_attrs, act, layout, activated,
                 pool_in_place, blocked_in);
    if (!pooled)
      pool_into(activated, pool_attrs, batch_slice(out, first, count), Tensor(), pooled_codes, blocked_out);
  }
}

void conv2d(const TensorList& in, const Attrs& attrs, TensorList& out) {
  conv2d_act(in[0], in[1], in[2], attrs, Activation::none, WeightLayout::plain, out[0]);
}
void conv2d_backward_input(const TensorList& in, const Attrs& attrs, TensorList& out) {
  conv_backward_input("conv2d_backward_input", in, attrs, out);
}
void conv2d_backward_weight(const TensorList& in, const Attrs& attrs, TensorList& out) {
  conv_backward_weight("conv2d_backward_weight", in, attrs, out);
}

bool conv2d_backward_weight_bias(const Tensor& x, const Tensor& grad, const Attrs& attrs, const Tensor& dw,
                                 const Tensor& db, bool blocked_x, bool blocked_grad) {
  if (dw.dtype() != DType::f32 || x.dtype() != DType::f32 || grad.dtype() != DType::f32 || db.dtype() != DType::f32)
    return false;
  ConvNdGeometry g = conv_nd_geometry(x.sizes(), dw.sizes(), attrs, "conv2d_backward_weight");
  if (dw.numel() == 0 || degenerate(g)) return false;
  Tensor xc = contiguous_raw(x), gy = contiguous_raw(grad);
  blocked_x = blocked_x && blocked_activations();
  blocked_grad = blocked_grad && blocked_activations();
  if (!blocked_x && blocked_grad && weight_grad_in_registers(g, xc, gy, dw, db)) return true;
  if (!blocked_x && !blocked_grad && weight_grad_planar_in_registers(g, xc, gy, dw, db)) return true;
  execute(*cached_conv("conv2d_backward_weight", Pass::backward_weights, g, true, Activation::none, Tensor(), false,
                       {.in = blocked_x, .out = blocked_grad}),
          {xc.raw_data(), gy.raw_data(), dw.raw_data(), db.raw_data()});
  return true;
}

bool conv2d_pool_backward_weight_bias(const Tensor& x, const Tensor& pooled_grad, const Tensor& indices,
                                      const Attrs& attrs, const Tensor& dw, const Tensor& db) {
  if (dw.dtype() != DType::f32 || x.dtype() != DType::f32 || pooled_grad.dtype() != DType::f32 ||
      db.dtype() != DType::f32 || indices.dtype() != DType::i64 || !blocked_activations())
    return false;
  ConvNdGeometry g = conv_nd_geometry(x.sizes(), dw.sizes(), attrs, "conv2d_backward_weight");
  if (dw.numel() == 0 || degenerate(g) ||
      pooled_grad.sizes() != Shape{g.N, g.OC, g.out[0] / 2, g.out[1] / 2} || indices.sizes() != pooled_grad.sizes())
    return false;
  return weight_grad_in_registers(g, contiguous_raw(x), contiguous_raw(pooled_grad), dw, db, contiguous_raw(indices));
}

void conv3d(const TensorList& in, const Attrs& attrs, TensorList& out) {
  conv_forward("conv3d", in[0], in[1], in[2], attrs, Activation::none, WeightLayout::plain, out[0]);
}
void conv3d_backward_input(const TensorList& in, const Attrs& attrs, TensorList& out) {
  conv_backward_input("conv3d_backward_input", in, attrs, out);
}
void conv3d_backward_weight(const TensorList& in, const Attrs& attrs, TensorList& out) {
  conv_backward_weight("conv3d_backward_weight", in, attrs, out);
}

void conv1d(const TensorList& in, const Attrs& attrs, TensorList& out) {
  on_unit_height<conv2d>(in, attrs, out, "conv1d");
}

namespace {

// y[n, c, ...] += bias[c].
void add_channel_bias(const Tensor& y, const Tensor& bias) {
  Tensor b = contiguous_raw(bias);
  int64_t channels = y.sizes()[1], rows = y.sizes()[0] * channels, inner = rows ? y.numel() / rows : 0;
  visit_float(y.dtype(), "conv_transpose2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = mut<T>(y);
    const T* add = ptr<T>(b);
    parallel_for(0, rows, rows * inner, [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        T v = add[r % channels];
        for (T *p = out + r * inner, *end = p + inner; p < end; ++p) *p += v;
      }
    });
  });
}

}  // namespace

// conv_transpose2d(x, w) is the adjoint of conv2d in its input: conv2d_backward_input
// with x as the gradient, and the output (shaped by the rule) as the input shape. An
// output_padding not smaller than the stride (allowed when smaller than the dilation)
// makes that convolution's output larger than x: x is extended by zeros to it.
void conv_transpose2d(const TensorList& in, const Attrs& attrs, TensorList& out) {
  ConvGeometry g = conv_geometry(out[0].sizes(), in[1].sizes(), attrs, "conv_transpose2d");
  Tensor x = in[0];
  if (x.sizes()[2] != g.OH || x.sizes()[3] != g.OW) {
    Tensor extended = zeros({g.N, x.sizes()[1], g.OH, g.OW}, x.dtype());
    copy_into(make_view(extended, x.sizes(), extended.strides(), 0), x);
    x = extended;
  }
  TensorList adjoint_in{x, in[1]};
  conv2d_backward_input(adjoint_in, attrs, out);
  if (in[2].defined() && out[0].numel() > 0) add_channel_bias(out[0], in[2]);
}

void conv_transpose1d(const TensorList& in, const Attrs& attrs, TensorList& out) {
  on_unit_height<conv_transpose2d>(in, attrs, out, "conv_transpose1d");
}

}  // namespace nabla::cpu
