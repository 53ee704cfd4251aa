// A CUDA tensor given to plot is copied to the CPU and drawn like the same CPU tensor
// (`ctest -L cuda` on a GPU machine; without a GPU it says so and passes).
#include <doctest/doctest.h>

#include "interp/helpers.hpp"
#include "plot_svg.hpp"
#include "tensor/cuda/cuda_runtime.hpp"

TEST_CASE("plot: a CUDA tensor is drawn as the same values on the CPU (CUDA)") {
  if (nabla::cuda::device_count() == 0) {
    MESSAGE("no GPU: skipped");
    return;
  }
  nabla::testing::Session s;
  s.run("import plot\nlet images = rand(3, 1, 4, 4, dtype=f16)");
  CHECK(s.run("print(plot.image_grid(images.to(\"cuda\"))._repr_png_() == plot.image_grid(images)._repr_png_())") ==
        "true\n");
  if (!plot_test::can_draw()) return;
  s.run("let y = randn(50, dtype=f16)\nlet a = plot.lines(y)\nlet b = plot.lines(y.to(\"cuda\"))");
  CHECK(s.run("print(a._repr_svg_() == b._repr_svg_())") == "true\n");
  CHECK(s.run("print(plot.hist(y.to(\"cuda\"), bins=7)._repr_svg_() == plot.hist(y, bins=7)._repr_svg_())") == "true\n");
}
