// The tcp:// store (store.hpp): a key-value server in a thread of rank 0's process and
// a client per rank, as torch's TCPStore. One connection per client, guarded by a
// mutex, so a store may be used from several threads.
#pragma once
#include "tensor/dist/store.hpp"

namespace nabla::dist {

// is_server: listen on `port` (all interfaces) and serve until the store is destroyed;
// every rank, the server's too, is a client of host:port. Connecting retries until
// `timeout`, then an Error names host:port and the last error.
std::unique_ptr<Store> open_tcp_store(const std::string& host, int port, bool is_server, Millis timeout);

}  // namespace nabla::dist
