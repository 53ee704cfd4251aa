// Issue 25: what nabla writes and reads as files.
//   - Every writer (save, a profile's chrome trace, render and render_autograd, any
//     text through write_file_atomically) refuses a target that is not a regular
//     file, and follows a symlink to a regular file (Note [Save targets]).
//   - A BOOL tensor whose bytes are not 0 or 1 is refused on load (Note [Bool bytes]).
//   - Checkpoint headers parse in linear time (Note [Linear JSON]).
#include <doctest/doctest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "autograd/ops.hpp"
#include "autograd/profiler.hpp"
#include "interp/helpers.hpp"
#include "temp_dir.hpp"
#include "tensor/atomic_file.hpp"
#include "tensor/safetensors.hpp"
#include "viz/graphviz.hpp"

using namespace nabla;
using nabla::testing::Session;
using nabla::testing::TempDir;
namespace fs = std::filesystem;
namespace st = nabla::safetensors;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

bool is_fifo(const std::string& p) {
  struct stat s;
  return ::lstat(p.c_str(), &s) == 0 && S_ISFIFO(s.st_mode);
}

// A unix socket node at `path` (made without privileges, unlike a device node).
void make_socket(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  REQUIRE(path.size() < sizeof addr.sun_path);
  std::copy(path.begin(), path.end(), addr.sun_path);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  ::close(fd);
}

// The writers of issue 25 item 2, each onto `path`.
std::vector<std::pair<std::string, std::function<void(const std::string&)>>> writers() {
  return {
      {"save", [](const std::string& p) { st::save_file(p, {{"w", ones({2})}}); }},
      {"text", [](const std::string& p) { write_file_atomically(p, "hello\n", "write"); }},
      {"render", [](const std::string& p) { viz::render("digraph { a -> b }", p); }},
      {"chrome trace", [](const std::string& p) {
         Profiler profiler;
         write_chrome_trace(profiler, p);
       }},
  };
}

std::string file_of(const std::string& header, const std::string& data) {
  std::string out(8, '\0');
  uint64_t n = header.size();
  for (int k = 0; k < 8; ++k) out[k] = static_cast<char>((n >> (8 * k)) & 0xff);
  return out + header + data;
}

}  // namespace

TEST_CASE("no writer replaces a FIFO, a socket or a folder, and none blocks on a FIFO") {
  TempDir dir;
  for (auto& [name, write] : writers()) {
    INFO("writer: " << name);
    std::string fifo = (dir.path() / (name + ".fifo.dot")).string();
    REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
    std::string e = error_of([&] { write(fifo); });
    CHECK(e.find("cannot write '" + fifo + "': it is a FIFO, not a regular file") != std::string::npos);
    CHECK(is_fifo(fifo));
    CHECK(!fs::exists(fifo + ".tmp"));

    std::string sock = (dir.path() / (name + ".sock.dot")).string();
    make_socket(sock);
    CHECK(error_of([&] { write(sock); }).find("it is a socket, not a regular file") != std::string::npos);
    CHECK(fs::is_socket(sock));

    std::string folder = (dir.path() / (name + ".dir.dot")).string();
    fs::create_directory(folder);
    CHECK(error_of([&] { write(folder); }).find("it is a folder, not a regular file") != std::string::npos);
    CHECK(fs::is_directory(folder));
  }
}

// Note [A NUL byte in a path]: the system's calls cut a path at a NUL byte, so every
// writer wrote the file named by the part before it, and load read it, silently.
TEST_CASE("no writer or reader takes a path holding a NUL byte, and nothing is written") {
  TempDir dir;
  const std::string prefix = (dir.path() / "cut").string();
  for (auto& [name, write] : writers()) {
    INFO("writer: " << name);
    std::string e = error_of([&] { write(prefix + std::string(1, '\0') + ".dot"); });
    CHECK(e.find("cannot write '" + prefix + "\\0.dot': the path holds a NUL byte (\\0) at byte " +
                 std::to_string(prefix.size())) != std::string::npos);
    CHECK(!fs::exists(prefix));
    CHECK(!fs::exists(prefix + ".tmp"));
  }
  st::save_file(prefix, {{"w", ones({2})}});
  std::string e = error_of([&] { st::load_file(prefix + std::string(1, '\0') + "junk"); });
  CHECK(e.find("cannot load '" + prefix + "\\0junk': the path holds a NUL byte") != std::string::npos);
}

TEST_CASE("a writer follows a symlink to a regular file, and the link stays a link") {
  TempDir dir;
  for (auto& [name, write] : writers()) {
    INFO("writer: " << name);
    std::string target = (dir.path() / (name + ".real.dot")).string();
    std::string link = (dir.path() / (name + ".link.dot")).string();
    std::ofstream(target) << "old";
    fs::create_symlink(target, link);
    write(link);
    CHECK(fs::is_symlink(link));
    CHECK(fs::read_symlink(link) == target);
    CHECK(nabla::testing::read_file(target) != "old");
    CHECK(!fs::exists(target + ".tmp"));
    CHECK(!fs::exists(link + ".tmp"));
  }
  // The checkpoint through the link reads back.
  std::string link = (dir.path() / "save.link.dot").string();
  CHECK(st::load_file(link).tensors.at(0).first == "w");
}

TEST_CASE("a symlink to nothing, or to a FIFO, is an error, and nothing is created") {
  TempDir dir;
  std::string fifo = (dir.path() / "pipe").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  std::string to_fifo = (dir.path() / "to_pipe.dot").string(), dangling = (dir.path() / "dangling.dot").string();
  fs::create_symlink(fifo, to_fifo);
  fs::create_symlink(dir.path() / "missing", dangling);
  for (auto& [name, write] : writers()) {
    INFO("writer: " << name);
    CHECK(error_of([&] { write(to_fifo); }).find("it is a symlink to '" + fifo + "', and is a FIFO, not a regular file") !=
          std::string::npos);
    CHECK(error_of([&] { write(dangling); }).find("it is a symlink to '") != std::string::npos);
    CHECK(is_fifo(fifo));
    CHECK(!fs::exists(dir.path() / "missing"));
  }
}

TEST_CASE("a temporary name taken by a FIFO is an error; the FIFO is left alone") {
  TempDir dir;
  std::string path = (dir.path() / "m.st").string();
  REQUIRE(::mkfifo((path + ".tmp").c_str(), 0644) == 0);
  CHECK(error_of([&] { st::save_file(path, {{"w", ones({2})}}); })
            .find("its temporary file '" + path + ".tmp' is taken by something that is not a regular file") !=
        std::string::npos);
  CHECK(is_fifo(path + ".tmp"));
  CHECK(!fs::exists(path));
}

TEST_CASE("save() and load() in the language: a FIFO is refused, never waited on") {
  TempDir dir;
  std::string fifo = (dir.path() / "pipe.st").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  Session s;
  CHECK(s.error("save({\"w\": ones([2])}, \"" + fifo + "\")").find("it is a FIFO, not a regular file") !=
        std::string::npos);
  CHECK(s.error("load(\"" + fifo + "\")").find("it is a FIFO, not a regular file") != std::string::npos);
  CHECK(is_fifo(fifo));
}

TEST_CASE("the language's other writers refuse a FIFO or a folder, never wait on one") {
  // data.save_image opened its path with an ofstream: a FIFO there waited forever for a
  // reader (hardening round 12); it goes through the atomic writer now, as the others.
  TempDir dir;
  std::string fifo = (dir.path() / "pipe.png").string();
  std::string folder = (dir.path() / "folder.png").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  fs::create_directory(folder);
  Session s;
  s.run("import data");
  for (const std::string& path : {fifo, folder}) {
    std::string kind = path == fifo ? "it is a FIFO, not a regular file" : "it is a folder, not a regular file";
    for (const std::string& call : {"data.save_image(rand(3, 4, 4), ", "write_text(", "append_text("}) {
      std::string code = call + "\"" + path + "\"" + (call[0] == 'd' ? ")" : ", \"x\")");
      INFO(code);
      CHECK(s.error(code).find(kind) != std::string::npos);
    }
  }
  CHECK(is_fifo(fifo));
  CHECK(!fs::exists(fifo + ".tmp"));
  // An image written twice replaces the first whole.
  std::string png = (dir.path() / "ok.png").string();
  s.run("data.save_image(rand(3, 4, 4), \"" + png + "\")\ndata.save_image(zeros(1, 2, 2), \"" + png + "\")");
  CHECK(nabla::testing::read_file(png).substr(1, 3) == "PNG");
  CHECK(!fs::exists(png + ".tmp"));
}

TEST_CASE("every reader of a data file refuses a FIFO or a folder before opening it") {
  TempDir dir;
  std::string fifo = (dir.path() / "pipe").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  Session s;
  s.run("import data");
  for (const std::string& path : {fifo, dir.path().string()}) {
    std::string kind = path == fifo ? "it is a FIFO, not a regular file" : "it is a folder, not a regular file";
    for (const std::string& call : {"read_text", "data.read_idx", "data.read_csv", "load"}) {
      INFO(call << " of " << path);
      CHECK(s.error(call + "(\"" + path + "\")").find(kind) != std::string::npos);
    }
  }
  CHECK(is_fifo(fifo));
}

TEST_CASE("BOOL bytes other than 0 and 1 are refused on load (Note [Bool bytes])") {
  std::string header = R"({"m":{"dtype":"BOOL","shape":[4],"data_offsets":[0,4]}})";
  header.append((8 - header.size() % 8) % 8, ' ');
  CHECK(st::parse(file_of(header, std::string("\x01\x00\x01\x00", 4)), "ok.st").tensors.size() == 1);
  for (unsigned char bad : {0x02, 0x41, 0xff, 0x80}) {
    std::string data("\x01\x00\x01\x00", 4);
    data[2] = static_cast<char>(bad);
    std::string e = error_of([&] { st::parse(file_of(header, data), "m.st"); });
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", bad);
    CHECK(e == std::string("m.st: tensor 'm': BOOL element 2 holds the byte ") + hex +
                   ", but a BOOL byte must be 0 (false) or 1 (true): the file is damaged or was written wrongly");
  }
  // What nabla writes as bool always loads, and stays 0 and 1.
  Tensor made = gt(arange(8, DType::f32), scalar_tensor(3.5, DType::f32));  // 4 of 8 true
  Tensor b = st::parse(st::serialize({{"m", made}}), "m.st").tensors[0].second;
  CHECK(b.dtype() == DType::b8);
  CHECK(sum(to_dtype(b, DType::i64)).item_int() == 4);
}

TEST_CASE("checkpoint headers parse in linear time (Note [Linear JSON])") {
  // 300k tensors: ~30 MB of header. The quadratic parser took 45 s for 200k; linear
  // parsing of this takes about a second, so 30 s is far from both.
  const int n = 300000;
  st::NamedTensors tensors;
  tensors.reserve(n);
  Tensor one = ones({1});
  for (int k = 0; k < n; ++k) tensors.emplace_back("layer" + std::to_string(k) + ".w", one);
  auto t0 = std::chrono::steady_clock::now();
  std::string bytes = st::serialize(tensors, {{"note", "many"}});
  auto t1 = std::chrono::steady_clock::now();
  st::Checkpoint ck = st::parse(bytes, "many.st");
  auto t2 = std::chrono::steady_clock::now();
  st::load_into(ck, tensors, "many.st");
  auto t3 = std::chrono::steady_clock::now();
  auto secs = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  MESSAGE("300k tensors: serialize " << secs(t0, t1) << " s, parse " << secs(t1, t2) << " s, load_into "
                                     << secs(t2, t3) << " s");
  CHECK(ck.tensors.size() == static_cast<size_t>(n));
  CHECK(ck.metadata.size() == 1);
  CHECK(secs(t0, t3) < 30);
}

TEST_CASE("a header that names a tensor twice is refused") {
  std::string header = R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})";
  header.append((8 - header.size() % 8) % 8, ' ');
  CHECK(error_of([&] { st::parse(file_of(header, std::string(8, '\0')), "m.st"); }) ==
        "m.st: the header gives the key 'a' twice in one object");
}
