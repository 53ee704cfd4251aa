// Key-value stores for rendezvous (issue 8): where the ranks of a process group find
// each other and exchange addresses, as torch.distributed's stores. Two kinds:
//   file:///path       a folder on a file system all ranks see (one machine, or NFS)
//   tcp://host:port    a server in rank 0's process, every rank a client (as torch's
//                      TCPStore; what `env://` with MASTER_ADDR/MASTER_PORT means)
// The communicators (communicator.hpp) use a store at start-up and for their
// liveness records (liveness.hpp). Knows nothing of tensors.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nabla::dist {

using Bytes = std::vector<char>;
using Millis = std::chrono::milliseconds;

class Store {
 public:
  virtual ~Store() = default;
  virtual void set(const std::string& key, const Bytes& value) = 0;
  // The value, waiting for the key up to `timeout`; past it an Error naming the key,
  // the store and the time waited.
  virtual Bytes get(const std::string& key, Millis timeout) = 0;
  // The value if the key is there now.
  virtual std::optional<Bytes> try_get(const std::string& key) = 0;
  // Adds `delta` to the integer under `key` (0 if absent) and returns the sum, atomically
  // across ranks.
  virtual int64_t add(const std::string& key, int64_t delta) = 0;
  // "tcp://127.0.0.1:29500", "file:///tmp/rdv": for messages.
  virtual std::string describe() const = 0;
};

// A store from its URL (above). For tcp://, `is_server` (rank 0) also serves it, in a
// thread of this process, until the store is destroyed; clients retry connecting
// until `timeout`, then fail with an Error that names host:port.
std::unique_ptr<Store> open_store(const std::string& url, bool is_server, Millis timeout);

}  // namespace nabla::dist
