// linear with its bias and activation in one oneDNN matmul primitive (the graph
// passes' linear_act), activations as oneDNN post-ops, and activations in place.
//
// Why a matmul primitive and not sgemm: oneDNN's matmul (brgemm kernels) is created
// once per shape and applies the bias and activation while each output tile is still
// in registers; on the MLP's layers at batch 64 it takes about 55% of the time of
// sgemm plus a separate bias pass. The graph's linear_<act> also keeps W in the
// blocked layout the kernel computes on (WeightLayout::packed: the reorder is cached
// per weight tensor, keyed by the tensor's serial and version, so it runs again only
// after the weight changes), a further 15%. Eager linear keeps W where it is.
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <unordered_map>

#include "tensor/cpu/copy.hpp"
#include "tensor/cpu/fused.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/cpu/loops.hpp"
#include "tensor/cpu/onednn.hpp"
#include "tensor/scalar_ops.hpp"

namespace nabla::cpu {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;

struct NamedActivation {
  const char* name;
  Activation act;
};
constexpr NamedActivation kActivations[] = {{"none", Activation::none},
#define NABLA_NAMED_ACTIVATION(name) {#name, Activation::name},
                                            NABLA_EPILOGUE_ACTIVATIONS(NABLA_NAMED_ACTIVATION)
#undef NABLA_NAMED_ACTIVATION
};

// A matmul primitive for one (rows, in, out, bias, activation) and one weight tensor,
// with that weight in the primitive's layout as of `packed_version`.
struct CachedLinear {
  dnnl::matmul prim;
  memory::desc src, weights_plain, weights, bias, dst, scratchpad;
  onednn::PackedWeights packed;  // the weight, reordered
  // The arguments' memory objects, made once and pointed at each call's data: making
  // and destroying four dnnl::memory objects a call costs about 1.5 us, a third of the
  // MLP head's whole matmul. `run_mutex` gives one caller at a time the objects and
  // the scratchpad.
  std::mutex run_mutex;
  std::unordered_map<int, memory> args;
  Tensor scratch;
};

using LinearKey = std::tuple<int64_t, int64_t, int64_t, bool, int, uint64_t>;
constexpr size_t kMaxCachedLinears = 256;

using onednn::buffer;
using onednn::SerialIfSmall;

std::shared_ptr<CachedLinear> make_linear(int64_t M, int64_t K, int64_t N, bool bias, Activation act,
                                          WeightLayout layout) {
  auto f32 = memory::data_type::f32;
  auto c = std::make_shared<CachedLinear>();
  c->src = memory::desc({M, K}, f32, Tag::ab);
  c->weights_plain = memory::desc({K, N}, f32, Tag::ba);  // W is [N, K] row-major: W^T in ba
  c->dst = memory::desc({M, N}, f32, Tag::ab);
  if (bias) c->bias = memory::desc({1, N}, f32, Tag::ab);
  memory::desc weights_any({K, N}, f32, Tag::any);
  const memory::desc& weights = layout == WeightLayout::packed ? weights_any : c->weights_plain;
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(c->src, weights, c->bias, c->dst), onednn::attributes(act),
                                  onednn::engine());
  c->prim = dnnl::matmul(pd);
  c->weights = pd.weights_desc();
  c->scratchpad = pd.scratchpad_desc();
  return c;
}

std::shared_ptr<CachedLinear> cached_linear(int64_t M, int64_t K, int64_t N, bool bias, Activation act,
                                            WeightLayout layout, const Tensor& w) {
  static std::mutex mutex;
  static std::map<LinearKey, std::shared_ptr<CachedLinear>> cache;
  // Plain-layout primitives serve every weight of their shape; packed ones own a copy
  // of one weight's data.
  uint64_t owner = layout == WeightLayout::packed ? w.impl()->serial : 0;
  LinearKey key{M, K, N, bias, static_cast<int>(act), owner};
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  try {
    onednn::drop_gone_weights(cache);
    if (cache.size() >= kMaxCachedLinears) cache.clear();
    std::shared_ptr<CachedLinear> made = make_linear(M, K, N, bias, act, layout);
    if (owner) made->packed.own(w);
    return cache.emplace(key, std::move(made)).first->second;
  } catch (const dnnl::error& e) {
    throw Error(std::string("linear: oneDNN could not create the matmul: ") + e.what());
  }
}

template <class T>
void activate(const Tensor& y, T (*f)(T)) {
  map1<T, T>(y, y, f);
}

}  // namespace

bool activation_from_name(const std::string& name, Activation* act) {
  for (const NamedActivation& a : kActivations)
    if (name == a.name) {
      *act = a.act;
      return true;
    }
  return false;
}

const char* activation_name(Activation act) {
  for (const NamedActivation& a : kActivations)
    if (act == a.act) return a.name;
  return "?";
}

void apply_activation(const Tensor& y, Activation act) {
  if (act == Activation::none) return;
  visit_float(y.dtype(), activation_name(act), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      switch (act) {
        case Activation::none:
          return;
#define NABLA_ACTIVATE(name) \
  case Activation::name:     \
    return activate<T>(y, scalar::name<T>);
          NABLA_EPILOGUE_ACTIVATIONS(NABLA_ACTIVATE)
#undef NABLA_ACTIVATE
      }
    } else {
      throw Error(std::string(activation_name(act)) + ": 16-bit floats compute through f32");
    }
  });
}

void linear_act(const Tensor& x, const Tensor& w, const Tensor& bias, Activation act, WeightLayout layout,
                const Tensor& out) {
  int64_t K = w.sizes()[1], N = w.sizes()[0];
  int64_t M = K ? x.numel() / K : 0;
  bool plain_f32 = out.dtype() == DType::f32 && x.dtype() == DType::f32 && w.dtype() == DType::f32 &&
                   (!bias.defined() || bias.dtype() == DType::f32);
  if (!plain_f32 || M == 0 || K == 0 || N == 0) {
    linear_gemm(x, w, bias, out);
    return apply_activation(out, act);
  }
  Tensor xc = contiguous_raw(x), wc = contiguous_raw(w);
  Tensor bc = bias.defined() ? contiguous_raw(bias) : Tensor();
  SerialIfSmall serial(M * K * N);
  std::shared_ptr<CachedLinear> c = cached_linear(M, K, N, bias.defined(), act, layout, w);
  std::lock_guard<std::mutex> lock(c->run_mutex);
  onednn::bind_argument(c->args, DNNL_ARG_SRC, c->src, xc.raw_data());
  onednn::bind_argument(c->args, DNNL_ARG_WEIGHTS, c->weights, c->packed.data_for(c->weights_plain, c->weights, wc));
  onednn::bind_argument(c->args, DNNL_ARG_DST, c->dst, out.raw_data());
  if (bc.defined()) onednn::bind_argument(c->args, DNNL_ARG_BIAS, c->bias, bc.raw_data());
  if (c->scratchpad.get_size() > 0 && !c->scratch.defined()) {
    c->scratch = buffer(c->scratchpad);
    onednn::bind_argument(c->args, DNNL_ARG_SCRATCHPAD, c->scratchpad, c->scratch.raw_data());
  }
  c->prim.execute(onednn::stream(), c->args);
  onednn::stream().wait();
}

}  // namespace nabla::cpu
