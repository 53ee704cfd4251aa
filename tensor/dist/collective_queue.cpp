#include "tensor/dist/collective_queue.hpp"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include "tensor/dist/flat_storage.hpp"
#include "tensor/error.hpp"

namespace nabla::dist {

namespace {

class CollectiveQueue {
 public:
  ~CollectiveQueue() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  uint64_t push(std::function<void(Communicator&)> call) {
    Communicator& comm = require_communicator("FullyShardedDataParallel");
    std::lock_guard<std::mutex> lock(mutex_);
    if (!thread_.joinable()) thread_ = std::thread([this] { work(); });
    uint64_t ticket = ++last_ticket_;
    queue_.push_back({ticket, [call = std::move(call), &comm] { call(comm); }});
    results_[ticket] = {};
    changed_.notify_all();
    return ticket;
  }

  void wait(uint64_t ticket) {
    auto start = Clock::now();
    std::unique_lock<std::mutex> lock(mutex_);
    auto it = results_.find(ticket);
    if (it == results_.end())
      throw Error("FullyShardedDataParallel: collective " + std::to_string(ticket) + " was already waited for");
    changed_.wait(lock, [&] { return it->second.done; });
    times_.wait_us += micros_since(start);
    std::exception_ptr error = it->second.error;
    results_.erase(it);
    if (error) std::rethrow_exception(error);
  }

  QueueTimes times() {
    std::lock_guard<std::mutex> lock(mutex_);
    return times_;
  }

 private:
  struct Job {
    uint64_t ticket;
    std::function<void()> run;
  };
  struct Result {
    bool done = false;
    std::exception_ptr error;
  };

  void work() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, nothing left
      Job job = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      auto start = Clock::now();
      std::exception_ptr error;
      try {
        job.run();
      } catch (...) {
        error = std::current_exception();
      }
      job.run = nullptr;  // its tensors go before the waiter wakes
      double took = micros_since(start);
      lock.lock();
      times_.run_us += took;
      auto it = results_.find(job.ticket);
      if (it != results_.end()) it->second = {true, error};
      changed_.notify_all();
    }
  }

  using Clock = std::chrono::steady_clock;
  static double micros_since(Clock::time_point t) {
    return std::chrono::duration<double, std::micro>(Clock::now() - t).count();
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Job> queue_;
  QueueTimes times_;
  std::map<uint64_t, Result> results_;
  uint64_t last_ticket_ = 0;
  bool stopping_ = false;
  std::thread thread_;
};

CollectiveQueue& the_queue() {
  static CollectiveQueue queue;
  return queue;
}

}  // namespace

uint64_t queue_collective(std::function<void(Communicator&)> call) { return the_queue().push(std::move(call)); }
void wait_collective(uint64_t ticket) { the_queue().wait(ticket); }
QueueTimes collective_queue_times() { return the_queue().times(); }

uint64_t queue_gather(const Tensor& shard, Tensor full) {
  take_gather_bytes(full);
  return queue_collective([shard, full](Communicator& comm) mutable { gather_keeping_version(comm, shard, full); });
}

}  // namespace nabla::dist
