// Who is to blame when a collective fails (issue 8: "a rank that dies or hangs makes
// the others stop within a timeout with an error naming it").
//
// Note [Heartbeats]
// Each rank's thread writes "<wall-clock ms> <collectives entered> <its current call>"
// under nabla/alive/<rank> in the group's store every 500 ms, through a store
// connection of its own, and "exit <collectives> <its last call>" when the group is
// destroyed. When a collective fails (a peer's socket closed, or the timeout passed),
// diagnose() reads every rank's record twice, 1.5 s apart: a record that did not
// change belongs to a rank that died or was killed; one that changed but is behind
// this rank's collective count belongs to a rank that is alive but hangs (or runs
// different code); one at this collective with another call belongs to a rank whose
// call differs (Note [Collective checks]); "exit" to one that finished early.
// Collective libraries report only a socket or a timeout; this turns that into a rank
// number and what it was doing.
#pragma once
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "tensor/dist/store.hpp"

namespace nabla::dist {

class Liveness {
 public:
  // `store_url` is opened again as a client (the heartbeat thread's own connection).
  Liveness(const std::string& store_url, int rank, int world_size, Millis timeout);
  ~Liveness();  // writes the exit record and stops the thread
  Liveness(const Liveness&) = delete;
  Liveness& operator=(const Liveness&) = delete;

  // Called as a collective starts: its number (1, 2, ...) for the records. `what`
  // ("all_reduce(op=sum) of f32[4]") goes into the heartbeats, so that a rank whose
  // peer waits in another call can say which.
  uint64_t enter_collective(std::string what);
  uint64_t entered() const { return entered_.load(); }
  // A sentence naming the ranks to blame for collective `number` of this rank, e.g.
  // "rank 1 stopped answering (it died or was killed)".
  std::string diagnose(uint64_t number);

 private:
  void beat();
  void run();

  std::unique_ptr<Store> store_;
  std::string url_;
  int rank_, world_size_;
  std::atomic<uint64_t> entered_{0};
  std::mutex mutex_;  // guards stopping_ and calling_
  std::string calling_;  // what collective number entered_ is
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace nabla::dist
