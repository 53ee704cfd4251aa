#include "autograd/grad_reducer.hpp"

#include <chrono>

#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "tensor/error.hpp"

namespace nabla {

namespace {

double micros_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

GradReducer::GradReducer(std::vector<Tensor> params, size_t bucket_bytes, std::shared_ptr<dist::Communicator> comm)
    : comm_(std::move(comm)) {
  for (Tensor& p : params)
    if (p.defined() && p.requires_grad()) params_.push_back(p);
  build_buckets(bucket_bytes);
  param_ready_.assign(params_.size(), false);
  for (size_t i = 0; i < params_.size(); ++i)
    hooks_.push_back(register_hook(params_[i], [this, i](const Tensor& g) {
      on_grad(i, g);
      return Tensor();  // the gradient itself goes on to .grad unchanged
    }));
  thread_ = std::thread([this] { comm_loop(); });
}

GradReducer::~GradReducer() {
  for (const HookHandle& h : hooks_) remove_hook(h);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

// Reverse parameter order, a new bucket when the dtype or device changes or the
// bucket would pass bucket_bytes (Note [Bucket order]).
void GradReducer::build_buckets(size_t bucket_bytes) {
  where_.resize(params_.size());
  size_t bytes = 0;
  for (size_t n = params_.size(); n-- > 0;) {
    const Tensor& p = params_[n];
    size_t p_bytes = static_cast<size_t>(p.numel()) * dtype_size(p.dtype());
    bool fresh = buckets_.empty();
    if (!fresh) {
      const Tensor& first = params_[buckets_.back().params.front()];
      fresh = first.dtype() != p.dtype() || !(first.device() == p.device()) || bytes + p_bytes > bucket_bytes;
    }
    if (fresh) {
      buckets_.emplace_back();
      bytes = 0;
    }
    Bucket& b = buckets_.back();
    where_[n] = {buckets_.size() - 1, b.params.size()};
    b.params.push_back(n);
    b.offsets.push_back(static_cast<int64_t>(bytes / dtype_size(p.dtype())));
    bytes += p_bytes;
  }
  for (Bucket& b : buckets_) {
    const Tensor& last = params_[b.params.back()];
    int64_t n = b.offsets.back() + last.numel();
    b.flat = zeros({n}, last.dtype(), last.device());
  }
}

std::vector<std::vector<size_t>> GradReducer::bucket_params() const {
  std::vector<std::vector<size_t>> out;
  for (const Bucket& b : buckets_) out.push_back(b.params);
  return out;
}

// The bucket's slice for parameter `param`, shaped like it (a view of flat).
static Tensor slice_of(const Tensor& flat, int64_t offset, const Tensor& param) {
  const Shape& s = param.sizes();
  return view(slice(flat, 0, offset, offset + param.numel()), IntList(s.begin(), s.end()));
}

void GradReducer::on_grad(size_t param, const Tensor& grad) {
  if (!sync_) return;
  if (!in_backward_) {
    if (!queue_backward_callback([this](bool completed) { finish_backward(completed); })) return;  // grad()
    start_backward();
  }
  auto [b, k] = where_[param];
  Bucket& bucket = buckets_[b];
  if (param_ready_[param] || bucket.launched)
    throw Error("data parallel: parameter " + std::to_string(param) + " received its gradient twice in one backward");
  NoGradGuard no_grad;
  Tensor dst = slice_of(bucket.flat, bucket.offsets[k], params_[param]);
  Tensor accumulated = params_[param].grad();
  copy_(dst, grad);
  if (accumulated.defined()) add_(dst, accumulated);
  param_ready_[param] = true;
  ++bucket.ready;
  launch_ready();
}

void GradReducer::start_backward() {
  in_backward_ = true;
  next_launch_ = 0;
  param_ready_.assign(params_.size(), false);
  std::lock_guard<std::mutex> lock(mutex_);
  for (Bucket& b : buckets_) {
    b.ready = 0;
    b.launched = b.done = false;
    b.error = nullptr;
  }
  comm_us_ = 0;
}

void GradReducer::launch_ready() {
  while (next_launch_ < buckets_.size() && buckets_[next_launch_].ready == buckets_[next_launch_].params.size())
    launch(next_launch_++);
}

void GradReducer::launch(size_t b) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Bucket& bucket = buckets_[b];
    bucket.launched = true;
    if (bucket.flat.device().kind == DeviceKind::cuda) bucket.stream = cuda::current_stream(bucket.flat.device().index);
    queue_.push_back(b);
  }
  changed_.notify_all();
}

void GradReducer::comm_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left
    size_t b = queue_.front();
    queue_.pop_front();
    Tensor flat = buckets_[b].flat;
    cuda::StreamId stream = buckets_[b].stream;
    lock.unlock();
    if (flat.device().kind == DeviceKind::cuda) cuda::set_current_stream(flat.device().index, stream);
    std::exception_ptr error;
    auto t0 = std::chrono::steady_clock::now();
    try {
      comm_->all_reduce(flat, dist::ReduceOp::avg);
    } catch (...) {
      error = std::current_exception();
    }
    double us = micros_since(t0);
    lock.lock();
    comm_us_ += us;
    buckets_[b].done = true;
    buckets_[b].error = error;
    changed_.notify_all();
  }
}

void GradReducer::finish_backward(bool completed) {
  in_backward_ = false;
  if (completed) {
    NoGradGuard no_grad;
    // Parameters that got no gradient this time: their .grad (or zeros) is averaged.
    for (size_t i = 0; i < params_.size(); ++i) {
      if (param_ready_[i]) continue;
      auto [b, k] = where_[i];
      Tensor dst = slice_of(buckets_[b].flat, buckets_[b].offsets[k], params_[i]);
      Tensor accumulated = params_[i].grad();
      if (accumulated.defined())
        copy_(dst, accumulated);
      else
        zero_(dst);
      param_ready_[i] = true;
      ++buckets_[b].ready;
    }
    launch_ready();
  }
  auto t0 = std::chrono::steady_clock::now();
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] {
      for (const Bucket& b : buckets_)
        if (b.launched && !b.done) return false;
      return true;
    });
    for (const Bucket& b : buckets_)
      if (b.error && !error) error = b.error;
    last_comm_us_ = comm_us_;
  }
  last_wait_us_ = micros_since(t0);
  if (!completed) return;  // backward's own error goes on
  if (error) std::rethrow_exception(error);
  write_averages();
}

// Each .grad becomes a fresh tensor holding the average (not written in place: a
// .grad may share its storage with a tensor the program holds).
void GradReducer::write_averages() {
  NoGradGuard no_grad;
  for (size_t i = 0; i < params_.size(); ++i) {
    auto [b, k] = where_[i];
    Tensor average = slice_of(buckets_[b].flat, buckets_[b].offsets[k], params_[i]);
    Tensor g = empty(params_[i].sizes(), params_[i].dtype(), params_[i].device());
    copy_(g, average);
    params_[i].set_grad(g);
  }
}

}  // namespace nabla
