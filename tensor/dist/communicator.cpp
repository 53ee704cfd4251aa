#include "tensor/dist/communicator.hpp"

#include <cstdlib>
#include <mutex>
#include <string>

#include "tensor/dist/backends.hpp"
#include "tensor/error.hpp"

namespace nabla::dist {

namespace {

std::mutex g_default_mutex;
std::shared_ptr<Communicator> g_default;

// An integer environment variable, or -1 if unset; an Error if it is not an integer.
int int_from_env(const char* name) {
  const char* text = std::getenv(name);
  if (!text) return -1;
  char* end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || v < 0)
    throw Error(std::string("dist.init: ") + name + "='" + text + "' is not a non-negative integer");
  return static_cast<int>(v);
}

}  // namespace

ReduceOp reduce_op_from_name(const std::string& name) {
  if (name == "sum") return ReduceOp::sum;
  if (name == "avg") return ReduceOp::avg;
  if (name == "max") return ReduceOp::max;
  if (name == "min") return ReduceOp::min;
  throw Error("dist: unknown reduce op \"" + name + "\" (expected \"sum\", \"avg\", \"max\" or \"min\")");
}

InitOptions resolve_init_options(InitOptions o) {
  if (o.rank < 0) o.rank = int_from_env("RANK");
  if (o.world_size < 0) o.world_size = int_from_env("WORLD_SIZE");
  if (o.rank < 0 || o.world_size < 0)
    throw Error("dist.init: no rank and world size: pass rank= and world_size=, or set RANK and WORLD_SIZE "
                "(`nabla launch -n N file.dsl` sets them)");
  if (o.world_size < 1 || o.rank >= o.world_size)
    throw Error("dist.init: rank " + std::to_string(o.rank) + " is not in a world of size " +
                std::to_string(o.world_size));
  if (o.init_method == "env://") {
    const char* addr = std::getenv("MASTER_ADDR");
    const char* port = std::getenv("MASTER_PORT");
    if (!addr || !port)
      throw Error(std::string("dist.init: init_method \"env://\" needs MASTER_ADDR and MASTER_PORT, but ") +
                  (!addr ? "MASTER_ADDR" : "MASTER_PORT") + " is not set");
    o.init_method = std::string("tcp://") + addr + ":" + port;
  }
  if (o.timeout.count() <= 0) throw Error("dist.init: timeout must be positive");
  if (const char* debug = std::getenv("NABLA_DIST_DEBUG")) {
    std::string level(debug);
    if (level == "DETAIL" || level == "detail")
      o.check_every_call = true;
    else if (!level.empty() && level != "OFF" && level != "off")
      throw Error("dist.init: NABLA_DIST_DEBUG='" + level + "' is not OFF or DETAIL");
  }
  return o;
}

std::shared_ptr<Communicator> init_communicator(const InitOptions& options) {
  InitOptions o = resolve_init_options(options);
  if (o.backend == "gloo") return make_gloo_communicator(o);
  if (o.backend == "nccl") return make_nccl_communicator(o);
  throw Error("dist.init: unknown backend \"" + o.backend + "\" (expected \"gloo\" or \"nccl\")");
}

std::shared_ptr<Communicator> default_communicator() {
  std::lock_guard<std::mutex> lock(g_default_mutex);
  return g_default;
}

void set_default_communicator(std::shared_ptr<Communicator> c) {
  std::lock_guard<std::mutex> lock(g_default_mutex);
  g_default = std::move(c);
}

Communicator& require_communicator(const std::string& what) {
  std::shared_ptr<Communicator> c = default_communicator();
  if (!c) throw Error(what + " needs a process group: call dist.init() first");
  return *c;  // the default holds it until destroy; callers finish before that
}

void Communicator::check_rank(int r, const char* what, const char* arg) const {
  if (r < 0 || r >= world_size_)
    throw Error(std::string("dist.") + what + ": " + arg + "=" + std::to_string(r) + " is not a rank of this group (0 to " +
                std::to_string(world_size_ - 1) + ")");
  if (r == rank_ && (std::string(what) == "send" || std::string(what) == "recv"))
    throw Error(std::string("dist.") + what + ": " + arg + " is this rank (" + std::to_string(r) + ")");
}

Shape Communicator::all_gather_shape(const Tensor& t) const {
  Shape sizes = t.sizes();
  if (sizes.empty()) sizes.push_back(1);
  sizes[0] *= world_size_;
  return sizes;
}

void Communicator::check_gather_buffer(const Tensor& t, const Tensor& out) const {
  int64_t want = t.numel() * world_size_;
  if (!out.defined() || !out.is_contiguous() || out.dtype() != t.dtype() || out.device() != t.device() ||
      out.numel() != want)
    throw Error("dist.all_gather_into: the output must be a contiguous " + std::string(dtype_name(t.dtype())) +
                " tensor of " + std::to_string(want) + " elements on " + t.device().str() + " (world " +
                std::to_string(world_size_) + " x " + std::to_string(t.numel()) + "), got " +
                (out.defined() ? std::string(dtype_name(out.dtype())) + out.shape_str() + " on " + out.device().str()
                               : std::string("an undefined tensor")));
}

}  // namespace nabla::dist
