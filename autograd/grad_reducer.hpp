// Data-parallel gradient averaging (issue 8), what torch's DistributedDataParallel
// does under the hood: parameters grouped into buckets of about `bucket_bytes`, each
// bucket all-reduced (averaged over ranks) as soon as backward has produced all its
// gradients, on a communication thread, while backward goes on with the layers below.
//
// Note [Bucket order]
// Every rank must run the same collectives in the same order. Buckets are filled in
// reverse parameter order (backward reaches the last layer first) and launched
// strictly by index: bucket k waits until buckets 0..k-1 are launched. At the end of
// backward (queue_backward_callback) the buckets not yet launched, those with a
// parameter that received no gradient, are launched in order with that parameter's
// current .grad (or zeros), then all are awaited and the averages written to .grad.
//
// A leaf's hook sees the gradient before it is added to .grad; the bucket takes
// .grad + gradient, so gradients accumulated over no_sync steps are averaged
// together on the next synchronized backward, as in PyTorch.
#pragma once
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "autograd/engine.hpp"
#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/dist/communicator.hpp"

namespace nabla {

class GradReducer {
 public:
  GradReducer(std::vector<Tensor> params, size_t bucket_bytes, std::shared_ptr<dist::Communicator> comm);
  ~GradReducer();
  GradReducer(const GradReducer&) = delete;
  GradReducer& operator=(const GradReducer&) = delete;

  // Off (no_sync): backward leaves local gradients in .grad, nothing is communicated.
  void set_sync(bool on) { sync_ = on; }
  bool sync() const { return sync_; }
  size_t num_buckets() const { return buckets_.size(); }
  // The parameter indices of each bucket, in launch order (tests, reports).
  std::vector<std::vector<size_t>> bucket_params() const;
  // Of the last synchronized backward: microseconds the communication thread spent in
  // all-reduces, and how long the end of backward still waited for them.
  double last_comm_us() const { return last_comm_us_; }
  double last_wait_us() const { return last_wait_us_; }

 private:
  struct Bucket {
    std::vector<size_t> params;
    std::vector<int64_t> offsets;  // of each parameter in `flat`
    Tensor flat;                   // the bucket's gradients, contiguous, one dtype and device
    // The stream backward copied the gradients on (CUDA buckets): the communication
    // thread issues the all-reduce after that work, not on its own default stream.
    cuda::StreamId stream{};
    size_t ready = 0;
    bool launched = false;
    bool done = false;
    std::exception_ptr error;
  };

  void build_buckets(size_t bucket_bytes);
  void on_grad(size_t param, const Tensor& grad);
  void start_backward();
  void launch_ready();
  void launch(size_t b);
  void finish_backward(bool completed);
  void write_averages();
  void comm_loop();

  std::vector<Tensor> params_;
  std::shared_ptr<dist::Communicator> comm_;
  std::vector<Bucket> buckets_;
  std::vector<std::pair<size_t, size_t>> where_;  // param -> (bucket, index in bucket)
  std::vector<bool> param_ready_;
  std::vector<HookHandle> hooks_;
  bool sync_ = true;
  bool in_backward_ = false;
  size_t next_launch_ = 0;
  double last_comm_us_ = 0, last_wait_us_ = 0;

  // The communication thread and its queue of buckets to all-reduce.
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<size_t> queue_;
  bool stopping_ = false;
  double comm_us_ = 0;
  std::thread thread_;
};

}  // namespace nabla
