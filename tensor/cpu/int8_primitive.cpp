// The cached int8 primitive of int8_primitive.hpp: one execution slot per thread,
// arguments bound once and re-pointed per call (making memory objects per call costs
// about 1.5 us each), the weight packed once per version, the activations reordered
// into the primitive's layout when it wants another.
#include "tensor/cpu/int8_primitive.hpp"

namespace nabla::cpu::int8 {

using dnnl::memory;

dnnl::memory::data_type activation_type(DType t, const char* what) {
  if (t == DType::u8) return memory::data_type::u8;
  if (t == DType::i8) return memory::data_type::s8;
  throw Error(std::string(what) + ": activations must be u8 or i8, got " + dtype_name(t));
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

void Int8Primitive::run(const void* src_data, const Tensor& w, int32_t zero_point, void* dst_data) {
  static const memory::desc zero_point_desc({1}, memory::data_type::s32, memory::format_tag::a);
  int slot_index = omp_in_parallel() ? omp_get_thread_num() % static_cast<int>(slots.size()) : 0;
  ExecSlot& s = *slots[static_cast<size_t>(slot_index)];
  void* packed_weights = packed.data_for(weights_plain, weights, w);
  std::lock_guard<std::mutex> lock(s.mutex);
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

}  // namespace nabla::cpu::int8
