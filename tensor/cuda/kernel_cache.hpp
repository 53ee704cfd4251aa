// The disk cache of the kernels compiled at run time (tensor/cuda/rtc.hpp). One file per
// kernel under kernel_cache_dir(), named by a hash of its recipe (everything that made
// it: the source, the headers' text, the GPU architecture, the compiler's version) and
// holding the recipe too, so that a hash collision reads as a miss, never as the wrong
// kernel. So a new process (a restart, the next run of a script) loads its kernels
// instead of compiling them again. Plain C++, in every build.
#pragma once
#include <optional>
#include <string>

namespace nabla::cuda {

// $NABLA_KERNEL_CACHE, else $XDG_CACHE_HOME/nabla/kernels, else
// $HOME/.cache/nabla/kernels; "" when none of them is set.
std::string kernel_cache_dir();
// The file that holds the kernel of `recipe` (under kernel_cache_dir()).
std::string kernel_cache_path(const std::string& recipe);
// The binary kept for `recipe`, if the cache has it.
std::optional<std::string> read_cached_kernel(const std::string& recipe);
// Keeps `binary` for `recipe`, written whole or not at all. A cache that cannot be
// written (no folder, read-only) is skipped: false, and the kernel is compiled again
// next time.
bool write_cached_kernel(const std::string& recipe, const std::string& binary);

}  // namespace nabla::cuda
