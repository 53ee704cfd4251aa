// The NCCL backend of dist (communicator.hpp): CUDA tensors.
#include "tensor/dist/backends.hpp"
#include "tensor/error.hpp"

namespace nabla::dist {

std::shared_ptr<Communicator> make_nccl_communicator(const InitOptions&) {
  throw Error("dist.init: backend \"nccl\" is not available in this build");
}

}  // namespace nabla::dist
