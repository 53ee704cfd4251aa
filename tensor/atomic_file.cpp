// See Note [Atomic files] in atomic_file.hpp.
#include "tensor/atomic_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "tensor/file_kind.hpp"
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

std::string refusal(mode_t mode) {
  return "it is " + node_kind(mode) + ", not a regular file (nabla replaces only a regular file, or writes through a symlink to one)";
}

std::string link_text(const std::string& path) {
  char buf[4096];
  ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
  return n < 0 ? std::string("?") : std::string(buf, static_cast<size_t>(n));
}

}  // namespace

std::string AtomicFileWriter::resolve_target() {
  struct stat st;
  if (::lstat(path_.c_str(), &st) != 0) {
    if (errno == ENOENT) return path_;  // a new file (a missing folder fails at the open)
    fail(errno_text());
  }
  if (S_ISREG(st.st_mode)) return path_;
  if (!S_ISLNK(st.st_mode)) fail(refusal(st.st_mode));
  char* resolved = ::realpath(path_.c_str(), nullptr);
  if (!resolved)
    fail("it is a symlink to '" + link_text(path_) + "', which cannot be followed (" + errno_text() +
         "); a save writes through a symlink only to an existing regular file");
  std::string target(resolved);
  std::free(resolved);
  if (::lstat(target.c_str(), &st) != 0) fail("its target '" + target + "': " + errno_text());
  if (!S_ISREG(st.st_mode)) fail("it is a symlink to '" + target + "', and " + refusal(st.st_mode).substr(3));
  return target;
}

void AtomicFileWriter::open_temp() {
  for (;;) {
    // O_NONBLOCK: a FIFO planted at the temporary name must not block the open.
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      // A missing folder is the path's problem; anything else is the temporary file's.
      if (errno == ENOENT) fail(errno_text());
      if (errno == ENXIO) fail("its temporary file '" + temp_ + "' is taken by something that is not a regular file");
      fail("cannot open its temporary file '" + temp_ + "': " + errno_text());
    }
    struct stat st;
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {  // never truncated, never removed
      ::close(fd_);
      fd_ = -1;
      fail("its temporary file '" + temp_ + "' is taken by something that is not a regular file");
    }
    if (lock_exclusive(fd_) != 0) {
      std::string why = errno_text();
      ::close(fd_);
      fd_ = -1;
      fail("cannot lock its temporary file '" + temp_ + "': " + why);
    }
    if (still_named(fd_, temp_)) return;
    ::close(fd_);  // another writer renamed this file over its path while we waited
  }
}

AtomicFileWriter::AtomicFileWriter(std::string path, std::string what) : path_(std::move(path)), what_(std::move(what)) {
  if (std::string problem = nul_in_path_problem(path_); !problem.empty()) fail(problem);  // Note [A NUL byte in a path]
  target_ = resolve_target();
  temp_ = temp_path(target_);
  open_temp();
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
  throw Error(what_ + ": cannot write '" + path_for_message(path_) + "': " + reason);
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
  // Again, just before the rename: the target may have changed kind since the open.
  struct stat st;
  if (::lstat(target_.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) fail(refusal(st.st_mode));
  if (::rename(temp_.c_str(), target_.c_str()) != 0) fail(errno_text());
  // Closed (which drops the lock) only after the rename, so that no other writer can
  // truncate these bytes before they are in place. The bytes are synced: a close
  // error here cannot lose them.
  ::close(fd_);
  fd_ = -1;
  sync_folder(target_);
}

void write_file_atomically(const std::string& path, const std::string& bytes, const std::string& what) {
  AtomicFileWriter out(path, what);
  out.write(bytes.data(), bytes.size());
  out.commit();
}

}  // namespace nabla
