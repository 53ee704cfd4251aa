// The backends' constructors, for init_communicator (communicator.cpp). Each throws
// an Error that says so when nabla was built without its library.
#pragma once
#include "tensor/dist/communicator.hpp"

namespace nabla::dist {

std::shared_ptr<Communicator> make_gloo_communicator(const InitOptions& options);  // gloo_communicator.cpp
std::shared_ptr<Communicator> make_nccl_communicator(const InitOptions& options);  // nccl_communicator.cpp

}  // namespace nabla::dist
