// The NCCL backend of dist (communicator.hpp): CUDA tensors, NCCL's own algorithms
// over NVLink, PCIe or the network. One rank drives one GPU (LOCAL_RANK picks it).
//
// Note [NCCL waits]
// NCCL launches a kernel and returns; a peer that died or hangs leaves that kernel
// spinning forever. So each call here (1) orders NCCL's work after what is queued on
// the caller's current stream (an event), (2) runs it on a stream of the
// communicator's own, so that backward's kernels on the caller's stream can run
// beside a DDP bucket's all-reduce, and (3) waits on the host until it is done,
// polling cudaEventQuery and ncclCommGetAsyncError. A peer's closed connection shows
// up as an async error, a hang as the timeout passing; either way the communicator is
// aborted (which stops NCCL's kernel and frees the GPU) and the Error names the
// collective and the ranks to blame (Note [Heartbeats], liveness.hpp). The host
// wait makes dist's collectives synchronous on NCCL as they are on Gloo: a result
// is ready when the call returns. The timeout counts from the call, so it covers the
// caller's work still queued before the collective too (as PyTorch's watchdog's does).
// The communicator is non-blocking (config.blocking = 0), so ncclCommInitRank cannot
// hang past the timeout either.
#include "tensor/dist/backends.hpp"

#if NABLA_WITH_NCCL
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/dist/call_check.hpp"
#include "tensor/dist/liveness.hpp"
#endif
#include "tensor/error.hpp"

namespace nabla::dist {

#if !NABLA_WITH_NCCL

std::shared_ptr<Communicator> make_nccl_communicator(const InitOptions&) {
  throw Error(
      "dist.init: backend \"nccl\" is missing: this nabla was built without NCCL (CMake looks for nccl.h and "
      "libnccl beside the CUDA toolkit); backend=\"gloo\" works on CPU tensors");
}

#else

namespace {

using Clock = std::chrono::steady_clock;

const char* const kUniqueIdKey = "nccl/unique_id";

void check_cuda(cudaError_t status, const std::string& what) {
  if (status == cudaSuccess) return;
  cudaGetLastError();  // clear a non-sticky error so the next CUDA call does not report it
  throw Error("dist (nccl): " + what + " failed: " + cudaGetErrorString(status));
}

// "NCCL error 'remote process exited or there was a network error' (6): <detail>".
std::string nccl_failure(ncclResult_t result, ncclComm_t comm) {
  std::string text = std::string("NCCL error '") + ncclGetErrorString(result) + "' (" + std::to_string(result) + ")";
  const char* detail = ncclGetLastError(comm);
  if (detail && *detail) text += ": " + std::string(detail);
  return text;
}

// Sets the calling thread's CUDA device for a scope (NCCL and cudart calls act on it).
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    cudaGetDevice(&previous_);
    if (previous_ != device) check_cuda(cudaSetDevice(device), "cudaSetDevice(" + std::to_string(device) + ")");
  }
  ~DeviceScope() { cudaSetDevice(previous_); }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
};

// The NCCL type a reduction runs in. A bool reduces as bytes with max (or) and min
// (and); a sum would make bytes other than 0 and 1, so it is refused.
ncclDataType_t nccl_dtype(DType dtype, ReduceOp op, const char* what) {
  switch (dtype) {
    case DType::f32: return ncclFloat32;
    case DType::f64: return ncclFloat64;
    case DType::f16: return ncclFloat16;
    case DType::bf16: return ncclBfloat16;
    case DType::i64: return ncclInt64;
    case DType::i32: return ncclInt32;
    case DType::i8: return ncclInt8;
    case DType::u8: return ncclUint8;
    case DType::i16: break;  // NCCL has no 16-bit integer (PyTorch's NCCL refuses int16 too)
    case DType::b8:
      if (op == ReduceOp::max || op == ReduceOp::min) return ncclUint8;
      throw Error(std::string("dist.") + what + ": a bool tensor reduces with op=\"max\" (or) or op=\"min\" (and); " +
                  "convert with .to(i32) to count");
  }
  throw Error(std::string("dist.") + what + " (nccl): " + dtype_name(dtype) + " tensors are not supported");
}

// A failure of one of the checks' transfers (Note [Collective checks]): NCCL's text.
struct CheckFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return ncclSum;
    case ReduceOp::avg: return ncclAvg;
    case ReduceOp::max: return ncclMax;
    case ReduceOp::min: return ncclMin;
  }
  return ncclSum;
}

size_t byte_size(const Tensor& t) { return static_cast<size_t>(t.numel()) * dtype_size(t.dtype()); }

// An integer environment variable, or `fallback` when unset or not a number.
int env_int(const char* name, int fallback) {
  const char* text = std::getenv(name);
  if (!text || !*text) return fallback;
  char* end = nullptr;
  long v = std::strtol(text, &end, 10);
  return *end == '\0' && v >= 0 ? static_cast<int>(v) : fallback;
}

// The GPU of this rank: LOCAL_RANK (as `nabla launch` and torchrun set it), else the
// rank, modulo the GPUs of this machine. NCCL refuses two ranks on one GPU, so more
// local ranks than GPUs is an Error that says so before NCCL does, more obscurely.
int device_of_rank(int rank) {
  int count = cuda::device_count();
  if (count == 0) {
    try {
      cuda::check_device(0);
    } catch (const Error& e) {
      throw Error(std::string("dist.init: backend \"nccl\" runs on GPUs, but ") + e.what() +
                  "; backend=\"gloo\" works on CPU tensors");
    }
  }
  int local_ranks = env_int("LOCAL_WORLD_SIZE", 1);
  if (local_ranks > count)
    throw Error("dist.init: backend \"nccl\" needs a GPU per rank, but LOCAL_WORLD_SIZE=" + std::to_string(local_ranks) +
                " ranks share this machine's " + std::to_string(count) + " GPU(s)");
  return env_int("LOCAL_RANK", rank) % count;
}

// Rank 0 makes the group's id and publishes it in the store; the others read it.
ncclUniqueId exchange_unique_id(Store& store, int rank, Millis timeout) {
  ncclUniqueId id{};
  if (rank == 0) {
    ncclResult_t r = ncclGetUniqueId(&id);
    if (r != ncclSuccess) throw Error("dist.init: ncclGetUniqueId failed: " + nccl_failure(r, nullptr));
    const char* bytes = reinterpret_cast<const char*>(&id);
    store.set(kUniqueIdKey, Bytes(bytes, bytes + sizeof id));
    return id;
  }
  Bytes bytes = store.get(kUniqueIdKey, timeout);
  if (bytes.size() != sizeof id)
    throw Error("dist.init: the NCCL id in the store " + store.describe() + " has " + std::to_string(bytes.size()) +
                " bytes, expected " + std::to_string(sizeof id) + " (a store left over from another group?)");
  std::memcpy(&id, bytes.data(), sizeof id);
  return id;
}

class NcclCommunicator : public Communicator {
 public:
  NcclCommunicator(const InitOptions& o, int device, std::unique_ptr<Store> store)
      : Communicator(o.rank, o.world_size), store_(std::move(store)), timeout_(o.timeout), device_(device) {
    DeviceScope scope(device_);
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    check_cuda(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming), "cudaEventCreate");
    check_cuda(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming), "cudaEventCreate");
    barrier_buffer_ = zeros({1}, DType::f32, cuda_device(device_));
    check_buffer_ = zeros({static_cast<int64_t>(kCheckWords)}, DType::i64, cuda_device(device_));
    transport_ = check_transport();
    join(exchange_unique_id(*store_, rank_, timeout_));
    try {
      liveness_ = std::make_unique<Liveness>(o.init_method, rank_, world_size_, timeout_);
    } catch (...) {  // no destructor runs for a half-made object: free NCCL's resources here
      ncclCommAbort(comm_);
      throw;
    }
  }

  // Errors are ignored here, not thrown: after a kernel fault every CUDA call fails,
  // and a destructor that throws ends the process.
  ~NcclCommunicator() override {
    int previous = 0;
    cudaGetDevice(&previous);
    cudaSetDevice(device_);
    if (comm_) leave();
    // After an abort NCCL's work may still be queued; CUDA frees these when it is done.
    cudaEventDestroy(done_);
    cudaEventDestroy(ready_);
    cudaStreamDestroy(stream_);
    cudaSetDevice(previous);
  }

  std::string backend() const override { return "nccl"; }

  void all_reduce(Tensor& t, ReduceOp op) override {
    run(make_signature(Collective::all_reduce, rank_, &t, static_cast<int64_t>(op)), t, [&](cudaStream_t s) {
      ncclDataType_t type = nccl_dtype(t.dtype(), op, "all_reduce");
      return ncclAllReduce(t.raw_data(), t.raw_data(), static_cast<size_t>(t.numel()), type, nccl_op(op), comm_, s);
    });
    t.bump_version();
  }

  // Bytes, whatever the dtype: a broadcast does not compute.
  void broadcast(Tensor& t, int src) override {
    run(make_signature(Collective::broadcast, rank_, &t, -1, src), t, [&](cudaStream_t s) {
      check_rank(src, "broadcast", "src");
      return ncclBroadcast(t.raw_data(), t.raw_data(), byte_size(t), ncclUint8, src, comm_, s);
    });
    t.bump_version();
  }

  Tensor all_gather(const Tensor& t) override {
    Tensor out;
    run(make_signature(Collective::all_gather, rank_, &t), t, [&](cudaStream_t s) {
      out = empty(all_gather_shape(t), t.dtype(), t.device());
      return ncclAllGather(t.raw_data(), out.raw_data(), byte_size(t), ncclUint8, comm_, s);
    });
    return out;
  }

  void all_gather_into(const Tensor& t, Tensor& out) override {
    run(make_signature(Collective::all_gather, rank_, &t), t, [&](cudaStream_t s) {
      check_gather_buffer(t, out);
      return ncclAllGather(t.raw_data(), out.raw_data(), byte_size(t), ncclUint8, comm_, s);
    });
    out.bump_version();
  }

  Tensor reduce_scatter(const Tensor& t, ReduceOp op) override {
    Tensor out;
    run(make_signature(Collective::reduce_scatter, rank_, &t, static_cast<int64_t>(op)), t, [&](cudaStream_t s) {
      if (t.dim() == 0 || t.size(0) % world_size_ != 0)
        throw Error("dist.reduce_scatter: the first dimension of " + t.shape_str() +
                    " must be a multiple of the world size " + std::to_string(world_size_));
      ncclDataType_t type = nccl_dtype(t.dtype(), op, "reduce_scatter");
      Shape chunk_sizes = t.sizes();
      chunk_sizes[0] /= world_size_;
      out = empty(chunk_sizes, t.dtype(), t.device());
      return ncclReduceScatter(t.raw_data(), out.raw_data(), static_cast<size_t>(out.numel()), type, nccl_op(op),
                               comm_, s);
    });
    return out;
  }

  // NCCL has no barrier: an all-reduce of one number needs every rank, as one would.
  void barrier() override {
    run(make_signature(Collective::barrier, rank_, nullptr), Tensor(), [&](cudaStream_t s) {
      void* p = barrier_buffer_.raw_data();
      return ncclAllReduce(p, p, 1, ncclFloat32, ncclSum, comm_, s);
    });
  }

  void send(const Tensor& t, int dst) override {
    check_rank(dst, "send", "dst");  // before the check: it needs a peer
    run(make_signature(Collective::send, rank_, &t, -1, dst), t,
        [&](cudaStream_t s) { return ncclSend(t.raw_data(), byte_size(t), ncclUint8, dst, comm_, s); });
  }

  void recv(Tensor& t, int src) override {
    check_rank(src, "recv", "src");
    run(make_signature(Collective::recv, rank_, &t, -1, src), t,
        [&](cudaStream_t s) { return ncclRecv(t.raw_data(), byte_size(t), ncclUint8, src, comm_, s); });
    t.bump_version();
  }

 private:
  // ncclCommInitRank, non-blocking, so that a rank that never comes is a timeout.
  void join(const ncclUniqueId& id) {
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    ncclResult_t r = ncclCommInitRankConfig(&comm_, world_size_, id, rank_, &config);
    std::string failure = r == ncclSuccess || r == ncclInProgress ? settle(Clock::now() + timeout_) : nccl_failure(r, comm_);
    if (failure.empty()) return;
    if (comm_) ncclCommAbort(comm_);
    comm_ = nullptr;
    throw Error("dist.init: rank " + std::to_string(rank_) + " could not set up NCCL on cuda:" + std::to_string(device_) +
                " with the other " + std::to_string(world_size_ - 1) + " ranks (store " + store_->describe() + "): " + failure);
  }

  // Finalize flushes and frees the communicator in step with the peers; one whose
  // finalize does not settle within the timeout is aborted instead. (A broken one was
  // aborted when it broke.)
  void leave() {
    ncclResult_t r = ncclCommFinalize(comm_);
    bool clean = (r == ncclSuccess || r == ncclInProgress) && settle(Clock::now() + timeout_).empty();
    if (clean)
      ncclCommDestroy(comm_);
    else
      ncclCommAbort(comm_);
    comm_ = nullptr;
  }

  // Waits until the communicator's pending call (init, finalize, or an enqueue) is no
  // longer in progress: "" on success, else what went wrong.
  std::string settle(Clock::time_point deadline) {
    for (int polls = 0;; ++polls) {
      ncclResult_t state = ncclInProgress;
      ncclResult_t r = ncclCommGetAsyncError(comm_, &state);
      if (r != ncclSuccess) return nccl_failure(r, comm_);
      if (state == ncclSuccess) return "";
      if (state != ncclInProgress) return nccl_failure(state, comm_);
      if (Clock::now() >= deadline) return "no answer within " + std::to_string(timeout_.count()) + " ms";
      pause(polls);
    }
  }

  // Short collectives finish in microseconds: yield at first, then sleep, so a long
  // wait does not keep a core busy.
  static void pause(int polls) {
    if (polls < 1000)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(polls < 10000 ? 20 : 200));
  }

  // Enqueues `launch` after the caller's stream's work and waits for it (Note [NCCL
  // waits]): "" on success, else what went wrong.
  template <class Launch>
  std::string enqueue_and_wait(Launch&& launch) {
    auto caller = reinterpret_cast<cudaStream_t>(cuda::current_stream(device_));
    check_cuda(cudaEventRecord(ready_, caller), "cudaEventRecord");
    check_cuda(cudaStreamWaitEvent(stream_, ready_, 0), "cudaStreamWaitEvent");
    auto deadline = Clock::now() + timeout_;
    ncclResult_t r = launch(stream_);
    if (r != ncclSuccess && r != ncclInProgress) return nccl_failure(r, comm_);
    if (std::string failure = settle(deadline); !failure.empty()) return failure;
    check_cuda(cudaEventRecord(done_, stream_), "cudaEventRecord");
    return wait_for_done(deadline);
  }

  std::string wait_for_done(Clock::time_point deadline) {
    for (int polls = 0;; ++polls) {
      cudaError_t status = cudaEventQuery(done_);
      if (status == cudaSuccess) return "";
      if (status != cudaErrorNotReady) return std::string("CUDA error: ") + cudaGetErrorString(status);
      ncclResult_t state = ncclSuccess;
      ncclCommGetAsyncError(comm_, &state);
      if (state != ncclSuccess && state != ncclInProgress) return nccl_failure(state, comm_);
      if (Clock::now() >= deadline)
        return "it did not finish within the timeout of " + std::to_string(timeout_.count()) + " ms";
      pause(polls);
    }
  }

  // Runs one call: one at a time (like Gloo's context, a communicator is used by one
  // thread), numbered for the heartbeats, after the ranks agree on it (Note
  // [Collective checks]). A failure of NCCL or CUDA aborts the communicator and
  // becomes an Error naming the ranks to blame; the group is broken after it. A
  // disagreement or a refused argument is an Error that leaves the group usable.
  template <class Launch>
  void run(const CallSignature& sig, const Tensor& t, Launch&& launch) {
    const char* what = collective_name(sig.call);
    std::lock_guard<std::mutex> lock(mutex_);
    if (!broken_.empty()) throw Error("dist." + std::string(what) + ": the process group failed earlier: " + broken_);
    uint64_t number = liveness_->enter_collective(sig.describe());
    DeviceScope scope(device_);
    std::string failure;
    try {
      if (sig.call == Collective::send || sig.call == Collective::recv)
        check_point_to_point(transport_, sig, static_cast<int>(sig.root), number);
      else
        check_collective(transport_, sig, number);
      if (sig.call != Collective::barrier) check(t, what);
      if (sig.has_tensor && t.numel() == 0) return;  // nothing to move, on every rank alike
      failure = enqueue_and_wait(launch);
    } catch (const CheckFailure& f) {
      failure = f.what();
    }
    if (failure.empty()) return;
    ncclCommAbort(comm_);  // stops NCCL's kernel, which would otherwise wait for the peer forever
    comm_ = nullptr;
    broken_ = "collective #" + std::to_string(number) + " (" + sig.describe() + ") failed on rank " +
              std::to_string(rank_) + ": " + liveness_->diagnose(number) + " [nccl: " + failure + "]";
    throw Error("dist." + std::string(what) + ": " + broken_);
  }

  // The transfers of Note [Collective checks], through NCCL on a small buffer of this
  // GPU; a failure throws CheckFailure, which run() handles as any NCCL failure.
  CheckTransport check_transport() {
    CheckTransport c;
    c.rank = rank_;
    c.world_size = world_size_;
    c.all_reduce_max = [this](int64_t* words, size_t n) {
      words_on_device(words, n, n, [&](void* p, cudaStream_t s) {
        return ncclAllReduce(p, p, n, ncclInt64, ncclMax, comm_, s);
      });
    };
    c.all_gather = [this](const int64_t* mine, int64_t* all, size_t n) {
      size_t total = n * static_cast<size_t>(world_size_);
      std::vector<int64_t> buffer(total);
      std::copy_n(mine, n, buffer.begin() + static_cast<ptrdiff_t>(n) * rank_);
      words_on_device(buffer.data(), total, total, [&](void* p, cudaStream_t s) {
        int64_t* base = static_cast<int64_t*>(p);
        return ncclAllGather(base + n * static_cast<size_t>(rank_), base, n, ncclInt64, comm_, s);
      });
      std::copy(buffer.begin(), buffer.end(), all);
    };
    c.swap = [this](int peer, const int64_t* mine, int64_t* theirs, size_t n) {
      std::vector<int64_t> buffer(2 * n);
      std::copy_n(mine, n, buffer.begin());
      words_on_device(buffer.data(), 2 * n, 2 * n, [&](void* p, cudaStream_t s) {
        int64_t* base = static_cast<int64_t*>(p);
        ncclResult_t r = ncclGroupStart();
        if (r != ncclSuccess) return r;
        ncclResult_t send = ncclSend(base, n, ncclInt64, peer, comm_, s);
        ncclResult_t recv = ncclRecv(base + n, n, ncclInt64, peer, comm_, s);
        r = ncclGroupEnd();
        return send != ncclSuccess ? send : recv != ncclSuccess ? recv : r;
      });
      std::copy_n(buffer.begin() + static_cast<ptrdiff_t>(n), n, theirs);
    };
    return c;
  }

  // Copies `n` words to the check buffer on this GPU, runs `launch` on it, and copies
  // `back` words back into `words`.
  template <class Launch>
  void words_on_device(int64_t* words, size_t n, size_t back, Launch&& launch) {
    if (n > kCheckWords) throw Error("dist (nccl): a check of " + std::to_string(n) + " words is too large");
    void* p = check_buffer_.raw_data();
    // On the communicator's stream, so that NCCL's call follows the copy in and the
    // copy out follows NCCL's call.
    check_cuda(cudaMemcpyAsync(p, words, n * sizeof(int64_t), cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync");
    std::string failure = enqueue_and_wait([&](cudaStream_t s) { return launch(p, s); });
    if (!failure.empty()) throw CheckFailure(failure);
    check_cuda(cudaMemcpyAsync(words, p, back * sizeof(int64_t), cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync");
    check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }

  void check(const Tensor& t, const char* what) const {
    if (!t.defined()) throw Error(std::string("dist.") + what + ": the tensor is undefined");
    if (t.device().kind != DeviceKind::cuda)
      throw Error(std::string("dist.") + what + ": backend \"nccl\" takes CUDA tensors, got one on " + t.device().str() +
                  " (move it with .to(\"cuda:" + std::to_string(device_) + "\"), or init with backend=\"gloo\" for CPU tensors)");
    if (t.device().index != device_)
      throw Error(std::string("dist.") + what + ": this rank's NCCL communicator is on cuda:" + std::to_string(device_) +
                  " (from LOCAL_RANK or the rank), got a tensor on " + t.device().str());
    if (!t.is_contiguous()) throw Error(std::string("dist.") + what + ": the tensor must be contiguous");
  }

  std::unique_ptr<Store> store_;
  Millis timeout_;
  int device_;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t ready_ = nullptr;  // the caller's stream reached the collective
  cudaEvent_t done_ = nullptr;   // NCCL's work on stream_ finished
  Tensor barrier_buffer_;
  // The checks' words: an all-gather of every rank's signature at most.
  static constexpr size_t kCheckWords = 2 * 1024 * CallSignature::kWords;
  Tensor check_buffer_;
  CheckTransport transport_;
  std::unique_ptr<Liveness> liveness_;
  std::mutex mutex_;
  std::string broken_;
};

}  // namespace

std::shared_ptr<Communicator> make_nccl_communicator(const InitOptions& o) {
  int device = device_of_rank(o.rank);  // first: without a GPU, say so before waiting for the store
  return std::make_shared<NcclCommunicator>(o, device, open_store(o.init_method, o.rank == 0, o.timeout));
}

#endif

}  // namespace nabla::dist
