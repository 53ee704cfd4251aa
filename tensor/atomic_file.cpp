#include "tensor/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "tensor/error.hpp"

namespace nabla {

namespace {

std::string errno_text() { return std::strerror(errno); }

}  // namespace

void write_file_atomically(const std::string& path, const std::string& bytes, const std::string& what) {
  auto fail = [&](const std::string& why) { throw Error(what + ": cannot write '" + path + "': " + why); };
  std::string temp = path + ".tmpXXXXXX";
  int fd = mkstemp(temp.data());
  if (fd < 0) fail(errno_text());
  auto give_up = [&](const std::string& why) {
    close(fd);
    unlink(temp.c_str());
    fail(why);
  };
  for (size_t done = 0; done < bytes.size();) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) give_up(errno_text());
    done += static_cast<size_t>(n);
  }
  // mkstemp makes the file private (0600); these are ordinary files.
  if (fchmod(fd, 0644) != 0) give_up(errno_text());
  if (close(fd) != 0) {
    std::string why = errno_text();
    unlink(temp.c_str());
    fail(why);
  }
  if (rename(temp.c_str(), path.c_str()) != 0) {
    std::string why = errno_text();
    unlink(temp.c_str());
    fail(why);
  }
}

}  // namespace nabla
