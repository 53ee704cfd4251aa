// `nabla kernel` and `nabla jupyter` in a nabla built without xeus
// (-DNABLA_JUPYTER=OFF, as the GPU machine's build is): a clear error, status 2.
#include <cstdio>

#include "interp/jupyter/kernel.hpp"

namespace nabla::jupyter {

namespace {

int not_built(const char* command) {
  std::fprintf(stderr,
               "nabla %s: this nabla was built without the Jupyter kernel (-DNABLA_JUPYTER=OFF); build it with "
               "xeus installed (Debian: xeus-dev, scripts/setup.sh)\n",
               command);
  return 2;
}

}  // namespace

int run_kernel_command(Interpreter&, const std::vector<std::string>&) { return not_built("kernel"); }

int run_jupyter_command(const std::vector<std::string>&) { return not_built("jupyter"); }

}  // namespace nabla::jupyter
