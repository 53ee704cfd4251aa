// The session around a program: what the REPL echoes (only a top-level expression
// entry), the sandbox's refusal of the REPL's own ways to files and the environment
// (Note [REPL sandbox] in interp/app/repl.cpp), what may be run as a program file
// (interp/app/program_file.hpp), and import cycles (Note [Import cycles]).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "helpers.hpp"
#include "interp/eval/evaluator.hpp"
#include "interp/app/program_file.hpp"

using nabla::testing::Session;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string temp_path(const std::string& name) {
  return "/tmp/nabla_modules_test_" + std::to_string(::getpid()) + "_" + name;
}

void write_file(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST_CASE("echo: only a top-level expression entry gives a value") {
  Session s;
  CHECK(s.echo("import nn\nlet m = nn.Linear(4, 3)") == "");
  CHECK(s.echo("fn f() {\n  5\n  return 1\n}\nlet b = f()") == "");
  CHECK(s.echo("b + 1") == "2");
  CHECK(s.echo("f()") == "1");
  CHECK(s.echo("if true { 7 }") == "");
  CHECK(s.echo("for i in range(3) { i }") == "");
  CHECK(s.echo("1\nlet z = 2") == "");
  CHECK(s.echo("let w = 2\nw * 3") == "6");
  CHECK(s.echo("model M() {\n  forward(y) {\n    y * 10\n    return y\n  }\n}\nlet o = M()(3)") == "");
}

TEST_CASE("sandbox: the REPL's commands and env() are refused like the builtins") {
  Session s;
  CHECK_FALSE(s.interp.sandbox_refusal(":load").has_value());
  nabla::Limits l;
  l.sandbox = true;
  s.interp.set_limits(l);
  CHECK(s.interp.limits().sandbox);
  auto refusal = s.interp.sandbox_refusal(":load");
  REQUIRE(refusal.has_value());
  CHECK(refusal->message == "error: :load is not available in sandbox mode (no files, sockets or sleeping)");
  CHECK(contains(s.error("env('HOME')"), "env('HOME') is not available in sandbox mode"));
  CHECK(contains(s.error("env('PATH', 'x')"), "not available in sandbox mode"));
  CHECK(s.run("print(env('WORLD_SIZE', '1'), env('LOCAL_RANK', '0') != none)") == "1 true\n");
}

TEST_CASE("program files: a folder, a device or a socket is not a program") {
  CHECK(nabla::program_file_problem("/tmp") == "cannot run '/tmp': it is a folder, not a program file");
  CHECK(nabla::program_file_problem("/dev/null") ==
        "cannot run '/dev/null': it is a character device, not a program file");
  CHECK(contains(nabla::program_file_problem("/no/such.dsl"), "cannot open '/no/such.dsl': No such file"));
  Session s;
  nabla::EvalResult r = s.interp.eval_file("/tmp");
  CHECK_FALSE(r.ok);
  CHECK(contains(r.error->message, "it is a folder"));
  CHECK(contains(s.error("import \"/tmp\""), "cannot import '/tmp': cannot run '/tmp': it is a folder"));
  CHECK(contains(s.error("import \"/dev/zero\""), "it is a character device"));
  nabla::TestReport t = s.interp.run_tests("/tmp");
  CHECK(t.failed == 1);
}

TEST_CASE("program files: a pipe is read to its end") {
  std::string fifo = temp_path("fifo.dsl");
  ::unlink(fifo.c_str());
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::thread writer([&] { write_file(fifo, "let from_pipe = 41 + 1\n"); });
  Session s;
  nabla::EvalResult r = s.interp.eval_file(fifo);
  writer.join();
  ::unlink(fifo.c_str());
  CHECK(r.ok);
  CHECK(s.interp.number("from_pipe") == 42);
}

TEST_CASE("imports: a cycle of files is an error naming the chain") {
  std::string a = temp_path("a.dsl"), b = temp_path("b.dsl"), self = temp_path("self.dsl");
  std::string b_name = b.substr(b.rfind('/') + 1), a_name = a.substr(a.rfind('/') + 1);
  write_file(a, "import \"" + b_name + "\"\nlet in_a = 1\n");
  write_file(b, "import \"" + a_name + "\"\nlet in_b = 1\n");
  write_file(self, "import \"" + self.substr(self.rfind('/') + 1) + "\"\n");
  Session s;
  nabla::EvalResult r = s.interp.eval_file(a);
  REQUIRE_FALSE(r.ok);
  CHECK(contains(r.error->message, b + ":1:1: error: circular import: " + a + " -> " + b + " -> " + a));
  // Imported from elsewhere, the chain starts at the first file of the cycle.
  CHECK(contains(s.error("import \"" + a + "\""), "circular import: " + a + " -> " + b + " -> " + a));
  r = s.interp.eval_file(self);
  REQUIRE_FALSE(r.ok);
  CHECK(contains(r.error->message, "circular import: " + self + " -> " + self));
  // The session goes on, and a file imported twice (two spellings) runs once.
  write_file(b, "print('ran b')\nlet in_b = 2\n");
  CHECK(s.run("import \"" + b + "\" as first\nimport \"/tmp/./" + b.substr(5) + "\" as second\nprint(second.in_b)") ==
        "ran b\n2\n");
  for (auto& p : {a, b, self}) std::remove(p.c_str());
}

TEST_CASE("imports: a cycle of library modules is an error naming the chain") {
  nabla::interp::register_stdlib_source("modules_cycle_p", "import modules_cycle_q\nlet p = 1\n");
  nabla::interp::register_stdlib_source("modules_cycle_q", "import modules_cycle_p\nlet q = 1\n");
  Session s;
  CHECK(contains(s.error("import modules_cycle_p"),
                 "circular import: modules_cycle_p -> modules_cycle_q -> modules_cycle_p"));
  // The embedded library imports each other as before.
  CHECK(s.run("import quant\nimport nn\nprint(type(nn.Linear(1, 1)))") == "Linear\n");
}
