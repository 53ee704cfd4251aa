// The tcp:// store (tcp_store.hpp): StoreServer, a key-value server in threads of
// rank 0's process, and TcpStore, the client every rank holds.
//
// Note [tcp store protocol]
// Requests and replies are the same frame: a code byte, a u32 key length, the key, a
// u64 value length, the value (integers little-endian). Requests: set(key, value),
// get(key, i64 wait ms), try_get(key), add(key, i64 delta); replies: ok(value),
// missing, error(message). A get that misses waits on the server (a condition
// variable), never by polling the network. The client sends one get per slice of at
// most kGetSlice and holds its connection's (FIFO) lock for one slice only, so that a
// thread waiting for a key never keeps another thread of its process from setting it.
// Numbers that add() keeps are decimal text, as in the file:// store.
#include "tensor/dist/tcp_store.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>

#include "tensor/error.hpp"

namespace nabla::dist {

namespace {

using Clock = std::chrono::steady_clock;
constexpr Clock::time_point kNoDeadline = Clock::time_point::max();

enum Code : uint8_t { op_set = 1, op_get = 2, op_try_get = 3, op_add = 4, reply_ok = 10, reply_missing = 11, reply_error = 12 };
constexpr uint32_t kMaxKey = 1u << 16;     // a frame beyond these is not from a nabla
constexpr uint64_t kMaxValue = 1ull << 32;  // client (a port scanner): its connection closes
constexpr Millis kGetSlice{100};

// Now + `wait`, saturating: a timeout of Millis::max() waits for ever.
Clock::time_point deadline_after(Millis wait) {
  auto now = Clock::now();
  if (wait >= std::chrono::duration_cast<Millis>(kNoDeadline - now)) return kNoDeadline;
  return now + std::max(wait, Millis(0));
}

struct Frame {
  uint8_t code = 0;
  std::string key;
  Bytes value;
};

// ---- file descriptors and bytes ---------------------------------------------------

// A socket, closed when it goes out of scope.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) reset(o.release());
    return *this;
  }
  ~Fd() { reset(); }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

enum class Io { ok, closed, timed_out, failed };  // failed: errno says why

// Waits until `fd` is ready for `events` or the deadline passes (past it, one look).
Io wait_ready(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    int ms = -1;
    if (deadline != kNoDeadline) {
      auto left = std::chrono::ceil<Millis>(deadline - Clock::now()).count();
      ms = static_cast<int>(std::clamp<int64_t>(left, 0, 1 << 30));
    }
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, ms);
    if (n > 0) return Io::ok;  // ready, or an error/hang-up that recv/send will report
    if (n == 0) return Io::timed_out;
    if (errno != EINTR) return Io::failed;
  }
}

Io from_errno() { return errno == EPIPE || errno == ECONNRESET ? Io::closed : Io::failed; }

Io send_all(int fd, const char* p, size_t n, Clock::time_point deadline) {
  while (n > 0) {
    if (Io r = wait_ready(fd, POLLOUT, deadline); r != Io::ok) return r;
    ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);  // a closed peer is EPIPE, not SIGPIPE
    if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (k < 0) return from_errno();
    p += k;
    n -= static_cast<size_t>(k);
  }
  return Io::ok;
}

Io recv_all(int fd, char* p, size_t n, Clock::time_point deadline) {
  while (n > 0) {
    if (Io r = wait_ready(fd, POLLIN, deadline); r != Io::ok) return r;
    ssize_t k = ::recv(fd, p, n, 0);
    if (k == 0) return Io::closed;
    if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (k < 0) return from_errno();
    p += k;
    n -= static_cast<size_t>(k);
  }
  return Io::ok;
}

void put_uint(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

uint64_t get_uint(const char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

Bytes int64_bytes(int64_t v) {
  std::string s;
  put_uint(s, static_cast<uint64_t>(v), 8);
  return Bytes(s.begin(), s.end());
}

int64_t bytes_int64(const Bytes& b) { return b.size() == 8 ? static_cast<int64_t>(get_uint(b.data(), 8)) : 0; }

Io send_frame(int fd, const Frame& f, Clock::time_point deadline) {
  std::string out;
  out.reserve(13 + f.key.size() + f.value.size());
  out += static_cast<char>(f.code);
  put_uint(out, f.key.size(), 4);
  out += f.key;
  put_uint(out, f.value.size(), 8);
  out.append(f.value.data(), f.value.size());
  return send_all(fd, out.data(), out.size(), deadline);
}

// A frame whose lengths exceed the limits reads as `failed` with errno EPROTO.
Io recv_frame(int fd, Frame& f, Clock::time_point deadline) {
  char head[5];
  if (Io r = recv_all(fd, head, 5, deadline); r != Io::ok) return r;
  f.code = static_cast<uint8_t>(head[0]);
  uint64_t key_size = get_uint(head + 1, 4);
  if (key_size > kMaxKey) return errno = EPROTO, Io::failed;
  f.key.resize(key_size);
  if (Io r = recv_all(fd, f.key.data(), key_size, deadline); r != Io::ok) return r;
  char size[8];
  if (Io r = recv_all(fd, size, 8, deadline); r != Io::ok) return r;
  uint64_t value_size = get_uint(size, 8);
  if (value_size > kMaxValue) return errno = EPROTO, Io::failed;
  f.value.resize(value_size);
  return recv_all(fd, f.value.data(), value_size, deadline);
}

void set_no_delay(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

// ---- the server -------------------------------------------------------------------

// Listens on all interfaces; a thread accepts, a thread per connection serves.
// Destroying it closes every connection (clients then fail with "closed the
// connection") and joins every thread.
class StoreServer {
 public:
  explicit StoreServer(int port);
  ~StoreServer();
  int port() const { return port_; }

 private:
  void accept_loop();
  void serve(int fd);
  std::optional<Frame> handle(const Frame& request);  // nullopt: stopping
  Frame add(const Frame& request);
  void forget_connection(int fd);

  int port_ = 0;
  Fd listener_;
  int wake_[2] = {-1, -1};  // a pipe: a byte in it stops the accept loop

  std::mutex mutex_;  // guards data_ and stopping_
  std::condition_variable changed_;
  std::unordered_map<std::string, Bytes> data_;
  bool stopping_ = false;

  std::mutex connections_mutex_;  // guards connections_, the fds of live connections
  std::vector<int> connections_;
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

Fd listen_on(int port) {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) throw Error(std::string("dist: cannot make a socket for the store: ") + std::strerror(errno));
  int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd.get(), 128) != 0)
    throw Error("dist: cannot serve the store on port " + std::to_string(port) + ": " + std::strerror(errno));
  return fd;
}

int bound_port(int fd) {
  sockaddr_in addr{};
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  return ntohs(addr.sin_port);
}

StoreServer::StoreServer(int port) : listener_(listen_on(port)) {
  port_ = bound_port(listener_.get());
  if (::pipe2(wake_, O_CLOEXEC) != 0) throw Error(std::string("dist: cannot make a pipe: ") + std::strerror(errno));
  acceptor_ = std::thread([this] { accept_loop(); });
}

StoreServer::~StoreServer() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();  // gets waiting for a key return and close their connection
  char byte = 0;
  ssize_t ignored = ::write(wake_[1], &byte, 1);
  (void)ignored;
  acceptor_.join();
  {
    std::lock_guard<std::mutex> lock(connections_mutex_);
    for (int fd : connections_) ::shutdown(fd, SHUT_RDWR);  // wakes threads in recv or send
  }
  for (std::thread& t : threads_) t.join();
  ::close(wake_[0]);
  ::close(wake_[1]);
}

void StoreServer::accept_loop() {
  for (;;) {
    pollfd p[2] = {{listener_.get(), POLLIN, 0}, {wake_[0], POLLIN, 0}};
    if (::poll(p, 2, -1) < 0 && errno != EINTR) return;
    if (p[1].revents) return;
    if (!(p[0].revents & POLLIN)) continue;
    int fd = ::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;  // the peer gave up (ECONNABORTED), or out of fds for now
    set_no_delay(fd);
    std::lock_guard<std::mutex> lock(connections_mutex_);
    connections_.push_back(fd);
    threads_.emplace_back([this, fd] { serve(fd); });
  }
}

void StoreServer::serve(int fd) {
  Frame request;
  while (recv_frame(fd, request, kNoDeadline) == Io::ok) {
    std::optional<Frame> reply = handle(request);
    if (!reply || send_frame(fd, *reply, kNoDeadline) != Io::ok) break;
  }
  forget_connection(fd);
}

// Closes `fd` under the lock that the destructor's shutdown() takes, so it never
// shuts down a number that has been reused.
void StoreServer::forget_connection(int fd) {
  std::lock_guard<std::mutex> lock(connections_mutex_);
  connections_.erase(std::find(connections_.begin(), connections_.end(), fd));
  ::close(fd);
}

std::optional<Frame> StoreServer::handle(const Frame& request) {
  if (request.code == op_add) return add(request);
  std::unique_lock<std::mutex> lock(mutex_);
  if (request.code == op_set) {
    data_[request.key] = request.value;
    lock.unlock();
    changed_.notify_all();
    return Frame{reply_ok, "", {}};
  }
  if (request.code == op_get) {
    Millis wait(std::max<int64_t>(0, bytes_int64(request.value)));
    changed_.wait_for(lock, wait, [&] { return stopping_ || data_.count(request.key) > 0; });
  } else if (request.code != op_try_get) {
    std::string m = "unknown request " + std::to_string(request.code);
    return Frame{reply_error, "", Bytes(m.begin(), m.end())};
  }
  if (stopping_) return std::nullopt;
  auto it = data_.find(request.key);
  if (it == data_.end()) return Frame{reply_missing, "", {}};
  return Frame{reply_ok, "", it->second};
}

Frame StoreServer::add(const Frame& request) {
  std::unique_lock<std::mutex> lock(mutex_);
  Bytes& stored = data_[request.key];
  int64_t sum = 0;
  auto [end, ec] = std::from_chars(stored.data(), stored.data() + stored.size(), sum);
  if (ec != std::errc() || end != stored.data() + stored.size()) {
    if (!stored.empty()) {
      std::string m = "the value is not an integer (" + std::to_string(stored.size()) + " bytes)";
      return Frame{reply_error, "", Bytes(m.begin(), m.end())};
    }
    sum = 0;  // a new key
  }
  sum += bytes_int64(request.value);
  std::string text = std::to_string(sum);
  stored.assign(text.begin(), text.end());
  lock.unlock();
  changed_.notify_all();
  return Frame{reply_ok, "", int64_bytes(sum)};
}

// ---- connecting -------------------------------------------------------------------

// Connects to one address, waiting up to the deadline; false with errno set.
bool connect_before(int fd, const sockaddr* addr, socklen_t len, Clock::time_point deadline) {
  int flags = ::fcntl(fd, F_GETFL);
  ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  int rc = ::connect(fd, addr, len);
  if (rc != 0 && errno != EINPROGRESS) return false;
  if (rc != 0) {
    if (wait_ready(fd, POLLOUT, deadline) != Io::ok) return errno = ETIMEDOUT, false;
    int error = 0;
    socklen_t size = sizeof error;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size);
    if (error != 0) return errno = error, false;
  }
  ::fcntl(fd, F_SETFL, flags);
  return true;
}

// One try at every IPv4 address of host:port; an open socket, or `why` says what failed.
Fd try_connect(const std::string& host, int port, Clock::time_point deadline, std::string& why) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0) {
    why = std::string("cannot resolve '") + host + "': " + ::gai_strerror(rc);
    return Fd();
  }
  Fd fd;
  for (addrinfo* a = found; a && fd.get() < 0; a = a->ai_next) {
    Fd s(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol));
    if (s.get() >= 0 && connect_before(s.get(), a->ai_addr, a->ai_addrlen, deadline)) fd = std::move(s);
    else why = std::strerror(errno);
  }
  ::freeaddrinfo(found);
  return fd;
}

// Retries (the server may start later) until `timeout`.
Fd connect_with_retry(const std::string& host, int port, Millis timeout) {
  auto start = Clock::now();
  auto deadline = deadline_after(timeout);
  auto pause = Millis(10);
  std::string why;
  for (;;) {
    if (Fd fd = try_connect(host, port, deadline, why); fd.get() >= 0) {
      set_no_delay(fd.get());
      return fd;
    }
    auto now = Clock::now();
    if (now >= deadline) break;
    std::this_thread::sleep_for(std::min<Clock::duration>(pause, deadline - now));  // a last try at the deadline
    pause = std::min(pause * 2, Millis(500));
  }
  auto waited = std::chrono::duration_cast<Millis>(Clock::now() - start).count();
  throw Error("dist: cannot connect to the store at " + host + ":" + std::to_string(port) + " (waited " +
              std::to_string(waited) + " ms): " + why);
}

// ---- the client -------------------------------------------------------------------

// A mutex that hands itself over in the order threads asked for it: a get that waits
// slice by slice (Note [tcp store protocol]) then lets every waiting thread in first.
class FifoMutex {
 public:
  void lock() {
    std::unique_lock<std::mutex> l(m_);
    uint64_t ticket = next_++;
    turn_.wait(l, [&] { return serving_ == ticket; });
  }
  void unlock() {
    {
      std::lock_guard<std::mutex> l(m_);
      ++serving_;
    }
    turn_.notify_all();
  }

 private:
  std::mutex m_;
  std::condition_variable turn_;
  uint64_t next_ = 0, serving_ = 0;
};

class TcpStore : public Store {
 public:
  TcpStore(const std::string& host, int port, bool is_server, Millis timeout)
      : server_(is_server ? std::make_unique<StoreServer>(port) : nullptr),
        host_(host),
        port_(server_ ? server_->port() : port),
        timeout_(timeout),
        connection_(connect_with_retry(host_, port_, timeout)) {}

  void set(const std::string& key, const Bytes& value) override { call("set", Frame{op_set, key, value}, timeout_); }

  Bytes get(const std::string& key, Millis timeout) override {
    auto deadline = deadline_after(timeout);
    for (;;) {
      auto left = std::chrono::duration_cast<Millis>(deadline - Clock::now());
      Millis slice = std::clamp(left, Millis(0), kGetSlice);
      Millis reply_within = timeout_ > Millis::max() - slice ? Millis::max() : slice + timeout_;
      Frame reply = call("get", Frame{op_get, key, int64_bytes(slice.count())}, reply_within);
      if (reply.code == reply_ok) return reply.value;
      if (Clock::now() >= deadline)
        throw Error("dist: key '" + key + "' did not appear in the store " + describe() + " within " +
                    std::to_string(timeout.count()) + " ms");
    }
  }

  std::optional<Bytes> try_get(const std::string& key) override {
    Frame reply = call("try_get", Frame{op_try_get, key, {}}, timeout_);
    if (reply.code == reply_ok) return reply.value;
    return std::nullopt;
  }

  int64_t add(const std::string& key, int64_t delta) override {
    return bytes_int64(call("add", Frame{op_add, key, int64_bytes(delta)}, timeout_).value);
  }

  std::string describe() const override { return "tcp://" + host_ + ":" + std::to_string(port_); }

 private:
  Frame call(const char* what, const Frame& request, Millis reply_within);
  std::string io_error(Io r, const char* what, const std::string& key, Millis waited) const;

  // Declared first, destroyed last: this process's own connection closes before the
  // server stops.
  std::unique_ptr<StoreServer> server_;
  std::string host_;
  int port_;
  Millis timeout_;  // for connecting, and for a reply (beyond a get's own wait)
  FifoMutex mutex_;  // guards connection_ and broken_
  Fd connection_;
  std::string broken_;  // after a failed exchange: the error, which every later call repeats
};

// One request and its reply. An exchange that fails leaves the stream at an unknown
// place, so the connection is broken from then on.
Frame TcpStore::call(const char* what, const Frame& request, Millis reply_within) {
  std::lock_guard<FifoMutex> lock(mutex_);
  if (!broken_.empty()) throw Error(broken_);
  auto deadline = deadline_after(reply_within);
  Frame reply;
  Io r = send_frame(connection_.get(), request, deadline);
  if (r == Io::ok) r = recv_frame(connection_.get(), reply, deadline);
  if (r != Io::ok) {
    broken_ = io_error(r, what, request.key, reply_within);
    connection_.reset();
    throw Error(broken_);
  }
  if (reply.code == reply_error)
    throw Error("dist: " + std::string(what) + " of key '" + request.key + "' in the store " + describe() + ": " +
                std::string(reply.value.begin(), reply.value.end()));
  return reply;
}

std::string TcpStore::io_error(Io r, const char* what, const std::string& key, Millis waited) const {
  std::string call = std::string(what) + " of key '" + key + "'";
  std::string at = host_ + ":" + std::to_string(port_);
  if (r == Io::closed)
    return "dist: the store at " + at + " closed the connection during " + call +
           " (rank 0, which serves it, may have exited)";
  if (r == Io::timed_out)
    return "dist: the store at " + at + " did not answer " + call + " within " + std::to_string(waited.count()) + " ms";
  return "dist: " + call + " in the store at " + at + " failed: " + std::strerror(errno);
}

}  // namespace

std::unique_ptr<Store> open_tcp_store(const std::string& host, int port, bool is_server, Millis timeout) {
  return std::make_unique<TcpStore>(host, port, is_server, timeout);
}

}  // namespace nabla::dist
