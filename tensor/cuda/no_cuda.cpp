// Built instead of the .cu files when NABLA_CUDA is off: every query answers "no GPU",
// and everything that would need one says how to build nabla with CUDA.
#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/cuda/epilogue.hpp"
#include "tensor/cuda/fused.hpp"
#include "tensor/cuda/rtc.hpp"
#include "tensor/cuda/settings.hpp"
#include "tensor/error.hpp"
#include "tensor/optim.hpp"

namespace nabla::cuda {

namespace {
[[noreturn]] void not_built(const std::string& what) {
  throw Error(what + ": this nabla was built without CUDA (configure with -DNABLA_CUDA=ON and nvcc on the path)");
}
}  // namespace

int device_count() { return 0; }
bool built_with_cuda() { return false; }
std::string runtime_info() { return "CUDA: not built (configure with -DNABLA_CUDA=ON and nvcc on the path)"; }
std::string device_name(int device) { not_built("cuda:" + std::to_string(device)); }
void check_device(int device) { not_built("cuda:" + std::to_string(device)); }
std::string load_cublas() { not_built("cuBLAS"); }
CachingAllocator& device_allocator(int device) { not_built("cuda:" + std::to_string(device)); }
void* allocate(int device, size_t, const std::string&) { not_built("cuda:" + std::to_string(device)); }
void release(int, void*) {}
void* allocate_pinned(size_t) { not_built("pinned memory"); }
void release_pinned(void*) {}
void record_stream(const Device&, void*, StreamId) {}
StreamId current_stream(int) { return 0; }
void set_current_stream(int device, StreamId) { not_built("cuda:" + std::to_string(device)); }
StreamId new_stream(int device) { not_built("cuda:" + std::to_string(device)); }
void synchronize(int device) { not_built("cuda:" + std::to_string(device)); }
void synchronize_stream(int device, StreamId) { not_built("cuda:" + std::to_string(device)); }
uint64_t host_waits() { return 0; }
std::unique_ptr<RecordedGraph> record_graph(int device, const std::function<void()>&) {
  not_built("CUDA graph of cuda:" + std::to_string(device));
}
bool is_recording(int) { return false; }
void copy_into(const Tensor&, const Tensor&, bool) { not_built("copy to or from a cuda tensor"); }
void fill(const Tensor&, double) { not_built("fill of a cuda tensor"); }
Tensor to_device(const Tensor&, const Device& device, bool) { not_built(device.str()); }
Kernel find_kernel(OpId) { return {}; }
void set_allow_tf32(bool) {}  // nothing computes in TF32 without CUDA
bool allow_tf32() { return false; }
void set_benchmark(bool) {}  // no convolution runs on cuDNN without CUDA
bool benchmark() { return false; }
void set_generated_kernels(bool) {}
bool generated_kernels() { return false; }
std::string compile_cuda_source(const std::string&, const std::vector<SourceHeader>&, const std::string& arch) {
  not_built("a kernel compiled for " + arch);
}
std::string load_nvrtc() { not_built("NVRTC"); }
GeneratedKernelStats generated_kernel_stats() { return {}; }
void linear_act(const Tensor&, const Tensor&, const Tensor&, cpu::Activation, const Tensor&) {
  not_built("linear on cuda");
}
void conv2d_act(const Tensor&, const Tensor&, const Tensor&, const Attrs&, cpu::Activation, const Tensor&) {
  not_built("conv2d on cuda");
}
void bias_activation(const Tensor&, const Tensor&, int64_t, cpu::Activation) { not_built("bias_activation on cuda"); }
bool program_fits_on_cuda(const cpu::ElementwiseProgram&) { return false; }
void run_elementwise_program(const cpu::ElementwiseProgram&, const TensorList&, const Tensor&) {
  not_built("fused elementwise kernel on cuda");
}
void adam_step(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const AdamHyper&) {
  not_built("adam_step on cuda");
}
void adam_step_multi(const AdamMultiArgs&, const AdamHyper&) { not_built("adam_step_multi on cuda"); }
void sgd_step_multi(const SgdMultiArgs&, const SgdHyper&) { not_built("sgd_step_multi on cuda"); }
void adam_rows(const OptimizerRows&) { not_built("adam_step_ on cuda"); }
void sgd_rows(const OptimizerRows&) { not_built("sgd_step_ on cuda"); }

}  // namespace nabla::cuda
