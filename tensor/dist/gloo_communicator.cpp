// The Gloo backend of dist (communicator.hpp): CPU tensors, Gloo's own algorithms
// (BCube or ring all-reduce, halving-doubling reduce-scatter, ...) over its TCP
// transport.
#include "tensor/dist/backends.hpp"

#if NABLA_WITH_GLOO
#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/math.h>
#include <gloo/reduce_scatter.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>
#include <unistd.h>

#include <cstring>
#include <mutex>

#include "tensor/dist/liveness.hpp"
#endif
#include "tensor/error.hpp"

namespace nabla::dist {

#if !NABLA_WITH_GLOO

std::shared_ptr<Communicator> make_gloo_communicator(const InitOptions&) {
  throw Error("dist.init: this nabla was built without Gloo (Debian: libgloo-dev), so backend \"gloo\" is missing");
}

#else

namespace {

// Gloo's rendezvous reads and writes through this adapter to our store.
class GlooStore : public gloo::rendezvous::Store {
 public:
  GlooStore(dist::Store& store, Millis timeout) : store_(store), timeout_(timeout) {}
  void set(const std::string& key, const std::vector<char>& data) override { store_.set("gloo/" + key, data); }
  std::vector<char> get(const std::string& key) override { return store_.get("gloo/" + key, timeout_); }
  void wait(const std::vector<std::string>& keys) override { wait(keys, timeout_); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    for (const std::string& k : keys) store_.get("gloo/" + k, timeout);
  }

 private:
  dist::Store& store_;
  Millis timeout_;
};

// The address other ranks reach this one at: loopback when the group's store is on
// this machine, else this host's name; GLOO_SOCKET_IFNAME picks an interface, as in
// PyTorch.
gloo::transport::tcp::attr transport_attr(const std::string& store_url) {
  gloo::transport::tcp::attr attr;
  if (const char* iface = std::getenv("GLOO_SOCKET_IFNAME")) {
    attr.iface = iface;
    return attr;
  }
  bool local = store_url.rfind("file://", 0) == 0 || store_url.find("://127.") != std::string::npos ||
               store_url.find("://localhost:") != std::string::npos;
  if (local) {
    attr.hostname = "127.0.0.1";
  } else {
    char host[256] = {};
    ::gethostname(host, sizeof(host) - 1);
    attr.hostname = host;
  }
  return attr;
}

// Note [Small all-reduces]
// Gloo's ring all-reduce cuts the message into 2n segments and passes them to the
// next rank, 2(n-1) hops in each of its two phases; its BCube is recursive halving
// then doubling, 2 log2(n) exchanges (one direct exchange each way when n is prime).
// Below a few hundred KiB the time is the number of round trips, each a wake-up of
// Gloo's network thread and then of the waiting thread on each rank; on a loaded
// machine a wake-up may also wait for a scheduler tick (4 ms here), so fewer round
// trips mean fewer such stalls too. On 2 ranks of this 2-core machine BCube takes a
// 4 KiB all-reduce from 0.45-0.51 ms to 0.25 ms and 64 KiB from 0.42 to 0.26-0.29 ms
// (scripts/bench/allreduce_compare.sh). Above that BCube loses: it copies the whole
// message into scratch memory and sends it unsegmented (64 MiB: 300 ms against the
// ring's 68 ms, Gloo alone), so the ring stays there. PyTorch 1.13 uses the ring at
// every size.
constexpr size_t kBcubeMaxBytes = 256 * 1024;

gloo::AllreduceOptions::Algorithm allreduce_algorithm(size_t bytes) {
  return bytes <= kBcubeMaxBytes ? gloo::AllreduceOptions::Algorithm::BCUBE : gloo::AllreduceOptions::Algorithm::RING;
}

template <class T>
void divide(void* data, size_t n, int world) {
  T* p = static_cast<T*>(data);
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<T>(p[i] / static_cast<T>(world));
}

using ReduceFn = void (*)(void*, const void*, const void*, size_t);

template <class T>
ReduceFn reduce_fn(ReduceOp op) {
  if (op == ReduceOp::max) return &gloo::max<T>;
  if (op == ReduceOp::min) return &gloo::min<T>;
  return &gloo::sum<T>;
}

// Calls f.template operator()<T>() with T the C++ type of `dtype`.
template <class F>
auto visit_dtype(DType dtype, const char* what, F&& f) {
  switch (dtype) {
    case DType::f32: return f.template operator()<float>();
    case DType::f64: return f.template operator()<double>();
    case DType::i64: return f.template operator()<int64_t>();
    case DType::i32: return f.template operator()<int32_t>();
    default:
      throw Error(std::string("dist.") + what + " (gloo): " + dtype_name(dtype) +
                  " tensors are not supported (f32, f64, i64, i32); convert with .to(f32)");
  }
}

class GlooCommunicator : public Communicator {
 public:
  GlooCommunicator(const InitOptions& o, std::unique_ptr<dist::Store> store)
      : Communicator(o.rank, o.world_size), store_(std::move(store)), timeout_(o.timeout) {
    GlooStore gloo_store(*store_, timeout_);
    auto device = gloo::transport::tcp::CreateDevice(transport_attr(o.init_method));
    auto context = std::make_shared<gloo::rendezvous::Context>(rank_, world_size_);
    context->setTimeout(timeout_);
    try {
      context->connectFullMesh(gloo_store, device);
    } catch (const std::exception& e) {
      throw Error("dist.init: rank " + std::to_string(rank_) + " could not connect to the other " +
                  std::to_string(world_size_ - 1) + " ranks through " + store_->describe() + ": " + e.what());
    }
    context_ = std::move(context);
    liveness_ = std::make_unique<Liveness>(o.init_method, rank_, world_size_, timeout_);
  }

  std::string backend() const override { return "gloo"; }

  void all_reduce(Tensor& t, ReduceOp op) override {
    check(t, "all_reduce");
    run("all_reduce", t, [&] {
      visit_dtype(t.dtype(), "all_reduce", [&]<class T>() {
        gloo::AllreduceOptions opts(context_);
        opts.setOutput(t.data<T>(), static_cast<size_t>(t.numel()));
        opts.setAlgorithm(allreduce_algorithm(static_cast<size_t>(t.numel()) * sizeof(T)));  // Note [Small all-reduces]
        opts.setReduceFunction(reduce_fn<T>(op));
        opts.setTimeout(timeout_);
        gloo::allreduce(opts);
        if (op == ReduceOp::avg) divide<T>(t.raw_data(), static_cast<size_t>(t.numel()), world_size_);
      });
    });
    t.bump_version();
  }

  void broadcast(Tensor& t, int src) override {
    check(t, "broadcast");
    check_rank(src, "broadcast", "src");
    run("broadcast", t, [&] {
      visit_dtype(t.dtype(), "broadcast", [&]<class T>() {
        gloo::BroadcastOptions opts(context_);
        opts.setOutput(t.data<T>(), static_cast<size_t>(t.numel()));
        opts.setRoot(src);
        opts.setTimeout(timeout_);
        gloo::broadcast(opts);
      });
    });
    t.bump_version();
  }

  Tensor all_gather(const Tensor& t) override {
    check(t, "all_gather");
    Tensor out = empty(all_gather_shape(t), t.dtype(), t.device());
    run("all_gather", t, [&] {
      visit_dtype(t.dtype(), "all_gather", [&]<class T>() {
        gloo::AllgatherOptions opts(context_);
        opts.setInput(t.data<T>(), static_cast<size_t>(t.numel()));
        opts.setOutput(out.data<T>(), static_cast<size_t>(out.numel()));
        opts.setTimeout(timeout_);
        gloo::allgather(opts);
      });
    });
    return out;
  }

  Tensor reduce_scatter(const Tensor& t, ReduceOp op) override {
    check(t, "reduce_scatter");
    if (t.dim() == 0 || t.size(0) % world_size_ != 0)
      throw Error("dist.reduce_scatter: the first dimension of " + t.shape_str() + " must be a multiple of the world size " +
                  std::to_string(world_size_));
    Shape chunk_sizes = t.sizes();
    chunk_sizes[0] /= world_size_;
    int64_t chunk = t.numel() / world_size_;
    Tensor work = empty(t.sizes(), t.dtype());
    std::memcpy(work.raw_data(), t.raw_data(), static_cast<size_t>(t.numel()) * dtype_size(t.dtype()));
    Tensor out = empty(chunk_sizes, t.dtype());
    run("reduce_scatter", t, [&] {
      visit_dtype(t.dtype(), "reduce_scatter", [&]<class T>() {
        const gloo::ReductionFunction<T>* fn = op == ReduceOp::max   ? gloo::ReductionFunction<T>::max
                                               : op == ReduceOp::min ? gloo::ReductionFunction<T>::min
                                                                     : gloo::ReductionFunction<T>::sum;
        std::vector<int> counts(static_cast<size_t>(world_size_), static_cast<int>(chunk));
        gloo::ReduceScatterHalvingDoubling<T> algorithm(context_, {work.data<T>()}, static_cast<int>(t.numel()),
                                                        counts, fn);
        algorithm.run();
        std::memcpy(out.raw_data(), work.data<T>() + chunk * rank_, static_cast<size_t>(chunk) * sizeof(T));
        if (op == ReduceOp::avg) divide<T>(out.raw_data(), static_cast<size_t>(chunk), world_size_);
      });
    });
    return out;
  }

  void barrier() override {
    run("barrier", Tensor(), [&] {
      gloo::BarrierOptions opts(context_);
      opts.setTimeout(timeout_);
      gloo::barrier(opts);
    });
  }

  void send(const Tensor& t, int dst) override {
    check(t, "send");
    check_rank(dst, "send", "dst");
    run("send", t, [&] {
      auto buffer = unbound_buffer(t);
      buffer->send(dst, kPointToPointSlot);
      buffer->waitSend(timeout_);
    });
  }

  void recv(Tensor& t, int src) override {
    check(t, "recv");
    check_rank(src, "recv", "src");
    run("recv", t, [&] {
      auto buffer = unbound_buffer(t);
      buffer->recv(src, kPointToPointSlot);
      buffer->waitRecv(timeout_);
    });
    t.bump_version();
  }

 private:
  static constexpr uint64_t kPointToPointSlot = 0x4e41424c41ull;  // "NABLA": apart from the collectives' slots

  // t's bytes as a buffer for Gloo's point-to-point transfers.
  std::unique_ptr<gloo::transport::UnboundBuffer> unbound_buffer(const Tensor& t) {
    return context_->createUnboundBuffer(t.raw_data(), static_cast<size_t>(t.numel()) * dtype_size(t.dtype()));
  }

  void check(const Tensor& t, const char* what) const {
    if (!t.defined()) throw Error(std::string("dist.") + what + ": the tensor is undefined");
    if (t.device().kind != DeviceKind::cpu)
      throw Error(std::string("dist.") + what + ": backend \"gloo\" takes CPU tensors, got one on " +
                  t.device().str() + " (init with backend=\"nccl\" for GPUs)");
    if (!t.is_contiguous()) throw Error(std::string("dist.") + what + ": the tensor must be contiguous");
  }

  // Runs one collective: one at a time (Gloo's context is not for concurrent use), its
  // number recorded for the heartbeats, and a failure turned into an Error that names
  // the ranks to blame (Note [Heartbeats]); the group is broken after it.
  template <class F>
  void run(const char* what, const Tensor& t, F&& f) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!broken_.empty()) throw Error("dist." + std::string(what) + ": the process group failed earlier: " + broken_);
    uint64_t number = liveness_->enter_collective();
    try {
      f();
    } catch (const gloo::Exception& e) {
      std::string size = t.defined() ? " of " + t.shape_str() + " " + dtype_name(t.dtype()) : "";
      broken_ = "collective #" + std::to_string(number) + " (" + what + size + ") failed on rank " +
                std::to_string(rank_) + ": " + liveness_->diagnose(number) + " [gloo: " + first_line(e.what()) + "]";
      throw Error("dist." + std::string(what) + ": " + broken_);
    }
  }

  static std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

  std::unique_ptr<dist::Store> store_;
  Millis timeout_;
  std::shared_ptr<gloo::rendezvous::Context> context_;
  std::unique_ptr<Liveness> liveness_;
  std::mutex mutex_;
  std::string broken_;
};

}  // namespace

std::shared_ptr<Communicator> make_gloo_communicator(const InitOptions& o) {
  return std::make_shared<GlooCommunicator>(o, open_store(o.init_method, o.rank == 0, o.timeout));
}

#endif

}  // namespace nabla::dist
