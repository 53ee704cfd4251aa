// The one error type of nabla. Every layer throws nabla::Error; the interpreter
// attaches a source span (file:line:col) on the way out, so the message here says
// what was expected and what was found, never where.
#pragma once
#include <cstdio>
#include <stdexcept>
#include <string>

namespace nabla {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// NABLA_CHECK(cond, "matmul: ..." + ...) throws Error with the message when cond
// is false; the message is only built then, so checks cost nothing on hot paths.
#define NABLA_CHECK(cond, message)                    \
  do {                                                \
    if (!(cond)) throw ::nabla::Error(message);       \
  } while (0)

// The function form, for messages that are cheap (string literals).
inline void check(bool cond, const char* message) {
  if (!cond) throw Error(message);
}
inline void check(bool cond, const std::string& message) {
  if (!cond) throw Error(message);
}

// A number as a person writes it in an error message ("1.5", not "1.500000").
inline std::string number_str(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace nabla
