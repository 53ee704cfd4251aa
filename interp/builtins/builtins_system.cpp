// Builtins that reach outside the program: env(name) reads the environment,
// read_text(path) a file, write_text and append_text write one (whole or not at all,
// through the atomic writer of tensor/atomic_file.hpp, as save does). All ask the
// sandbox first (Evaluator::check_sandbox; env
// lets the ranks' variables through). The table at the end is this family's (Note
// [Builtin tables]).
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "interp/builtins/builtins_internal.hpp"
#include "tensor/atomic_file.hpp"
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
  // getenv reads the name up to a NUL: env("HOME\0x") read HOME (Note [A NUL byte in a path])
  if (name.find('\0') != std::string::npos)
    fail("env(): the name " + repr(b[0]) + " holds a NUL byte, which no variable's name can hold");
  static const char* const kSandboxEnv[] = {"RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE"};
  if (ev.sandbox && std::none_of(std::begin(kSandboxEnv), std::end(kSandboxEnv), [&](const char* n) { return name == n; }))
    fail("env(" + repr(b[0]) + ") is not available in sandbox mode (only RANK, LOCAL_RANK, WORLD_SIZE and LOCAL_WORLD_SIZE are)");
  const char* value = std::getenv(name.c_str());
  if (value) return make_str(value);
  return b.has(1) ? b[1] : Value::none();
}

// The whole file at `path` (bytes as they are); `who` names the builtin in errors.
std::string read_whole_file(const std::string& who, const std::string& path) {
  if (std::string problem = regular_file_problem(path); !problem.empty())
    fail(who + ": cannot open " + path + ": " + problem);  // a FIFO would block, /dev/zero never end
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(who + ": cannot open " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The (path, text) arguments of write_text and append_text, both str.
std::pair<std::string, std::string> path_and_text(const std::string& who, CallArgs& a) {
  Bound b = bind(who, a, {"path", "text"}, 2);
  if (b[0].tag != Tag::Str) fail(who + "(): path must be a str, got " + type_name(b[0]));
  if (b[1].tag != Tag::Str) fail(who + "(): text must be a str, got " + type_name(b[1]) + " (convert it with str())");
  return {b[0].as<StrObj>()->s, b[1].as<StrObj>()->s};
}

// read_text(path): a whole file as a string (bytes as they are).
Value read_text_builtin(Evaluator& ev, CallArgs& a) {
  ev.check_sandbox("read_text()");
  Bound b = bind("read_text", a, {"path"}, 1);
  if (b[0].tag != Tag::Str) fail("read_text() expected a path string, got " + repr(b[0]));
  return make_str(read_whole_file("read_text()", b[0].as<StrObj>()->s));
}

// write_text(path, text): the file becomes text, whole or not at all (Note [Atomic files]).
Value write_text_builtin(Evaluator& ev, CallArgs& a) {
  ev.check_sandbox("write_text()");
  auto [path, text] = path_and_text("write_text", a);
  write_file_atomically(path, text, "write_text()");
  return Value::none();
}

// append_text(path, text): the file's text, then text (a new file when there is none).
// The file is rewritten whole through the atomic writer, so a crash leaves the old
// text or the new, never a torn line: a log of losses appended once per epoch.
Value append_text_builtin(Evaluator& ev, CallArgs& a) {
  ev.check_sandbox("append_text()");
  auto [path, text] = path_and_text("append_text", a);
  std::error_code ec;
  std::string before = std::filesystem::exists(path, ec) ? read_whole_file("append_text()", path) : "";
  write_file_atomically(path, before + text, "append_text()");
  return Value::none();
}

const BuiltinEntry kSystemBuiltins[] = {
    {"env", env_builtin, "env(name, default=none)",
     "The environment variable name, or default when it is unset (sandbox mode: only the ranks' variables). "
     "Example: int(env(\"RANK\", 0))"},
    {"read_text", read_text_builtin, "read_text(path)",
     "The whole file at path as a str, bytes as they are (refused in sandbox mode). Example: read_text(\"data/names.txt\")"},
    {"write_text", write_text_builtin, "write_text(path, text)",
     "Writes the str text to the file at path, replacing it whole or not at all (a crash leaves the old file), as "
     "save does (refused in sandbox mode). Example: write_text(\"losses.txt\", \"0.51\\n0.42\\n\")"},
    {"append_text", append_text_builtin, "append_text(path, text)",
     "Adds the str text at the end of the file at path (made when missing), through the same whole-or-nothing "
     "writer as write_text (refused in sandbox mode). Example: append_text(\"log.txt\", f\"epoch {1}: 0.42\\n\")"},
};

}  // namespace

const BuiltinLibrary kSystemLibrary = {"system", nullptr, kSystemBuiltins, nullptr};

}  // namespace nabla::interp
