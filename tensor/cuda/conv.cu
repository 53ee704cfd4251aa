// conv2d and conv3d and their adjoints (conv{2,3}d_backward_input, _weight) on cuDNN
// 9's convolution API (Nd descriptors serve both), and conv2d_act (epilogue.hpp).
//
// Layout: descriptors are built from each tensor's sizes and strides. The filter
// and the outputs are NCHW, so x and grad go in NCHW too (a copy where they are laid
// out otherwise): cuDNN's legacy API does not reliably take mixed layouts.
// Algorithms: cuDNN's heuristics (the _v7 queries) rank the algorithms of a problem,
// or in benchmark mode (settings.hpp) cuDNN times them on the first call's operands
// (the Find*Ex queries); those within kMaxWorkspaceBytes of workspace are cached per
// problem (every size and attribute, the dtype, the math type, the mode and the device
// make the key), and a call runs the first of them that cuDNN accepts. The workspace comes from the caching
// allocator, on the stream the convolution runs on.
// Math: f32 on FMA units only, exactly as f32 on the CPU, unless allow_tf32()
// (settings.hpp); cuDNN's default math would let an A100 or H100 use TF32. f16/bf16
// use tensor cores with f32 accumulation; f64 computes in f64.
#include <algorithm>
#include <array>
#include <climits>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "tensor/cpu/conv_geometry.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/cuda/epilogue.hpp"
#include "tensor/cuda/handles.cuh"
#include "tensor/cuda/settings.hpp"

namespace nabla::cuda {

namespace {

using cpu::Activation;
using cpu::ConvGeometry;
using cpu::ConvNdGeometry;  // both ranks run on cuDNN's Nd descriptors

constexpr size_t kMaxWorkspaceBytes = size_t(256) << 20;
constexpr int kMaxAlgoResults = 32;  // a _v7 query may list an algorithm once per math type
constexpr size_t kMaxCachedProblems = 1024;

enum class Pass : int64_t { forward, backward_data, backward_filter };

const char* op_name(Pass pass, size_t spatial) {
  if (spatial == 3)
    return pass == Pass::forward         ? "conv3d"
           : pass == Pass::backward_data ? "conv3d_backward_input"
                                         : "conv3d_backward_weight";
  return pass == Pass::forward         ? "conv2d"
         : pass == Pass::backward_data ? "conv2d_backward_input"
                                       : "conv2d_backward_weight";
}

cudnnDataType_t data_type(DType t) {
  switch (t) {
    case DType::f32:
      return CUDNN_DATA_FLOAT;
    case DType::f64:
      return CUDNN_DATA_DOUBLE;
    case DType::f16:
      return CUDNN_DATA_HALF;
    case DType::bf16:
      return CUDNN_DATA_BFLOAT16;
    default:
      throw Error(std::string("conv2d: expected a floating tensor, got ") + dtype_name(t));
  }
}

cudnnMathType_t math_type(DType t) {
  if (t == DType::f32) return allow_tf32() ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
  return is_half(t) ? CUDNN_TENSOR_OP_MATH : CUDNN_DEFAULT_MATH;
}

int to_int(int64_t v) {
  NABLA_CHECK(v <= INT_MAX,
              "conv2d: a size or stride of " + std::to_string(v) + " is beyond cuDNN's 32-bit limit on CUDA tensors");
  return static_cast<int>(v);
}

// Owns a cuDNN descriptor.
template <class H, cudnnStatus_t (*Create)(H*), cudnnStatus_t (*Destroy)(H)>
class Descriptor {
 public:
  Descriptor() { NABLA_CUDNN_CHECK(Create(&h_)); }
  ~Descriptor() { Destroy(h_); }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  H get() const { return h_; }

 private:
  H h_ = nullptr;
};
using TensorDesc = Descriptor<cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor, cudnnDestroyTensorDescriptor>;
using FilterDesc = Descriptor<cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor, cudnnDestroyFilterDescriptor>;
using ConvDesc =
    Descriptor<cudnnConvolutionDescriptor_t, cudnnCreateConvolutionDescriptor, cudnnDestroyConvolutionDescriptor>;

// The descriptors of one convolution: x is input-shaped (the input, or its gradient),
// w weight-shaped, y output-shaped.
struct ConvDescriptors {
  TensorDesc x, y;
  FilterDesc w;
  ConvDesc conv;

  ConvDescriptors(const Tensor& xt, const Tensor& wt, const Tensor& yt, const ConvNdGeometry& g) {
    describe(x, xt);
    describe(y, yt);
    std::vector<int> filter = ints(wt.sizes().vec());
    NABLA_CUDNN_CHECK(cudnnSetFilterNdDescriptor(w.get(), data_type(wt.dtype()), CUDNN_TENSOR_NCHW,
                                                 static_cast<int>(filter.size()), filter.data()));
    DType dt = yt.dtype();
    std::vector<int> pad = ints(g.pad), stride = ints(g.stride), dilation = ints(g.dilation);
    NABLA_CUDNN_CHECK(cudnnSetConvolutionNdDescriptor(conv.get(), static_cast<int>(g.spatial()), pad.data(),
                                                      stride.data(), dilation.data(), CUDNN_CROSS_CORRELATION,
                                                      dt == DType::f64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT));
    NABLA_CUDNN_CHECK(cudnnSetConvolutionGroupCount(conv.get(), to_int(g.groups)));
    NABLA_CUDNN_CHECK(cudnnSetConvolutionMathType(conv.get(), math_type(dt)));
  }

  static std::vector<int> ints(const std::vector<int64_t>& v) {
    std::vector<int> out;
    for (int64_t e : v) out.push_back(to_int(e));
    return out;
  }

  // A dim of size 1 takes its NC[D]HW stride: its own may be anything, and cuDNN checks it.
  static void describe(const TensorDesc& d, const Tensor& t) {
    Shape packed = contiguous_strides(t.sizes());
    int rank = static_cast<int>(t.dim());
    std::vector<int> dims(static_cast<size_t>(rank)), strides(static_cast<size_t>(rank));
    for (int i = 0; i < rank; ++i) {
      dims[i] = to_int(t.sizes()[i]);
      strides[i] = to_int(t.sizes()[i] == 1 ? packed[i] : t.strides()[i]);
    }
    NABLA_CUDNN_CHECK(cudnnSetTensorNdDescriptor(d.get(), data_type(t.dtype()), rank, dims.data(), strides.data()));
  }
};

// alpha = 1 and beta = 0 as cuDNN reads them: double for f64 data, float otherwise.
struct Scalars {
  explicit Scalars(DType t) : wide(t == DType::f64) {}
  const void* one() const { return wide ? static_cast<const void*>(&d[0]) : &f[0]; }
  const void* zero() const { return wide ? static_cast<const void*>(&d[1]) : &f[1]; }
  bool wide;
  float f[2] = {1.0f, 0.0f};
  double d[2] = {1.0, 0.0};
};

struct Algo {
  int algo;
  size_t workspace_bytes;
  cudnnMathType_t math;  // set on the descriptor for this algorithm's call
};

// Whether a timed algorithm's math type keeps nabla's rule for dt (math_type): f32
// without TF32 only on FMA units, and no down-conversion of f32 inputs to 16 bits.
bool math_allowed(cudnnMathType_t math, DType dt) {
  if (dt != DType::f32) return true;
  if (math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) return false;
  return allow_tf32() || math == CUDNN_FMA_MATH;
}

using ConvKey = std::vector<int64_t>;

ConvKey conv_key(Pass pass, DType dt, int device, const ConvNdGeometry& g, int64_t group_channels) {
  ConvKey key{static_cast<int64_t>(pass),
              static_cast<int64_t>(dt),
              device,
              static_cast<int64_t>(math_type(dt)),
              benchmark() ? 1 : 0,
              g.N,
              g.C,
              g.OC,
              group_channels,
              g.groups};
  for (const std::vector<int64_t>* dims : {&g.in, &g.kernel, &g.stride, &g.pad, &g.dilation})
    key.insert(key.end(), dims->begin(), dims->end());
  return key;
}

// The algorithms of `key`, found by `find` the first time. The cache starts over when
// full, so that a run with ever-changing shapes does not grow it without bound.
template <class Find>
std::vector<Algo> cached_algos(const ConvKey& key, Find&& find) {
  static std::mutex mutex;
  static std::map<ConvKey, std::vector<Algo>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  std::vector<Algo> algos = find();
  if (cache.size() >= kMaxCachedProblems) cache.clear();
  cache.emplace(key, algos);
  return algos;
}

// The algorithms a _v7 query ranks, best first, that cuDNN can size a workspace for
// within the limit. query(n, &returned, perfs); workspace_size(algo, &bytes).
template <class Perf, class Query, class WorkspaceSize>
std::vector<Algo> viable_algos(DType dt, Query&& query, WorkspaceSize&& workspace_size) {
  std::array<Perf, kMaxAlgoResults> perfs{};
  int returned = 0;
  NABLA_CUDNN_CHECK(query(kMaxAlgoResults, &returned, perfs.data()));
  std::vector<Algo> algos;
  for (int i = 0; i < returned; ++i) {
    const Perf& p = perfs[i];
    size_t bytes = 0;
    if (p.status != CUDNN_STATUS_SUCCESS || workspace_size(p.algo, &bytes) != CUDNN_STATUS_SUCCESS) continue;
    bool listed = false;
    for (const Algo& a : algos) listed = listed || a.algo == static_cast<int>(p.algo);
    if (bytes <= kMaxWorkspaceBytes && !listed) algos.push_back({static_cast<int>(p.algo), bytes, math_type(dt)});
  }
  return algos;
}

// The algorithms cuDNN times on the operands of this call (a Find*Ex query), fastest
// first, within the workspace that could be had, each with the math type it was timed
// in (an algorithm may be listed once per math type; those math_allowed refuses are
// left out). find_ex(n, &returned, perfs, workspace, bytes) may write the call's
// output, which the call then overwrites.
template <class Perf, class FindEx>
std::vector<Algo> measured_algos(const Device& device, DType dt, FindEx&& find_ex) {
  size_t bytes = kMaxWorkspaceBytes;
  Tensor ws;
  try {
    ws = empty({static_cast<int64_t>(bytes / 8)}, DType::i64, device);
  } catch (const Error&) {
    bytes = 0;  // time only the algorithms that need none
  }
  std::array<Perf, kMaxAlgoResults> perfs{};
  int returned = 0;
  NABLA_CUDNN_CHECK(find_ex(kMaxAlgoResults, &returned, perfs.data(), ws.defined() ? ws.raw_data() : nullptr, bytes));
  std::vector<Algo> algos;
  for (int i = 0; i < returned; ++i) {
    const Perf& p = perfs[i];
    bool listed = false;
    for (const Algo& a : algos) listed = listed || (a.algo == static_cast<int>(p.algo) && a.math == p.mathType);
    if (p.status == CUDNN_STATUS_SUCCESS && p.memory <= bytes && !listed && math_allowed(p.mathType, dt))
      algos.push_back({static_cast<int>(p.algo), p.memory, p.mathType});
  }
  return algos;
}

// Runs call(algo, workspace, bytes) with the first algorithm that cuDNN accepts, the
// descriptor `conv` set to that algorithm's math type. An algorithm whose workspace
// does not fit in the device's free memory gives way to the next one (the list is
// ranked, and the later ones often need less), as in PyTorch; only when none fits is
// the out-of-memory error the caller's.
template <class Call>
void run_first_accepted(const char* op, const std::vector<Algo>& algos, const Device& device, const ConvDesc& conv,
                        Call&& call) {
  std::optional<Error> out_of_memory;
  for (const Algo& a : algos) {
    Tensor ws;
    try {
      if (a.workspace_bytes > 0) ws = empty({static_cast<int64_t>((a.workspace_bytes + 7) / 8)}, DType::i64, device);
    } catch (const Error& e) {
      out_of_memory = e;
      continue;
    }
    NABLA_CUDNN_CHECK(cudnnSetConvolutionMathType(conv.get(), a.math));
    cudnnStatus_t status = call(a.algo, ws.defined() ? ws.raw_data() : nullptr, a.workspace_bytes);
    if (CUDNN_STATUS_CATEGORY(status) == CUDNN_STATUS_NOT_SUPPORTED) continue;
    check_cudnn(status, op);
    return;
  }
  if (out_of_memory) throw *out_of_memory;
  throw Error(std::string(op) + ": cuDNN has no algorithm for this convolution within " +
              std::to_string(kMaxWorkspaceBytes >> 20) + " MiB of workspace");
}

// y = conv2d(x, w), all NCHW.
void run_forward(const Tensor& x, const Tensor& w, const Tensor& y, const ConvNdGeometry& g) {
  cudnnHandle_t h = cudnn_handle(y.device().index);
  ConvDescriptors d(x, w, y, g);
  auto find = [&] {
    if (benchmark())
      return measured_algos<cudnnConvolutionFwdAlgoPerf_t>(
          y.device(), y.dtype(), [&](int n, int* returned, cudnnConvolutionFwdAlgoPerf_t* perfs, void* ws, size_t bytes) {
            return cudnnFindConvolutionForwardAlgorithmEx(h, d.x.get(), x.raw_data(), d.w.get(), w.raw_data(),
                                                          d.conv.get(), d.y.get(), y.raw_data(), n, returned, perfs,
                                                          ws, bytes);
          });
    return viable_algos<cudnnConvolutionFwdAlgoPerf_t>(
        y.dtype(),
        [&](int n, int* returned, cudnnConvolutionFwdAlgoPerf_t* perfs) {
          return cudnnGetConvolutionForwardAlgorithm_v7(h, d.x.get(), d.w.get(), d.conv.get(), d.y.get(), n, returned,
                                                        perfs);
        },
        [&](cudnnConvolutionFwdAlgo_t algo, size_t* bytes) {
          return cudnnGetConvolutionForwardWorkspaceSize(h, d.x.get(), d.w.get(), d.conv.get(), d.y.get(), algo, bytes);
        });
  };
  Scalars s(y.dtype());
  auto algos = cached_algos(conv_key(Pass::forward, y.dtype(), y.device().index, g, w.sizes()[1]), find);
  run_first_accepted(op_name(Pass::forward, g.spatial()), algos, y.device(), d.conv, [&](int algo, void* ws, size_t bytes) {
    return cudnnConvolutionForward(h, s.one(), d.x.get(), x.raw_data(), d.w.get(), w.raw_data(), d.conv.get(),
                                   static_cast<cudnnConvolutionFwdAlgo_t>(algo), ws, bytes, s.zero(), d.y.get(),
                                   y.raw_data());
  });
}

// dx = conv2d_backward_input(dy, w), all NCHW.
void run_backward_data(const Tensor& dy, const Tensor& w, const Tensor& dx, const ConvNdGeometry& g) {
  cudnnHandle_t h = cudnn_handle(dx.device().index);
  ConvDescriptors d(dx, w, dy, g);
  auto find = [&] {
    if (benchmark())
      return measured_algos<cudnnConvolutionBwdDataAlgoPerf_t>(
          dx.device(), dx.dtype(), [&](int n, int* returned, cudnnConvolutionBwdDataAlgoPerf_t* perfs, void* ws, size_t bytes) {
            return cudnnFindConvolutionBackwardDataAlgorithmEx(h, d.w.get(), w.raw_data(), d.y.get(), dy.raw_data(),
                                                               d.conv.get(), d.x.get(), dx.raw_data(), n, returned,
                                                               perfs, ws, bytes);
          });
    return viable_algos<cudnnConvolutionBwdDataAlgoPerf_t>(
        dx.dtype(),
        [&](int n, int* returned, cudnnConvolutionBwdDataAlgoPerf_t* perfs) {
          return cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d.w.get(), d.y.get(), d.conv.get(), d.x.get(), n,
                                                             returned, perfs);
        },
        [&](cudnnConvolutionBwdDataAlgo_t algo, size_t* bytes) {
          return cudnnGetConvolutionBackwardDataWorkspaceSize(h, d.w.get(), d.y.get(), d.conv.get(), d.x.get(), algo,
                                                              bytes);
        });
  };
  Scalars s(dx.dtype());
  auto algos = cached_algos(conv_key(Pass::backward_data, dx.dtype(), dx.device().index, g, w.sizes()[1]), find);
  run_first_accepted(
      op_name(Pass::backward_data, g.spatial()), algos, dx.device(), d.conv, [&](int algo, void* ws, size_t bytes) {
        return cudnnConvolutionBackwardData(h, s.one(), d.w.get(), w.raw_data(), d.y.get(), dy.raw_data(), d.conv.get(),
                                            static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), ws, bytes, s.zero(),
                                            d.x.get(), dx.raw_data());
      });
}

// dw = conv2d_backward_weight(x, dy), all NCHW.
void run_backward_filter(const Tensor& x, const Tensor& dy, const Tensor& dw, const ConvNdGeometry& g) {
  cudnnHandle_t h = cudnn_handle(dw.device().index);
  ConvDescriptors d(x, dw, dy, g);
  auto find = [&] {
    if (benchmark())
      return measured_algos<cudnnConvolutionBwdFilterAlgoPerf_t>(
          dw.device(), dw.dtype(), [&](int n, int* returned, cudnnConvolutionBwdFilterAlgoPerf_t* perfs, void* ws, size_t bytes) {
            return cudnnFindConvolutionBackwardFilterAlgorithmEx(h, d.x.get(), x.raw_data(), d.y.get(), dy.raw_data(),
                                                                 d.conv.get(), d.w.get(), dw.raw_data(), n, returned,
                                                                 perfs, ws, bytes);
          });
    return viable_algos<cudnnConvolutionBwdFilterAlgoPerf_t>(
        dw.dtype(),
        [&](int n, int* returned, cudnnConvolutionBwdFilterAlgoPerf_t* perfs) {
          return cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, d.x.get(), d.y.get(), d.conv.get(), d.w.get(), n,
                                                               returned, perfs);
        },
        [&](cudnnConvolutionBwdFilterAlgo_t algo, size_t* bytes) {
          return cudnnGetConvolutionBackwardFilterWorkspaceSize(h, d.x.get(), d.y.get(), d.conv.get(), d.w.get(), algo,
                                                                bytes);
        });
  };
  Scalars s(dw.dtype());
  auto algos = cached_algos(conv_key(Pass::backward_filter, dw.dtype(), dw.device().index, g, dw.sizes()[1]), find);
  run_first_accepted(
      op_name(Pass::backward_filter, g.spatial()), algos, dw.device(), d.conv, [&](int algo, void* ws, size_t bytes) {
        return cudnnConvolutionBackwardFilter(h, s.one(), d.x.get(), x.raw_data(), d.y.get(), dy.raw_data(),
                                              d.conv.get(), static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), ws,
                                              bytes, s.zero(), d.w.get(), dw.raw_data());
      });
}

// `t` contiguous and 16-byte aligned, as cuDNN's vectorised kernels want: a view that
// starts inside its storage (x.flatten()[1:].reshape(...)) is copied to a new block
// (the caching allocator's blocks are aligned); anything else is passed as it is.
Tensor cudnn_operand(const Tensor& t) {
  Tensor c = contiguous_raw(t);
  if (reinterpret_cast<uintptr_t>(c.raw_data()) % 16 == 0) return c;
  Tensor aligned = empty(c.sizes(), c.dtype(), c.device());
  cuda::copy_into(aligned, c);  // qualified: ADL would also find nabla::copy_into
  return aligned;
}

// The kernels of a convolution row in 2 or 3 spatial dims (op_name names it).

// The spatial dims of an activation [N, C, spatial...].
size_t spatial_dims(const Tensor& t) { return static_cast<size_t>(t.dim() - 2); }

// y = act(conv(x, w) + bias): cuDNN's convolution, then the bias and the activation.
void conv_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const Attrs& attrs, Activation act,
                  const Tensor& y) {
  ConvNdGeometry g = cpu::conv_nd_geometry(x.sizes(), w.sizes(), attrs, op_name(Pass::forward, spatial_dims(y)));
  if (y.numel() == 0) return;
  DeviceGuard guard(y.device().index);
  if (degenerate(g))
    fill(y, 0.0);
  else
    run_forward(cudnn_operand(x), cudnn_operand(w), y, g);
  bias_activation(y, bias, g.out_plane(), act);
}

// in: grad [N, OC, out...], weight; out: the input's gradient [N, C, in...].
void conv_backward_input(const TensorList& in, const Attrs& attrs, TensorList& out) {
  const Tensor& dx = out[0];
  ConvNdGeometry g =
      cpu::conv_nd_geometry(dx.sizes(), in[1].sizes(), attrs, op_name(Pass::backward_data, spatial_dims(dx)));
  if (dx.numel() == 0) return;
  DeviceGuard guard(dx.device().index);
  if (degenerate(g)) return fill(dx, 0.0);
  run_backward_data(cudnn_operand(in[0]), cudnn_operand(in[1]), dx, g);
}

// in: input [N, C, in...], grad [N, OC, out...]; out: the weight's gradient.
void conv_backward_weight(const TensorList& in, const Attrs& attrs, TensorList& out) {
  const Tensor& dw = out[0];
  ConvNdGeometry g =
      cpu::conv_nd_geometry(in[0].sizes(), dw.sizes(), attrs, op_name(Pass::backward_filter, spatial_dims(dw)));
  if (dw.numel() == 0) return;
  DeviceGuard guard(dw.device().index);
  if (degenerate(g)) return fill(dw, 0.0);
  run_backward_filter(cudnn_operand(in[0]), cudnn_operand(in[1]), dw, g);
}

}  // namespace

void conv2d_act(const Tensor& x, const Tensor& w, const Tensor& bias, const Attrs& attrs, Activation act,
                const Tensor& y) {
  conv_forward(x, w, bias, attrs, act, y);
}

void conv2d(const TensorList& in, const Attrs& attrs, TensorList& out) {
  cuda::conv2d_act(in[0], in[1], in[2], attrs, Activation::none, out[0]);
}
void conv2d_backward_input(const TensorList& in, const Attrs& attrs, TensorList& out) {
  conv_backward_input(in, attrs, out);
}
void conv2d_backward_weight(const TensorList& in, const Attrs& attrs, TensorList& out) {
  conv_backward_weight(in, attrs, out);
}

void conv3d(const TensorList& in, const Attrs& attrs, TensorList& out) {
  conv_forward(in[0], in[1], in[2], attrs, Activation::none, out[0]);
}
void conv3d_backward_input(const TensorList& in, const Attrs& attrs, TensorList& out) {
  conv_backward_input(in, attrs, out);
}
void conv3d_backward_weight(const TensorList& in, const Attrs& attrs, TensorList& out) {
  conv_backward_weight(in, attrs, out);
}

// The rows built on conv2d and its input adjoint, as on the CPU (tensor/cpu/conv.cpp).
void conv1d(const TensorList& in, const Attrs& attrs, TensorList& out) {
  cpu::on_unit_height<conv2d>(in, attrs, out, "conv1d");
}

// cuDNN's backward data is the transposed convolution; then the bias. x is extended by
// zeros where the convolution's output is larger (as on the CPU).
void conv_transpose2d(const TensorList& in, const Attrs& attrs, TensorList& out) {
  ConvGeometry g = cpu::conv_geometry(out[0].sizes(), in[1].sizes(), attrs, "conv_transpose2d");
  Tensor x = in[0];
  if (x.sizes()[2] != g.OH || x.sizes()[3] != g.OW) {
    DeviceGuard guard(x.device().index);
    Tensor extended = zeros({g.N, x.sizes()[1], g.OH, g.OW}, x.dtype(), x.device());
    cuda::copy_into(make_view(extended, x.sizes(), extended.strides(), 0), x);
    x = extended;
  }
  TensorList adjoint_in{x, in[1]};
  conv2d_backward_input(adjoint_in, attrs, out);
  const Tensor& y = out[0];
  if (!in[2].defined() || y.numel() == 0) return;
  DeviceGuard guard(y.device().index);
  bias_activation(y, in[2], y.numel() / (y.sizes()[0] * y.sizes()[1]), cpu::Activation::none);
}

void conv_transpose1d(const TensorList& in, const Attrs& attrs, TensorList& out) {
  cpu::on_unit_height<conv_transpose2d>(in, attrs, out, "conv_transpose1d");
}

}  // namespace nabla::cuda
