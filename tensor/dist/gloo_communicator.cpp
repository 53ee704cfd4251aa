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
#include <limits>
#include <mutex>
#include <unordered_set>

#include "tensor/cpu/copy.hpp"
#include "tensor/dist/call_check.hpp"
#include "tensor/dist/liveness.hpp"
#include "tensor/origin.hpp"
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

// The dtype a reduction runs in: f16 and bf16 through f32 (Gloo has no bf16, and
// its f16 sum rounds at every step), bool through u8 (max is or, min is and; a sum
// would make bytes other than 0 and 1, so it is refused), the rest as they are.
DType reduction_dtype(DType dtype, ReduceOp op, const char* what) {
  if (dtype == DType::f16 || dtype == DType::bf16) return DType::f32;
  if (dtype != DType::b8) return dtype;
  if (op == ReduceOp::max || op == ReduceOp::min) return DType::u8;
  throw Error(std::string("dist.") + what + ": a bool tensor reduces with op=\"max\" (or) or op=\"min\" (and), not \"" +
              (op == ReduceOp::sum ? "sum" : "avg") + "\"; convert with .to(i32) to count");
}

// Calls f.template operator()<T>() with T the C++ type of `dtype` (a reduction dtype).
template <class F>
auto visit_reduction_dtype(DType dtype, F&& f) {
  switch (dtype) {
    case DType::f32: return f.template operator()<float>();
    case DType::f64: return f.template operator()<double>();
    case DType::i64: return f.template operator()<int64_t>();
    case DType::i32: return f.template operator()<int32_t>();
    case DType::i16: return f.template operator()<int16_t>();
    case DType::i8: return f.template operator()<int8_t>();
    case DType::u8: return f.template operator()<uint8_t>();
    default: throw Error(std::string("dist (gloo): no reduction in ") + dtype_name(dtype));
  }
}

size_t byte_size(const Tensor& t) { return static_cast<size_t>(t.numel()) * dtype_size(t.dtype()); }

// Gloo's collectives take one slot prefix each; point to point takes raw slots, here
// with prefixes of our own (see Note [Collective checks] for the tags).
constexpr uint8_t kPointToPointPrefix = 0x4e;
constexpr uint8_t kPointToPointCheckPrefix = 0x4f;

class GlooCommunicator : public Communicator {
 public:
  GlooCommunicator(const InitOptions& o, std::unique_ptr<dist::Store> store)
      : Communicator(o.rank, o.world_size),
        store_(std::move(store)),
        timeout_(o.timeout),
        check_every_call_(o.check_every_call) {
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
    transport_ = check_transport();
  }

  std::string backend() const override { return "gloo"; }

  void all_reduce(Tensor& t, ReduceOp op) override {
    CallSignature sig = make_signature(Collective::all_reduce, rank_, &t, static_cast<int64_t>(op));
    run(sig, [&](uint32_t tag) {
      DType work_dtype = reduction_dtype(t.dtype(), op, "all_reduce");
      if (t.numel() == 0) return;
      Tensor work = work_dtype == t.dtype() ? t : to_dtype_raw(t, work_dtype);
      visit_reduction_dtype(work_dtype, [&]<class T>() {
        gloo::AllreduceOptions opts(context_);
        opts.setOutput(work.data<T>(), static_cast<size_t>(work.numel()));
        opts.setAlgorithm(allreduce_algorithm(byte_size(work)));  // Note [Small all-reduces]
        opts.setReduceFunction(reduce_fn<T>(op));
        opts.setTag(tag);
        opts.setTimeout(timeout_);
        gloo::allreduce(opts);
        if (op == ReduceOp::avg) divide<T>(work.raw_data(), static_cast<size_t>(work.numel()), world_size_);
      });
      if (work.raw_data() != t.raw_data()) copy_into(t, work);
    });
    t.bump_version();
  }

  // Bytes, whatever the dtype: a broadcast does not compute.
  void broadcast(Tensor& t, int src) override {
    run(make_signature(Collective::broadcast, rank_, &t, -1, src), [&](uint32_t tag) {
      check_rank(src, "broadcast", "src");
      if (t.numel() == 0) return;
      gloo::BroadcastOptions opts(context_);
      opts.setOutput(static_cast<uint8_t*>(t.raw_data()), byte_size(t));
      opts.setRoot(src);
      opts.setTag(tag);
      opts.setTimeout(timeout_);
      gloo::broadcast(opts);
    });
    t.bump_version();
  }

  Tensor all_gather(const Tensor& t) override {
    Tensor out;
    run(make_signature(Collective::all_gather, rank_, &t), [&](uint32_t tag) {
      out = empty(all_gather_shape(t), t.dtype(), t.device());
      gather_bytes(t, out, tag);
    });
    return out;
  }

  void all_gather_into(const Tensor& t, Tensor& out) override {
    run(make_signature(Collective::all_gather, rank_, &t), [&](uint32_t tag) {
      check_gather_buffer(t, out);
      gather_bytes(t, out, tag);
    });
    out.bump_version();
  }

  Tensor reduce_scatter(const Tensor& t, ReduceOp op) override {
    Tensor out;
    run(make_signature(Collective::reduce_scatter, rank_, &t, static_cast<int64_t>(op)), [&](uint32_t) {
      check_scatter_shape(t);
      DType work_dtype = reduction_dtype(t.dtype(), op, "reduce_scatter");
      Shape chunk_shape = t.sizes();
      chunk_shape[0] /= world_size_;
      if (t.numel() == 0) return void(out = empty(chunk_shape, t.dtype()));
      int64_t chunk = t.numel() / world_size_;
      Tensor work = empty(t.sizes(), work_dtype);  // the algorithm reduces in place: never into t
      copy_into(work, t);
      Tensor chunk_out = empty(chunk_shape, work_dtype);
      visit_reduction_dtype(work_dtype, [&]<class T>() {
        const gloo::ReductionFunction<T>* fn = op == ReduceOp::max   ? gloo::ReductionFunction<T>::max
                                               : op == ReduceOp::min ? gloo::ReductionFunction<T>::min
                                                                     : gloo::ReductionFunction<T>::sum;
        std::vector<int> counts(static_cast<size_t>(world_size_), static_cast<int>(chunk));
        gloo::ReduceScatterHalvingDoubling<T> algorithm(context_, {work.data<T>()}, static_cast<int>(work.numel()),
                                                        counts, fn);
        algorithm.run();
        // The algorithm's distribution phase leaves this rank's reduced chunk at the
        // start of the buffer. Its own chunk position holds it too on 2 ranks only:
        // on 4, halving-doubling ends with the chunks in another order.
        std::memcpy(chunk_out.raw_data(), work.data<T>(), static_cast<size_t>(chunk) * sizeof(T));
        if (op == ReduceOp::avg) divide<T>(chunk_out.raw_data(), static_cast<size_t>(chunk), world_size_);
      });
      out = chunk_out.dtype() == t.dtype() ? chunk_out : to_dtype_raw(chunk_out, t.dtype());
    });
    return out;
  }

  void barrier() override {
    run(make_signature(Collective::barrier, rank_, nullptr), [&](uint32_t tag) {
      gloo::BarrierOptions opts(context_);
      opts.setTag(tag);
      opts.setTimeout(timeout_);
      gloo::barrier(opts);
    });
  }

  void send(const Tensor& t, int dst) override {
    check_rank(dst, "send", "dst");  // before the check: it needs a peer
    run(make_signature(Collective::send, rank_, &t, -1, dst), [&](uint32_t tag) {
      if (t.numel() == 0) return;
      auto buffer = context_->createUnboundBuffer(t.raw_data(), byte_size(t));
      buffer->send(dst, gloo::Slot::build(kPointToPointPrefix, tag));
      buffer->waitSend(timeout_);
    });
  }

  void recv(Tensor& t, int src) override {
    check_rank(src, "recv", "src");
    run(make_signature(Collective::recv, rank_, &t, -1, src), [&](uint32_t tag) {
      if (t.numel() == 0) return;
      auto buffer = context_->createUnboundBuffer(t.raw_data(), byte_size(t));
      buffer->recv(src, gloo::Slot::build(kPointToPointPrefix, tag));
      buffer->waitRecv(timeout_);
    });
    t.bump_version();
  }

 private:
  // Gloo's all-gather of t's bytes into out (world * t's bytes).
  void gather_bytes(const Tensor& t, Tensor& out, uint32_t tag) {
    if (t.numel() == 0) return;
    gloo::AllgatherOptions opts(context_);
    opts.setInput(static_cast<uint8_t*>(t.raw_data()), byte_size(t));
    opts.setOutput(static_cast<uint8_t*>(out.raw_data()), byte_size(out));
    opts.setTag(tag);
    opts.setTimeout(timeout_);
    gloo::allgather(opts);
  }

  // The transfers of Note [Collective checks], under the checks' own tag and slots.
  CheckTransport check_transport() {
    CheckTransport c;
    c.rank = rank_;
    c.world_size = world_size_;
    c.all_reduce_max = [this](int64_t* words, size_t n) {
      gloo::AllreduceOptions opts(context_);
      opts.setOutput(words, n);
      opts.setAlgorithm(gloo::AllreduceOptions::Algorithm::BCUBE);
      opts.setReduceFunction(reduce_fn<int64_t>(ReduceOp::max));
      opts.setTag(kCheckTag);
      opts.setTimeout(timeout_);
      gloo::allreduce(opts);
    };
    c.all_gather = [this](const int64_t* mine, int64_t* all, size_t n) {
      gloo::AllgatherOptions opts(context_);
      opts.setInput(const_cast<int64_t*>(mine), n);
      opts.setOutput(all, n * static_cast<size_t>(world_size_));
      opts.setTag(kCheckTag);
      opts.setTimeout(timeout_);
      gloo::allgather(opts);
    };
    c.swap = [this](int peer, const int64_t* mine, int64_t* theirs, size_t n) {
      uint64_t slot = gloo::Slot::build(kPointToPointCheckPrefix, 0);
      auto in = context_->createUnboundBuffer(theirs, n * sizeof(int64_t));
      auto out = context_->createUnboundBuffer(const_cast<int64_t*>(mine), n * sizeof(int64_t));
      in->recv(peer, slot);
      out->send(peer, slot);
      out->waitSend(timeout_);
      in->waitRecv(timeout_);
    };
    return c;
  }

  // What every call needs once the ranks agree (so that every rank passes or fails
  // it alike): a contiguous CPU tensor.
  void check_tensor(const CallSignature& s) const {
    const char* what = collective_name(s.call);
    if (s.call == Collective::barrier) return;
    if (!s.has_tensor) throw Error(std::string("dist.") + what + ": the tensor is undefined");
    if (s.device.kind != DeviceKind::cpu)
      throw Error(std::string("dist.") + what + ": backend \"gloo\" takes CPU tensors, got one on " + s.device.str() +
                  " (init with backend=\"nccl\" for GPUs)");
    if (!s.contiguous)
      throw Error(std::string("dist.") + what +
                  ": the tensor must be contiguous (call .contiguous() first: a collective writes in place)");
  }

  void check_scatter_shape(const Tensor& t) const {
    if (t.dim() == 0 || t.size(0) % world_size_ != 0)
      throw Error("dist.reduce_scatter: the first dimension of " + t.shape_str() +
                  " must be a multiple of the world size " + std::to_string(world_size_));
    if (t.numel() > std::numeric_limits<int>::max())  // Gloo's reduce-scatter counts in int
      throw Error("dist.reduce_scatter (gloo): " + std::to_string(t.numel()) + " elements are more than the " +
                  std::to_string(std::numeric_limits<int>::max()) + " it takes");
  }

  // Runs one call: one at a time (Gloo's context is not for concurrent use), numbered
  // for the heartbeats, after the ranks agree on it (Note [Collective checks]); `f`
  // gets the tag its data moves under. A backend failure becomes an Error that names
  // the ranks to blame (Note [Heartbeats]), and the group is broken after it; a
  // disagreement or a refused argument is an Error that leaves the group usable.
  template <class F>
  void run(const CallSignature& sig, F&& f) {
    const char* what = collective_name(sig.call);
    std::lock_guard<std::mutex> lock(mutex_);
    if (!broken_.empty()) throw Error("dist." + std::string(what) + ": the process group failed earlier: " + broken_);
    uint64_t number = liveness_->enter_collective(sig.describe());
    uint64_t site = call_site_key(sig);
    bool check = must_check(sig, site);
    try {
      if (check && (sig.call == Collective::send || sig.call == Collective::recv))
        check_point_to_point(transport_, sig, static_cast<int>(sig.root), number);
      else if (check)
        check_collective(transport_, sig, number);
      check_tensor(sig);
      f(data_tag(sig));
      if (check) remember(site);
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {  // gloo::Exception, gloo::EnforceNotMet, std::bad_alloc, ...
      broken_ = "collective #" + std::to_string(number) + " (" + sig.describe() + ") failed on rank " +
                std::to_string(rank_) + ": " + liveness_->diagnose(number) + " [gloo: " + first_line(e.what()) + "]";
      throw Error("dist." + std::string(what) + ": " + broken_);
    }
  }

  static std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

  // Note [Collective checks]: the calls this rank has compared with the others, by
  // DSL call site and signature; a call seen before is not compared again unless
  // NABLA_DIST_DEBUG=DETAIL. The ranks add the same calls in the same order, so they
  // skip alike; when they do not (one rank's call at a site changed, another's did
  // not), the data tags keep them apart until the timeout. reduce_scatter's
  // algorithm moves data without tags, so it is always compared.
  uint64_t call_site_key(const CallSignature& sig) const {
    return sig.digest() ^ (0x9e3779b97f4a7c15ull * (static_cast<uint64_t>(current_origin_id()) + 1));
  }
  bool must_check(const CallSignature& sig, uint64_t site) const {
    return check_every_call_ || sig.call == Collective::reduce_scatter || !verified_.count(site);
  }
  void remember(uint64_t site) {
    if (verified_.size() >= kMaxVerified) verified_.clear();  // every rank at the same call: they fill alike
    verified_.insert(site);
  }
  static constexpr size_t kMaxVerified = 1 << 16;

  std::unique_ptr<dist::Store> store_;
  Millis timeout_;
  std::shared_ptr<gloo::rendezvous::Context> context_;
  std::unique_ptr<Liveness> liveness_;
  CheckTransport transport_;
  bool check_every_call_;
  std::unordered_set<uint64_t> verified_;
  std::mutex mutex_;
  std::string broken_;
};

}  // namespace

std::shared_ptr<Communicator> make_gloo_communicator(const InitOptions& o) {
  return std::make_shared<GlooCommunicator>(o, open_store(o.init_method, o.rank == 0, o.timeout));
}

#endif

}  // namespace nabla::dist
