// Reading a kernel's connection file (the JSON that Jupyter writes for each kernel
// it starts: transport, ip, the five ports, the signing key and scheme) into xeus's
// configuration, with an error that names the file and the field when it is wrong.
#pragma once
#include <string>

#include "xeus/xkernel_configuration.hpp"

namespace nabla::jupyter {

// The configuration in `path`; throws std::runtime_error "PATH: ..." naming what
// is missing or malformed (not JSON, a port that is not a number, no key).
xeus::xconfiguration read_connection_file(const std::string& path);

}  // namespace nabla::jupyter
