// The int8 GEMM of quantized.hpp: oneDNN's matmul primitive computes the exact s32
// sums of u8 or s8 activations times s8 weights (AVX-512 VNNI's vpdpbusd here; oneDNN
// adds the compensation that s8 activations need and subtracts the activations' zero
// point), and an epilogue of nabla's applies the per-channel scales and the bias.
//
// Why not oneDNN's output scales: in oneDNN 2.6 the VNNI brgemm kernel takes scales
// only as constants of the primitive, and a dynamic quantized linear's scale changes
// with every batch; run-time scales (DNNL_RUNTIME_F32_VAL) fall back to the gemm:jit
// kernel, 5-10x slower on the MLP's layers. Run-time zero points keep brgemm. So the
// primitive writes s32 and the epilogue, one pass over the [M, N] result while it is
// still in cache, does out = float(sum) * scale[n] + bias[n].
//
// Why cached primitives: creating a matmul primitive costs far more than running a
// small one (tens of microseconds against a few for an MLP layer at batch 1), so one
// is made per (rows, in, out, activation dtype, weight tensor) and kept, with the
// zero point passed at run time (DNNL_RUNTIME_S32_VAL). The weight is reordered into
// the blocked layout the kernel picks, once per weight version (as
// tensor/cpu/epilogue.cpp does for f32 linear's packed weights).
#include <immintrin.h>

#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <unordered_map>

#include "tensor/cpu/onednn.hpp"
#include "tensor/cpu/parallel.hpp"
#include "tensor/cpu/quantized.hpp"

namespace nabla::cpu {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;
using DT = memory::data_type;

struct CachedInt8Matmul {
  dnnl::matmul prim;
  memory::desc src, weights_plain, weights, dst, zero_point, scratchpad;
  Tensor packed;  // the weight in the primitive's layout
  const void* packed_from = nullptr;
  uint32_t packed_version = 0;
  std::mutex pack_mutex;
  // One caller at a time runs the primitive: it owns the argument objects, the
  // scratchpad and the zero point's buffer.
  std::mutex run_mutex;
  std::unordered_map<int, memory> args;
  Tensor scratch;
  int32_t zero_point_value = 0;
};

using Int8Key = std::tuple<int64_t, int64_t, int64_t, int, uint64_t>;
constexpr size_t kMaxCachedInt8 = 256;

DT onednn_type(DType t) {
  if (t == DType::u8) return DT::u8;
  if (t == DType::i8) return DT::s8;
  throw Error(std::string("int8 GEMM: activations must be u8 or i8, got ") + dtype_name(t));
}

std::shared_ptr<CachedInt8Matmul> make_int8_matmul(int64_t M, int64_t K, int64_t N, DType a_type) {
  auto c = std::make_shared<CachedInt8Matmul>();
  c->src = memory::desc({M, K}, onednn_type(a_type), Tag::ab);
  c->weights_plain = memory::desc({K, N}, DT::s8, Tag::ba);  // W is [N, K] row-major: W^T in ba
  c->dst = memory::desc({M, N}, DT::s32, Tag::ab);
  c->zero_point = memory::desc({1}, DT::s32, Tag::a);
  dnnl::primitive_attr attr = onednn::attributes(Activation::none);
  attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
  memory::desc weights_any({K, N}, DT::s8, Tag::any);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(c->src, weights_any, c->dst), attr, onednn::engine());
  c->prim = dnnl::matmul(pd);
  c->weights = pd.weights_desc();
  c->scratchpad = pd.scratchpad_desc();
  return c;
}

std::shared_ptr<CachedInt8Matmul> cached_int8_matmul(int64_t M, int64_t K, int64_t N, DType a_type, const Tensor& w) {
  static std::mutex mutex;
  static std::map<Int8Key, std::shared_ptr<CachedInt8Matmul>> cache;
  Int8Key key{M, K, N, static_cast<int>(a_type), w.impl()->serial};
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  try {
    if (cache.size() >= kMaxCachedInt8) cache.clear();
    return cache.emplace(key, make_int8_matmul(M, K, N, a_type)).first->second;
  } catch (const dnnl::error& e) {
    throw Error(std::string("int8 GEMM: oneDNN could not create the matmul: ") + e.what());
  }
}

// The weight in the primitive's layout, reordered again when it changed.
void* packed_weights(CachedInt8Matmul& c, const Tensor& w) {
  if (c.weights == c.weights_plain) return w.raw_data();
  std::lock_guard<std::mutex> lock(c.pack_mutex);
  if (!c.packed.defined() || c.packed_from != w.raw_data() || c.packed_version != w.version()) {
    if (!c.packed.defined()) c.packed = onednn::buffer(c.weights);
    memory from(c.weights_plain, onednn::engine(), w.raw_data());
    memory to(c.weights, onednn::engine(), c.packed.raw_data());
    dnnl::reorder(from, to).execute(onednn::stream(), from, to);
    onednn::stream().wait();
    c.packed_from = w.raw_data();
    c.packed_version = w.version();
  }
  return c.packed.raw_data();
}

// Points argument `arg` at `data`; the memory object is made once per argument.
void bind(CachedInt8Matmul& c, int arg, const memory::desc& md, void* data) {
  auto it = c.args.find(arg);
  if (it == c.args.end()) {
    c.args.emplace(arg, memory(md, onednn::engine(), data));
  } else if (it->second.get_data_handle() != data) {
    it->second.set_data_handle(data);
  }
}

void check_operands(const char* what, const Tensor& a, const Tensor& w, const Tensor& out) {
  NABLA_CHECK(a.dim() == 2 && w.dim() == 2 && out.dim() == 2 && a.is_contiguous() && w.is_contiguous() &&
                  out.is_contiguous(),
              std::string(what) + ": expected contiguous 2-D operands");
  NABLA_CHECK(w.dtype() == DType::i8, std::string(what) + ": the weight must be i8, got " + dtype_name(w.dtype()));
  NABLA_CHECK(a.sizes()[1] == w.sizes()[1] && out.sizes()[0] == a.sizes()[0] && out.sizes()[1] == w.sizes()[0],
              std::string(what) + ": shapes " + a.shape_str() + " x " + w.shape_str() + "^T -> " + out.shape_str() +
                  " do not match");
}

// sums[m, n] = sum_k (a[m, k] - a_zero_point) * w[n, k] on the cached primitive.
void run_int8(const Tensor& a, int32_t a_zero_point, const Tensor& w, const Tensor& sums) {
  int64_t M = a.sizes()[0], K = a.sizes()[1], N = w.sizes()[0];
  if (K == 0) {
    std::fill(static_cast<int32_t*>(sums.raw_data()), static_cast<int32_t*>(sums.raw_data()) + sums.numel(), 0);
    return;
  }
  onednn::SerialIfSmall serial(M * K * N);
  std::shared_ptr<CachedInt8Matmul> c = cached_int8_matmul(M, K, N, a.dtype(), w);
  std::lock_guard<std::mutex> lock(c->run_mutex);
  bind(*c, DNNL_ARG_SRC, c->src, a.raw_data());
  bind(*c, DNNL_ARG_WEIGHTS, c->weights, packed_weights(*c, w));
  bind(*c, DNNL_ARG_DST, c->dst, sums.raw_data());
  c->zero_point_value = a_zero_point;
  bind(*c, DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, c->zero_point, &c->zero_point_value);
  if (c->scratchpad.get_size() > 0 && !c->scratch.defined()) {
    c->scratch = onednn::buffer(c->scratchpad);
    bind(*c, DNNL_ARG_SCRATCHPAD, c->scratchpad, c->scratch.raw_data());
  }
  c->prim.execute(onednn::stream(), c->args);
  onednn::stream().wait();
}

// One row: out[n] = float(sums[n]) * scale[n] + bias[n] (fbgemm's order: the sum
// converted to f32, times the product of the two scales, plus the bias).
void scale_row(const int32_t* s, const float* scale, const float* bias, float* o, int64_t N) {
  int64_t n = 0;
#ifdef __AVX2__
  for (; n + 8 <= N; n += 8) {
    __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + n))),
                             _mm256_loadu_ps(scale + n));
    if (bias) v = _mm256_add_ps(v, _mm256_loadu_ps(bias + n));
    _mm256_storeu_ps(o + n, v);
  }
#endif
  for (; n < N; ++n) o[n] = static_cast<float>(s[n]) * scale[n] + (bias ? bias[n] : 0.0f);
}

void scale_and_bias(const Tensor& sums, const float* scale, const float* bias, const Tensor& out) {
  int64_t M = out.sizes()[0], N = out.sizes()[1];
  const int32_t* s = static_cast<const int32_t*>(sums.raw_data());
  float* o = static_cast<float*>(out.raw_data());
  parallel_for(0, M, M * N, [&](int64_t lo, int64_t hi) {
    for (int64_t m = lo; m < hi; ++m) scale_row(s + m * N, scale, bias, o + m * N, N);
  }, 1 << 13);
}

}  // namespace

void int8_linear(const Tensor& a, int32_t a_zero_point, const Tensor& w, const Tensor& scale, const Tensor& bias,
                 const Tensor& out) {
  check_operands("int8_linear", a, w, out);
  NABLA_CHECK(out.dtype() == DType::f32 && scale.dtype() == DType::f32 && scale.is_contiguous() &&
                  scale.numel() == w.sizes()[0],
              "int8_linear: expected an f32 output and one f32 scale per output channel");
  NABLA_CHECK(!bias.defined() || (bias.dtype() == DType::f32 && bias.is_contiguous() && bias.numel() == w.sizes()[0]),
              "int8_linear: expected an f32 bias with one value per output channel");
  if (out.numel() == 0) return;
  Tensor sums = empty(out.sizes(), DType::i32);
  run_int8(a, a_zero_point, w, sums);
  scale_and_bias(sums, static_cast<const float*>(scale.raw_data()),
                 bias.defined() ? static_cast<const float*>(bias.raw_data()) : nullptr, out);
}

void int8_gemm_s32(const Tensor& a, int32_t a_zero_point, const Tensor& w, const Tensor& out) {
  check_operands("int8_gemm_s32", a, w, out);
  NABLA_CHECK(out.dtype() == DType::i32, "int8_gemm_s32: expected an i32 output");
  if (out.numel() == 0) return;
  run_int8(a, a_zero_point, w, out);
}

}  // namespace nabla::cpu
