#include "tensor/dist/store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tensor/dist/tcp_store.hpp"
#include "tensor/error.hpp"

namespace nabla::dist {

namespace {

namespace fs = std::filesystem;

// A folder of files, one per key (its name hex-encoded, so any key is a file name).
// A value is written to a temporary file and renamed, so a reader sees all of it or
// nothing; add() holds an flock on the key's lock file.
class FileStore : public Store {
 public:
  explicit FileStore(fs::path dir) : dir_(std::move(dir)) {
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (ec && !fs::is_directory(dir_)) throw Error("dist: cannot make the store folder " + dir_.string() + ": " + ec.message());
  }

  // Not an AtomicFileWriter (Note [Atomic files]): the store only has to outlive the
  // job, not a power cut, so it skips the two fsyncs per value that a barrier would
  // pay for each rank. The temporary name is per process, so two ranks setting the
  // same key never write into one file; the rename makes each value whole.
  void set(const std::string& key, const Bytes& value) override {
    fs::path tmp = path_of(key).string() + ".tmp" + std::to_string(::getpid());
    bool written;
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      out.write(value.data(), static_cast<std::streamsize>(value.size()));
      out.close();
      written = static_cast<bool>(out);
    }
    std::error_code ec;
    if (written) fs::rename(tmp, path_of(key), ec);
    if (!written || ec) {
      std::string reason = written ? ec.message() : "the write failed";
      fs::remove(tmp, ec);
      throw Error("dist: cannot write the key '" + key + "' in the store " + describe() + ": " + reason);
    }
  }

  Bytes get(const std::string& key, Millis timeout) override {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    auto pause = std::chrono::milliseconds(1);
    for (;;) {
      if (std::optional<Bytes> v = try_get(key)) return *v;
      if (std::chrono::steady_clock::now() >= deadline)
        throw Error("dist: key '" + key + "' did not appear in the store " + describe() + " within " +
                    std::to_string(timeout.count()) + " ms");
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(20));
    }
  }

  std::optional<Bytes> try_get(const std::string& key) override {
    std::ifstream in(path_of(key), std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream s;
    s << in.rdbuf();
    std::string text = s.str();
    return Bytes(text.begin(), text.end());
  }

  int64_t add(const std::string& key, int64_t delta) override {
    fs::path lock_path = path_of(key).string() + ".lock";
    int fd = ::open(lock_path.c_str(), O_CREAT | O_RDWR, 0644);
    if (fd < 0) throw Error("dist: cannot open " + lock_path.string() + " in the store " + describe());
    ::flock(fd, LOCK_EX);
    int64_t sum = delta;
    if (std::optional<Bytes> v = try_get(key)) sum += std::stoll(std::string(v->begin(), v->end()));
    std::string text = std::to_string(sum);
    set(key, Bytes(text.begin(), text.end()));
    ::flock(fd, LOCK_UN);
    ::close(fd);
    return sum;
  }

  std::string describe() const override { return "file://" + dir_.string(); }

 private:
  fs::path path_of(const std::string& key) const {
    static const char* hex = "0123456789abcdef";
    std::string name;
    for (unsigned char c : key) {
      name += hex[c >> 4];
      name += hex[c & 15];
    }
    return dir_ / name;
  }

  fs::path dir_;
};

// "host:port" of a tcp:// URL.
std::pair<std::string, int> host_and_port(const std::string& url, const std::string& rest) {
  size_t colon = rest.rfind(':');
  if (colon == std::string::npos || colon == 0)
    throw Error("dist: the store URL '" + url + "' has no port (expected tcp://host:port)");
  std::string port_text = rest.substr(colon + 1);
  char* end = nullptr;
  long port = std::strtol(port_text.c_str(), &end, 10);
  if (port_text.empty() || *end != '\0' || port < 0 || port > 65535)
    throw Error("dist: the store URL '" + url + "' has port '" + port_text + "' (expected 0 to 65535)");
  return {rest.substr(0, colon), static_cast<int>(port)};
}

}  // namespace

std::unique_ptr<Store> open_store(const std::string& url, bool is_server, Millis timeout) {
  if (url.rfind("file://", 0) == 0) return std::make_unique<FileStore>(url.substr(7));
  if (url.rfind("tcp://", 0) == 0) {
    auto [host, port] = host_and_port(url, url.substr(6));
    return open_tcp_store(host, port, is_server, timeout);
  }
  throw Error("dist: unknown store URL '" + url + "' (expected file:///path or tcp://host:port)");
}

}  // namespace nabla::dist
