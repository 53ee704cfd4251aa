// The CUDA seam answers on any machine: without a GPU (or without a CUDA build) it
// says so; with one, its kernel round trip must succeed.
#include <doctest/doctest.h>

#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/error.hpp"

TEST_CASE("the CUDA runtime query never requires a GPU") {
  std::string info = nabla::cuda::runtime_info();
  CHECK_FALSE(info.empty());
  if (nabla::cuda::device_count() == 0) {
    MESSAGE("no GPU here: skipping the kernel round trip (" << info << ")");
    CHECK((info.find("no GPU") != std::string::npos || info.find("not built") != std::string::npos));
    return;
  }
  CHECK(info.find("kernel check ok") != std::string::npos);
}

TEST_CASE("cuBLAS opens on demand, with every entry point, GPU or not") {
  if (!nabla::cuda::built_with_cuda()) {
    CHECK_THROWS_WITH_AS(nabla::cuda::load_cublas(), doctest::Contains("built without CUDA"), nabla::Error);
    return;
  }
  // Throws, naming the file and the symbol, when a library or an entry point is missing.
  std::string opened = nabla::cuda::load_cublas();
  MESSAGE(opened);
  CHECK(opened.rfind("cuBLAS ", 0) == 0);
  CHECK(opened.find("libcublas") != std::string::npos);
  CHECK(opened.find("cuBLASLt ") != std::string::npos);
  CHECK(nabla::cuda::load_cublas() == opened);  // opened once
}

TEST_CASE("set_current_stream takes only the streams new_stream made") {
  if (nabla::cuda::device_count() == 0) {
    MESSAGE("no GPU here: skipping the stream checks");
    return;
  }
  CHECK_THROWS_WITH_AS(nabla::cuda::set_current_stream(0, 12345), doctest::Contains("is not a stream of this device"),
                       nabla::Error);
  nabla::cuda::StreamId s = nabla::cuda::new_stream(0);
  nabla::cuda::set_current_stream(0, s);
  CHECK(nabla::cuda::current_stream(0) == s);
  nabla::cuda::set_current_stream(0, 0);
  CHECK(nabla::cuda::current_stream(0) == 0);
}
