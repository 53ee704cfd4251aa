// What the int8 linear (int8_gemm.cpp) and the int8 convolution (int8_conv.cpp) share:
// a cached oneDNN primitive that writes the exact s32 sums of u8/s8 activations times
// s8 weights, run from any thread with the activations' zero point given at run
// time, and the epilogue of Note [Int8 epilogue] (quantized.hpp) that turns the sums
// into f32 or requantized u8 outputs. Internal to tensor/cpu.
#pragma once
#include <algorithm>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "tensor/cpu/onednn.hpp"
#include "tensor/cpu/quantized.hpp"

namespace nabla::cpu::int8 {

// Note [Int8 without VNNI]
// Without VNNI (AVX2; AVX-512 before Cascade Lake), oneDNN's int8 kernels multiply u8
// by s8 with vpmaddubsw, which adds each pair of adjacent products into a saturating
// int16: 255 * -128 + 255 * -128 = -65280 comes out as -32768, and s8 activations,
// which oneDNN first shifts to u8 by adding 128, saturate the same way. oneDNN
// documents this and asks for 7-bit data (PyTorch's fbgemm has reduce_range for it).
// nabla keeps the full 8-bit range exact instead. On such CPUs the primitives take u8
// activations; each byte v (an s8 value plus 128, its zero point moved with it) is
// split into v & 0x7f and v & 0x80, the primitive runs on each half (the high half
// with zero point 0), and the two s32 sums are added. Every pair of products then
// fits in int16: |127 * -128 * 2| and |128 * -128 * 2| are at most 32768, and -32768
// is representable. It costs a second GEMM on those CPUs only; the padding of a
// convolution still adds nothing (it counts as the zero point in the low half and is
// 0 in the high half).
//
// True when this CPU's int8 products saturate (oneDNN's ISA has no VNNI); the
// primitives split when this is true or a test forces it (int8_split_halves()).
bool int8_products_saturate();

// oneDNN's type of u8 or i8 activations as the primitives take them: u8 for both
// when int8_split_halves() (Note [Int8 without VNNI]); `what` names the caller in
// the error.
dnnl::memory::data_type activation_type(DType t, const char* what);

// What one thread needs to run a shared primitive: its argument objects, its
// scratchpad, the zero point's buffer, and (when the primitive wants the activations
// in another layout) the reordered activations. A caller on OpenMP thread t uses
// slot t (the mutex only guards against two regions using the same slot at once).
struct ExecSlot {
  std::mutex mutex;
  std::unordered_map<int, dnnl::memory> args, reorder_args;
  Tensor scratch, src_buffer;
  int32_t zero_point_value = 0;
  Tensor low_half, high_half, high_sums;  // Note [Int8 without VNNI]
};

// A primitive (matmul or convolution) with s32 output and a run-time src zero point.
// `src_plain` and `weights_plain` are the layouts nabla holds; `src` and `weights`
// the ones the primitive chose. The weight is reordered once per weight version
// (onednn::PackedWeights), the activations on every call when their layouts differ.
// `activations` is the dtype of the caller's activations (u8 or i8).
struct Int8Primitive {
  dnnl::primitive prim;
  DType activations;
  bool split_halves;  // Note [Int8 without VNNI]
  dnnl::memory::desc src_plain, src, weights_plain, weights, dst, scratchpad;
  std::optional<dnnl::reorder> src_reorder;
  onednn::PackedWeights packed;
  std::vector<std::unique_ptr<ExecSlot>> slots;

  // Takes the chosen layouts from pd (a matmul's or a convolution's primitive_desc).
  template <class PrimitiveDesc>
  Int8Primitive(dnnl::primitive prim_, const PrimitiveDesc& pd, DType activations_,
                const dnnl::memory::desc& src_plain_, const dnnl::memory::desc& weights_plain_)
      : prim(std::move(prim_)),
        activations(activations_),
        split_halves(int8_split_halves()),
        src_plain(src_plain_),
        src(pd.src_desc()),
        weights_plain(weights_plain_),
        weights(pd.weights_desc()),
        dst(pd.dst_desc()),
        scratchpad(pd.scratchpad_desc()) {
    init();
  }

  // dst = the sums of src (in src_plain's layout) and w (a tensor in weights_plain's
  // layout) less zero_point times the weights' sums.
  void run(const void* src_data, const Tensor& w, int32_t zero_point, void* dst_data);

 private:
  void init();
  // One execution on activations in src_plain's layout, the weight already packed.
  void execute(ExecSlot& s, const void* src_data, void* packed_weights, int32_t zero_point, void* dst_data);
  // run() on a CPU whose int8 products saturate (Note [Int8 without VNNI]).
  void run_in_halves(ExecSlot& s, const void* src_data, void* packed_weights, int32_t zero_point, void* dst_data);
};

// The attributes of an int8 primitive: a user scratchpad and the src zero point
// given at run time (DNNL_RUNTIME_S32_VAL).
dnnl::primitive_attr int8_attributes();

// A cache of primitives keyed by everything that defines them; it starts over when
// full (a run with ever-changing shapes must not grow it without bound) and callers
// keep theirs alive by shared_ptr.
template <class Key>
class Int8Cache {
 public:
  // The primitive of `key`, made by make() on a miss; `what` names the op in the error.
  template <class Make>
  std::shared_ptr<Int8Primitive> get(const Key& key, Make&& make, const char* what) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    try {
      if (cache_.size() >= kMaxCached) cache_.clear();
      return cache_.emplace(key, make()).first->second;
    } catch (const dnnl::error& e) {
      throw Error(std::string(what) + ": oneDNN could not create the int8 primitive: " + e.what());
    }
  }

 private:
  static constexpr size_t kMaxCached = 256;
  std::mutex mutex_;
  std::map<Key, std::shared_ptr<Int8Primitive>> cache_;
};

// How an int8 kernel splits M rows (a linear's rows, a convolution's images) among
// threads: each of `threads` threads owns a block of rows from start to end (Note
// [Row-parallel int8 linear] in int8_gemm.cpp); with one thread, oneDNN may still
// thread the primitive itself when it is big (`inner`: a single row of a large layer).
struct RowPlan {
  int threads = 1;
  bool inner = false;
};

// Rows [r0, r1) of thread t of T (as even as possible).
inline std::pair<int64_t, int64_t> row_block(int64_t M, int T, int t) {
  int64_t base = M / T, extra = M % T;
  int64_t r0 = t * base + std::min<int64_t>(t, extra);
  return {r0, r0 + base + (t < extra ? 1 : 0)};
}

// Runs body(t, r0, r1) on the plan's threads in one OpenMP region (one thread: on
// this one), each thread with oneDNN limited to itself unless the plan says `inner`.
// Exceptions come back to the caller.
template <class Body>
void run_row_blocks(int64_t M, RowPlan plan, Body&& body) {
  int T = plan.threads;
  if (T == 1) {
    onednn::SerialIfSmall one_thread(plan.inner ? onednn::kSerialMacs : 0);  // 0: always one thread
    return body(0, int64_t{0}, M);
  }
  std::exception_ptr error;
  std::mutex error_mutex;
#pragma omp parallel num_threads(T)
  {
    int t = omp_get_thread_num();
    auto [r0, r1] = row_block(M, T, t);
    omp_set_num_threads(1);  // this thread's nested regions (and oneDNN's plans): one thread
    try {
      body(t, r0, r1);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

// The epilogue (Note [Int8 epilogue]) with its tensors as pointers: weight_scale and
// bias (or null) f32 [channels]; out is f32, or u8 when output_scale > 0.
struct EpiloguePointers {
  float input_scale;
  const float* weight_scale;
  const float* bias;
  bool relu;
  float output_scale;
  int32_t output_zero_point;
};
EpiloguePointers pointers(const Int8Epilogue& e);

// rows x channels sums, row-major, into out of the same shape (a linear's output).
void epilogue_rows(const int32_t* sums, int64_t rows, int64_t channels, const EpiloguePointers& e, void* out);

// One image's sums in NHWC ([positions, channels]) into its output in NCHW
// ([channels, positions]): a convolution's output, transposed in the same pass.
void epilogue_nhwc_to_nchw(const int32_t* sums, int64_t positions, int64_t channels, const EpiloguePointers& e,
                           void* out);

}  // namespace nabla::cpu::int8
