// Generated fused kernels (tensor/cuda/fused_codegen.hpp) and the kernels compiled at
// run time (tensor/cuda/rtc.hpp, kernel_cache.hpp), checked without a GPU: the source a
// program gets, NVRTC compiling every elementwise op of the list, and the disk cache
// that lets a new process load a kernel instead of compiling it. Running them on a GPU
// against the unfused kernels is tests/tensor/cuda_elementwise.cpp's.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "autograd/ops.hpp"
#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/cuda/fused_codegen.hpp"
#include "tensor/cuda/kernel_cache.hpp"
#include "tensor/cuda/rtc.hpp"

namespace nabla {
namespace {

// One step of `op` reading registers a, b, c.
cpu::ElementwiseStep step_of(OpId op, int a, int b = -1, int c = -1) {
  cpu::ElementwiseStep s;
  s.op = op;
  s.args[0] = a;
  s.args[1] = b;
  s.args[2] = c;
  return s;
}

// Every elementwise op of the list once, each step reading the three inputs (or its
// own arity's first ones), the result the last step.
cpu::ElementwiseProgram every_op_program() {
  const std::vector<OpId> ops = {
#define NABLA_LISTED(name) OpId::name,
      NABLA_ELEMENTWISE_OPS(NABLA_LISTED)
#undef NABLA_LISTED
  };
  cpu::ElementwiseProgram prog;
  prog.num_inputs = 3;
  prog.steps.reserve(ops.size());
  for (OpId op : ops) {
    cpu::ElementwiseStep s = step_of(op, 0, 1, 2);
    s.has_lo = s.has_hi = op == OpId::clamp;
    s.attr[0] = 0.25;
    s.attr[1] = 0.75;
    prog.steps.push_back(s);
  }
  prog.result = prog.num_inputs + static_cast<int>(prog.steps.size()) - 1;
  return prog;
}

// NABLA_KERNEL_CACHE set to a fresh folder for one test case, and put back after.
struct TemporaryKernelCache {
  std::string dir;
  std::string previous;
  bool had_previous;
  TemporaryKernelCache() {
    const char* old = std::getenv("NABLA_KERNEL_CACHE");
    had_previous = old != nullptr;
    previous = old ? old : "";
    dir = (std::filesystem::temp_directory_path() / ("nabla-kernel-cache-test-" + std::to_string(::getpid()))).string();
    std::filesystem::remove_all(dir);
    setenv("NABLA_KERNEL_CACHE", dir.c_str(), 1);
  }
  ~TemporaryKernelCache() {
    std::filesystem::remove_all(dir);
    if (had_previous)
      setenv("NABLA_KERNEL_CACHE", previous.c_str(), 1);
    else
      unsetenv("NABLA_KERNEL_CACHE");
  }
  size_t files() const {
    if (!std::filesystem::exists(dir)) return 0;
    return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(dir), {}));
  }
};

}  // namespace

TEST_CASE("a generated fused kernel reads each input as its layout asks and writes each step once") {
  cpu::ElementwiseProgram prog;
  prog.num_inputs = 3;
  prog.steps.push_back(step_of(OpId::mul, 0, 1));
  prog.steps.push_back(step_of(OpId::add, 3, 2));
  prog.steps.push_back(step_of(OpId::clamp, 4));
  prog.steps.back().has_lo = true;  // no upper bound
  prog.steps.back().attr[0] = 0.1;
  prog.result = 5;
  Tensor dense = zeros({3, 4}), number = scalar_tensor(2.0, DType::f64);
  Tensor row = to_dtype(zeros({4}), DType::b8);  // broadcast over the rows
  Tensor out = empty({3, 4}, DType::f32);
  REQUIRE(cuda::generated_kernel_fits(prog, {dense, number, row}, out));
  std::string source = cuda::fused_kernel_source(cuda::fused_kernel_spec(prog, {dense, number, row}, out));
  CHECK(source.find("#include \"scalar_ops.hpp\"") != std::string::npos);
  CHECK(source.find("using T = float;") != std::string::npos);
  CHECK(source.find("(T* out, const float* in0, const double* in1, const unsigned char* in2, long long n)") !=
        std::string::npos);
  CHECK(source.find("T r0 = T(in0[i]);") != std::string::npos);     // dense
  CHECK(source.find("T r1 = T(in1[0]);") != std::string::npos);     // one element
  CHECK(source.find("T r2 = T((in2[o2] != 0));") != std::string::npos);  // strided bool, read as 0 or 1
  CHECK(source.find("o2 += c * 1LL;") != std::string::npos);        // the row's stride; none for the rows
  CHECK(source.find("T r3 = mul<T>(r0, r1);") != std::string::npos);
  CHECK(source.find("T r4 = add<T>(r3, r2);") != std::string::npos);
  CHECK(source.find("0x1.999999999999ap-4") != std::string::npos);  // 0.1, exactly
  CHECK(source.find(" > T(") == std::string::npos);                 // no upper bound written
  CHECK(source.find("out[i] = r5;") != std::string::npos);
  // 16-bit inputs are read through their bits; an integer output is the interpreted kernel's.
  std::string halves = cuda::fused_kernel_source(
      cuda::fused_kernel_spec(prog, {to_dtype(dense, DType::f16), to_dtype(number, DType::bf16), row}, out));
  CHECK(halves.find("T r0 = T(nabla_f16_to_float(in0[i]));") != std::string::npos);
  CHECK(halves.find("T r1 = T(nabla_bf16_to_float(in1[0]));") != std::string::npos);
  CHECK_FALSE(cuda::generated_kernel_fits(prog, {dense, number, row}, empty({3, 4}, DType::i64)));
}

TEST_CASE("NVRTC compiles every elementwise op's generated step, and the disk cache keeps the binary") {
  if (!cuda::built_with_cuda()) {
    MESSAGE("this nabla is built without CUDA: no NVRTC to check");
    return;
  }
  TemporaryKernelCache cache;
  MESSAGE(cuda::load_nvrtc());
  const std::vector<cuda::SourceHeader> headers{{"scalar_ops.hpp", cuda::scalar_ops_source()}};
  cpu::ElementwiseProgram prog = every_op_program();
  Tensor x = zeros({5, 6});
  for (DType dt : {DType::f32, DType::f64}) {
    Tensor out = empty({5, 6}, dt);
    TensorList inputs{to_dtype(x, dt), transpose(to_dtype(zeros({6, 5}), DType::f16), 0, 1),
                      to_dtype(zeros({6}), DType::bf16)};
    std::string source = cuda::fused_kernel_source(cuda::fused_kernel_spec(prog, inputs, out));
    cuda::GeneratedKernelStats before = cuda::generated_kernel_stats();
    std::string cubin = cuda::compile_cuda_source(source, headers, "sm_80");
    CHECK(cubin.compare(0, 4, "\x7f" "ELF") == 0);
    CHECK(cuda::generated_kernel_stats().compiled == before.compiled + 1);
    // A new process finds the binary on disk: the same bytes, not compiled again.
    CHECK(cuda::compile_cuda_source(source, headers, "sm_80") == cubin);
    CHECK(cuda::generated_kernel_stats().disk_hits == before.disk_hits + 1);
    CHECK(cuda::generated_kernel_stats().compiled == before.compiled + 1);
  }
  CHECK(cache.files() == 2);
  // A broken source is an error with NVRTC's log, naming the architecture.
  CHECK_THROWS_WITH_AS(cuda::compile_cuda_source("extern \"C\" __global__ void k() { undefined_name(); }", headers,
                                                 "sm_80"),
                       doctest::Contains("NVRTC could not compile a generated kernel for sm_80"), Error);
}

TEST_CASE("the kernel cache reads back what it wrote, and treats a damaged or foreign file as a miss") {
  TemporaryKernelCache cache;
  CHECK_FALSE(cuda::read_cached_kernel("recipe A").has_value());
  REQUIRE(cuda::write_cached_kernel("recipe A", std::string("\0binary\xff", 8)));
  CHECK(cuda::read_cached_kernel("recipe A") == std::string("\0binary\xff", 8));
  CHECK_FALSE(cuda::read_cached_kernel("recipe B").has_value());
  // A file of another recipe under A's name (a hash collision) or a truncated one: a miss.
  std::string path = cuda::kernel_cache_path("recipe A");
  std::ofstream(path, std::ios::binary | std::ios::trunc) << "nabla-kernel 1\n8\nrecipe Bbinary";
  CHECK_FALSE(cuda::read_cached_kernel("recipe A").has_value());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << "nabla-ker";
  CHECK_FALSE(cuda::read_cached_kernel("recipe A").has_value());
  // No folder can be named: nothing is cached, and nothing fails.
  setenv("NABLA_KERNEL_CACHE", "/proc/no-such-folder/kernels", 1);
  CHECK_FALSE(cuda::write_cached_kernel("recipe C", "bytes"));
  CHECK_FALSE(cuda::read_cached_kernel("recipe C").has_value());
}

}  // namespace nabla
