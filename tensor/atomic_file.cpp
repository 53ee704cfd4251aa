// See Note [Atomic files] in atomic_file.hpp.
#include "tensor/atomic_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tensor/error.hpp"

namespace nabla {

namespace {

std::string errno_text() { return std::strerror(errno); }

// Whether the open file is still the one named `path` (not renamed away, not replaced).
bool still_named(int fd, const std::string& path) {
  struct stat open_file, named;
  return ::fstat(fd, &open_file) == 0 && ::lstat(path.c_str(), &named) == 0 && open_file.st_dev == named.st_dev &&
         open_file.st_ino == named.st_ino;
}

int lock_exclusive(int fd) {
  int r;
  do r = ::flock(fd, LOCK_EX);
  while (r != 0 && errno == EINTR);
  return r;
}

std::string folder_of(const std::string& path) {
  size_t s = path.find_last_of('/');
  if (s == std::string::npos) return ".";
  return s == 0 ? "/" : path.substr(0, s);
}

// The rename is durable once the folder's entry is on disk. Best effort: some file
// systems refuse to fsync a folder, and the file itself is already synced.
void sync_folder(const std::string& path) {
  int fd = ::open(folder_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

AtomicFileWriter::AtomicFileWriter(std::string path, std::string what)
    : path_(std::move(path)), temp_(temp_path(path_)), what_(std::move(what)) {
  for (;;) {
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      // A missing folder is the path's problem; anything else is the temporary file's.
      if (errno == ENOENT) fail(errno_text());
      fail("cannot open its temporary file '" + temp_ + "': " + errno_text());
    }
    if (lock_exclusive(fd_) != 0) {
      std::string why = errno_text();
      ::close(fd_);
      fd_ = -1;
      fail("cannot lock its temporary file '" + temp_ + "': " + why);
    }
    if (still_named(fd_, temp_)) break;
    ::close(fd_);  // another writer renamed this file over its path while we waited
  }
  if (::ftruncate(fd_, 0) != 0) {  // a temporary file left by a killed save is reused
    std::string why = errno_text();
    ::unlink(temp_.c_str());
    ::close(fd_);
    fd_ = -1;
    fail(why);
  }
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ < 0) return;
  ::unlink(temp_.c_str());  // while the lock is held: a waiting writer then makes a new one
  ::close(fd_);
}

void AtomicFileWriter::fail(const std::string& reason) {
  throw Error(what_ + ": cannot write '" + path_ + "': " + reason);
}

void AtomicFileWriter::write(const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd_, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) fail(errno_text());  // the destructor removes the temporary file
    p += w;
    n -= static_cast<size_t>(w);
  }
}

void AtomicFileWriter::commit() {
  if (::fsync(fd_) != 0) fail(errno_text());
  if (::rename(temp_.c_str(), path_.c_str()) != 0) fail(errno_text());
  // Closed (which drops the lock) only after the rename, so that no other writer can
  // truncate these bytes before they are in place. The bytes are synced: a close
  // error here cannot lose them.
  ::close(fd_);
  fd_ = -1;
  sync_folder(path_);
}

void write_file_atomically(const std::string& path, const std::string& bytes, const std::string& what) {
  AtomicFileWriter out(path, what);
  out.write(bytes.data(), bytes.size());
  out.commit();
}

}  // namespace nabla
