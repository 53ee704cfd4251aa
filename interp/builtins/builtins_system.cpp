// Builtins that reach outside the program: env(name) reads the environment and
// read_text(path) a file. Both ask the sandbox first (Evaluator::check_sandbox; env
// lets the ranks' variables through). The table at the end is this family's (Note
// [Builtin tables]).
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "interp/builtins/builtins_internal.hpp"
#include "tensor/file_kind.hpp"

namespace nabla::interp {

namespace {

// env(name, default=none): an environment variable (RANK, WORLD_SIZE, ...), or default.
// In sandbox mode only the ranks' variables that nabla launch sets can be read (the
// environment holds tokens, paths and user names): any other name is an error.
Value env_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("env", a, {"name", "default"}, 1);
  if (b[0].tag != Tag::Str) fail(std::string("env(): name must be a str, got ") + type_name(b[0]));
  const std::string& name = b[0].as<StrObj>()->s;
  static const char* const kSandboxEnv[] = {"RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE"};
  if (ev.sandbox && std::none_of(std::begin(kSandboxEnv), std::end(kSandboxEnv), [&](const char* n) { return name == n; }))
    fail("env(" + repr(b[0]) + ") is not available in sandbox mode (only RANK, LOCAL_RANK, WORLD_SIZE and LOCAL_WORLD_SIZE are)");
  const char* value = std::getenv(name.c_str());
  if (value) return make_str(value);
  return b.has(1) ? b[1] : Value::none();
}

// read_text(path): a whole file as a string (bytes as they are).
Value read_text_builtin(Evaluator& ev, CallArgs& a) {
  ev.check_sandbox("read_text()");
  Bound b = bind("read_text", a, {"path"}, 1);
  if (b[0].tag != Tag::Str) fail("read_text() expected a path string, got " + repr(b[0]));
  const std::string& path = b[0].as<StrObj>()->s;
  if (std::string problem = regular_file_problem(path); !problem.empty())
    fail("cannot open " + path + ": " + problem);  // a FIFO would block, /dev/zero never end
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot open " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return make_str(text.str());
}

const BuiltinEntry kSystemBuiltins[] = {
    {"env", env_builtin, "env(name, default=none)",
     "The environment variable name, or default when it is unset (sandbox mode: only the ranks' variables). "
     "Example: int(env(\"RANK\", 0))"},
    {"read_text", read_text_builtin, "read_text(path)",
     "The whole file at path as a str, bytes as they are (refused in sandbox mode). Example: read_text(\"data/names.txt\")"},
};

}  // namespace

const BuiltinLibrary kSystemLibrary = {"system", nullptr, kSystemBuiltins, nullptr};

}  // namespace nabla::interp
