#include "tensor/file_kind.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace nabla {

std::string node_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symlink";
  return "not a regular file";
}

std::string nul_in_path_problem(const std::string& path) {
  size_t at = path.find('\0');
  if (at == std::string::npos) return "";
  return "the path holds a NUL byte (\\0) at byte " + std::to_string(at) + ", which no file name can hold";
}

std::string path_for_message(const std::string& path) {
  std::string shown;
  for (char c : path) shown += c == '\0' ? std::string("\\0") : std::string(1, c);
  return shown;
}

std::string regular_file_problem(const std::string& path) {
  if (std::string problem = nul_in_path_problem(path); !problem.empty()) return problem;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::strerror(errno);
  if (S_ISREG(st.st_mode)) return "";
  return "it is " + node_kind(st.st_mode) + ", not a regular file";
}

}  // namespace nabla
