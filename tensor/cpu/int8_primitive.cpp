// The cached int8 primitive of int8_primitive.hpp: one execution slot per thread,
// arguments bound once and re-pointed per call (making memory objects per call costs
// about 1.5 us each), the weight packed once per version, the activations reordered
// into the primitive's layout when it wants another.
#include "tensor/cpu/int8_primitive.hpp"

#include <atomic>

namespace nabla::cpu::int8 {

using dnnl::memory;

bool int8_products_saturate() {
  // VNNI's vpdpbusd accumulates in s32: the AVX-512 ISAs from avx512_core_vnni on
  // (bf16, AMX) have it. avx2_vnni counts as saturating: oneDNN 2.6's gemm does not
  // use it for every shape, and the split is exact either way, only slower.
  static const bool saturate = [] {
    auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
    auto vnni = static_cast<unsigned>(dnnl::cpu_isa::avx512_core_vnni);
    return (isa & vnni) != vnni;
  }();
  return saturate;
}

namespace {
std::atomic<bool> split_forced{false};
}  // namespace

dnnl::memory::data_type activation_type(DType t, const char* what) {
  if (t != DType::u8 && t != DType::i8)
    throw Error(std::string(what) + ": activations must be u8 or i8, got " + dtype_name(t));
  if (t == DType::u8 || int8_split_halves()) return memory::data_type::u8;
  return memory::data_type::s8;
}

dnnl::primitive_attr int8_attributes() {
  dnnl::primitive_attr attr = onednn::attributes(Activation::none);
  attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
  return attr;
}

void Int8Primitive::init() {
  if (src != src_plain) src_reorder = dnnl::reorder(dnnl::reorder::primitive_desc(
                            onednn::engine(), src_plain, onednn::engine(), src));
  for (int t = 0; t < omp_get_num_procs(); ++t) slots.push_back(std::make_unique<ExecSlot>());
}

void Int8Primitive::execute(ExecSlot& s, const void* src_data, void* packed_weights, int32_t zero_point,
                            void* dst_data) {
  static const memory::desc zero_point_desc({1}, memory::data_type::s32, memory::format_tag::a);
  void* src_ready = const_cast<void*>(src_data);
  if (src_reorder) {
    if (!s.src_buffer.defined()) s.src_buffer = onednn::buffer(src);
    onednn::bind_argument(s.reorder_args, DNNL_ARG_FROM, src_plain, src_ready);
    onednn::bind_argument(s.reorder_args, DNNL_ARG_TO, src, s.src_buffer.raw_data());
    src_reorder->execute(onednn::stream(), s.reorder_args);
    src_ready = s.src_buffer.raw_data();
  }
  onednn::bind_argument(s.args, DNNL_ARG_SRC, src, src_ready);
  onednn::bind_argument(s.args, DNNL_ARG_WEIGHTS, weights, packed_weights);
  onednn::bind_argument(s.args, DNNL_ARG_DST, dst, dst_data);
  s.zero_point_value = zero_point;
  onednn::bind_argument(s.args, DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, zero_point_desc, &s.zero_point_value);
  if (scratchpad.get_size() > 0 && !s.scratch.defined()) {
    s.scratch = onednn::buffer(scratchpad);
    onednn::bind_argument(s.args, DNNL_ARG_SCRATCHPAD, scratchpad, s.scratch.raw_data());
  }
  prim.execute(onednn::stream(), s.args);
  onednn::stream().wait();
}

void Int8Primitive::run_in_halves(ExecSlot& s, const void* src_data, void* packed_weights, int32_t zero_point,
                                  void* dst_data) {
  size_t bytes = src_plain.get_size(), sums = dst.get_size() / sizeof(int32_t);
  if (!s.low_half.defined()) {
    s.low_half = empty({static_cast<int64_t>(bytes)}, DType::u8);
    s.high_half = empty({static_cast<int64_t>(bytes)}, DType::u8);
    s.high_sums = empty({static_cast<int64_t>(sums)}, DType::i32);
  }
  // s8 values become u8 by adding 128 (flipping the sign bit), their zero point too.
  uint8_t flip = activations == DType::i8 ? 0x80 : 0;
  const auto* in = static_cast<const uint8_t*>(src_data);
  auto* low = static_cast<uint8_t*>(s.low_half.raw_data());
  auto* high = static_cast<uint8_t*>(s.high_half.raw_data());
  uint8_t any_high = 0;
  for (size_t i = 0; i < bytes; ++i) {
    uint8_t v = in[i] ^ flip;
    low[i] = v & 0x7f;
    high[i] = v & 0x80;
    any_high |= v;
  }
  execute(s, low, packed_weights, zero_point + (flip ? 128 : 0), dst_data);
  // 7-bit activations (reduce_range, PyTorch's answer to the same saturation) need
  // one GEMM.
  if (!(any_high & 0x80)) return;
  auto* high_sums = static_cast<int32_t*>(s.high_sums.raw_data());
  execute(s, high, packed_weights, 0, high_sums);
  auto* out = static_cast<int32_t*>(dst_data);
  for (size_t i = 0; i < sums; ++i) out[i] += high_sums[i];
}

void Int8Primitive::run(const void* src_data, const Tensor& w, int32_t zero_point, void* dst_data) {
  int slot_index = omp_in_parallel() ? omp_get_thread_num() % static_cast<int>(slots.size()) : 0;
  ExecSlot& s = *slots[static_cast<size_t>(slot_index)];
  void* packed_weights = packed.data_for(weights_plain, weights, w);
  std::lock_guard<std::mutex> lock(s.mutex);
  if (split_halves)
    run_in_halves(s, src_data, packed_weights, zero_point, dst_data);
  else
    execute(s, src_data, packed_weights, zero_point, dst_data);
}

}  // namespace nabla::cpu::int8

namespace nabla::cpu {

bool int8_split_halves() { return int8::int8_products_saturate() || int8::split_forced.load(); }
void force_int8_split_halves(bool on) { int8::split_forced.store(on); }

}  // namespace nabla::cpu
