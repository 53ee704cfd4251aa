// Program files (interp/app/program_file.hpp): what may be read as a program, and reading it.
#include "interp/app/program_file.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "tensor/file_kind.hpp"

namespace nabla {

namespace {

std::string not_a_program(const std::string& path, const std::string& what) {
  return "cannot run '" + path + "': it is " + what + ", not a program file";
}

}  // namespace

std::string program_file_problem(const std::string& path) {
  if (std::string problem = nul_in_path_problem(path); !problem.empty())  // Note [A NUL byte in a path]
    return "cannot open '" + path + "': " + problem;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "cannot open '" + path + "': " + std::strerror(errno);
  if (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode)) return "";
  return not_a_program(path, node_kind(st.st_mode));
}

std::string read_program_file(const std::string& path, std::string* text) {
  if (std::string problem = program_file_problem(path); !problem.empty()) return problem;
  std::ifstream f(path, std::ios::binary);
  if (!f) return "cannot open '" + path + "': " + std::strerror(errno);
  std::stringstream ss;
  ss << f.rdbuf();
  if (f.bad()) return "cannot read '" + path + "': " + std::strerror(errno);
  *text = ss.str();
  // A UTF-8 byte order mark (Windows editors write one) is not part of the program,
  // as Python skips it; it was "expected a statement" at 1:1 under an invisible mark.
  if (text->starts_with("\xEF\xBB\xBF")) text->erase(0, 3);
  return "";
}

}  // namespace nabla
