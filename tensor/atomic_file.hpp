// Files written whole or not at all: drawings (viz/), profiler traces. Checkpoints
// have their own writer (safetensors.cpp), which also fsyncs.
#pragma once
#include <string>

namespace nabla {

// Writes bytes to a temporary file in path's directory, then renames it over path:
// readers see the old file or the whole new one, never a partial one. Errors read
// "<what>: cannot write '<path>': <reason>".
void write_file_atomically(const std::string& path, const std::string& bytes, const std::string& what);

}  // namespace nabla
