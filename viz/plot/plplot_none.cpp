// The drawing backend of viz/plot in a build without PLplot (NABLA_PLPLOT=OFF): line
// plots and histograms are an error that says why; image grids still work (they need
// no backend, Note [Image grids are pixels] in render_figure.cpp).
#include "tensor/error.hpp"
#include "viz/plot/plot_backend.hpp"

namespace nabla::viz::plot::backend {

namespace {
const char* kWhy = "nabla was built without PLplot (NABLA_PLPLOT=OFF; Debian: libplplot-dev)";
}

bool available(std::string* why) {
  if (why) *why = kWhy;
  return false;
}
std::string draw_svg(const Figure&) { throw Error(std::string("plot: ") + kWhy); }
std::vector<uint8_t> draw_rgb(const Figure&) { throw Error(std::string("plot: ") + kWhy); }

}  // namespace nabla::viz::plot::backend
