// The rendezvous stores of dist (tensor/dist/store.hpp): the tcp:// store with its
// server in this process and, through fork(), in another one; the file:// store. Each
// check that could hang has a time bound.
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <thread>

#include "temp_dir.hpp"
#include "tensor/dist/store.hpp"
#include "tensor/dist/tcp_store.hpp"
#include "tensor/error.hpp"

using namespace nabla;
using namespace nabla::dist;
using nabla::testing::TempDir;
using Clock = std::chrono::steady_clock;

namespace {

// A port nobody listens on now: the one the system gives to a bind to port 0.
int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t len = sizeof addr;
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), len) == 0);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

Bytes bytes(const std::string& s) { return Bytes(s.begin(), s.end()); }
std::string text(const Bytes& b) { return std::string(b.begin(), b.end()); }

int64_t ms_since(Clock::time_point start) {
  return std::chrono::duration_cast<Millis>(Clock::now() - start).count();
}

// The message of the Error that `f` throws, or "(no error)".
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// Runs `child` in a forked process, which exits with its result (0 ok), 99 on an
// exception, or dies by SIGALRM after 20 s: a child never returns into doctest.
pid_t fork_child(const std::function<int()>& child) {
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid > 0) return pid;
  ::alarm(20);
  int status = 99;
  try {
    status = child();
  } catch (...) {
  }
  ::_exit(status);
}

int exit_status(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The same checks for every kind of store: binary values, waiting, a missing key, add.
void check_set_get(Store& store) {
  Bytes value = bytes(std::string("a\0b\xff", 4));
  store.set("bin", value);
  CHECK(store.get("bin", Millis(1000)) == value);
  CHECK(store.try_get("bin") == value);
  CHECK_FALSE(store.try_get("absent").has_value());
  store.set("bin", bytes("second"));
  CHECK(text(store.get("bin", Millis(1000))) == "second");
  store.set("empty", {});
  CHECK(store.get("empty", Millis(1000)).empty());
}

void check_get_waits(Store& getter, Store& setter, const std::string& key = "late") {
  std::thread later([&] {
    std::this_thread::sleep_for(Millis(100));
    setter.set(key, bytes("here"));
  });
  auto start = Clock::now();
  std::string value = text(getter.get(key, Millis(5000)));
  int64_t waited = ms_since(start);
  later.join();
  CHECK(value == "here");
  CHECK(waited >= 90);
  CHECK(waited < 2000);
}

void check_missing_key(Store& store) {
  auto start = Clock::now();
  std::string e = error_of([&] { store.get("nobody/sets/this", Millis(300)); });
  int64_t waited = ms_since(start);
  CHECK(e.find("key 'nobody/sets/this' did not appear in the store " + store.describe() + " within 300 ms") !=
        std::string::npos);
  CHECK(waited >= 290);
  CHECK(waited < 3000);
}

// Two threads add 1 a hundred times each: every sum from 1 to 200 is returned once.
void check_add(Store& a, Store& b, const std::string& key = "counter") {
  std::vector<int64_t> sums_a, sums_b;
  std::thread ta([&] {
    for (int i = 0; i < 100; ++i) sums_a.push_back(a.add(key, 1));
  });
  std::thread tb([&] {
    for (int i = 0; i < 100; ++i) sums_b.push_back(b.add(key, 1));
  });
  ta.join();
  tb.join();
  std::vector<int64_t> sums = sums_a;
  sums.insert(sums.end(), sums_b.begin(), sums_b.end());
  std::sort(sums.begin(), sums.end());
  std::vector<int64_t> expected(200);
  for (int i = 0; i < 200; ++i) expected[i] = i + 1;
  CHECK(sums == expected);
  CHECK(a.add(key, 0) == 200);
  CHECK(text(a.get(key, Millis(1000))) == "200");
  CHECK(b.add(key, -50) == 150);
}

}  // namespace

// ---- tcp:// -----------------------------------------------------------------------

TEST_CASE("tcp store: set, get and try_get round-trip binary values, between server and client") {
  int port = free_port();
  auto server = open_tcp_store("127.0.0.1", port, true, Millis(5000));
  auto client = open_tcp_store("localhost", port, false, Millis(5000));
  CHECK(server->describe() == "tcp://127.0.0.1:" + std::to_string(port));
  CHECK(client->describe() == "tcp://localhost:" + std::to_string(port));
  check_set_get(*server);
  client->set("from client", bytes(std::string("\0\0", 2)));
  CHECK(server->get("from client", Millis(1000)) == bytes(std::string("\0\0", 2)));
  CHECK(text(client->get("bin", Millis(1000))) == "second");
}

TEST_CASE("tcp store: open_store reads tcp://host:port") {
  int port = free_port();
  auto store = open_store("tcp://127.0.0.1:" + std::to_string(port), true, Millis(5000));
  CHECK(store->describe() == "tcp://127.0.0.1:" + std::to_string(port));
  store->set("k", bytes("v"));
  CHECK(text(store->get("k", Millis(100))) == "v");
}

TEST_CASE("tcp store: get waits for a key that another thread sets later") {
  int port = free_port();
  auto server = open_tcp_store("127.0.0.1", port, true, Millis(5000));
  auto client = open_tcp_store("127.0.0.1", port, false, Millis(5000));
  check_get_waits(*client, *server);
  // The same store object: the waiting get must not keep the setting thread out.
  check_get_waits(*server, *server, "later");
}

TEST_CASE("tcp store: get of a key nobody sets fails after its timeout, naming the key") {
  int port = free_port();
  auto server = open_tcp_store("127.0.0.1", port, true, Millis(5000));
  check_missing_key(*server);
  server->set("after", bytes("the store still works"));
  CHECK(text(server->get("after", Millis(100))) == "the store still works");
}

TEST_CASE("tcp store: add is atomic across threads and clients") {
  int port = free_port();
  auto server = open_tcp_store("127.0.0.1", port, true, Millis(5000));
  auto client = open_tcp_store("127.0.0.1", port, false, Millis(5000));
  check_add(*server, *client);
  check_add(*client, *client, "counter2");  // two threads on one connection
}

TEST_CASE("tcp store: add of a key that holds no integer names the key") {
  int port = free_port();
  auto server = open_tcp_store("127.0.0.1", port, true, Millis(5000));
  server->set("word", bytes("hello"));
  std::string e = error_of([&] { server->add("word", 1); });
  CHECK(e.find("add of key 'word' in the store tcp://127.0.0.1:" + std::to_string(port)) != std::string::npos);
  CHECK(e.find("not an integer") != std::string::npos);
}

TEST_CASE("tcp store: a client whose server never starts fails after its timeout, naming host:port") {
  int port = free_port();
  auto start = Clock::now();
  std::string e = error_of([&] { open_tcp_store("127.0.0.1", port, false, Millis(400)); });
  int64_t waited = ms_since(start);
  CHECK(e.find("cannot connect to the store at 127.0.0.1:" + std::to_string(port) + " (waited ") != std::string::npos);
  CHECK(e.find("Connection refused") != std::string::npos);
  CHECK(waited >= 390);
  CHECK(waited < 3000);
}

TEST_CASE("tcp store: a host that does not resolve fails after the timeout and says so") {
  std::string e = error_of([&] { open_tcp_store("no-such-host.invalid", 1, false, Millis(200)); });
  CHECK(e.find("cannot connect to the store at no-such-host.invalid:1") != std::string::npos);
  CHECK(e.find("cannot resolve 'no-such-host.invalid'") != std::string::npos);
}

TEST_CASE("tcp store: the server's port in use is an error naming the port") {
  int port = free_port();
  auto first = open_tcp_store("127.0.0.1", port, true, Millis(5000));
  std::string e = error_of([&] { open_tcp_store("127.0.0.1", port, true, Millis(500)); });
  CHECK(e == "dist: cannot serve the store on port " + std::to_string(port) + ": Address already in use");
}

TEST_CASE("tcp store: after the server's store is destroyed, clients' calls throw at once") {
  int port = free_port();
  auto server = open_tcp_store("127.0.0.1", port, true, Millis(5000));
  auto waiting = open_tcp_store("127.0.0.1", port, false, Millis(5000));
  auto idle = open_tcp_store("127.0.0.1", port, false, Millis(5000));
  std::string get_error;
  int64_t get_took = 0;
  std::thread getter([&] {
    auto start = Clock::now();
    get_error = error_of([&] { waiting->get("never", Millis(20000)); });
    get_took = ms_since(start);
  });
  std::this_thread::sleep_for(Millis(200));
  auto start = Clock::now();
  server.reset();  // must not hang on the waiting get
  CHECK(ms_since(start) < 2000);
  getter.join();
  std::string closed = "closed the connection";
  CHECK(get_error.find("dist: the store at 127.0.0.1:" + std::to_string(port) + " " + closed) != std::string::npos);
  CHECK(get_error.find("(rank 0, which serves it, may have exited)") != std::string::npos);
  CHECK(get_took < 3000);
  start = Clock::now();
  std::string set_error = error_of([&] { idle->set("k", bytes("v")); });
  CHECK(set_error.find(closed) != std::string::npos);
  CHECK(error_of([&] { idle->add("k", 1); }) == set_error);  // the connection stays broken
  CHECK(ms_since(start) < 3000);
}

TEST_CASE("tcp store: clients in other processes add and wait") {
  int port = free_port();
  auto server = open_tcp_store("127.0.0.1", port, true, Millis(5000));
  std::vector<pid_t> children;
  for (int c = 0; c < 2; ++c)
    children.push_back(fork_child([port, c] {
      auto store = open_tcp_store("127.0.0.1", port, false, Millis(5000));
      for (int i = 0; i < 50; ++i) store->add("sum", 1);
      store->set("child" + std::to_string(c), bytes("done"));
      return text(store->get("go", Millis(10000))) == "go" ? 0 : 1;
    }));
  CHECK(text(server->get("child0", Millis(10000))) == "done");
  CHECK(text(server->get("child1", Millis(10000))) == "done");
  CHECK(server->add("sum", 0) == 100);
  server->set("go", bytes("go"));
  for (pid_t pid : children) CHECK(exit_status(pid) == 0);
}

TEST_CASE("tcp store: a client's call fails when the server's process exits (rank 0 died)") {
  int port = free_port();
  pid_t pid = fork_child([port] {
    auto store = open_tcp_store("127.0.0.1", port, true, Millis(5000));
    store->set("up", bytes("yes"));
    std::this_thread::sleep_for(Millis(300));
    ::_exit(7);  // no destructors: as a crash, the kernel closes the sockets
    return 0;
  });
  auto client = open_tcp_store("127.0.0.1", port, false, Millis(5000));  // retries until the child serves
  CHECK(text(client->get("up", Millis(5000))) == "yes");
  auto start = Clock::now();
  std::string e = error_of([&] { client->get("never", Millis(20000)); });
  CHECK(e.find("closed the connection during get of key 'never'") != std::string::npos);
  CHECK(ms_since(start) < 5000);
  CHECK(exit_status(pid) == 7);
}

// ---- file:// ----------------------------------------------------------------------

TEST_CASE("file store: set, get, waiting, a missing key and add") {
  TempDir dir("nabla_file_store");
  auto store = open_store("file://" + dir.path().string(), true, Millis(5000));
  auto other = open_store("file://" + dir.path().string(), false, Millis(5000));
  CHECK(store->describe() == "file://" + dir.path().string());
  check_set_get(*store);
  CHECK(text(other->get("bin", Millis(100))) == "second");
  check_get_waits(*other, *store);
  check_missing_key(*store);
  check_add(*store, *other);
}

TEST_CASE("file store: a process adds through the folder") {
  TempDir dir("nabla_file_store");
  std::string url = "file://" + dir.path().string();
  auto store = open_store(url, true, Millis(5000));
  pid_t pid = fork_child([url] {
    auto child = open_store(url, false, Millis(5000));
    for (int i = 0; i < 50; ++i) child->add("sum", 2);
    return 0;
  });
  for (int i = 0; i < 50; ++i) store->add("sum", 1);
  CHECK(exit_status(pid) == 0);
  CHECK(store->add("sum", 0) == 150);
}
